// src/models/topology.cpp — building pgas::machine values from hwloc (this machine, a synthetic
// description, or an XML export).
//
// hwloc 2 attaches NUMA nodes as memory children rather than as ancestors of PUs, so a PU's
// node is found by cpuset membership; everything else is a logical ancestor index.

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "src/base/file.hpp"
#include "src/models/hwloc_machine.hpp"

namespace pgas {

namespace {

int ancestor_index(hwloc_topology_t topo, hwloc_obj_t pu, hwloc_obj_type_t type, int fallback) {
  hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(topo, type, pu);
  return a != nullptr ? static_cast<int>(a->logical_index) : fallback;
}

// A topology file hwloc accepts may still contradict itself (hwloc cuts an OS index past 32
// bits, and trusts the cpusets as written): every PU must be in its own cpuset under an OS
// index no other PU has, and in a NUMA node's cpuset when the file has NUMA nodes. A plan made
// from anything else binds threads to CPUs the machine described does not have.
void check_consistent(hwloc_topology_t topo, const std::string& path) {
  const int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  const int nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  std::set<unsigned> seen;
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    const auto fail = [&](std::string_view what) {
      throw topology_error(
          fmt::format("topology XML '{}' contradicts itself: PU L#{} (OS index {}) {}", path, i,
                      pu->os_index, what));
    };
    if (pu->os_index > static_cast<unsigned>(std::numeric_limits<int>::max()) ||
        pu->cpuset == nullptr || !hwloc_bitmap_isset(pu->cpuset, pu->os_index) ||
        hwloc_bitmap_weight(pu->cpuset) != 1) {
      fail("is not the one CPU of its own cpuset");
    }
    if (!seen.insert(pu->os_index).second) fail("has the OS index of another PU");
    bool in_node = nnuma == 0;
    for (int j = 0; j < nnuma && !in_node; ++j) {
      hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(j));
      in_node = node->cpuset != nullptr && hwloc_bitmap_isset(node->cpuset, pu->os_index);
    }
    if (!in_node) fail("is in no NUMA node's cpuset");
  }
}

int count_distinct(const std::vector<pu_info>& pus, int pu_info::*field) {
  std::set<int> seen;
  for (const pu_info& p : pus) {
    if (p.*field >= 0) seen.insert(p.*field);
  }
  return static_cast<int>(seen.size());
}

detail::topology_handle topology_init() {
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0) throw topology_error("hwloc: cannot create a topology");
  return detail::topology_handle(topo);
}

void topology_load(hwloc_topology_t topo, std::string_view what) {
  if (hwloc_topology_load(topo) != 0) {
    throw topology_error(
        fmt::format("hwloc could not load the topology of {}: {}", what, std::strerror(errno)));
  }
}

// The number whose digits start at desc[at], saturating at SIZE_MAX; `at` moves past them.
std::size_t read_number(std::string_view desc, std::size_t& at) {
  std::size_t number = 0;
  for (; at < desc.size() && desc[at] >= '0' && desc[at] <= '9'; ++at) {
    const auto digit = static_cast<std::size_t>(desc[at] - '0');
    number = number > (std::numeric_limits<std::size_t>::max() - digit) / 10
                 ? std::numeric_limits<std::size_t>::max()
                 : number * 10 + digit;
  }
  return number;
}

// The PUs a synthetic description makes: the product of its levels' arities ("package:2
// numa:2 core:8 pu:2" makes 64), saturating at SIZE_MAX, and its largest arity. Every number
// counts but a cache level's (l3) and those in a level's attributes (a closed "(...)" right after
// its arity): hwloc also reads a bare number as a level ("2 2 2", or the 2000 of "2000pu:64",
// which made 128000 PUs), so counting more than the arities errs towards refusing. hwloc itself
// rejects what is malformed.
std::size_t synthetic_pus(std::string_view desc, std::size_t* widest) {
  *widest = 0;
  std::size_t product = 1;
  for (std::size_t at = 0; at < desc.size();) {
    const char c = desc[at];
    const bool after_digit = at > 0 && desc[at - 1] >= '0' && desc[at - 1] <= '9';
    if (c == '(' && after_digit) {  // a level's attributes, "pu:2(indexes=0,2,1,3)"
      const std::size_t close = desc.find(')', at);
      at = close == std::string_view::npos ? at + 1 : close + 1;
      continue;
    }
    const bool cache_level = at > 0 && (desc[at - 1] == 'l' || desc[at - 1] == 'L');
    if (c < '0' || c > '9' || cache_level) {
      ++at;
      continue;
    }
    const std::size_t arity = read_number(desc, at);
    if (arity == 0) continue;
    *widest = std::max(*widest, arity);
    if (product > std::numeric_limits<std::size_t>::max() / arity) {
      return std::numeric_limits<std::size_t>::max();
    }
    product *= arity;
  }
  return product;
}

// The largest OS index an `indexes=` list of a synthetic description may give. hwloc keeps a
// bitmap up to each index it is given: 4000000000 took it 6 GB and 19 s, a hang to a user who
// mistyped one; real machines number their PUs and nodes well below this.
constexpr std::size_t max_synthetic_os_index = (std::size_t{1} << 20) - 1;

// The largest number in the description's `indexes=` lists (hwloc's explicit OS indexes, or the
// counts of an interleaving such as "indexes=2*2:1*2"), saturating at SIZE_MAX; 0 without one.
std::size_t synthetic_largest_index(std::string_view desc) {
  constexpr std::string_view key = "indexes=";
  std::size_t largest = 0;
  for (std::size_t at = desc.find(key); at != std::string_view::npos; at = desc.find(key, at)) {
    for (at += key.size(); at < desc.size();) {
      const char c = desc[at];
      if (c >= '0' && c <= '9') {
        largest = std::max(largest, read_number(desc, at));
      } else if (c == ',' || c == '*' || c == ':') {
        ++at;
      } else {
        break;
      }
    }
  }
  return largest;
}

std::string strip_quotes(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return std::string(s);
}

}  // namespace

namespace detail {

topology_handle topology_load_current() {
  topology_handle topo = topology_init();
  topology_load(topo.get(), "this machine");
  // Respect an inherited affinity mask (taskset, a batch system, a benchmark harness): plan
  // only on the CPUs this thread may run on.
  hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
  if (allowed != nullptr && hwloc_get_cpubind(topo.get(), allowed, HWLOC_CPUBIND_THREAD) == 0 &&
      !hwloc_bitmap_iszero(allowed) &&
      !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(topo.get()), allowed)) {
    hwloc_topology_restrict(topo.get(), allowed, 0);
  }
  hwloc_bitmap_free(allowed);
  return topo;
}

machine machine_from_hwloc(hwloc_topology_t topo, std::string_view source, bool current) {
  std::vector<pu_info> pus;
  const int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  const int nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  pus.reserve(static_cast<std::size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    pu_info p;
    p.os_index = static_cast<int>(pu->os_index);
    p.logical = static_cast<int>(pu->logical_index);
    p.core = ancestor_index(topo, pu, HWLOC_OBJ_CORE, p.logical);
    p.l2 = ancestor_index(topo, pu, HWLOC_OBJ_L2CACHE, -1);
    p.l3 = ancestor_index(topo, pu, HWLOC_OBJ_L3CACHE, -1);
    p.package = ancestor_index(topo, pu, HWLOC_OBJ_PACKAGE, 0);
    for (int j = 0; j < nnuma; ++j) {
      hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(j));
      if (node->cpuset != nullptr && hwloc_bitmap_isset(node->cpuset, pu->os_index)) {
        p.numa = static_cast<int>(node->logical_index);
        p.numa_os = static_cast<int>(node->os_index);
        break;
      }
    }
    pus.push_back(p);
  }
  return machine(std::move(pus), std::string(source), current);
}

}  // namespace detail

machine::machine(std::vector<pu_info> pus, std::string source, bool current)
    : pus_(std::move(pus)), current_(current) {
  cores_ = count_distinct(pus_, &pu_info::core);
  numas_ = std::max(1, count_distinct(pus_, &pu_info::numa));
  packages_ = std::max(1, count_distinct(pus_, &pu_info::package));
  l3s_ = count_distinct(pus_, &pu_info::l3);
  auto plural = [](int k, const char* word) {
    return fmt::format("{} {}{}", k, word, k == 1 ? "" : "s");
  };
  description_ =
      fmt::format("{}, {}, {}, {}", plural(packages_, "package"), plural(numas_, "NUMA node"),
                  plural(cores_, "core"), plural(pu_count(), "PU"));
  if (!source.empty()) description_ += fmt::format(" ({})", source);
}

machine machine::current() {
  detail::topology_handle topo = detail::topology_load_current();
  return detail::machine_from_hwloc(topo.get(), "this machine", true);
}

machine machine::synthetic(std::string_view description) {
  std::string desc = strip_quotes(description);
  // hwloc builds a synthetic machine in time that grows faster than its size (16384 PUs take
  // about a second, 65536 more than a minute): refuse large ones before asking it.
  std::size_t widest = 0;
  if (const std::size_t pus = synthetic_pus(desc, &widest); pus > max_described_pus) {
    throw topology_error(
        fmt::format("synthetic topology '{}' has {} PUs; at most {} can be described", desc,
                    pus == std::numeric_limits<std::size_t>::max() ? std::string("too many")
                                                                   : std::to_string(pus),
                    max_described_pus));
  }
  // Siblings cost hwloc more than levels do (pu:16384 takes tens of seconds, 16 x 1024 a few).
  if (widest > max_described_arity) {
    throw topology_error(fmt::format(
        "synthetic topology '{}' has a level of {} objects; at most {} per level can be described",
        desc, widest, max_described_arity));
  }
  if (const std::size_t index = synthetic_largest_index(desc); index > max_synthetic_os_index) {
    throw topology_error(fmt::format(
        "synthetic topology '{}' gives the OS index {} in indexes=; at most {} can be described",
        desc,
        index == std::numeric_limits<std::size_t>::max() ? std::string("(too large)")
                                                         : std::to_string(index),
        max_synthetic_os_index));
  }
  detail::topology_handle topo = topology_init();
  if (desc.empty() || hwloc_topology_set_synthetic(topo.get(), desc.c_str()) != 0) {
    throw topology_error(
        fmt::format("malformed synthetic topology '{}' (expected levels such as \"package:2 numa:2 "
                    "core:8 pu:2\")",
                    desc));
  }
  topology_load(topo.get(), fmt::format("synthetic '{}'", desc));
  return detail::machine_from_hwloc(topo.get(), "synthetic:" + desc, false);
}

machine machine::from_xml(const std::string& path) {
  std::string xml;
  try {
    xml = detail::read_bounded_file(path, max_xml_bytes);
  } catch (const detail::file_error& e) {
    throw topology_error(fmt::format("cannot read topology XML {}", e.what()));
  }
  detail::topology_handle topo = topology_init();
  // The length hwloc wants counts the terminating NUL.
  if (hwloc_topology_set_xmlbuffer(topo.get(), xml.c_str(), static_cast<int>(xml.size() + 1)) !=
      0) {
    throw topology_error(fmt::format("'{}' is not an hwloc topology XML: {}", path,
                                     errno != 0 ? std::strerror(errno) : "malformed"));
  }
  topology_load(topo.get(), fmt::format("XML '{}'", path));
  check_consistent(topo.get(), path);
  machine m = detail::machine_from_hwloc(topo.get(), path, false);
  if (static_cast<std::size_t>(m.pu_count()) > max_described_pus) {
    throw topology_error(fmt::format("topology XML '{}' has {} PUs; at most {} can be described",
                                     path, m.pu_count(), max_described_pus));
  }
  return m;
}

machine machine::from_spec(std::string_view spec) {
  std::string s = strip_quotes(spec);
  if (s.empty()) return current();
  constexpr std::string_view prefix = "synthetic:";
  if (s.starts_with(prefix)) return synthetic(std::string_view(s).substr(prefix.size()));
  return from_xml(s);
}

}  // namespace pgas
