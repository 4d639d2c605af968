// The 3-D 7-point stencil (kernels/stencil7.cpp) through pgasrun: every variant at 1-3 threads
// verifies (every point against the reference sweeps) and reports its bandwidth beside the
// triad measured in the same run; grids where threads own one plane or none; its usage errors.
// Meson passes PGASRUN and STENCIL7.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {

// `pgasrun -n threads $STENCIL7 --variant V --size S --reps 1`; the JSON line, checked.
nlohmann::json run_verified(const std::string& variant, int threads, int size) {
  INFO("stencil7 " << variant << " at " << threads << " threads, size " << size);
  const app_test::app_output out =
      app_test::run_app("STENCIL7", threads,
                        "--variant " + variant + " --size " + std::to_string(size) + " --reps 1");
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto j = nlohmann::json::parse(app_test::json_line(out));
  CHECK(j["kernel"] == "stencil7");
  CHECK(j["variant"] == variant);
  CHECK(j["threads"] == (variant == "seq" ? 1 : threads));
  CHECK(j["size"] == size);
  CHECK(j["verified"] == true);
  CHECK(j["steps"] == 8);
  // 16 bytes per interior point and sweep over the median time; the triad's 24 per element
  // of size^3; the percentage is their ratio.
  const double inner = size - 2;
  CHECK(j["gbytes_per_s"].get<double>() ==
        Approx(16.0 * 8 * inner * inner * inner / j["seconds"].get<double>() / 1e9).epsilon(1e-9));
  CHECK(j["triad_gbytes_per_s"].get<double>() ==
        Approx(24.0 * size * size * size / j["triad_seconds"].get<double>() / 1e9).epsilon(1e-9));
  CHECK(j["triad_percent"].get<double>() ==
        Approx(100 * j["gbytes_per_s"].get<double>() / j["triad_gbytes_per_s"].get<double>()));
  return j;
}

}  // namespace

TEST_CASE("stencil7: every variant verifies at 1-3 threads", "[stencil7]") {
  for (const char* variant : {"seq", "ndarray", "openmp"}) {
    for (int threads = 1; threads <= 3; ++threads)
      run_verified(variant, threads, 20);
  }
}

TEST_CASE("stencil7: rows of whole vectors, streamed, in one or several blocks of rows",
          "[stencil7]") {
  // Sizes that are a multiple of every vector width (2, 4 or 8 doubles) take the streaming row
  // kernel: 8, one vector a row, both boundary lanes in it; 112, two blocks of rows (95 and 15).
  for (const char* variant : {"seq", "ndarray", "openmp"}) {
    for (int threads = 1; threads <= 3; ++threads) {
      run_verified(variant, threads, 8);
      run_verified(variant, threads, 112);
    }
  }
}

TEST_CASE("stencil7: threads that own one interior plane or none", "[stencil7]") {
  run_verified("ndarray", 3, 3);  // one interior plane: threads 1 and 2 own none
  run_verified("ndarray", 3, 4);  // two: thread 0 owns none
  run_verified("ndarray", 2, 5);  // three: one and two
}

TEST_CASE("stencil7 refuses a bad --size or --variant, or a grid too large, with status 2",
          "[stencil7]") {
  for (const auto& [args, message] :
       {std::pair<std::string, std::string>{"--variant seq --size 2", "--size"},
        {"--variant naive --size 8", "--variant"},
        {"--size 8", "--variant"},
        // Grids beyond any machine's memory: refused before they are allocated.
        {"--variant seq --size 1048576", "stencil7: --size 1048576 needs at least"},
        {"--variant ndarray --size 1048576", "stencil7: --size 1048576 needs at least"},
        {"--variant openmp --size 300000", "stencil7: --size 300000 needs at least"}}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("STENCIL7", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
    CHECK(out.text.find(message) != std::string::npos);
  }
}
