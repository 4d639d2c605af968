// src/base/backoff.cpp — the escalating wait (see backoff.hpp): pause, then sched_yield while
// yields still help, then futex sleep in slices.

#include "src/base/backoff.hpp"

#include "src/base/os.hpp"

namespace pgas::detail {

namespace {

// A yield slower than this gave the CPU to another process (see backoff).
constexpr std::uint64_t slow_yield_ns = 50'000;
// After a slow yield, waits go from spinning straight to sleeping for this long.
constexpr std::uint64_t yield_ban_ns = 50'000'000;

// Until this time (os_now_ns) no thread yields: a recent yield was slow (see backoff).
// Process-wide rather than per job: the load it detects is the machine's.
std::atomic<std::uint64_t> yields_banned_until{0};

template <class Word>
bool backoff_yield(int& yields_left, const std::atomic<Word>& progress) noexcept {
  if (yields_left <= 0) return false;
  const std::uint64_t start = os_now_ns();
  if (start < yields_banned_until.load(std::memory_order_relaxed)) return false;
  --yields_left;
  const Word before = progress.load(std::memory_order_relaxed);
  os_yield();
  // A slow yield is fine when it ran a sibling thread that made progress (oversubscription);
  // a slow yield with no progress gave the CPU to another process.
  if (const std::uint64_t end = os_now_ns();
      end - start > slow_yield_ns && progress.load(std::memory_order_relaxed) == before) {
    yields_banned_until.store(end + yield_ban_ns, std::memory_order_relaxed);
    return false;
  }
  return true;
}

}  // namespace

int pauses_in(std::uint64_t ns) noexcept {
  constexpr int sample = 512;
  const std::uint64_t start = os_now_ns();
  for (int i = 0; i < sample; ++i)
    os_pause();
  const std::uint64_t took = os_now_ns() - start;
  if (took == 0) return adaptive_spin_max;
  const std::uint64_t fit = ns * sample / took;
  if (fit < static_cast<std::uint64_t>(adaptive_spin_min)) return adaptive_spin_min;
  if (fit > static_cast<std::uint64_t>(adaptive_spin_max)) return adaptive_spin_max;
  return static_cast<int>(fit);
}

bool backoff::yield(const std::atomic<std::uint64_t>& progress) noexcept {
  return backoff_yield(yields_left_, progress);
}

bool backoff::yield(const std::atomic<std::uint32_t>& progress) noexcept {
  return backoff_yield(yields_left_, progress);
}

void wait_until(const wait_policy& p, std::atomic<std::uint32_t>& word, std::uint32_t target,
                std::atomic<std::uint32_t>& sleepers, const std::atomic<std::uint64_t>& progress,
                void (*check)(void* ctx), void* ctx) {
  for (backoff b(p); !wait_reached(word, target);) {
    if (!b.step(progress)) break;
  }
  if (wait_reached(word, target)) return;
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  for (;;) {
    // Sleeps on the value seen, which may still be behind the one before the target (a
    // releaser of an earlier phase that has not stored yet): that releaser wakes it too.
    const std::uint32_t seen = word.load(std::memory_order_seq_cst);
    if (static_cast<std::int32_t>(seen - target) >= 0) break;
    os_futex_wait(&word, seen, wait_sleep_slice_ns);
    if (check != nullptr && !wait_reached(word, target)) check(ctx);
  }
  sleepers.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace pgas::detail
