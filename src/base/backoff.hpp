// src/base/backoff.hpp — waiting: the escalation every blocking wait uses (pause -> yield ->
// futex sleep), so that oversubscribed jobs degrade instead of hanging.
#pragma once

#include <atomic>
#include <cstdint>

#include "src/base/os.hpp"

namespace pgas::detail {

/// How long a waiter spins and yields before it sleeps (PGAS_SPIN; the job adapts it to
/// oversubscription: no spinning, more yields).
struct wait_policy {
  int spin = 4000;  // pause iterations before yielding
  int yields = 16;  // yields before sleeping
};

/// PGAS_SPIN=adaptive's spin when the job has a PU per thread: the pause iterations that take
/// about this long here. A waiter that sleeps leaves its CPU idle; in a virtual machine the
/// host may then run something else on it, and the thread comes back late to cold caches. With
/// 4000 pauses (120 us on a 2-core VM) NAS FT class W's two threads switched context 500-640
/// times in 60 repetitions against OpenMP's 190, the CPUs idle 3-6 % of the run, and the FT, MG
/// and stencil7 kernels took 2-6 % longer than with a 1 ms spin; 4.5 ms gained nothing more.
inline constexpr std::uint64_t adaptive_spin_ns = 1'000'000;
/// The bounds of that count: the old fixed spin, and a cap for a pause that measured fast.
inline constexpr int adaptive_spin_min = 4000;
inline constexpr int adaptive_spin_max = 200'000;

/// The pause iterations that take about `ns` on this core, from timing a few hundred (about
/// 10 us): within [adaptive_spin_min, adaptive_spin_max], the minimum when the timing was
/// disturbed (a preempted measurement reads as slow pauses, so it errs towards sleeping).
int pauses_in(std::uint64_t ns) noexcept;

/// Yields before sleeping when a job has more threads than PUs (it spins 0 then).
inline constexpr int oversubscribed_yields = 64;

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
  // The pause is inline: a waiter sees the awaited change one loop turn after it happens, and
  // a call per turn would add its cost to every barrier's latency.
  template <class Word>
  bool step(const std::atomic<Word>& progress) noexcept {
    if (spins_left_ > 0) {
      --spins_left_;
      os_pause();
      return true;
    }
    return yield(progress);
  }

 private:
  bool yield(const std::atomic<std::uint64_t>& progress) noexcept;
  bool yield(const std::atomic<std::uint32_t>& progress) noexcept;
  int spins_left_;
  int yields_left_;
};

/// Sleepers wake this often to re-run their check (deadlock detection).
inline constexpr std::uint64_t wait_sleep_slice_ns = 50'000'000;

/// Whether `word` has reached `target`: a counter that only grows (wrapping), read acquire.
inline bool wait_reached(const std::atomic<std::uint32_t>& word, std::uint32_t target) noexcept {
  return static_cast<std::int32_t>(word.load(std::memory_order_acquire) - target) >= 0;
}

/// Waits until the counter `word` reaches `target` (wait_reached): backoff (watching
/// `progress`), then sleeps on the futex. `sleepers` is incremented around sleeping so wakers
/// know to call futex_wake. `check(ctx)` is called every sleep slice while the target is not
/// reached (it may end the job).
void wait_until(const wait_policy& p, std::atomic<std::uint32_t>& word, std::uint32_t target,
                std::atomic<std::uint32_t>& sleepers, const std::atomic<std::uint64_t>& progress,
                void (*check)(void* ctx), void* ctx);

}  // namespace pgas::detail
