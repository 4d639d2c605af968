// The 2-D stencil kernel (kernels/stencil2d.cpp) through pgasrun: every variant, 4 and 8
// points, at 1-3 threads reports the kernel contract's JSON line, verified, with its points and
// steps; grids where a thread owns one row, only border rows or none; and its usage errors.
// Meson passes PGASRUN and STENCIL2D.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {}  // namespace

TEST_CASE("stencil2d: every variant verifies with 4 and 8 points at 1-3 threads", "[stencil2d]") {
  // 3: one interior point; 7 over 3 threads: bands of 3, 3 and 1 rows; 40: bands of 14.
  for (const int size : {3, 7, 40}) {
    for (const int points : {4, 8}) {
      for (const char* variant : {"seq", "naive", "cached", "coalesced", "openmp"}) {
        for (int threads = 1; threads <= 3; ++threads) {
          INFO(variant << " at " << threads << " threads, size " << size << ", " << points
                       << " points");
          const app_test::app_output out = app_test::run_app(
              "STENCIL2D", threads,
              std::string("--variant ") + variant + " --size " + std::to_string(size) +
                  " --points " + std::to_string(points) + " --reps 1");
          INFO(out.text);
          REQUIRE(out.status == 0);
          const auto j = nlohmann::json::parse(app_test::json_line(out));
          CHECK(j["kernel"] == "stencil2d");
          CHECK(j["variant"] == variant);
          CHECK(j["threads"] == (std::string(variant) == "seq" ? 1 : threads));
          CHECK(j["size"] == size);
          CHECK(j["verified"] == true);
          CHECK(j["points"] == points);
          CHECK(j["steps"] == 10);
        }
      }
    }
  }
}

TEST_CASE("stencil2d refuses other points, sizes below 3 and other variants with status 2",
          "[stencil2d]") {
  for (const char* args : {"--variant seq --points 5", "--variant seq --size 2", "--variant tables",
                           "--variant naive --points"}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("STENCIL2D", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
  }
}
