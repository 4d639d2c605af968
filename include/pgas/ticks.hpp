// pgas/ticks.hpp — a cheap, steady tick counter for timing code (UPC 1.3 <upc_tick.h>:
// upc_tick_t, UPC_TICK_MAX, upc_ticks_now, upc_ticks_to_ns).
//
//   pgas::tick_t t0 = pgas::ticks_now();
//   work();
//   std::uint64_t ns = pgas::ticks_to_ns(pgas::ticks_now() - t0);
//
// A tick is one nanosecond of the system's monotonic clock (CLOCK_MONOTONIC, read through
// std::chrono::steady_clock, which the C library serves from the vDSO without a system call).
// It is steady and monotonic: it never goes back, is not moved by changes of the wall clock,
// and is the same clock on every thread, so ticks taken on different threads of a job can be
// subtracted (UPC only promises this within one thread). Measured on the development machine
// (a 2-core x86-64 KVM guest, tsc clocksource, under load): one ticks_now() costs 20 to 60 ns,
// and two reads that differ differ by at least 20 ns, the practical resolution (clock_getres
// says 1 ns). With another clocksource (hpet, acpi_pm) a read can cost a microsecond; the units
// stay nanoseconds.
//
// Contract.
//   * Collective: no. Thread-safe. Works inside and outside a job.
//   * Errors: none. A tick_t wraps after UPC_TICK_MAX ticks (584 years); differences of ticks
//     taken within that span are exact.
//   * Memory ordering: none; reading the clock is not a fence (use pgas::fence to order timed
//     accesses).
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>

namespace pgas {

/// UPC upc_tick_t: an unsigned count of ticks.
using tick_t = std::uint64_t;

/// UPC UPC_TICK_MAX: the largest tick_t.
inline constexpr tick_t tick_max = std::numeric_limits<tick_t>::max();

/// UPC upc_ticks_now: the current tick count (steady, monotonic).
inline tick_t ticks_now() noexcept {
  return static_cast<tick_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

/// UPC upc_ticks_to_ns: nanoseconds in `ticks` ticks (a tick is a nanosecond here).
constexpr std::uint64_t ticks_to_ns(tick_t ticks) noexcept {
  return ticks;
}

}  // namespace pgas
