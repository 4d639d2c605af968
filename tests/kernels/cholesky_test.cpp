// The tiled Cholesky factorisation (kernels/cholesky.cpp) through pgasrun: every variant at 1-3
// threads verifies (its residual max |A - UᵀU| / (max |A| · n · ε) within the kernel's limit)
// and reports its GFLOP/s beside the peak; tiles that leave threads with none; and its usage
// errors. Meson passes PGASRUN and CHOLESKY.
#include "tests/kernels/dense_run.hpp"

TEST_CASE("cholesky: every variant verifies at 1-3 threads", "[cholesky]") {
  dense_test::run_every_variant("CHOLESKY", "cholesky", [](const nlohmann::json& j) {
    CHECK(j["residual"].get<double>() >= 0);
    CHECK(j["residual"].get<double>() <= 16);
  });
}

TEST_CASE("cholesky: one tile, tiles of one element, more threads than tiles", "[cholesky]") {
  dense_test::run_edge_tiles("CHOLESKY", "cholesky");
}

TEST_CASE("cholesky refuses a size that is not a multiple of the tile with status 2",
          "[cholesky]") {
  dense_test::check_usage_errors("CHOLESKY");
}
