// The integer sort application (kernels/apps/is.cpp) through pgasrun at 1-4 threads: its key
// count, key sum and the keys at ranks n/4, n/2 and 3n/4 must equal, exactly, those of a
// sequential computation done here from the algorithm's description (one stream of the
// generator from the seed, no jump-ahead, std::sort), and it must report its keys sorted.
// Meson passes PGASRUN and IS.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/kernels/app_run.hpp"

namespace {

// Key i is the mean of uniform numbers 4i+1 .. 4i+4 of x' = 5^13 x mod 2^46 from 314159265,
// scaled to [0, 2^16).
std::vector<int> reference_keys(int log2n) {
  constexpr std::uint64_t a = 1220703125;  // 5^13
  constexpr std::uint64_t mask = (std::uint64_t{1} << 46) - 1;
  constexpr double scale = 1.0 / static_cast<double>(std::uint64_t{1} << 46);
  std::uint64_t x = 314159265;
  std::vector<int> keys(std::size_t{1} << log2n);
  for (int& key : keys) {
    double s = 0;
    for (int k = 0; k < 4; ++k) {
      // a x mod 2^46 in halves of 23 bits, no product above 2^54.
      constexpr std::uint64_t low = (std::uint64_t{1} << 23) - 1;
      x = ((((a * (x >> 23)) & low) << 23) + a * (x & low)) & mask;
      s += static_cast<double>(x) * scale;
    }
    key = static_cast<int>(s / 4.0 * 65536);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

void check_is(int threads, int log2n, const std::vector<int>& want) {
  INFO("threads " << threads << ", K " << log2n);
  const app_test::app_output got = app_test::run_app("IS", threads, std::to_string(log2n));
  INFO(got.text);
  REQUIRE(got.status == 0);
  long long sum = 0;
  for (int k : want)
    sum += k;
  CHECK(std::stoll(got.at("keys")) == static_cast<long long>(want.size()));
  CHECK(std::stoll(got.at("sum")) == sum);
  CHECK(got.at("sorted") == "yes");
  // "rank R key K" lines.
  const std::size_t n = want.size();
  for (std::size_t q = 1; q <= 3; ++q) {
    const std::size_t rank = n / 4 * q;
    const std::string line = "rank " + std::to_string(rank) + " key " + std::to_string(want[rank]);
    CHECK(got.text.find(line + "\n") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("IS sorts the keys of the sequential computation at 1-4 threads", "[is]") {
  const std::vector<int> want = reference_keys(18);
  REQUIRE(want.front() < want.back());
  for (int threads = 1; threads <= 4; ++threads)
    check_is(threads, 18, want);
}

TEST_CASE("IS with fewer keys than a thread's key range leaves some inboxes empty", "[is]") {
  const std::vector<int> want = reference_keys(4);
  for (int threads = 1; threads <= 4; ++threads)
    check_is(threads, 4, want);
}

TEST_CASE("IS refuses a bad K with status 2", "[is]") {
  const app_test::app_output got = app_test::run_app("IS", 2, "3");
  CHECK(got.status == 2);
  CHECK(got.text.find("is: K must be in [4, 30]") != std::string::npos);
}
