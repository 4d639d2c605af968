// src/job/watchdog.cpp — ending a job past its timeout or on SIGQUIT, with every thread's
// backtrace (see watchdog.hpp); entry points watchdog_start and watchdog_stop.
//
// One thread per job sleeps on a futex word until the deadline, a SIGQUIT or the job's end.
// The SIGQUIT handler only sets a bit in that word and wakes it (async-signal-safe); the report,
// which allocates and waits for other threads, is written by the watchdog thread, which is no
// job thread and so can ask each of them for its backtrace (src/base/backtrace.hpp).

#include "src/job/watchdog.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

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

// "thread T of N: running" (or what it waits for), then its frames.
std::string thread_report(job& j, int t) {
  const thread_record& r = j.record(t);
  std::string out = fmt::format("pgas: thread {} of {}: ", t, j.threads);
  const thread_state state = r.state.load(std::memory_order_acquire);
  if (state == thread_state::returned) return out + fmt::format("returned (status {})\n", r.status);
  const int tid = r.tid.load(std::memory_order_acquire);
  if (tid == 0) return out + "not started yet\n";
  if (state == thread_state::waiting) {
    const char* op = r.op.load(std::memory_order_relaxed);
    const char* file = r.file.load(std::memory_order_relaxed);
    out += fmt::format("waits in {}", op != nullptr ? op : "a collective");
    if (file != nullptr)
      out += fmt::format(" at {}:{}", file, r.line.load(std::memory_order_relaxed));
    out += '\n';
  } else if (std::string wait = wait_graph_describe(j, t); !wait.empty()) {
    // "thread T waits for lock 2 …" or "thread T waits in NAME at F:L for thread U to …".
    const std::string self = fmt::format("thread {} ", t);
    out += (wait.starts_with(self) ? wait.substr(self.size()) : wait) + '\n';
  } else {
    out += "running\n";
  }
  std::vector<stack_frame> frames;
  const int e = backtrace_of_thread(tid, answer_ns, frames);
  if (e == -ETIMEDOUT)
    return out + "pgas:   (no backtrace: the thread did not answer within 1 s)\n";
  if (e != 0) return out + fmt::format("pgas:   (no backtrace: {})\n", std::strerror(-e));
  return out + backtrace_format(frames, "pgas:   ");
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
  for (int t = 0; t < j.threads; ++t)
    os_write_stderr(thread_report(j, t));
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
