// The dense matrix-vector multiply (kernels/matvec.cpp) through pgasrun: every variant at 1-3
// threads verifies (y exactly the reference product) and reports its GFLOP/s beside the peak;
// bands of rows that leave threads with none; and its usage errors.
// Meson passes PGASRUN and MATVEC.
#include "tests/kernels/cut_run.hpp"

TEST_CASE("matvec: every variant verifies at 1-3 threads", "[matvec]") {
  cut_test::run_every_variant("MATVEC", "matvec", [](const nlohmann::json& j) {
    // 2 n^2 flops: the reported rate is that over the reported time.
    CHECK(j["gflops"].get<double>() ==
          Approx(2.0 * 48 * 48 / j["seconds"].get<double>() / 1e9).epsilon(1e-9));
  });
}

TEST_CASE("matvec: one band, bands of one row, more bands than threads", "[matvec]") {
  cut_test::run_edge_tiles("MATVEC", "matvec");
}

TEST_CASE("matvec refuses a bad --size, --tile or --variant with status 2", "[matvec]") {
  cut_test::check_usage_errors("MATVEC", 0);
}
