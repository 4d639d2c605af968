// src/base/backoff.hpp — waiting: the escalation every blocking wait uses (pause -> yield ->
// futex sleep), so that oversubscribed jobs degrade instead of hanging.
#pragma once

#include <atomic>
#include <cstdint>

namespace pgas::detail {

/// How long a waiter spins and yields before it sleeps (PGAS_SPIN; the job adapts it to
/// oversubscription).
struct wait_policy {
  int spin = 4000;  // pause iterations before yielding
  int yields = 16;  // yields before sleeping
};

/// The escalation every blocking wait uses before it sleeps: `spin` pause instructions, then a
/// few sched_yield calls. step() performs one step and returns false when the caller should
/// sleep instead. `progress` is a value that changes when the job makes progress towards what
/// the caller waits for (the barrier's arrival word, the lock's word). A yield that takes long
/// while nothing progressed means other processes took this CPU; yielding then hands them
/// whole time slices while the thread being waited for is queued, so after such a yield no
/// thread yields for the next 50 ms (they sleep instead).
class backoff {
 public:
  explicit backoff(const wait_policy& p) noexcept : spins_left_(p.spin), yields_left_(p.yields) {}
  bool step(const std::atomic<std::uint64_t>& progress) noexcept;
  bool step(const std::atomic<std::uint32_t>& progress) noexcept;

 private:
  int spins_left_;
  int yields_left_;
};

/// Sleepers wake this often to re-run their check (deadlock detection).
inline constexpr std::uint64_t wait_sleep_slice_ns = 50'000'000;

/// Waits until `word != value`: backoff (watching `progress`), then sleeps on the futex.
/// `sleepers` is incremented around sleeping so wakers know to call futex_wake. `check(ctx)` is
/// called every sleep slice while the value has not changed (it may end the job).
void wait_while_equal(const wait_policy& p, std::atomic<std::uint32_t>& word, std::uint32_t value,
                      std::atomic<std::uint32_t>& sleepers,
                      const std::atomic<std::uint64_t>& progress, void (*check)(void* ctx),
                      void* ctx);

}  // namespace pgas::detail
