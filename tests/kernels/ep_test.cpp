// The EP application (kernels/apps/ep.cpp) through pgasrun at 1-4 threads: its annulus counts
// must equal, exactly, and its sums agree to 1e-12 relative with a sequential computation done
// here from the algorithm's description (one generator stream from the seed, no jump-ahead,
// so the program's per-batch jumps are checked too); and at M = 24 its sums must be the values
// NAS publishes for EP class S, which uses the same generator, seed and method.
//
// Meson passes PGASRUN (the launcher) and EP (the program).
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "tests/kernels/app_run.hpp"

namespace {

constexpr int annuli = 10;

struct ep_result {
  std::array<long, annuli> q{};
  long gaussians = 0;
  double sx = 0;
  double sy = 0;
};

// 2^m pairs from x' = 5^13 x mod 2^46 starting at 271828183, each number x / 2^46 taken after
// the step; the Marsaglia polar method keeps pairs with 0 < t <= 1.
ep_result reference(int m) {
  constexpr std::uint64_t a = 1220703125;  // 5^13
  constexpr std::uint64_t mask = (std::uint64_t{1} << 46) - 1;
  constexpr double scale = 1.0 / static_cast<double>(std::uint64_t{1} << 46);
  std::uint64_t x = 271828183;
  auto next = [&] {
    // a x mod 2^46 in halves of 23 bits, no product above 2^54.
    constexpr std::uint64_t low = (std::uint64_t{1} << 23) - 1;
    x = ((((a * (x >> 23)) & low) << 23) + a * (x & low)) & mask;
    return 2.0 * (static_cast<double>(x) * scale) - 1.0;
  };
  ep_result r;
  for (std::uint64_t k = 0; k < (std::uint64_t{1} << m); ++k) {
    const double u = next();
    const double v = next();
    const double t = u * u + v * v;
    if (t > 1.0 || t == 0.0) continue;
    const double f = std::sqrt(-2.0 * std::log(t) / t);
    const auto l = static_cast<int>(std::max(std::fabs(u * f), std::fabs(v * f)));
    if (l < annuli) {
      ++r.q[static_cast<std::size_t>(l)];
      ++r.gaussians;
    }
    r.sx += u * f;
    r.sy += v * f;
  }
  return r;
}

// Runs the program and reads its "key value" lines.
ep_result run_ep(int threads, int m) {
  const app_test::app_output out = app_test::run_app("EP", threads, std::to_string(m));
  INFO(out.text);
  REQUIRE(out.status == 0);
  ep_result r;
  for (int l = 0; l < annuli; ++l)
    r.q[static_cast<std::size_t>(l)] = std::stol(out.at("q" + std::to_string(l)));
  r.gaussians = std::stol(out.at("gaussians"));
  r.sx = std::stod(out.at("sx"));
  r.sy = std::stod(out.at("sy"));
  return r;
}

}  // namespace

TEST_CASE("EP agrees with the sequential computation at 1-4 threads", "[ep]") {
  constexpr int m = 20;
  const ep_result want = reference(m);
  REQUIRE(want.gaussians > 800000);  // about pi/4 of the 2^20 pairs
  for (int threads = 1; threads <= 4; ++threads) {
    INFO("threads " << threads);
    const ep_result got = run_ep(threads, m);
    CHECK(got.q == want.q);
    CHECK(got.gaussians == want.gaussians);
    CHECK(app_test::close(got.sx, want.sx, 1e-12));
    CHECK(app_test::close(got.sy, want.sy, 1e-12));
  }
}

TEST_CASE("EP at M = 24 gives the published class S sums", "[ep]") {
  const ep_result got = run_ep(3, 24);
  CHECK(app_test::close(got.sx, -3.247834652034740e3, 1e-12));
  CHECK(app_test::close(got.sy, -6.958407078382297e3, 1e-12));
}
