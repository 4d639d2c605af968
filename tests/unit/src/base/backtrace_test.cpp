// Tests src/base/backtrace.cpp: another thread's backtrace, taken by signal with libunwind —
// named frames, a thread that has ended, a thread that does not answer (the request is taken
// back and the next capture still works), and the format of the lines.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

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

struct installed {
  installed() { REQUIRE(backtrace_install() == 0); }
  ~installed() { backtrace_uninstall(); }
};

}  // namespace

TEST_CASE("a running thread's backtrace names its functions, innermost first", "[backtrace]") {
  installed handler;
  spinner s;
  std::vector<stack_frame> frames;
  REQUIRE(backtrace_of_thread(s.tid.load(), 2'000'000'000, frames) == 0);
  REQUIRE_FALSE(frames.empty());
  CHECK(names_function(frames, "spin_until_stopped"));
  CHECK_FALSE(frames.front().module.empty());
  CHECK(frames.front().ip != 0);
  // The handler's own frames are not part of it.
  CHECK_FALSE(names_function(frames, "on_backtrace_signal"));
  // Asked again, the same thread answers again.
  REQUIRE(backtrace_of_thread(s.tid.load(), 2'000'000'000, frames) == 0);
  CHECK(names_function(frames, "spin_until_stopped"));
}

TEST_CASE("a thread that has ended has no backtrace", "[backtrace]") {
  installed handler;
  int tid = 0;
  std::thread([&] { tid = os_thread_id(); }).join();
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
  REQUIRE(backtrace_of_thread(s.tid.load(), 2'000'000'000, frames) == 0);
  CHECK(names_function(frames, "spin_until_stopped"));
}

TEST_CASE("frames are formatted one line each, unknown functions as ??", "[backtrace]") {
  std::vector<stack_frame> frames(2);
  frames[0] = {0x1234, "f(int)", 0x10, "/lib/x.so"};
  frames[1] = {0xabcd, "", 0, ""};
  CHECK(backtrace_format(frames, "pgas:   ") ==
        "pgas:   #0  0x0000000000001234 in f(int)+0x10 (/lib/x.so)\n"
        "pgas:   #1  0x000000000000abcd in ??\n");
}
