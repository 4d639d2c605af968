// Tests src/base/backtrace.cpp: another thread's backtrace, taken by signal with libunwind —
// named frames, a thread that has ended, a thread that does not answer (the request is taken
// back and the next capture still works), and the format of the lines; the calling thread's own
// backtrace; a signal handler's, named by the symbolising thread or, without it, addresses.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "src/base/backtrace.hpp"
#include "src/base/os.hpp"

using namespace pgas::detail;

namespace {

// Spins until told to stop. The short sleeps are calls the thread sanitizer intercepts, where
// it delivers pending signals; without them a thread spinning in plain loads never would.
[[gnu::noinline]] void spin_until_stopped(const std::atomic<bool>& stop) {
  while (!stop.load(std::memory_order_acquire))
    ::usleep(100);
}

struct spinner {
  std::atomic<bool> stop{false};
  std::atomic<int> tid{0};
  bool block_signal = false;
  std::thread thread;

  explicit spinner(bool block = false) : block_signal(block) {
    thread = std::thread([this] {
      if (block_signal) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, os_backtrace_signal());
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
      }
      tid.store(os_thread_id(), std::memory_order_release);
      spin_until_stopped(stop);
    });
    while (tid.load(std::memory_order_acquire) == 0)
      std::this_thread::yield();
  }
  ~spinner() {
    stop.store(true, std::memory_order_release);
    thread.join();
  }
};

bool names_function(const std::vector<stack_frame>& frames, std::string_view name) {
  for (const stack_frame& f : frames) {
    if (f.function.find(name) != std::string::npos) return true;
  }
  return false;
}

volatile int side_effect = 0;  // keeps the calls below from becoming tail calls

[[gnu::noinline]] std::vector<stack_frame> capture_here() {
  std::vector<stack_frame> frames = backtrace_of_self(0);  // from this function's caller on
  side_effect = side_effect + 1;
  return frames;
}

int capture_call_line = 0;
int inlined_call_line = 0;
int inlined_capture_line = 0;

// Inlined into its caller in optimised builds: a frame there is at this function's line,
// inlined at the caller's.
[[gnu::always_inline]] inline std::vector<stack_frame> inlined_capture() {
  inlined_capture_line = __LINE__ + 1;
  std::vector<stack_frame> frames = capture_here();
  return frames;
}

[[gnu::noinline]] std::vector<stack_frame> caller_of_inlined() {
  inlined_call_line = __LINE__ + 1;
  std::vector<stack_frame> frames = inlined_capture();
  side_effect = side_effect + 1;
  return frames;
}

[[gnu::noinline]] std::vector<stack_frame> caller_of_capture() {
  capture_call_line = __LINE__ + 1;
  std::vector<stack_frame> frames = capture_here();
  side_effect = side_effect + 1;
  return frames;
}

// What `fn` writes to stderr (fd 2), through a pipe.
template <class F>
std::string stderr_of(F fn) {
  int fds[2];
  REQUIRE(::pipe2(fds, O_NONBLOCK) == 0);
  const int saved = ::dup(2);
  ::dup2(fds[1], 2);
  fn();
  ::dup2(saved, 2);
  ::close(saved);
  ::close(fds[1]);
  std::string text;
  char chunk[4096];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;)
    text.append(chunk, static_cast<std::size_t>(n));
  ::close(fds[0]);
  return text;
}

void write_fatal_on_signal(int, siginfo_t*, void* ucontext) {
  backtrace_write_fatal(ucontext, "T: ");
}

[[gnu::noinline]] void interrupted_by_sigusr1() {
  ::raise(SIGUSR1);
  side_effect = side_effect + 1;
}

// The fatal-signal backtrace of a handler for SIGUSR1 (the path needs no fatal signal).
std::string fatal_backtrace_text() {
  struct sigaction saved {};
  REQUIRE(os_install_signal(SIGUSR1, write_fatal_on_signal, &saved) == 0);
  std::string text = stderr_of(interrupted_by_sigusr1);
  os_restore_signal(SIGUSR1, saved);
  return text;
}

// Calls `fn` from `depth` frames of recursion further in.
template <class F>
[[gnu::noinline]] void deep(int depth, F fn) {
  if (depth == 0) {
    fn();
  } else {
    deep(depth - 1, fn);
  }
  side_effect = side_effect + 1;
}

// The number of lines of `text` that start with `prefix`.
std::size_t lines_starting(const std::string& text, const std::string& prefix) {
  std::size_t n = 0;
  for (std::size_t at = 0; at < text.size(); at = text.find('\n', at) + 1) {
    if (text.compare(at, prefix.size(), prefix) == 0) ++n;
    if (text.find('\n', at) == std::string::npos) break;
  }
  return n;
}

// How long a capture of a thread that answers may take. It answers within microseconds on an
// idle machine, but a loaded one (or the thread sanitizer, which delivers a signal only at the
// thread's next intercepted call) can leave it unscheduled for seconds: the bound only has to
// end a capture that would never complete.
constexpr std::uint64_t answer_deadline_ns = 30'000'000'000;

// Waits (up to 30 s) until the kernel has let go of thread `tid`: pthread_join returns when
// the thread's user-space part is done, a moment before its task leaves /proc.
bool task_gone(int tid) {
  const std::string path = fmt::format("/proc/self/task/{}", tid);
  for (const std::uint64_t end = os_now_ns() + 30'000'000'000; os_now_ns() < end;) {
    if (::access(path.c_str(), F_OK) != 0) return true;
    ::usleep(1000);
  }
  return false;
}

struct installed {
  installed() { REQUIRE(backtrace_install() == 0); }
  ~installed() { backtrace_uninstall(); }
};

}  // namespace

TEST_CASE("a running thread's backtrace names its functions, innermost first", "[backtrace]") {
  installed handler;
  spinner s;
  std::vector<stack_frame> frames;
  REQUIRE(backtrace_of_thread(s.tid.load(), answer_deadline_ns, frames) == 0);
  REQUIRE_FALSE(frames.empty());
  CHECK(names_function(frames, "spin_until_stopped"));
  CHECK_FALSE(frames.front().module.empty());
  CHECK(frames.front().ip != 0);
  // The handler's own frames are not part of it.
  CHECK_FALSE(names_function(frames, "on_backtrace_signal"));
  // Asked again, the same thread answers again.
  REQUIRE(backtrace_of_thread(s.tid.load(), answer_deadline_ns, frames) == 0);
  CHECK(names_function(frames, "spin_until_stopped"));
}

TEST_CASE("a thread that has ended has no backtrace", "[backtrace]") {
  installed handler;
  int tid = 0;
  std::thread([&] { tid = os_thread_id(); }).join();
  REQUIRE(task_gone(tid));
  std::vector<stack_frame> frames;
  CHECK(backtrace_of_thread(tid, 1'000'000'000, frames) == -ESRCH);
  CHECK(frames.empty());
}

TEST_CASE("a thread that does not answer times out, and the next capture still works",
          "[backtrace]") {
  installed handler;
  std::vector<stack_frame> frames;
  {
    spinner deaf(true);
    const std::uint64_t start = os_now_ns();
    CHECK(backtrace_of_thread(deaf.tid.load(), 100'000'000, frames) == -ETIMEDOUT);
    CHECK(os_now_ns() - start >= 100'000'000);
    CHECK(frames.empty());
  }
  spinner s;
  REQUIRE(backtrace_of_thread(s.tid.load(), answer_deadline_ns, frames) == 0);
  CHECK(names_function(frames, "spin_until_stopped"));
}

// Many threads asked at once: one answer per thread in the order asked, each thread's own
// (the deaf one times out, the ended one is gone), and a thread that does not answer costs the
// others nothing. Threads stopped in the same place share their named frames.
TEST_CASE("threads asked at once each answer for themselves", "[backtrace]") {
  installed handler;
  int ended = 0;
  std::thread([&] { ended = os_thread_id(); }).join();
  REQUIRE(task_gone(ended));
  std::vector<std::unique_ptr<spinner>> spinners;
  for (int i = 0; i < 6; ++i)
    spinners.push_back(std::make_unique<spinner>(i == 2));
  std::vector<int> tids;
  for (const auto& s : spinners)
    tids.push_back(s->tid.load());
  tids.push_back(ended);
  std::vector<thread_backtrace> got;
  SECTION("with a thread that never answers: one deadline for all") {
    // A short deadline, which a busy machine may also make the others miss: an answer given
    // is the thread's own.
    backtraces_of_threads(tids, 200'000'000, got);
    REQUIRE(got.size() == tids.size());
    CHECK(got[2].error == -ETIMEDOUT);
    CHECK(got[2].frames.empty());
    for (std::size_t i = 0; i < spinners.size(); ++i) {
      INFO("spinner " << i);
      CHECK((got[i].error == 0 || got[i].error == -ETIMEDOUT));
      if (got[i].error == 0) CHECK(names_function(got[i].frames, "spin_until_stopped"));
    }
    CHECK(got.back().error == -ESRCH);
  }
  SECTION("every thread that can answers") {
    tids.erase(tids.begin() + 2);
    backtraces_of_threads(tids, answer_deadline_ns, got);
    REQUIRE(got.size() == tids.size());
    for (std::size_t i = 0; i + 1 < tids.size(); ++i) {
      INFO("thread " << i);
#if defined(__SANITIZE_THREAD__)
      // The thread sanitizer delivers a signal only at the thread's next intercepted call, which
      // a loaded machine can put off past any deadline: there a miss is recorded, not failed.
      if (got[i].error == -ETIMEDOUT) {
        WARN("thread " << i << " did not answer within the deadline under the thread sanitizer");
        continue;
      }
#endif
      REQUIRE(got[i].error == 0);
      CHECK(names_function(got[i].frames, "spin_until_stopped"));
      CHECK_FALSE(names_function(got[i].frames, "on_backtrace_signal"));
    }
    CHECK(got.back().error == -ESRCH);
  }
  // The next request, of one thread, still works.
  std::vector<stack_frame> frames;
  REQUIRE(backtrace_of_thread(spinners[0]->tid.load(), answer_deadline_ns, frames) == 0);
  CHECK(names_function(frames, "spin_until_stopped"));
}

TEST_CASE("frames are formatted one line each, unknown functions as ??", "[backtrace]") {
  std::vector<stack_frame> frames(3);
  frames[0] = {0x1234, "f(int)", 0x10, "/lib/x.so", "", 0, "", false};
  frames[1] = {0xabcd, "", 0, "", "", 0, "", false};
  frames[2] = {0x5678, "g()", 0x8, "/bin/p", "src/g.hpp", 42, ", inlined at src/g.cpp:7", false};
  CHECK(backtrace_format(frames, "pgas:   ") ==
        "pgas:   #0  0x0000000000001234 in f(int)+0x10 (/lib/x.so)\n"
        "pgas:   #1  0x000000000000abcd in ??\n"
        "pgas:   #2  0x0000000000005678 in g()+0x8 at src/g.hpp:42, inlined at src/g.cpp:7 "
        "(/bin/p)\n");
}

TEST_CASE("the calling thread's backtrace starts at its caller's caller", "[backtrace]") {
  const std::vector<stack_frame> frames = caller_of_capture();
  REQUIRE_FALSE(frames.empty());
  CHECK(frames.front().function.find("caller_of_capture") != std::string::npos);
  CHECK_FALSE(frames.front().module.empty());
  CHECK_FALSE(names_function(frames, "capture_here"));
  CHECK_FALSE(names_function(frames, "backtrace_of_self"));
#ifdef PGAS_TEST_DEBUG_INFO
  // With debug information, the frame has the source line of the call in caller_of_capture.
  INFO(frames.front().file << ":" << frames.front().line);
  CHECK(frames.front().file.ends_with("backtrace_test.cpp"));
  CHECK(frames.front().line == capture_call_line);  // the call's line, not the next one
  CHECK(backtrace_format(frames, "").find(" at ") != std::string::npos);
#endif
}

TEST_CASE("a frame in inlined code gives the line in the function it is inlined into",
          "[backtrace]") {
  const std::vector<stack_frame> frames = caller_of_inlined();
  REQUIRE_FALSE(frames.empty());
  CHECK(frames.front().function.find("caller_of_inlined") != std::string::npos);
#ifdef PGAS_TEST_DEBUG_INFO
  // -O2 -g: the call is in inlined_capture's body, inlined into caller_of_inlined.
  INFO(backtrace_format(frames, ""));
  CHECK(frames.front().line == inlined_capture_line);
  CHECK(frames.front().inlined_at ==
        fmt::format(", inlined at {}:{}", frames.front().file, inlined_call_line));
#endif
}

TEST_CASE(
    "a signal handler's backtrace is named by the symbolising thread, or addresses without it",
    "[backtrace]") {
  SECTION("with the symbolising thread: demangled, with modules, as backtrace_format writes") {
    REQUIRE(backtrace_fatal_start() == 0);
    const std::string text = fatal_backtrace_text();
    backtrace_fatal_stop();
    INFO(text);
    CHECK(text.find("T: #0  0x") == 0);
    CHECK(text.find("write_fatal_on_signal") == std::string::npos);
    // "... in FUNCTION(ARGS)+0xOFF (MODULE)"
    const auto at = text.find("(anonymous namespace)::interrupted_by_sigusr1()+0x");
    REQUIRE(at != std::string::npos);
    CHECK(text.substr(at, text.find('\n', at) - at).find("backtrace_test)") != std::string::npos);
  }
  SECTION("twice in a row: the thread serves one report after another") {
    REQUIRE(backtrace_fatal_start() == 0);
    const std::string first = fatal_backtrace_text();
    const std::string second = fatal_backtrace_text();
    backtrace_fatal_stop();
    INFO(first << second);
    CHECK(first.find("interrupted_by_sigusr1()+0x") != std::string::npos);
    CHECK(second.find("interrupted_by_sigusr1()+0x") != std::string::npos);
  }
  SECTION("without it: the handler writes the addresses itself, naming nothing (no allocation)") {
    const std::string text = fatal_backtrace_text();
    INFO(text);
    CHECK(text.find("T: #0  0x") == 0);
    CHECK(text.find(" in ??\n") != std::string::npos);
    CHECK(text.find("interrupted_by_sigusr1") == std::string::npos);
  }
}

TEST_CASE("a child of fork() writes a signal handler's backtrace at once, as addresses",
          "[backtrace]") {
  REQUIRE(backtrace_fatal_start() == 0);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // No symbolising thread here: without the fork handler this would wait 1 s, then write.
    ::dup2(fds[1], 2);
    struct sigaction saved {};
    if (os_install_signal(SIGUSR1, write_fatal_on_signal, &saved) != 0) ::_exit(3);
    const std::uint64_t t0 = os_now_ns();
    interrupted_by_sigusr1();
    // A wait for the absent thread would last its full second: anything shorter shows there
    // was none, however slowly a busy machine runs the unwinding.
    ::_exit(os_now_ns() - t0 < 1'000'000'000 ? 0 : 4);
  }
  ::close(fds[1]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  std::string text;
  char chunk[4096];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;)
    text.append(chunk, static_cast<std::size_t>(n));
  ::close(fds[0]);
  backtrace_fatal_stop();
  INFO(text);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // without waiting for a symbolising thread
  // Addresses only (under the thread sanitizer, a forked child's handler may unwind nothing).
  CHECK(text.find("interrupted_by_sigusr1") == std::string::npos);
}

TEST_CASE("a backtrace deeper than 64 frames keeps the innermost 64 and says more were left out",
          "[backtrace]") {
  const std::string marker = "...  more frames, not shown: only the innermost 64 are\n";
  SECTION("the calling thread's") {
    std::vector<stack_frame> frames;
    deep(100, [&] { frames = backtrace_of_self(0); });
    REQUIRE(frames.size() == 65);
    CHECK(frames.back().more);
    CHECK(std::none_of(frames.begin(), frames.end() - 1, [](auto& f) { return f.more; }));
    const std::string text = backtrace_format(frames, "p: ");
    CHECK(text.ends_with("p: " + marker));
    CHECK(lines_starting(text, "p: #") == 64);
  }
  SECTION("a shallow one has no marker") {
    std::vector<stack_frame> frames;
    deep(3, [&] { frames = backtrace_of_self(0); });
    REQUIRE_FALSE(frames.empty());
    CHECK(frames.size() < 64);
    CHECK_FALSE(frames.back().more);
  }
  SECTION("a signal handler's, named and as addresses") {
    for (const bool named : {true, false}) {
      INFO("named " << named);
      if (named) REQUIRE(backtrace_fatal_start() == 0);
      std::string text;
      deep(100, [&] { text = fatal_backtrace_text(); });
      if (named) backtrace_fatal_stop();
      INFO(text);
      CHECK(text.ends_with("T: " + marker));
      CHECK(lines_starting(text, "T: #") == 64);
    }
  }
}

// A thread that allocates and frees in a loop is often interrupted inside malloc, holding an
// arena lock: its handler must answer all the same (it allocates nothing), every time.
TEST_CASE("a thread interrupted inside malloc answers every backtrace request", "[backtrace]") {
  installed hook;
  std::atomic<bool> stop{false};
  std::atomic<int> tid{0};
  std::thread churn([&] {
    tid.store(os_thread_id(), std::memory_order_release);
    std::vector<void*> held(64, nullptr);
    for (std::size_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      // Sizes past the thread caches (glibc's, and jemalloc's 32 KiB where it is the malloc),
      // so that malloc takes an arena's lock.
      void*& slot = held[i % held.size()];
      std::free(slot);
      slot = std::malloc((40 + 12 * (i % 14)) << 10);
    }
    for (void* p : held)
      std::free(p);
  });
  while (tid.load(std::memory_order_acquire) == 0)
    std::this_thread::yield();
  int answered = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<stack_frame> frames;
    const int r = backtrace_of_thread(tid.load(), answer_deadline_ns, frames);
    if (r != 0) {
      FAIL_CHECK("request " << i << " got " << r);
      break;
    }
    ++answered;
  }
  stop.store(true, std::memory_order_relaxed);
  churn.join();
  CHECK(answered == 300);
}
