// Unit tests of pgas/ticks.hpp: ticks never go back (on one thread, and across threads ordered
// by a barrier), they count nanoseconds of the steady clock, and tick_max is the type's end.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <thread>

#include <pgas/collectives.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sync.hpp>
#include <pgas/ticks.hpp>

#include "../test_job.hpp"

TEST_CASE("ticks are monotonic nanoseconds", "[ticks]") {
  STATIC_REQUIRE(pgas::tick_max == std::numeric_limits<std::uint64_t>::max());
  STATIC_REQUIRE(pgas::ticks_to_ns(12345) == 12345);
  pgas::tick_t last = pgas::ticks_now();
  for (int i = 0; i < 100000; ++i) {
    const pgas::tick_t now = pgas::ticks_now();
    REQUIRE(now >= last);
    last = now;
  }
  // A sleep of 20 ms lasts at least 20 ms of ticks, and (on any sane machine) less than 20 s.
  const pgas::tick_t t0 = pgas::ticks_now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::uint64_t ns = pgas::ticks_to_ns(pgas::ticks_now() - t0);
  REQUIRE(ns >= 20'000'000);
  REQUIRE(ns < 20'000'000'000);
}

TEST_CASE("ticks of different threads are one clock", "[ticks]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    for (int round = 0; round < 100; ++round) {
      // Ticks read before a barrier are not after ticks any thread reads after it.
      const pgas::tick_t before = pgas::allreduce(pgas::ticks_now(), pgas::max_op{});
      bad += pgas::ticks_now() < before;
    }
    return bad;
  });
  REQUIRE(rc == 0);
}
