// The tiled matrix multiply (kernels/matmul_tiled.cpp) through pgasrun: every variant at 1-3
// threads verifies (every row checked against the product of the inputs, exactly) and reports
// its GFLOP/s beside the peak; tiles that leave threads with none; and its usage errors.
// Meson passes PGASRUN and MATMUL_TILED.
#include "tests/kernels/dense_run.hpp"

TEST_CASE("matmul_tiled: every variant verifies at 1-3 threads", "[matmul_tiled]") {
  dense_test::run_every_variant("MATMUL_TILED", "matmul_tiled",
                                [](const nlohmann::json& j) { CHECK(j["checked_rows"] == 48); });
}

TEST_CASE("matmul_tiled: one tile, tiles of one element, more threads than tiles",
          "[matmul_tiled]") {
  dense_test::run_edge_tiles("MATMUL_TILED", "matmul_tiled");
}

TEST_CASE("matmul_tiled refuses a size that is not a multiple of the tile with status 2",
          "[matmul_tiled]") {
  dense_test::check_usage_errors("MATMUL_TILED");
}
