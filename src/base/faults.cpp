// src/base/faults.cpp — job-wide failure handling (see faults.hpp).
//
// Signal handlers format their message by hand into a stack buffer: only async-signal-safe
// calls (write, kill, futex) are made there, and libunwind's unwinding without naming frames;
// a thread started for that beforehand names them (backtrace_write_fatal). Uncaught exceptions
// reach the std::terminate handler; for threads other than 0 the stack is still intact there (no
// handler was found, so nothing was unwound), and the backtrace shows the throw site.

#include "src/base/faults.hpp"

#include <cxxabi.h>
#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>

#include <pgas/detail/identity.hpp>

#include "src/base/backtrace.hpp"
#include "src/base/os.hpp"

namespace pgas::detail {

namespace {

std::atomic<bool> ending{false};
thread_local bool claimed_here = false;
// The thread's stack, for telling a stack overflow from other bad addresses (0: unknown).
[[gnu::tls_model("initial-exec")]] thread_local std::uintptr_t stack_lo = 0;
[[gnu::tls_model("initial-exec")]] thread_local std::size_t stack_bytes = 0;
// A fault this far below a stack's end is taken for its overflow: past the guard page, where a
// large frame's first store lands.
constexpr std::uintptr_t overflow_reach = 1 << 20;
std::terminate_handler previous_terminate = nullptr;

fault_explainer explainer = nullptr;

void flush_stdio() noexcept {
  std::fflush(stdout);
  std::fflush(stderr);
}

// What the program printed before a fatal signal is still in stdout's buffer when stdout is a
// file or a pipe. Flushing from a signal handler is best effort: only once no other thread holds
// the stream's lock (trylock, so never a deadlock), which a thread flushing at the job's end lets
// go of within moments, so it gets 100 ms; and after the report is written, so that a second
// fault in a corrupt buffer can only lose the buffer, not the report.
void flush_stdout_if_free() noexcept {
  fault_flush_stdio(100'000'000);
}

bool flush_stream(FILE* f, std::uint64_t deadline) noexcept {
  while (ftrylockfile(f) != 0) {
    if (os_now_ns() >= deadline) return false;
    os_yield();
  }
  fflush_unlocked(f);
  funlockfile(f);
  return true;
}

// exit() and quick_exit() from inside a job end every thread without a word from the runtime;
// these handlers give that word. on_exit runs on the thread that called exit(), so fault_who
// names it. Claiming the report first parks threads that fault meanwhile, and parks this thread
// when another one is already ending the job. Returns whether it reported (a job was running).
bool report_exit_call(const char* call, const int* status) noexcept {
  if (!job_live.load(std::memory_order_acquire)) return false;
  if (!fault_claim()) fault_park();
  fault_flush_stdio(100'000'000);
  fault_text b;
  b.add("pgas: ");
  fault_who(b);
  b.add(" called ");
  b.add(call);
  b.add("(");
  if (status != nullptr) b.add_int(*status);
  b.add(") while the job was running: every thread ends");
  if (status != nullptr) {
    b.add(" and the program exits with status ");
    b.add_int(*status);
  }
  b.add("\n");
  os_write_stderr(std::string_view(b.data, b.len));
  return true;
}

// Set in a child of fork(): it has one thread, whatever job its parent was running.
bool in_fork_child = false;

void forked() {
  in_fork_child = true;
}

// What exit() would have flushed, short of running destructors: stdout and stderr (each given
// 100 ms for another thread to let go of it), then, when they were free, the C++ standard
// streams (their own buffers when not synced with stdio) and every other C stream (files from
// fopen). Streams that static objects own (a namespace-scope std::ofstream) are flushed by their
// destructors only.
void flush_for_exit() noexcept {
  const std::uint64_t deadline = os_now_ns() + 100'000'000;
  if (!flush_stream(stdout, deadline) || !flush_stream(stderr, deadline)) return;
  try {
    std::cout.flush();
    std::cerr.flush();
    std::clog.flush();
  } catch (...) {
  }
  std::fflush(nullptr);
}

// exit() inside a job ends the process here, once the streams are flushed: the rest of exit()
// would run the program's static destructors while the other threads still run, and those of
// shared data (a static_array frees its storage collectively) would break them under their feet
// and then corrupt the heap. So neither they nor the atexit handlers registered before the first
// job run; the status is kept. A child of fork() made during a job ends the same way, without
// the report (its parent's job is not its own, and its copy of the static objects must not be
// freed collectively either).
void on_exit_called(int status, void*) {
  if (!job_live.load(std::memory_order_acquire)) return;
  if (in_fork_child) {
    flush_for_exit();
    os_exit(status);
  }
  if (report_exit_call("exit", &status)) {
    flush_for_exit();
    os_exit(status);
  }
}

void on_quick_exit_called() {
  // quick_exit() flushes nothing itself.
  report_exit_call("quick_exit", nullptr);
}

void on_fatal_signal(int sig, siginfo_t* info, void* ucontext) {
  if (!fault_claim()) fault_park();
  fault_text b;
  b.add("pgas: ");
  fault_who(b);
  b.add(": fatal signal ");
  b.add(os_signal_name(sig));
  b.add(" (");
  b.add(strsignal(sig));  // glibc returns a static string for known signals
  b.add(")");
  if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) {
    b.add(" at address ");
    b.add_hex(reinterpret_cast<unsigned long long>(info->si_addr));
    const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    if (sig == SIGSEGV && stack_lo != 0 && addr < stack_lo && stack_lo - addr <= overflow_reach) {
      b.add(": the thread's stack overflowed (");
      b.add_int(static_cast<long long>(stack_bytes / 1024));
      b.add(
          " KiB; PGAS_STACK_SIZE sets it for the threads the runtime starts, `ulimit -s` for "
          "thread 0)");
    } else if (sig == SIGSEGV && explainer != nullptr) {
      fault_text why;
      if (explainer(info->si_addr, why)) {
        b.add(": ");
        why.data[why.len] = '\0';
        b.add(why.data);
      }
    }
  }
  b.add("\npgas: backtrace of ");
  fault_who(b);
  b.add(":\n");
  os_write_stderr(std::string_view(b.data, b.len));
  backtrace_write_fatal(ucontext, "pgas:   ");
  flush_stdout_if_free();
  os_die_of_signal(sig);
}

void on_terminate() {
  if (!fault_claim()) fault_park();
  std::string msg;
  std::exception_ptr e = std::current_exception();
  if (e) {
    std::type_info* type = abi::__cxa_current_exception_type();
    std::string type_name = type != nullptr ? backtrace_demangle(type->name()) : "unknown type";
    std::string what;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = x.what();
    } catch (...) {
    }
    msg = fmt::format("pgas: {}: uncaught exception of type {}{}{}\n", fault_who(), type_name,
                      what.empty() ? "" : ": ", what);
  } else {
    msg = fmt::format("pgas: {}: std::terminate called without an exception\n", fault_who());
  }
  flush_stdio();
  os_write_stderr(msg);
  // Symbolised here, on the failing thread: a terminate handler is no signal handler.
  os_write_stderr(fmt::format("pgas: backtrace of {}:\n", fault_who()) +
                  backtrace_format(backtrace_of_self(0), "pgas:   "));
  os_exit(1);
}

}  // namespace

// A thread of the program's own inside a running job reads tls_mythread as 0, and so does a
// thread the runtime started for itself: name each for what it is rather than blame thread 0.
void fault_who(fault_text& out) noexcept {
  if (tls_runtime_thread != nullptr) {
    out.add(tls_runtime_thread);
    out.add(" (not one of the ");
    out.add_int(job_threads);
    out.add(" UPC threads)");
    return;
  }
  if (job_live.load(std::memory_order_acquire) && !tls_job_thread) {
    out.add("a thread the program started (not one of the ");
    out.add_int(job_threads);
    out.add(" UPC threads)");
    return;
  }
  out.add("thread ");
  out.add_int(tls_mythread);
  out.add(" of ");
  out.add_int(job_threads);
}

std::string fault_who() {
  fault_text t;
  fault_who(t);
  return std::string(t.data, t.len);
}

void fault_text::add(const char* s) noexcept {
  while (*s != '\0' && len + 1 < sizeof data)
    data[len++] = *s++;
}

void fault_text::add_int(long long v) noexcept {
  char tmp[24];
  int n = 0;
  const bool neg = v < 0;
  unsigned long long u =
      neg ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
  do {
    tmp[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (neg) tmp[n++] = '-';
  while (n > 0 && len + 1 < sizeof data)
    data[len++] = tmp[--n];
}

void fault_text::add_hex(unsigned long long u) noexcept {
  add("0x");
  char tmp[20];
  int n = 0;
  do {
    tmp[n++] = "0123456789abcdef"[u & 15];
    u >>= 4;
  } while (u != 0);
  while (n > 0 && len + 1 < sizeof data)
    data[len++] = tmp[--n];
}

void faults_install(fault_explainer explain) {
  static const bool exit_hooks = [] {
    os_on_exit(on_exit_called, nullptr);
    os_on_quick_exit(on_quick_exit_called);
    os_at_fork_child(forked);
    return true;
  }();
  (void)exit_hooks;
  explainer = explain;
  backtrace_fatal_start();  // before the handlers that use it
  os_install_fatal_signals(on_fatal_signal);
  previous_terminate = std::set_terminate(on_terminate);
  ending.store(false);
}

void faults_uninstall() {
  os_restore_fatal_signals();
  backtrace_fatal_stop();
  std::set_terminate(previous_terminate);
}

void faults_thread_start() {
  os_setup_signal_stack();
  if (os_thread_stack(&stack_lo, &stack_bytes) != 0) stack_lo = 0;
}
void faults_thread_end() {
  os_release_signal_stack();
}

bool fault_claim() noexcept {
  if (claimed_here) return true;
  claimed_here = !ending.exchange(true);
  return claimed_here;
}

void fault_settle(int threads, bool (*settled)(int thread)) noexcept {
  // The job is doomed, but a report that shows where every thread got to is worth a short
  // wait: threads still on their way to a barrier reach it, or return, within moments.
  const std::uint64_t deadline = os_now_ns() + 200'000'000;
  for (int t = 0; t < threads;) {
    if (settled(t)) {
      ++t;
    } else if (os_now_ns() > deadline) {
      return;
    } else {
      os_yield();
    }
  }
}

void fault_park() noexcept {
  // Another thread is ending the process; never return into code that may be broken.
  os_park();
}

void fault_flush_stdio(std::uint64_t patience_ns) noexcept {
  const std::uint64_t deadline = patience_ns == 0 ? 0 : os_now_ns() + patience_ns;
  flush_stream(stdout, deadline);
  flush_stream(stderr, deadline);
}

void fault_end_job(std::string_view message, int status) {
  if (!fault_claim()) fault_park();
  flush_stdio();
  std::string out;
  std::size_t start = 0;
  while (start < message.size()) {
    std::size_t nl = message.find('\n', start);
    if (nl == std::string_view::npos) nl = message.size();
    out += "pgas: ";
    out.append(message.substr(start, nl - start));
    out += '\n';
    start = nl + 1;
  }
  os_write_stderr(out);
  os_exit(status);
}

std::string where_string(const std::source_location& where) {
  return fmt::format("{}:{}", where.file_name(), where.line());
}

}  // namespace pgas::detail
