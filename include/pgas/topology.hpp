// pgas/topology.hpp — the machine as pgas sees it, and where threads go on it.
//
// A `machine` is a flat, value-type summary of an hwloc topology: its processing units (PUs)
// in hwloc's logical order, each tagged with the core, L3 cache, NUMA node and package it
// belongs to. It is built from this machine (restricted to the CPUs the process may run on),
// from an hwloc synthetic description such as "package:2 numa:2 core:8 pu:2", or from an
// hwloc XML export of another machine.
//
// Placement is a pure function of a machine, a thread count and two policies (`place`), so
// it is tested on synthetic machines and `pgasrun --dry-run --topology` can plan for a machine
// you are not on.
//
// Contract.
//   * Collective: nothing here.
//   * Errors (pgas/error.hpp's recoverable kind): a machine that cannot be loaded throws
//     pgas::topology_error; a malformed policy word, or place() with fewer than one thread or
//     on a machine with no PUs, throws std::invalid_argument. Nothing here is misuse.
//   * Outside a job everything works the same: none of it needs a running job (the running
//     job's own machine and placement are pgas::job_machine() and pgas::job_placement()).
//   * Thread safety: every function may be called from any thread; machine and thread_place
//     are values. machine::current() asks hwloc afresh on each call.
#pragma once

#include <pgas/detail/export.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pgas {

/// What each thread is bound to (pgasrun `--bind-to`): the PUs of its core, of its NUMA node,
/// of its package, or nothing (the OS schedules it freely).
enum class bind_policy { core, numa, socket, none };

/// How threads are dealt over the machine (pgasrun `--map-by`): `core` fills PUs in logical
/// order; `numa` and `socket` deal threads round-robin over NUMA nodes or packages, each
/// domain giving its next PU in logical order and domains whose PUs are all taken being
/// skipped. Past one thread per PU, the same sequence repeats.
enum class map_policy { core, numa, socket };

/// Parses "core", "numa", "socket", "none" (bind) / "core", "numa", "socket" (map).
/// Throws std::invalid_argument naming the bad word and the accepted ones.
PGAS_API bind_policy parse_bind_policy(std::string_view word);
PGAS_API map_policy parse_map_policy(std::string_view word);
PGAS_API std::string_view to_string(bind_policy p) noexcept;
PGAS_API std::string_view to_string(map_policy p) noexcept;

/// A malformed synthetic description, an unreadable XML file, or hwloc failing to load.
class PGAS_API topology_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One processing unit. Indices are hwloc logical indices (0.. per type, in machine order)
/// except `os_index`, the number the OS uses (what taskset and /proc/cpuinfo call a CPU).
/// `l2`, `l3` and `numa` are -1 on machines where hwloc reports none above this PU. `numa_os` is
/// the node's OS number (what mbind, numactl and /sys call it), which can differ from its logical
/// index when the process may use only some nodes.
struct pu_info {
  int os_index = 0;
  int logical = 0;
  int core = 0;
  int l2 = -1;
  int l3 = -1;
  int numa = -1;
  int package = 0;
  int numa_os = -1;
};

/// A machine: its PUs in logical order plus a one-line description.
class PGAS_API machine {
 public:
  /// This machine, as hwloc sees it, restricted to the CPUs this process may run on
  /// (cgroups and an inherited affinity mask such as `taskset`). Throws topology_error.
  static machine current();
  /// The most PUs a described machine (synthetic or XML) may have.
  static constexpr std::size_t max_described_pus = 16384;
  /// The most children one level of a synthetic description may give each parent.
  static constexpr std::size_t max_described_arity = 1024;
  /// The largest topology XML file read, in bytes.
  static constexpr std::size_t max_xml_bytes = 64 << 20;

  /// An hwloc synthetic description, e.g. "package:2 numa:2 l3:1 core:8 pu:2".
  /// Throws topology_error naming it when hwloc cannot parse it, it has over max_described_pus
  /// PUs, a level over max_described_arity per parent, or indexes= an OS index over 1048575.
  static machine synthetic(std::string_view description);
  /// An hwloc XML export (`lstopo machine.xml`). Throws topology_error when the path is not a
  /// regular file of at most max_xml_bytes, is not a topology, or has more than
  /// max_described_pus PUs.
  static machine from_xml(const std::string& path);
  /// "synthetic:DESC" (quotes around DESC are tolerated) or a path to an XML file; an empty
  /// spec means current(). Throws topology_error.
  static machine from_spec(std::string_view spec);

  const std::vector<pu_info>& pus() const noexcept { return pus_; }
  int pu_count() const noexcept { return static_cast<int>(pus_.size()); }
  int core_count() const noexcept { return cores_; }
  int numa_count() const noexcept { return numas_; }
  int package_count() const noexcept { return packages_; }
  int l3_count() const noexcept { return l3s_; }
  /// True when built from this machine (binding can be applied), false for a described one.
  bool is_current() const noexcept { return current_; }
  /// e.g. "2 packages, 4 NUMA nodes, 16 cores, 32 PUs (synthetic:package:2 numa:2 core:4 pu:2)".
  const std::string& description() const noexcept { return description_; }

  /// Builds a machine from explicit PUs (for tests of placement on hand-made machines).
  machine(std::vector<pu_info> pus, std::string description, bool current = false);
  machine() = default;

 private:
  std::vector<pu_info> pus_;
  int cores_ = 0, numas_ = 0, packages_ = 0, l3s_ = 0;
  bool current_ = false;
  std::string description_;
};

/// Where one thread goes: its home PU (an index into machine::pus()) and the OS indices of the
/// CPUs it is bound to (empty for bind_policy::none).
struct thread_place {
  int thread = 0;
  int pu = 0;
  std::vector<int> cpus;
};

/// The placement of `threads` threads (>= 1) on `m`: a pure function, the same answer for the
/// same arguments on any host. More threads than PUs wrap around (thread t and t + PUs share a
/// PU); see oversubscribed(). Throws std::invalid_argument for threads < 1 or a machine with
/// no PUs.
PGAS_API std::vector<thread_place> place(const machine& m, int threads, bind_policy bind,
                                         map_policy map);

/// Thread `thread`'s home NUMA node: the OS index of the NUMA node of its home PU in
/// `placement` on `m`, or -1 when the machine reports none there. The one definition of "thread
/// t's node": segments, private arenas and table replicas are all placed by it.
PGAS_API int home_node(const machine& m, const std::vector<thread_place>& placement,
                       int thread) noexcept;

/// True when `threads` is more than the PUs of `m` (threads will share PUs).
inline bool oversubscribed(const machine& m, int threads) noexcept {
  return threads > m.pu_count();
}

/// The human table `pgasrun --report-bindings` prints: a heading line naming the machine,
/// thread count and policies, then one row per thread: thread, PU (OS index), core, L3, NUMA
/// node, package and the CPU list it is bound to ("-" for none).
PGAS_API std::string bindings_report(const machine& m, const std::vector<thread_place>& plan,
                                     bind_policy bind, map_policy map);

/// Formats a list of OS CPU indices compactly: {0,1,2,5} → "0-2,5"; empty → "-".
PGAS_API std::string cpu_list(const std::vector<int>& cpus);

}  // namespace pgas
