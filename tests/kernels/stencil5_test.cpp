// The 5-point stencil (kernels/stencil5.cpp) through pgasrun: every variant at 1-3 threads
// verifies (every point against the reference sweeps) and reports its steps and GFLOP/s beside
// the peak; tilings where threads own one tile, tiles of one point, or none; and its usage
// errors.
// Meson passes PGASRUN and STENCIL5.
#include "tests/kernels/cut_run.hpp"

TEST_CASE("stencil5: every variant verifies at 1-3 threads", "[stencil5]") {
  cut_test::run_every_variant("STENCIL5", "stencil5", [](const nlohmann::json& j) {
    CHECK(j["steps"] == 10);
    // 5 flops per interior point and sweep: the reported rate is that over the reported time.
    CHECK(j["gflops"].get<double>() ==
          Approx(5.0 * 10 * 46 * 46 / j["seconds"].get<double>() / 1e9).epsilon(1e-9));
  });
}

TEST_CASE("stencil5: one tile, tiles of one point, more tiles than threads", "[stencil5]") {
  cut_test::run_edge_tiles("STENCIL5", "stencil5");
}

TEST_CASE("stencil5 refuses a bad --size, --tile or --variant with status 2", "[stencil5]") {
  cut_test::check_usage_errors("STENCIL5", 2);
}
