// src/job/runtime.cpp — pgas::run: starting a job of pinned threads, running the body in each,
// joining them and combining their exit statuses.
//
// Start-up order: read the run settings (the environment, src/job/run_options.cpp) -> load
// the machine -> plan placement -> install fault handlers -> start the watchdog (timeout,
// SIGQUIT) -> bind thread 0 -> create threads 1..N-1 (each binds itself) -> create the static
// shared objects (src/job/static_registry.cpp) -> run the body -> free the static shared
// objects. Thread 0's original binding is restored afterwards, since it is the caller's thread.

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <thread>

#include <pgas/detail/upc_call.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sync.hpp>

#include "alloc/arenas.hpp"
#include "alloc/replicas.hpp"
#include "alloc/space.hpp"
#include "src/base/faults.hpp"
#include "src/base/os.hpp"
#include "src/job/barrier.hpp"
#include "src/job/job.hpp"
#include "src/job/reuse.hpp"
#include "src/job/run_options.hpp"
#include "src/job/static_registry.hpp"
#include "src/job/trace.hpp"
#include "src/job/watchdog.hpp"

namespace pgas {

namespace detail {

namespace {
std::atomic<job*> current{nullptr};
std::atomic<bool> running{false};

// Hooks of the layers above, run when a job ends (job_on_end).
std::vector<void (*)(const job&)>& end_hooks() {
  static std::vector<void (*)(const job&)> hooks;
  return hooks;
}

// Names a write into a read-only privatization table replica in a SIGSEGV report.
bool explain_fault(const void* addr, fault_text& out) noexcept {
  int table = 0;
  int replica = 0;
  if (!replica_at(addr, &table, &replica)) return false;
  out.add("a write into replica ");
  out.add_int(replica);
  out.add(" of privatization table ");
  out.add_int(table);
  out.add(", which is read-only");
  return true;
}

const wait_policy default_wait{};
}  // namespace

job* job_current() noexcept {
  return current.load(std::memory_order_acquire);
}

job& job_or_misuse(const std::source_location& where, const char* what) {
  job* j = job_current();
  if (j == nullptr) misuse(fmt::format("{} called outside pgas::run()", what), where);
  return *j;
}

const wait_policy& job_wait_policy() noexcept {
  const job* j = job_current();
  return j != nullptr ? j->wait : default_wait;
}

void job_on_end(void (*fn)(const job& j)) {
  end_hooks().push_back(fn);
}

}  // namespace detail

namespace {

[[noreturn]] void start_error(std::string_view what) {
  std::fflush(stdout);
  detail::os_write_stderr(fmt::format("pgas: error: {}\n", what));
  detail::os_exit(2);
}

void thread_body(detail::job& j, int t) {
  detail::tls_mythread = t;
  detail::tls_job_thread = true;
  j.record(t).tid.store(detail::os_thread_id(), std::memory_order_release);
  detail::faults_thread_start();
  if (j.topo != nullptr) {
    const std::vector<int>& cpus = j.plan[static_cast<std::size_t>(t)].cpus;
    if (int r = detail::os_bind_thread(j.topo.get(), cpus); r != 0 && t == 0) {
      detail::os_write_stderr(fmt::format(
          "pgas: warning: cannot bind threads ({}); running unbound\n", std::strerror(-r)));
    }
  }
  detail::arenas_thread_start(t, j.private_node[static_cast<std::size_t>(t)]);
  detail::trace_thread_begin(t);
  detail::reuse_thread_begin(t);
}

void thread_finish(detail::job& j, int t, int status) {
  detail::trace_thread_end();
  detail::reuse_thread_end();
  j.record(t).status = status;
  detail::arenas_thread_end(t);
  detail::barrier_thread_returned(j, t);
  detail::faults_thread_end();
}

void* worker_main(void* arg) {
  // No try/catch here: an uncaught exception then reaches std::terminate with the throwing
  // thread's stack intact, so the fault report's backtrace shows where it was thrown.
  auto* j = detail::job_current();
  const int t = static_cast<int>(reinterpret_cast<std::intptr_t>(arg));
  thread_body(*j, t);
  detail::static_objects_thread_create();
  int status = j->body(j->argc, j->argv);
  detail::static_objects_thread_destroy(*j);
  thread_finish(*j, t, status);
  return nullptr;
}

int run_thread0(detail::job& j) noexcept {
  // noexcept: an exception escaping thread 0's body (or the creation of the static shared
  // objects) must end the job, not unwind into the caller of pgas::run while the other threads
  // still run.
  detail::static_objects_thread_create();
  const int status = j.body(j.argc, j.argv);
  detail::static_objects_thread_destroy(j);
  return status;
}

}  // namespace

int run(int argc, char** argv, body_function body) {
  return run(run_options{}, argc, argv, std::move(body));
}

int run(const run_options& options, int argc, char** argv, body_function body) {
  if (detail::running.exchange(true)) {
    start_error("pgas::run() called while a job is already running (jobs do not nest)");
  }
  auto j = std::make_unique<detail::job>();
  detail::run_settings settings;
  try {
    settings = detail::run_settings_read(options);
  } catch (const std::invalid_argument& e) {
    start_error(e.what());
  }
  detail::os_write_stderr(settings.warnings);
  detail::os_write_stderr(settings.verbose_dump);
  j->options = settings.options;
  j->stack_bytes = settings.stack_bytes;
  j->shared_heap_limit = settings.shared_heap_limit;
  j->report_memory = settings.report_memory;
  j->report_tables = settings.report_tables;
  j->tables_auto = settings.tables_auto;
  j->timeout_seconds = settings.timeout_seconds;
  j->nb_threshold = settings.nb_threshold;
  const run_options& o = j->options;
  j->threads = *o.threads;
  try {
    if (o.topology->empty()) {
      j->topo = detail::topology_load_current();
      j->plan_machine = detail::machine_from_hwloc(j->topo.get(), "this machine", true);
    } else {
      j->plan_machine = machine::from_spec(*o.topology);
    }
  } catch (const topology_error& e) {
    start_error(e.what());
  }
  j->plan = place(j->plan_machine, j->threads, *o.bind_to, *o.map_by);
  if (*o.bind_to == bind_policy::none) j->topo.reset();

  // Oversubscription is about the CPUs we really run on, even when planning for another machine.
  const int cpus = j->plan_machine.is_current()
                       ? j->plan_machine.pu_count()
                       : static_cast<int>(std::thread::hardware_concurrency());
  j->oversubscribed = j->threads > cpus;
  // PGAS_SPIN as given; else 0 when oversubscribed (below), and otherwise the pauses that take
  // adaptive_spin_ns here, timed now (about 15 us) only when they will be used.
  j->wait.spin = settings.spin       ? *settings.spin
                 : j->oversubscribed ? 0
                                     : detail::pauses_in(detail::adaptive_spin_ns);
  if (!settings.verbose_dump.empty() && !settings.spin) {
    // The dump above shows "adaptive"; say what it came to.
    detail::os_write_stderr(
        j->oversubscribed
            ? std::string("pgas: PGAS_SPIN=adaptive: 0 pauses (more threads than processing "
                          "units: waiting threads yield)\n")
            : fmt::format("pgas: PGAS_SPIN=adaptive: {} pauses (about {} ms on this core)\n",
                          j->wait.spin, detail::adaptive_spin_ns / 1'000'000));
  }
  if (j->oversubscribed) {
    // A waiter's pauses only delay the threads that share its PU; a yield runs one of them
    // (or returns at once when none is runnable, keeping the PU awake for a quick release),
    // and sleeping leaves the PU idle until a cross-CPU wake-up. barrier_bench measured
    // (spin 0, yields 64) ahead of both (50, 16) and sleeping after no yields at 4 and 8
    // threads on 2 cores.
    j->wait.yields = detail::oversubscribed_yields;
    // Fewer PUs than the machine has: say where the limit comes from, since the likeliest
    // source is not the user's doing (libgomp, loaded with the program, binds the initial
    // thread to one PU under OMP_PROC_BIND before main runs).
    const int online = static_cast<int>(std::thread::hardware_concurrency());
    const std::string narrowed =
        j->plan_machine.is_current() && cpus < online
            ? fmt::format(
                  " (this process may run on {} of the machine's {}: an affinity mask "
                  "it inherited from taskset or a batch system, or that an OpenMP "
                  "runtime set as it loaded, under OMP_PROC_BIND or GOMP_CPU_AFFINITY)",
                  cpus, online)
            : "";
    detail::os_write_stderr(
        fmt::format("pgas: warning: {} threads on {} processing unit{}{}: threads share PUs and "
                    "waiting threads yield instead of spinning\n",
                    j->threads, cpus, cpus == 1 ? "" : "s", narrowed));
  }
  if (*o.report_bindings) {
    detail::os_write_stderr(bindings_report(j->plan_machine, j->plan, *o.bind_to, *o.map_by));
  }

  // Segment t is bound to thread t's home NUMA node when threads are really bound there;
  // private memory goes to that node whenever the plan is of this machine (else node 0).
  std::vector<int> nodes(static_cast<std::size_t>(j->threads), -1);
  j->private_node.assign(static_cast<std::size_t>(j->threads), 0);
  for (int t = 0; t < j->threads; ++t) {
    const int home = home_node(j->plan_machine, j->plan, t);
    if (j->topo != nullptr) nodes[static_cast<std::size_t>(t)] = home;
    if (j->plan_machine.is_current() && home >= 0)
      j->private_node[static_cast<std::size_t>(t)] = home;
  }
  try {
    detail::space_create(j->threads, nodes, j->shared_heap_limit);
    detail::arenas_create(j->threads);
  } catch (const std::runtime_error& e) {
    // Nothing of the job has started: say why and end, as for any start-up failure.
    std::fflush(nullptr);
    detail::os_write_stderr(fmt::format("pgas: error: cannot start the job: {}\n", e.what()));
    detail::os_exit(1);
  }

  if (!settings.trace_file.empty()) {
    try {
      detail::trace_job_begin(*j, settings.trace_file, settings.trace_memory);
    } catch (const std::runtime_error& e) {
      start_error(fmt::format("PGAS_TRACE: {}", e.what()));
    }
  }
  if (!settings.reuse_file.empty()) {
    try {
      detail::reuse_job_begin(*j, settings.reuse_file, settings.reuse_grain, settings.reuse_mode);
    } catch (const std::runtime_error& e) {
      start_error(fmt::format("PGAS_REUSE: {}", e.what()));
    }
  }
  j->records = std::make_unique<detail::thread_record[]>(static_cast<std::size_t>(j->threads));
  j->values = std::make_unique<detail::value_slots[]>(static_cast<std::size_t>(j->threads));
  j->epochs = std::make_unique<detail::collective_epoch[]>(static_cast<std::size_t>(j->threads));
  j->body = std::move(body);
  j->argc = argc;
  j->argv = argv;
  detail::job_threads = j->threads;
  detail::static_objects_job_begin(j->threads);
  detail::current.store(j.get(), std::memory_order_release);
  detail::job_live.store(true, std::memory_order_release);
  detail::faults_install(detail::explain_fault);
  // Started before thread 0 binds itself, so the watchdog keeps the caller's binding.
  detail::watchdog_start(*j);

  hwloc_bitmap_t saved_binding =
      j->topo != nullptr ? detail::os_get_thread_binding(j->topo.get()) : nullptr;
  thread_body(*j, 0);
  for (int t = 1; t < j->threads; ++t) {
    int r = detail::os_thread_create(&j->record(t).handle, j->stack_bytes, worker_main,
                                     reinterpret_cast<void*>(static_cast<std::intptr_t>(t)));
    if (r != 0) {
      // The usual cause is memory for the threads' stacks: say what each one asked for.
      detail::fault_end_job(
          fmt::format("cannot start thread {} of {}: {} (each thread's stack: {}; "
                      "PGAS_STACK_SIZE sets it, ulimit -u and the memory limits bound how many "
                      "threads fit)",
                      t, j->threads, std::strerror(-r),
                      j->stack_bytes != 0 ? fmt::format("{} KiB", j->stack_bytes / 1024)
                                          : std::string("the system's default")),
          1);
    }
  }
  int status0 = run_thread0(*j);
  thread_finish(*j, 0, status0);
  for (int t = 1; t < j->threads; ++t)
    detail::os_thread_join(j->record(t).handle);

  if (saved_binding != nullptr) {
    detail::os_set_thread_binding(j->topo.get(), saved_binding);
    hwloc_bitmap_free(saved_binding);
  }
  detail::static_objects_job_end();
  detail::watchdog_stop();
  // The end-of-job reports and warnings go to stderr after what the program wrote during the
  // job, which may still sit in stdout's buffer (a file or pipe is fully buffered): flush it
  // first, so that a run with both streams in one file reads in order.
  std::cout.flush();
  std::fflush(nullptr);
  if (j->report_memory) detail::os_write_stderr(detail::space_report());
  if (!detail::trace_job_end(*j) && j->record(0).status == 0) j->record(0).status = 1;
  if (!detail::reuse_job_end(*j) && j->record(0).status == 0) j->record(0).status = 1;
  for (auto* hook : detail::end_hooks())
    hook(*j);
  // Only now: the hooks stop the copy engines, which finish the transfers left at the job's end
  // and must fault as any thread does until joined (a default SIGSEGV gave no report, a stopped
  // symbolising thread unnamed frames).
  detail::faults_uninstall();
  detail::arenas_destroy();
  detail::space_destroy();
  int status = 0;
  for (int t = 0; t < j->threads && status == 0; ++t)
    status = j->record(t).status;
  detail::job_live.store(false, std::memory_order_release);
  detail::current.store(nullptr, std::memory_order_release);
  detail::job_threads = 1;
  detail::tls_mythread = 0;
  detail::tls_job_thread = false;
  j.reset();
  detail::running.store(false);
  return status;
}

bool in_job() noexcept {
  return detail::job_current() != nullptr;
}

void poll() noexcept {
  const detail::job* j = detail::job_current();
  if (j != nullptr && j->oversubscribed) {
    detail::os_yield();
  } else {
    detail::os_pause();
  }
}

void exit(int status, std::source_location where) noexcept {
  if (!detail::fault_claim()) detail::fault_park();
  std::fflush(nullptr);
  detail::os_write_stderr(fmt::format("pgas: thread {} of {} ended the job with {}({}) at {}\n",
                                      mythread(), threads(), detail::shown_name("pgas::exit"),
                                      status, detail::where_string(where)));
  detail::os_exit(status);
}

const machine& job_machine(std::source_location where) {
  return detail::job_or_misuse(where, "pgas::job_machine").plan_machine;
}

const std::vector<thread_place>& job_placement(std::source_location where) {
  return detail::job_or_misuse(where, "pgas::job_placement").plan;
}

}  // namespace pgas
