// The Jacobi kernel (kernels/jacobi.cpp) through pgasrun: every variant at 1-3 threads reports
// the kernel contract's JSON line, verified, with its sweeps; grids where a thread owns one row,
// only border rows or none; and its usage errors.
// Meson passes PGASRUN and JACOBI.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {

// Runs jacobi and checks its JSON line.
void check_jacobi(const char* variant, int threads, int size) {
  INFO(variant << " at " << threads << " threads, size " << size);
  const app_test::app_output out = app_test::run_app(
      "JACOBI", threads,
      std::string("--variant ") + variant + " --size " + std::to_string(size) + " --reps 1");
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto j = nlohmann::json::parse(app_test::json_line(out));
  CHECK(j["kernel"] == "jacobi");
  CHECK(j["variant"] == variant);
  CHECK(j["threads"] == (std::string(variant) == "seq" ? 1 : threads));
  CHECK(j["size"] == size);
  CHECK(j["verified"] == true);
  CHECK(j["sweeps"] == 8);
}

}  // namespace

TEST_CASE("jacobi: every variant verifies at 1-3 threads", "[jacobi]") {
  for (const char* variant : {"seq", "naive", "openmp"}) {
    for (int threads = 1; threads <= 3; ++threads)
      check_jacobi(variant, threads, 24);
  }
}

TEST_CASE("jacobi: threads that own one row, only border rows or none", "[jacobi]") {
  // 3 rows over 3 threads: one each, two of them border rows; 4 over 3: 2, 2 and none.
  for (const int size : {3, 4, 7})
    check_jacobi("naive", 3, size);
}

TEST_CASE("jacobi refuses sizes below 3 and other variants with status 2", "[jacobi]") {
  for (const char* args : {"--variant seq --size 2", "--variant naive --size x", "--variant cached",
                           "--variant tables"}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("JACOBI", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
  }
}
