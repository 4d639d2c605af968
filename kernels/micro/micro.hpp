// kernels/micro/micro.hpp — what the micro-benchmarks share: the clock, the statistics of their
// samples and the one-JSON-object-per-line output.
//
// A micro-benchmark measures one mechanism (a barrier, an allocation, a table build, a shared
// access) against its references in the same run and prints one JSON line per row, with at
// least kernel, threads and verified. It accepts the kernels' --json (kernels/harness.hpp) and
// writes JSON lines with or without it, and exits 1 when a check of its results failed.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace pgas::micro {

using clock_type = std::chrono::steady_clock;

/// The median of the non-empty `v`: the mean of the two middle values when its size is even.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 != 0 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct stats {
  double median = 0, min = 0, max = 0;
};

/// The middle, smallest and largest value of the non-empty `v`. The middle of an even count is
/// the upper of the two middle values (alloc_bench's and table_bench's rows have always reported
/// it so).
inline stats summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

/// `x` rounded to `places` decimal places.
inline double round_places(double x, int places) {
  const double scale = std::pow(10.0, places);
  return std::round(x * scale) / scale;
}

/// Prints `row` (an nlohmann json object) as one line and flushes it, so that a later hang or
/// crash still leaves the rows before it.
template <class Json>
void print_row(const Json& row) {
  std::printf("%s\n", row.dump().c_str());
  std::fflush(stdout);
}

}  // namespace pgas::micro
