// src/job/lock.hpp — the state behind a pgas::lock_t handle, shared by the lock itself
// (src/job/lock.cpp) and the deadlock detector that follows lock holders
// (src/job/wait_graph.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <source_location>

namespace pgas::detail {

// One cache line per lock, written by its holder: `word` is the futex (0 free, 1 held, 2 held
// and someone may sleep). `holder` and `held_at` are stored right after the CAS that takes the
// lock, while the line is already exclusive, so recording them costs the uncontended path no
// extra transfer. The detector reads them only from threads that have waited a long time.
struct alignas(64) lock_state {
  std::atomic<std::uint32_t> word{0};
  std::atomic<int> holder{-1};
  std::atomic<std::source_location> held_at{};  // where the holder took it
  std::atomic<bool> live{false};
  // For reports: "lock 3 (allocated at prog.cpp:12)". Written when the state leaves the pool.
  std::atomic<std::uint32_t> serial{0};
  std::atomic<std::source_location> allocated_at{};
};

static_assert(std::atomic<std::source_location>::is_always_lock_free,
              "a lock's acquisition site must be one lock-free store");

}  // namespace pgas::detail
