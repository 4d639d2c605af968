// The Jacobi solver kernel (kernels/jacobi.cpp) through pgasrun: every variant at 1-3 threads
// reports the kernel contract's JSON line, verified, with its iterations and the same largest
// residual; systems where a thread owns one row or none; and its usage errors.
// Meson passes PGASRUN and JACOBI.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {

// Runs jacobi, checks its JSON line and returns its largest residual.
double check_jacobi(const char* variant, int threads, int size) {
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
  CHECK(j["iterations"] == 4);
  return j["residual"].get<double>();
}

}  // namespace

TEST_CASE("jacobi: every variant verifies at 1-3 threads", "[jacobi]") {
  const double residual = check_jacobi("seq", 1, 24);
  CHECK(residual > 0);
  for (const char* variant : {"seq", "naive", "openmp"}) {
    for (int threads = 1; threads <= 3; ++threads)
      CHECK(check_jacobi(variant, threads, 24) == Approx(residual).epsilon(1e-12));
  }
}

TEST_CASE("jacobi: threads that own one row or none", "[jacobi]") {
  // Blocks of ceil(size / 3): 1 unknown, on thread 0 alone; 3, one each; 4, 2, 2 and none.
  for (const int size : {1, 3, 4, 7})
    check_jacobi("naive", 3, size);
}

TEST_CASE("jacobi refuses size 0 and other variants with status 2", "[jacobi]") {
  for (const char* args : {"--variant seq --size 0", "--variant naive --size x", "--variant cached",
                           "--variant tables"}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("JACOBI", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
  }
}
