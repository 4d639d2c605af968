// src/job/watchdog.cpp — ending a job past its timeout or on SIGQUIT, with every thread's
// backtrace (see watchdog.hpp); entry points watchdog_start and watchdog_stop.
//
// One thread per job sleeps on a futex word until the deadline, a SIGQUIT or the job's end.
// The SIGQUIT handler only sets a bit in that word and wakes it (async-signal-safe); the report,
// which allocates and waits for other threads, is written by the watchdog thread, which is no
// job thread and so can ask all of them at once for their backtraces (src/base/backtrace.hpp),
// then merges the threads with the same stack into one entry.

#include "src/job/watchdog.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <pgas/topology.hpp>  // cpu_list: "0-62,64" for thread numbers too

#include "src/base/backtrace.hpp"
#include "src/base/faults.hpp"
#include "src/base/os.hpp"
#include "src/job/job.hpp"
#include "src/job/wait_graph.hpp"

namespace pgas::detail {

namespace {

constexpr std::uint32_t stop_bit = 1;
constexpr std::uint32_t quit_bit = 2;
// How long a thread has to answer the backtrace signal, and a stuck stdout lock to free.
constexpr std::uint64_t answer_ns = 1'000'000'000;
constexpr std::uint64_t flush_patience_ns = 200'000'000;

std::atomic<std::uint32_t> events{0};
job* watched = nullptr;
pthread_t watchdog_thread{};
bool watching = false;
struct sigaction saved_quit {};

void on_sigquit(int, siginfo_t*, void*) {
  const int saved_errno = errno;
  events.fetch_or(quit_bit, std::memory_order_release);
  os_futex_wake(&events, 1);
  errno = saved_errno;
}

// What thread t is doing ("running", "waits in pgas::barrier at F:L", …), without its number.
std::string thread_state_text(job& j, int t) {
  const thread_record& r = j.record(t);
  const thread_state state = r.state.load(std::memory_order_acquire);
  if (state == thread_state::returned) return fmt::format("returned (status {})", r.status);
  if (r.tid.load(std::memory_order_acquire) == 0) return "not started yet";
  if (state == thread_state::waiting) {
    const char* op = r.op.load(std::memory_order_relaxed);
    const char* file = r.file.load(std::memory_order_relaxed);
    std::string out = fmt::format("waits in {}", op != nullptr ? op : "a collective");
    if (file != nullptr)
      out += fmt::format(" at {}:{}", file, r.line.load(std::memory_order_relaxed));
    return out;
  }
  if (std::string wait = wait_graph_describe(j, t); !wait.empty()) {
    // "thread T waits for lock 2 …" or "thread T waits in NAME at F:L for thread U to …".
    const std::string self = fmt::format("thread {} ", t);
    return wait.starts_with(self) ? wait.substr(self.size()) : wait;
  }
  return "running";
}

// Two threads are one entry of the report when they do the same and their stacks are the same:
// the same functions (the innermost at any instruction of it) called from the same lines, as
// LLNL's STAT merges the stacks of a large job. The frames shown are the lowest thread's.
std::string stack_key(const thread_backtrace& b) {
  if (b.error != 0) return fmt::format("error {}", b.error);
  std::string key;
  for (std::size_t i = 0; i < b.frames.size(); ++i) {
    const stack_frame& f = b.frames[i];
    if (f.function.empty() || (i > 0 && f.line == 0)) {
      key += fmt::format("{:x}", f.ip);
    } else {
      key += f.function;
      if (i > 0) key += fmt::format("@{}:{}{}", f.file, f.line, f.inlined_at);
    }
    key += f.more ? "+" : "|";
  }
  return key;
}

// Every thread's state and backtrace, the threads asked all at once; threads with the same
// state and stack in one entry, in the order of their lowest thread.
std::string threads_report(job& j) {
  std::vector<std::string> states;
  std::vector<int> tids;
  std::vector<int> asked;  // the threads whose tids are asked
  for (int t = 0; t < j.threads; ++t) {
    states.push_back(thread_state_text(j, t));
    const thread_record& r = j.record(t);
    if (r.state.load(std::memory_order_acquire) == thread_state::returned) continue;
    if (const int tid = r.tid.load(std::memory_order_acquire); tid != 0) {
      tids.push_back(tid);
      asked.push_back(t);
    }
  }
  std::vector<thread_backtrace> answers;
  // The job ends after the report: threads that spin must not slow it (64 spinning threads on 2
  // cores left its writer a 65th of the processors: seconds of naming frames).
  backtraces_of_threads(tids, answer_ns, answers, true);
  std::vector<const thread_backtrace*> of(static_cast<std::size_t>(j.threads), nullptr);
  for (std::size_t i = 0; i < asked.size(); ++i)
    of[static_cast<std::size_t>(asked[i])] = &answers[i];

  struct entry {
    std::vector<int> threads;
    const thread_backtrace* stack;
  };
  std::vector<entry> entries;
  std::map<std::string, std::size_t> entry_of;
  for (int t = 0; t < j.threads; ++t) {
    const thread_backtrace* b = of[static_cast<std::size_t>(t)];
    std::string key = states[static_cast<std::size_t>(t)] + '\n' + (b ? stack_key(*b) : "");
    const auto [at, fresh] = entry_of.try_emplace(std::move(key), entries.size());
    if (fresh) entries.push_back(entry{{}, b});
    entries[at->second].threads.push_back(t);
  }
  std::string out;
  for (const entry& e : entries) {
    const int first = e.threads.front();
    out += e.threads.size() == 1
               ? fmt::format("pgas: thread {} of {}: ", first, j.threads)
               : fmt::format("pgas: threads {} of {} ({} threads, the same stack): ",
                             cpu_list(e.threads), j.threads, e.threads.size());
    out += states[static_cast<std::size_t>(first)] + '\n';
    if (e.stack == nullptr) continue;
    if (e.stack->error == -ETIMEDOUT) {
      out += fmt::format("pgas:   (no backtrace: {} not answer within 1 s)\n",
                         e.threads.size() == 1 ? "the thread did" : "the threads did");
    } else if (e.stack->error != 0) {
      out += fmt::format("pgas:   (no backtrace: {})\n", std::strerror(-e.stack->error));
    } else {
      out += backtrace_format(e.stack->frames, "pgas:   ");
    }
  }
  return out;
}

[[noreturn]] void report_and_end(job& j, bool quit) {
  if (!fault_claim()) fault_park();
  fault_flush_stdio(flush_patience_ns);
  os_write_stderr(
      quit ? fmt::format("pgas: SIGQUIT: where the job's {} thread{} are\n", j.threads,
                         j.threads == 1 ? "" : "s")
           : fmt::format("pgas: the job ran past its timeout of {:g} s (PGAS_TIMEOUT): where its "
                         "{} thread{} are\n",
                         j.timeout_seconds, j.threads, j.threads == 1 ? "" : "s"));
  os_write_stderr(threads_report(j));
  fault_flush_stdio(flush_patience_ns);
  if (quit) {
    os_write_stderr("pgas: the job ends by SIGQUIT\n");
    os_die_of_signal(SIGQUIT);
  }
  os_write_stderr(fmt::format("pgas: the job ends with status {}\n", timeout_status));
  os_exit(timeout_status);
}

void* watchdog_main(void*) {
  job& j = *watched;
  const std::uint64_t deadline =
      j.timeout_seconds > 0
          ? os_now_ns() + static_cast<std::uint64_t>(std::llround(j.timeout_seconds * 1e9))
          : 0;
  for (;;) {
    const std::uint32_t e = events.load(std::memory_order_acquire);
    if ((e & stop_bit) != 0) return nullptr;
    if ((e & quit_bit) != 0) report_and_end(j, true);
    std::uint64_t sleep_ns = 0;  // no limit
    if (deadline != 0) {
      const std::uint64_t now = os_now_ns();
      if (now >= deadline) report_and_end(j, false);
      sleep_ns = deadline - now;
    }
    os_futex_wait(&events, e, sleep_ns);
  }
}

}  // namespace

void watchdog_start(job& j) {
  events.store(0, std::memory_order_relaxed);
  watched = &j;
  backtrace_install();
  // Without the thread the job still runs, with no timeout and SIGQUIT's default action.
  watching = os_thread_create(&watchdog_thread, 0, watchdog_main, nullptr) == 0;
  if (watching) {
    os_install_signal(SIGQUIT, on_sigquit, &saved_quit);
  } else {
    os_write_stderr(
        "pgas: warning: cannot start the watchdog thread: no timeout, no SIGQUIT "
        "report\n");
  }
}

void watchdog_stop() {
  if (watching) {
    events.fetch_or(stop_bit, std::memory_order_release);
    os_futex_wake(&events, 1);
    os_thread_join(watchdog_thread);
    os_restore_signal(SIGQUIT, saved_quit);
    watching = false;
  }
  backtrace_uninstall();
  watched = nullptr;
}

}  // namespace pgas::detail
