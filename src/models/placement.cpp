// src/models/placement.cpp — where each thread goes: pgas::place, the binding policies and the
// --report-bindings table.
//
// place() is a pure function of a machine summary, so the same plan comes out on any host
// (pgasrun --dry-run --topology plans for machines we are not on; tests use synthetic ones).

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include <pgas/topology.hpp>

namespace pgas {

bind_policy parse_bind_policy(std::string_view word) {
  if (word == "core") return bind_policy::core;
  if (word == "numa") return bind_policy::numa;
  if (word == "socket") return bind_policy::socket;
  if (word == "none") return bind_policy::none;
  throw std::invalid_argument(
      fmt::format("unknown binding policy '{}' (expected core, numa, socket or none)", word));
}

map_policy parse_map_policy(std::string_view word) {
  if (word == "core") return map_policy::core;
  if (word == "numa") return map_policy::numa;
  if (word == "socket") return map_policy::socket;
  throw std::invalid_argument(
      fmt::format("unknown mapping policy '{}' (expected core, numa or socket)", word));
}

std::string_view to_string(bind_policy p) noexcept {
  switch (p) {
    case bind_policy::core:
      return "core";
    case bind_policy::numa:
      return "numa";
    case bind_policy::socket:
      return "socket";
    case bind_policy::none:
      return "none";
  }
  return "?";
}

std::string_view to_string(map_policy p) noexcept {
  switch (p) {
    case map_policy::core:
      return "core";
    case map_policy::numa:
      return "numa";
    case map_policy::socket:
      return "socket";
  }
  return "?";
}

namespace {

// The PUs (indices into m.pus()) of each domain, domains in increasing id order, PUs in
// logical order. Machines without NUMA information form one domain.
std::vector<std::vector<int>> domains(const machine& m, int pu_info::*field) {
  std::map<int, std::vector<int>> by_id;
  for (int i = 0; i < m.pu_count(); ++i)
    by_id[m.pus()[static_cast<std::size_t>(i)].*field].push_back(i);
  std::vector<std::vector<int>> out;
  for (auto& [id, list] : by_id)
    out.push_back(std::move(list));
  return out;
}

std::vector<int> cpus_sharing(const machine& m, int home, int pu_info::*field) {
  const int key = m.pus()[static_cast<std::size_t>(home)].*field;
  std::vector<int> cpus;
  for (const pu_info& p : m.pus()) {
    if (p.*field == key) cpus.push_back(p.os_index);
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

}  // namespace

std::vector<thread_place> place(const machine& m, int threads, bind_policy bind, map_policy map) {
  if (threads < 1) throw std::invalid_argument("place: the thread count must be at least 1");
  if (m.pu_count() == 0) throw std::invalid_argument("place: the machine has no PUs");
  // The order in which PUs receive threads. map core: logical order. map numa/socket: deal
  // round-robin over the domains, each giving its next PU in logical order; a domain whose PUs
  // are all taken is skipped, so uneven domains never double up while PUs are free. With
  // more threads than PUs the sequence repeats. (On even domains this is thread t -> domain
  // t % D, its (t / D)-th PU.)
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(m.pu_count()));
  if (map == map_policy::core) {
    for (int i = 0; i < m.pu_count(); ++i)
      order.push_back(i);
  } else {
    const auto doms = domains(m, map == map_policy::numa ? &pu_info::numa : &pu_info::package);
    for (std::size_t round = 0; order.size() < static_cast<std::size_t>(m.pu_count()); ++round) {
      for (const std::vector<int>& dom : doms) {
        if (round < dom.size()) order.push_back(dom[round]);
      }
    }
  }

  std::vector<thread_place> plan(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    thread_place& p = plan[static_cast<std::size_t>(t)];
    p.thread = t;
    p.pu = order[static_cast<std::size_t>(t % m.pu_count())];
    switch (bind) {
      case bind_policy::core:
        p.cpus = cpus_sharing(m, p.pu, &pu_info::core);
        break;
      case bind_policy::numa:
        p.cpus = cpus_sharing(m, p.pu, &pu_info::numa);
        break;
      case bind_policy::socket:
        p.cpus = cpus_sharing(m, p.pu, &pu_info::package);
        break;
      case bind_policy::none:
        break;
    }
  }
  return plan;
}

std::string cpu_list(const std::vector<int>& cpus) {
  if (cpus.empty()) return "-";
  std::vector<int> c = cpus;
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  std::string out;
  for (std::size_t i = 0; i < c.size();) {
    std::size_t j = i;
    while (j + 1 < c.size() && c[j + 1] == c[j] + 1)
      ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", c[i]) : fmt::format("{}-{}", c[i], c[j]);
    i = j + 1;
  }
  return out;
}

std::string bindings_report(const machine& m, const std::vector<thread_place>& plan,
                            bind_policy bind, map_policy map) {
  std::string out = fmt::format("{} thread{} on {}; bind-to {}, map-by {}{}\n", plan.size(),
                                plan.size() == 1 ? "" : "s", m.description(), to_string(bind),
                                to_string(map), m.is_current() ? "" : " (plan only, not applied)");
  out += fmt::format("{:>6}  {:>6}  {:>5}  {:>3}  {:>4}  {:>7}  {}\n", "thread", "PU(OS)", "core",
                     "L3", "NUMA", "package", "bound to CPUs");
  auto idx = [](int v) { return v < 0 ? std::string("-") : fmt::format("{}", v); };
  for (const thread_place& p : plan) {
    const pu_info& pu = m.pus()[static_cast<std::size_t>(p.pu)];
    out += fmt::format("{:>6}  {:>6}  {:>5}  {:>3}  {:>4}  {:>7}  {}\n", p.thread, pu.os_index,
                       pu.core, idx(pu.l3), idx(pu.numa), pu.package, cpu_list(p.cpus));
  }
  return out;
}

int home_node(const machine& m, const std::vector<thread_place>& placement, int thread) noexcept {
  if (thread < 0 || static_cast<std::size_t>(thread) >= placement.size()) return -1;
  const auto pu = static_cast<std::size_t>(placement[static_cast<std::size_t>(thread)].pu);
  return pu < m.pus().size() ? m.pus()[pu].numa_os : -1;
}

}  // namespace pgas
