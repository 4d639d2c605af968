// src/base/backtrace.cpp — backtraces by libunwind: another thread's by signal, the calling
// thread's, and a fatal signal's (see backtrace.hpp); entry points backtrace_install,
// backtrace_of_thread, backtrace_of_self, backtrace_fatal_start and backtrace_write_fatal.
//
// A request asks a batch of threads at once (a timeout report of 1000 threads cannot wait a
// second for each in turn): the asker allocates a slot per thread, publishes the batch, signals
// every thread, and waits for all of them against one deadline. Each slot's state word is the
// handshake: only the handler running on the slot's tid can move it from `requested` to
// `writing` (a CAS), so a late answer, after the asker gave up and took the request back, never
// writes into it. Handlers count themselves in and out around their look at the batch, and the
// asker frees a batch only once it is unpublished and no handler is inside (else it is left
// allocated: a handler stuck mid-unwind may still write into it).
//
// A fatal signal's frames have a buffer of their own (the faulting thread may interrupt a
// capture) and the same kind of handshake with the symbolising thread: whichever of the two
// moves the state on first decides who writes the frames, so they are never written twice.

#define UNW_LOCAL_ONLY
#include "src/base/backtrace.hpp"

#include <cxxabi.h>
#include <fmt/format.h>
#include <libunwind.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <pgas/detail/identity.hpp>

#include "src/base/os.hpp"
#include "src/base/source_lines.hpp"

namespace pgas::detail {

namespace {

// A backtrace keeps the innermost max_frames frames; the buffers hold one more, whose presence
// says the stack went on (a deep recursion, a stack overflow).
constexpr int max_frames = 64;
constexpr int recorded_frames = max_frames + 1;
constexpr std::uint64_t poll_slice_ns = 10'000'000;
// How long a fatal-signal handler waits for the symbolising thread (which names a few dozen
// frames: milliseconds, once the images' symbol tables are open), and then for its write to
// stderr to finish.
constexpr std::uint64_t symbolise_ns = 1'000'000'000;

// The line that ends a backtrace cut at max_frames (after the prefix).
constexpr std::string_view more_frames = "...  more frames, not shown: only the innermost 64 are\n";

// A frame as a handler records it: addresses only. Naming it allocates (libunwind 1.6's
// unw_get_proc_name reads the symbol table through a buffer from malloc on every call), so
// frames are named afterwards, outside any handler, from the address (symbolise).
struct raw_frame {
  unw_word_t ip;
  unw_word_t start;  // of the function holding ip, by its unwind information; 0 when unknown
};

enum capture_state : std::uint32_t { idle, requested, writing, done };

struct capture_slot {
  std::atomic<std::uint32_t> state{idle};
  int tid = 0;
  int error = 0;  // the asker's: of the signal, or -ETIMEDOUT
  int count = 0;  // written by the handler before `done`
  raw_frame frames[recorded_frames];
};

struct capture_batch {
  explicit capture_batch(std::size_t n) : slots(std::make_unique<capture_slot[]>(n)), size(n) {}
  std::unique_ptr<capture_slot[]> slots;
  std::size_t size;
  bool quiet = false;                      // backtraces_of_threads' `quiet`
  std::atomic<std::uint32_t> answered{0};  // slots moved to `done`; the asker's futex word
};

std::atomic<capture_batch*> published{nullptr};
std::atomic<int> handlers_inside{0};
std::mutex capture_mutex;  // one asker at a time
struct sigaction saved_action {};
bool installed = false;

// `fatal_stop` while no symbolising thread runs, so that a handler then writes the frames itself.
enum fatal_state : std::uint32_t {
  fatal_ready,
  fatal_posted,
  fatal_taken,
  fatal_writing,
  fatal_written,
  fatal_abandoned,
  fatal_stop,
};

struct fatal_buffer {
  std::atomic<std::uint32_t> state{fatal_stop};
  // Written by the handler before `fatal_posted`: the frames' addresses (the code they point
  // into stays mapped while the handler waits).
  const char* prefix = "";
  int count = 0;
  raw_frame frames[recorded_frames];
};

fatal_buffer fatal;
pthread_t symboliser{};
bool symboliser_running = false;

// libunwind's calls here allocate nothing once its caches exist (warm_up).
int record_frames(unw_cursor_t& cursor, raw_frame* frames) noexcept {
  int n = 0;
  do {
    raw_frame& f = frames[n];
    unw_get_reg(&cursor, UNW_REG_IP, &f.ip);
    unw_proc_info_t info;
    f.start = unw_get_proc_info(&cursor, &info) == 0 ? info.start_ip : 0;
    ++n;
  } while (n < recorded_frames && unw_step(&cursor) > 0);
  return n;
}

// Where a library has no full symbol table (Debian's libc without its debug package), the
// nearest symbol below ip may be an exported function that ends well before it: a symbol whose
// start is not the start of the function the unwind information puts ip in is dropped (none
// beats a wrong one).
bool name_fits(const raw_frame& f, std::uintptr_t symbol_start) noexcept {
  return f.start == 0 || f.start == symbol_start;
}

// A recorded stack to name: its frames and whether it was unwound from a signal's context.
struct raw_stack {
  const raw_frame* frames;
  int count;
  bool interrupted;
};

// The address whose line a frame shows: the others are return addresses, whose call is the
// instruction before; frame 0 is one too unless `interrupted` (an unwind from a signal's
// context: the instruction it stopped at).
std::uintptr_t call_of(const raw_stack& s, int i) noexcept {
  const std::uintptr_t ip = s.frames[i].ip;
  return (i == 0 && s.interrupted) || ip == 0 ? ip : ip - 1;
}

// Names every stack's frames, each distinct address once (a thousand threads in one barrier
// share their addresses). Past max_frames, a marker entry instead of the frames.
std::vector<std::vector<stack_frame>> symbolise(const std::vector<raw_stack>& stacks) {
  std::vector<std::uintptr_t> calls;
  std::map<std::uintptr_t, std::size_t> index_of;
  for (const raw_stack& s : stacks) {
    for (int i = 0; i < std::min(s.count, max_frames); ++i) {
      if (index_of.try_emplace(call_of(s, i), calls.size()).second) calls.push_back(call_of(s, i));
    }
  }
  const std::vector<source_line> lines = source_lines_of(calls);
  std::vector<std::vector<stack_frame>> out;
  out.reserve(stacks.size());
  for (const raw_stack& s : stacks) {
    std::vector<stack_frame>& named = out.emplace_back();
    named.reserve(static_cast<std::size_t>(std::min(s.count, max_frames) + 1));
    for (int i = 0; i < std::min(s.count, max_frames); ++i) {
      const raw_frame& f = s.frames[i];
      const std::uintptr_t call = call_of(s, i);
      const source_line& l = lines[index_of.at(call)];
      stack_frame& n = named.emplace_back();
      n.ip = f.ip;
      if (const char* m = os_module_of(reinterpret_cast<const void*>(f.ip))) n.module = m;
      n.file = l.file;
      n.line = l.line;
      for (const source_line_site& at : l.inlined_at)
        n.inlined_at += fmt::format(", inlined at {}:{}", at.file, at.line);
      // The images' symbol tables, else the dynamic linker's exported symbols.
      std::string symbol = l.symbol;
      std::uintptr_t start = l.symbol_start;
      if (symbol.empty()) {
        if (const char* exported = os_symbol_of(reinterpret_cast<const void*>(call), start))
          symbol = exported;
      }
      if (!symbol.empty() && name_fits(f, start)) {
        n.function = backtrace_demangle(symbol.c_str());
        n.offset = f.ip - start;
      }
    }
    if (s.count > max_frames) named.emplace_back().more = true;
  }
  return out;
}

std::vector<stack_frame> symbolise(const raw_frame* frames, int count, bool interrupted) {
  return std::move(symbolise({raw_stack{frames, count, interrupted}}).front());
}

// The first unwind sets up libunwind's caches (each image's unwind tables on this stack): done
// outside any handler.
void warm_up() noexcept {
  static raw_frame warm[recorded_frames];
  unw_context_t context;
  unw_cursor_t cursor;
  if (unw_getcontext(&context) == 0 && unw_init_local(&cursor, &context) == 0)
    (void)record_frames(cursor, warm);
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

// Sequentially consistent count and load, against the asker's unpublishing store and its look
// at the count: whichever comes second sees the other, so a batch is never freed under a
// handler that found it.
void on_backtrace_signal(int, siginfo_t*, void* ucontext) {
  const int saved_errno = errno;
  handlers_inside.fetch_add(1);
  if (capture_batch* b = published.load()) {
    const int me = os_thread_id();
    for (std::size_t i = 0; i < b->size; ++i) {
      capture_slot& slot = b->slots[i];
      std::uint32_t expected = requested;
      if (slot.tid != me ||
          !slot.state.compare_exchange_strong(expected, writing, std::memory_order_acq_rel)) {
        continue;
      }
      slot.count = unwind_interrupted(ucontext, slot.frames);
      slot.state.store(done, std::memory_order_release);
      b->answered.fetch_add(1, std::memory_order_release);
      os_futex_wake(&b->answered, 1);
      if (b->quiet) (void)os_thread_background(me);
      break;
    }
  }
  handlers_inside.fetch_sub(1);
  errno = saved_errno;
}

// Waits while `state` is `from`, until `deadline`. Returns the state seen last.
// Async-signal-safe.
std::uint32_t wait_while(std::atomic<std::uint32_t>& state, std::uint32_t from,
                         std::uint64_t deadline) noexcept {
  std::uint32_t s = state.load(std::memory_order_acquire);
  for (std::uint64_t now = os_now_ns(); s == from && now < deadline; now = os_now_ns()) {
    os_futex_wait(&state, from, std::min(deadline - now, poll_slice_ns));
    s = state.load(std::memory_order_acquire);
  }
  return s;
}

// The symbolising thread: sleeps until a fatal-signal handler posts its frames, then formats
// them exactly as backtrace_format does for every other backtrace, and writes them if the
// handler has not given up on it meanwhile.
void* symboliser_main(void*) {
  tls_runtime_thread = "the backtrace symbolising thread";
  // A process-directed fatal signal must go to a thread that can report it, not to this one.
  os_block_signals();
  for (;;) {
    const std::uint32_t s = fatal.state.load(std::memory_order_acquire);
    if (s == fatal_stop) return nullptr;
    std::uint32_t expected = fatal_posted;
    if (s != fatal_posted ||
        !fatal.state.compare_exchange_strong(expected, fatal_taken, std::memory_order_acq_rel)) {
      os_futex_wait(&fatal.state, s, 0);
      continue;
    }
    // Named here, where allocating is safe.
    const std::string text =
        backtrace_format(symbolise(fatal.frames, fatal.count, true), fatal.prefix);
    expected = fatal_taken;
    if (fatal.state.compare_exchange_strong(expected, fatal_writing, std::memory_order_acq_rel)) {
      os_write_stderr(text);
      expected = fatal_writing;
      fatal.state.compare_exchange_strong(expected, fatal_written, std::memory_order_acq_rel);
      os_futex_wake(&fatal.state, INT_MAX);
    }
  }
}

// A line of a fatal backtrace built without allocating, in backtrace_format's layout.
struct frame_line {
  char data[160];  // prefix, number and address
  std::size_t len = 0;
  void add(const char* s) noexcept {
    while (*s != '\0' && len < sizeof data)
      data[len++] = *s++;
  }
  void add_number(std::uint64_t v, unsigned base, int min_digits) noexcept {
    char tmp[24];
    int n = 0;
    do {
      tmp[n++] = "0123456789abcdef"[v % base];
      v /= base;
    } while (v != 0 || n < min_digits);
    while (n > 0 && len < sizeof data)
      data[len++] = tmp[--n];
  }
};

// The handler's own way out when the symbolising thread does not answer (it may wait for a lock
// the faulting thread holds, as naming a frame would): the addresses alone, no module (dladdr
// takes the loader's lock).
void write_raw_frames(const raw_frame* frames, int count, const char* prefix) noexcept {
  for (int i = 0; i < std::min(count, max_frames); ++i) {
    const raw_frame& f = frames[i];
    frame_line l;
    l.add(prefix);
    l.add("#");
    l.add_number(static_cast<std::uint64_t>(i), 10, 1);
    l.add(i < 10 ? "  0x" : " 0x");
    l.add_number(f.ip, 16, 16);
    l.add(" in ??");  // naming a frame allocates (record_frames)
    if (l.len == sizeof l.data) --l.len;
    l.data[l.len++] = '\n';
    os_write_stderr(std::string_view(l.data, l.len));
  }
  if (count > max_frames) {
    os_write_stderr(prefix);
    os_write_stderr(more_frames);
  }
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
  warm_up();
  const int r = os_install_signal(os_backtrace_signal(), on_backtrace_signal, &saved_action);
  installed = r == 0;
  return r;
}

void backtrace_uninstall() noexcept {
  if (!installed) return;
  os_restore_signal(os_backtrace_signal(), saved_action);
  installed = false;
}

namespace {

// Waits until `b.answered` reaches `target`, until `deadline`.
void wait_answers(capture_batch& b, std::uint32_t target, std::uint64_t deadline) noexcept {
  for (std::uint32_t seen = b.answered.load(std::memory_order_acquire); seen < target;
       seen = b.answered.load(std::memory_order_acquire)) {
    const std::uint64_t now = os_now_ns();
    if (now >= deadline) return;
    os_futex_wait(&b.answered, seen, std::min(deadline - now, poll_slice_ns));
  }
}

// Signals every slot's thread and waits for the answers (see the top of this file), all against
// one deadline; each slot ends `done`, or with its error. A slot whose handler has begun gets a
// quarter of the time again (it only unwinds, but may have lost its processor). Returns
// whether the batch may be freed: not while a handler may still look at it.
bool capture(capture_batch& b, std::uint64_t timeout_ns) {
  const std::uint64_t deadline = os_now_ns() + timeout_ns;
  published.store(&b);
  std::uint32_t asked = 0;
  for (std::size_t i = 0; i < b.size; ++i) {
    capture_slot& slot = b.slots[i];
    slot.state.store(requested, std::memory_order_release);
    if (const int r = os_signal_thread(slot.tid, os_backtrace_signal()); r != 0) {
      slot.state.store(idle, std::memory_order_relaxed);  // no handler can have it: not signalled
      slot.error = r;
    } else {
      ++asked;
    }
  }
  wait_answers(b, asked, deadline);
  std::uint32_t begun = 0;  // the requests not taken back: answered or being answered
  for (std::size_t i = 0; i < b.size; ++i) {
    capture_slot& slot = b.slots[i];
    std::uint32_t expected = requested;
    if (slot.error != 0) continue;
    if (slot.state.compare_exchange_strong(expected, idle, std::memory_order_acq_rel)) {
      slot.error = -ETIMEDOUT;
    } else {
      ++begun;
    }
  }
  wait_answers(b, begun, os_now_ns() + timeout_ns / 4);
  for (std::size_t i = 0; i < b.size; ++i) {
    capture_slot& slot = b.slots[i];
    if (slot.error == 0 && slot.state.load(std::memory_order_acquire) != done)
      slot.error = -ETIMEDOUT;
  }
  published.store(nullptr);
  // A handler counts itself in before it reads `published`, so once that is null and no
  // handler is inside, none can touch the batch again, whatever its slots' states. One that has
  // marked its slot done leaves a moment later: give those still inside a little more time, so
  // that the batch is freed in the ordinary case (otherwise it is kept, never freed under one).
  for (const std::uint64_t leave_by = os_now_ns() + timeout_ns / 4;
       handlers_inside.load() != 0 && os_now_ns() < leave_by;)
    os_yield();
  return handlers_inside.load() == 0;
}

}  // namespace

void backtraces_of_threads(const std::vector<int>& tids, std::uint64_t timeout_ns,
                           std::vector<thread_backtrace>& out, bool quiet) {
  out.assign(tids.size(), thread_backtrace{});
  if (tids.empty()) return;
  std::lock_guard<std::mutex> hold(capture_mutex);
  // Many more threads than processors: each at the asker's priority left it a thousandth of a
  // processor to ask the others (1000 spinning threads on 2 cores: 20 s), so all run in the
  // background before any is asked. Fewer keep their priority until they answer, so that other
  // processes' work cannot keep them from answering.
  const std::size_t processors = std::max(1U, std::thread::hardware_concurrency());
  for (std::size_t i = 0; quiet && tids.size() > 64 * processors && i < tids.size(); ++i)
    (void)os_thread_background(tids[i]);
  auto batch = std::make_unique<capture_batch>(tids.size());
  for (std::size_t i = 0; i < tids.size(); ++i)
    batch->slots[i].tid = tids[i];
  batch->quiet = quiet;
  const bool reusable = capture(*batch, timeout_ns);
  for (std::size_t i = 0; quiet && i < tids.size(); ++i) {
    if (batch->slots[i].error == -ETIMEDOUT) (void)os_thread_background(tids[i]);
  }
  // Threads stopped at the same instructions (a thousand waiting in one barrier) are named once.
  std::map<std::vector<unw_word_t>, std::size_t> distinct;
  std::vector<raw_stack> stacks;
  std::vector<std::size_t> stack_of(tids.size());
  for (std::size_t i = 0; i < tids.size(); ++i) {
    const capture_slot& slot = batch->slots[i];
    out[i].error = slot.error;
    if (slot.error != 0) continue;
    std::vector<unw_word_t> ips;
    for (int f = 0; f < slot.count; ++f)
      ips.push_back(slot.frames[f].ip);
    const auto [at, fresh] = distinct.try_emplace(std::move(ips), stacks.size());
    if (fresh) stacks.push_back(raw_stack{slot.frames, slot.count, true});
    stack_of[i] = at->second;
  }
  const std::vector<std::vector<stack_frame>> named = symbolise(stacks);
  for (std::size_t i = 0; i < tids.size(); ++i) {
    if (out[i].error == 0) out[i].frames = named[stack_of[i]];
  }
  if (!reusable) (void)batch.release();  // a handler may still write into it
}

int backtrace_of_thread(int tid, std::uint64_t timeout_ns, std::vector<stack_frame>& out) {
  std::vector<thread_backtrace> got;
  backtraces_of_threads({tid}, timeout_ns, got);
  out = std::move(got.front().frames);
  return got.front().error;
}

// noinline: the frames skipped are counted from this function's own.
[[gnu::noinline]] std::vector<stack_frame> backtrace_of_self(int skip) {
  unw_context_t context;
  unw_cursor_t cursor;
  if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0) return {};
  // This function's frame, its caller's, and `skip` more.
  for (int i = 0; i < skip + 2; ++i) {
    if (unw_step(&cursor) <= 0) return {};
  }
  auto frames = std::make_unique<raw_frame[]>(recorded_frames);
  return symbolise(frames.get(), record_frames(cursor, frames.get()), false);
}

namespace {

// A child of fork() has no symbolising thread: its handlers write addresses at once.
void forget_symboliser() {
  fatal.state.store(fatal_stop, std::memory_order_relaxed);
  symboliser_running = false;
}

}  // namespace

int backtrace_fatal_start() noexcept {
  warm_up();
  if (symboliser_running) return 0;
  static const int at_fork = os_at_fork_child(forget_symboliser);
  (void)at_fork;
  fatal.state.store(fatal_ready, std::memory_order_relaxed);
  if (const int r = os_thread_create(&symboliser, 0, symboliser_main, nullptr); r != 0) {
    fatal.state.store(fatal_stop, std::memory_order_relaxed);
    return r;
  }
  symboliser_running = true;
  return 0;
}

void backtrace_fatal_stop() noexcept {
  if (!symboliser_running) return;
  // Only while no handler is between posting and its answer: one that is will end the process,
  // and the thread may be busy for it (or stuck, on a lock that handler's thread holds).
  std::uint32_t s = fatal.state.load(std::memory_order_acquire);
  while (s == fatal_ready || s == fatal_written || s == fatal_abandoned) {
    if (fatal.state.compare_exchange_weak(s, fatal_stop, std::memory_order_acq_rel)) {
      os_futex_wake(&fatal.state, INT_MAX);
      os_thread_join(symboliser);
      symboliser_running = false;
      return;
    }
  }
}

void backtrace_write_fatal(void* ucontext, const char* prefix) noexcept {
  fatal.count = unwind_interrupted(ucontext, fatal.frames);
  fatal.prefix = prefix;
  std::uint32_t s = fatal_ready;
  if (fatal.state.compare_exchange_strong(s, fatal_posted, std::memory_order_acq_rel)) {
    os_futex_wake(&fatal.state, INT_MAX);
    const std::uint64_t deadline = os_now_ns() + symbolise_ns;
    s = wait_while(fatal.state, fatal_posted, deadline);
    if (s == fatal_taken) s = wait_while(fatal.state, fatal_taken, deadline);
    // Not answered in time (the thread may be stuck on a lock this thread holds): take the
    // frames back, unless it has begun writing them. A failed exchange returns the state now
    // (the thread may have just moved it from posted to taken): try again from there.
    while ((s == fatal_posted || s == fatal_taken) &&
           !fatal.state.compare_exchange_weak(s, fatal_abandoned, std::memory_order_acq_rel)) {
    }
    if (s == fatal_posted || s == fatal_taken) s = fatal_abandoned;
    if (s == fatal_writing) s = wait_while(fatal.state, fatal_writing, os_now_ns() + symbolise_ns);
    if (s == fatal_written) {
      // Ready for the next report (a process that survives this signal: tests).
      fatal.state.compare_exchange_strong(s, fatal_ready, std::memory_order_acq_rel);
      return;
    }
    if (s != fatal_abandoned) return;  // still being written: give it no more time
  }
  write_raw_frames(fatal.frames, fatal.count, prefix);
}

std::string backtrace_format(const std::vector<stack_frame>& frames, std::string_view prefix) {
  std::string out;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const stack_frame& f = frames[i];
    if (f.more) {
      out += fmt::format("{}{}", prefix, more_frames);
      continue;
    }
    out += fmt::format("{}#{:<2} {:#018x} in ", prefix, i, f.ip);
    out += f.function.empty() ? std::string("??") : fmt::format("{}+{:#x}", f.function, f.offset);
    if (f.line > 0) out += fmt::format(" at {}:{}{}", f.file, f.line, f.inlined_at);
    if (!f.module.empty()) out += fmt::format(" ({})", f.module);
    out += '\n';
  }
  return out;
}

}  // namespace pgas::detail
