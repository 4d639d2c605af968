// src/base/backtrace.cpp — another thread's backtrace by signal and libunwind (see
// backtrace.hpp); entry points backtrace_install and backtrace_of_thread.
//
// One capture buffer serves every thread, one request at a time: preallocating a buffer per
// thread would cost up to config::max_threads x 17 KiB for a report that is printed one thread
// after another anyway. The buffer's state word is the handshake: the asker publishes the
// target's tid and moves the state to `requested`; only the handler running on that tid can
// move it on to `writing` (a CAS), so a late answer, after the asker gave up and took the
// request back, never writes into a buffer that serves someone else.

#define UNW_LOCAL_ONLY
#include "src/base/backtrace.hpp"

#include <cxxabi.h>
#include <fmt/format.h>
#include <libunwind.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "src/base/os.hpp"

namespace pgas::detail {

namespace {

constexpr int max_frames = 64;
constexpr std::size_t name_bytes = 256;
constexpr std::uint64_t poll_slice_ns = 10'000'000;

struct raw_frame {
  unw_word_t ip;
  unw_word_t offset;
  unw_word_t start;       // of the function holding ip, by its unwind information; 0 when unknown
  char name[name_bytes];  // mangled; empty when unknown
};

enum capture_state : std::uint32_t { idle, requested, writing, done };

struct capture_buffer {
  std::atomic<std::uint32_t> state{idle};
  std::atomic<int> tid{0};
  int count = 0;  // written by the handler before `done`
  raw_frame frames[max_frames];
};

capture_buffer buffer;
std::mutex capture_mutex;  // one asker at a time
// Set when a handler started writing and never finished: the buffer is not reused.
bool buffer_lost = false;
struct sigaction saved_action {};
bool installed = false;

int record_frames(unw_cursor_t& cursor, raw_frame* frames) noexcept {
  int n = 0;
  do {
    raw_frame& f = frames[n];
    unw_get_reg(&cursor, UNW_REG_IP, &f.ip);
    unw_proc_info_t info;
    f.start = unw_get_proc_info(&cursor, &info) == 0 ? info.start_ip : 0;
    f.offset = 0;
    // A name cut short (-UNW_ENOMEM) is still worth keeping.
    const int r = unw_get_proc_name(&cursor, f.name, sizeof f.name, &f.offset);
    if (r != 0 && r != -UNW_ENOMEM) f.name[0] = '\0';
    f.name[sizeof f.name - 1] = '\0';
    ++n;
  } while (n < max_frames && unw_step(&cursor) > 0);
  return n;
}

// Unwinds from the instruction the signal interrupted: the handler's third argument is that
// context, which libunwind takes as a signal frame's (its unw_context_t is the ucontext_t on
// Linux), so the handler's own frames never appear.
int unwind_interrupted(void* ucontext, raw_frame* frames) noexcept {
  unw_cursor_t cursor;
  if (unw_init_local2(&cursor, static_cast<unw_context_t*>(ucontext), UNW_INIT_SIGNAL_FRAME) != 0)
    return 0;
  return record_frames(cursor, frames);
}

void on_backtrace_signal(int, siginfo_t*, void* ucontext) {
  const int saved_errno = errno;
  std::uint32_t expected = requested;
  if (buffer.tid.load(std::memory_order_acquire) == os_thread_id() &&
      buffer.state.compare_exchange_strong(expected, writing, std::memory_order_acq_rel)) {
    buffer.count = unwind_interrupted(ucontext, buffer.frames);
    buffer.state.store(done, std::memory_order_release);
    os_futex_wake(&buffer.state, 1);
  }
  errno = saved_errno;
}

// Waits while the buffer's state is `from`, until `deadline`. Returns the state seen last.
std::uint32_t wait_while(std::uint32_t from, std::uint64_t deadline) noexcept {
  std::uint32_t s = buffer.state.load(std::memory_order_acquire);
  for (std::uint64_t now = os_now_ns(); s == from && now < deadline; now = os_now_ns()) {
    os_futex_wait(&buffer.state, from, std::min(deadline - now, poll_slice_ns));
    s = buffer.state.load(std::memory_order_acquire);
  }
  return s;
}

}  // namespace

std::string backtrace_demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && d != nullptr) ? d : name;
  std::free(d);
  return out;
}

int backtrace_install() noexcept {
  if (installed) return 0;
  // The first unwind sets up libunwind's caches and the first proc-name lookup maps the
  // program's ELF file: do both here, outside any handler.
  raw_frame warm[max_frames];
  unw_context_t context;
  unw_cursor_t cursor;
  if (unw_getcontext(&context) == 0 && unw_init_local(&cursor, &context) == 0)
    (void)record_frames(cursor, warm);
  const int r = os_install_signal(os_backtrace_signal(), on_backtrace_signal, &saved_action);
  installed = r == 0;
  return r;
}

void backtrace_uninstall() noexcept {
  if (!installed) return;
  os_restore_signal(os_backtrace_signal(), saved_action);
  installed = false;
}

int backtrace_of_thread(int tid, std::uint64_t timeout_ns, std::vector<stack_frame>& out) {
  std::lock_guard<std::mutex> hold(capture_mutex);
  out.clear();
  if (buffer_lost) return -EBUSY;
  buffer.tid.store(tid, std::memory_order_relaxed);
  buffer.state.store(requested, std::memory_order_release);
  if (const int r = os_signal_thread(tid, os_backtrace_signal()); r != 0) {
    buffer.state.store(idle, std::memory_order_relaxed);
    return r;
  }
  const std::uint64_t deadline = os_now_ns() + timeout_ns;
  if (wait_while(requested, deadline) == requested) {
    std::uint32_t expected = requested;
    if (buffer.state.compare_exchange_strong(expected, idle, std::memory_order_acq_rel))
      return -ETIMEDOUT;
  }
  // The handler has begun: it only unwinds, so give it as long again to finish.
  if (wait_while(writing, os_now_ns() + timeout_ns) != done) {
    buffer_lost = true;
    return -ETIMEDOUT;
  }
  out.reserve(static_cast<std::size_t>(buffer.count));
  for (int i = 0; i < buffer.count; ++i) {
    const raw_frame& f = buffer.frames[i];
    stack_frame s;
    s.ip = f.ip;
    s.offset = f.offset;
    if (const char* m = os_module_of(reinterpret_cast<const void*>(f.ip))) s.module = m;
    // Where a library has no full symbol table (Debian's libc), libunwind names the nearest
    // exported function below ip, which may end well before it: a name whose start is not the
    // start of the function the unwind information puts ip in is dropped (none beats a wrong one).
    const bool beyond = f.start != 0 && f.ip - f.offset != f.start;
    if (f.name[0] != '\0' && !beyond) s.function = backtrace_demangle(f.name);
    out.push_back(std::move(s));
  }
  buffer.state.store(idle, std::memory_order_release);
  return 0;
}

std::string backtrace_format(const std::vector<stack_frame>& frames, std::string_view prefix) {
  std::string out;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const stack_frame& f = frames[i];
    out += fmt::format("{}#{:<2} {:#018x} in ", prefix, i, f.ip);
    out += f.function.empty() ? std::string("??") : fmt::format("{}+{:#x}", f.function, f.offset);
    if (!f.module.empty()) out += fmt::format(" ({})", f.module);
    out += '\n';
  }
  return out;
}

}  // namespace pgas::detail
