// The 2-D stencil kernel (kernels/stencil2d.cpp) through pgasrun: every variant of the 8-point
// stencil at 1-3 threads reports the kernel contract's JSON line, verified, with its points and
// steps (the 4-point one runs in tests/kernels/meson.build's loop); grids where a thread owns
// one row, only border rows or none; and its usage errors.
// Meson passes PGASRUN and STENCIL2D.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {

// Runs stencil2d and checks its JSON line.
void check_stencil(const char* variant, int threads, int size, int points) {
  INFO(variant << " at " << threads << " threads, size " << size << ", " << points << " points");
  const nlohmann::json j = app_test::run_kernel(
      "STENCIL2D", "stencil2d", variant, threads,
      "--size " + std::to_string(size) + " --points " + std::to_string(points) + " --reps 1");
  CHECK(j["size"] == size);
  CHECK(j["points"] == points);
  CHECK(j["steps"] == 10);
}

}  // namespace

TEST_CASE("stencil2d: every variant verifies the 8-point stencil at 1-3 threads", "[stencil2d]") {
  for (const char* variant : {"seq", "naive", "cached", "coalesced", "openmp"}) {
    for (int threads = 1; threads <= 3; ++threads)
      check_stencil(variant, threads, 40, 8);
  }
}

TEST_CASE("stencil2d: threads that own one row, only border rows or none", "[stencil2d]") {
  // 3 rows over 3 threads: one each, two of them border rows; 7 over 3: 3, 3 and 1 (a border).
  for (const int size : {3, 7}) {
    for (const char* variant : {"naive", "cached", "coalesced"})
      check_stencil(variant, 3, size, 4);
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
