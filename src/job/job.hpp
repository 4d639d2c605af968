// src/job/job.hpp — the state of a running job, shared by every runtime module.
//
// One `job` exists while pgas::run() runs. Each thread owns one cache-line-aligned record that
// only it writes on fast paths; other threads read records only to write error reports
// (where is everyone waiting?), so recording costs no coherence traffic.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include <pgas/detail/value_exchange.hpp>
#include <pgas/runtime.hpp>

#include "src/base/backoff.hpp"
#include "src/job/barrier.hpp"
#include "src/job/collective_epochs.hpp"
#include "src/job/wait_graph.hpp"
#include "src/models/hwloc_machine.hpp"

namespace pgas::detail {

enum class thread_state : int { running, waiting, returned };

/// A thread's last value-collective agreement (src/job/value.cpp): reused while its calls'
/// arguments stay the same. `type` and `op` of `call` are compared by address (one string per
/// type in a program; another address with the same text only costs a new format). The text
/// stays valid until the thread's next value collective, as reports of other threads read it.
struct value_agreement {
  bool valid = false;
  value_call call{};
  std::string text;
  std::int32_t hash = 0;
  barrier_op op;  // the barrier of `call`, but for its source location (set per call)
};

/// What a thread is doing in a collective call; read by error reports from other threads.
struct alignas(64) thread_record {
  std::atomic<thread_state> state{thread_state::running};
  std::atomic<const char*> op{nullptr};  // "pgas::barrier", "pgas::all_lock_alloc", ...
  std::atomic<std::uint8_t> kind{0};     // op's op_kind, what a mismatch report compares
  std::atomic<const char*> file{nullptr};
  std::atomic<std::uint32_t> line{0};
  std::atomic<bool> has_id{false};
  std::atomic<std::int32_t> id{0};
  std::atomic<const char*> id_label{nullptr};  // what id means for this op, e.g. "id"
  std::atomic<const char*> detail{nullptr};    // the op's arguments as text, or null
  // The barrier phase the thread waits for (its wait_generation when it arrived), so that a
  // report can tell a thread still leaving a released phase from one waiting at the pending one.
  std::atomic<std::uint32_t> waits_for{0};
  wait_slot blocked;  // what the thread waits for, once it has waited long (wait_graph.hpp)
  // Written and read only by the owning thread.
  bool notified = false;  // between notify() and wait()
  bool notify_has_id = false;
  std::int32_t notify_id = 0;
  std::uint32_t wait_generation = 0;
  // This thread's count of UPC collective calls (collective_epochs.cpp) modulo 4, where its
  // barrier arrivals carry it (barrier.cpp: bits 30-31 of the arrival word).
  std::uint64_t call_bits = 0;
  const char* notify_name = "pgas::notify";  // as the program spelled it (upc_notify, …)
  const char* notify_file = nullptr;
  std::uint32_t notify_line = 0;
  std::uint64_t broadcasts = 0;         // collective broadcasts done, selects the buffer
  std::uint64_t value_collectives = 0;  // value collectives done, selects the slot (value.cpp)
  value_agreement value_args;
  int status = 0;
  pthread_t handle{};
  std::atomic<int> tid{0};  // the kernel's id, written by the owner when it starts (backtraces)
};

struct job {
  int threads = 1;
  run_options options;  // resolved
  machine plan_machine;
  std::vector<thread_place> plan;
  std::vector<int> private_node;  // per thread: the node of its private allocations
  topology_handle topo;  // this machine, for binding; null when planning on a described one
  bool oversubscribed = false;
  wait_policy wait;  // spin (PGAS_SPIN) and yields before a waiter sleeps
  std::size_t stack_bytes = 0;
  std::size_t shared_heap_limit = 0;  // 0: none
  bool report_memory = false;
  bool report_tables = false;
  bool tables_auto = true;       // PGAS_TABLES: shared arrays may build automatic tables
  double timeout_seconds = 0;    // PGAS_TIMEOUT; 0: none (src/job/watchdog.cpp)
  std::size_t nb_threshold = 0;  // PGAS_NB_THRESHOLD; SIZE_MAX: off (src/objects/nb.cpp)
  body_function body;
  int argc = 0;
  char** argv = nullptr;
  std::unique_ptr<thread_record[]> records;
  // Per-thread entry/exit epochs of the UPC collectives (collective_epochs.hpp).
  std::unique_ptr<collective_epoch[]> epochs;
  barrier_state barrier;
  std::atomic<int> returned{0};
  // Double-buffered slot for one-to-all broadcasts inside collectives (see collective_bcast).
  alignas(64) std::atomic<void*> bcast[2] = {nullptr, nullptr};
  // Per thread, the two slots of the value collectives (src/job/value.hpp).
  std::unique_ptr<value_slots[]> values;
  // What the operation threw when the last arriver of a value collective combined for every
  // thread (src/job/value.cpp), null when it returned; written only in that hook, before the
  // release, and read by every thread after it, so each rethrows it.
  std::exception_ptr combine_failure;

  thread_record& record(int t) noexcept { return records[static_cast<std::size_t>(t)]; }
  collective_epoch& epoch(int t) noexcept { return epochs[static_cast<std::size_t>(t)]; }
};

/// The running job; null outside pgas::run().
job* job_current() noexcept;

/// The running job, or misuse ("<what> called outside pgas::run()") naming `where`.
job& job_or_misuse(const std::source_location& where, const char* what);

/// How the calling thread waits: the job's policy, or the defaults outside a job.
const wait_policy& job_wait_policy() noexcept;

/// Registers `fn` to run on thread 0 when every job ends, after the join and before the shared
/// space is destroyed (for layers above the job: reports and registries of what a job built).
/// Call it during static initialisation; hooks run in registration order.
void job_on_end(void (*fn)(const job& j));

}  // namespace pgas::detail
