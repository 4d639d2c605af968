// The LU kernel (kernels/lu.cpp) through pgasrun: every variant at 1-3 threads and every
// --block reports the kernel contract's JSON line, verified; a matrix of one tile; and its
// usage errors (a size that is no multiple of the block, another block, another variant).
// Meson passes PGASRUN and LU.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {

// Runs lu and checks its JSON line.
void check_lu(const char* variant, int threads, int size, int block) {
  INFO(variant << " at " << threads << " threads, size " << size << ", block " << block);
  const app_test::app_output out =
      app_test::run_app("LU", threads,
                        std::string("--variant ") + variant + " --size " + std::to_string(size) +
                            " --block " + std::to_string(block) + " --reps 1");
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto j = nlohmann::json::parse(app_test::json_line(out));
  CHECK(j["kernel"] == "lu");
  CHECK(j["variant"] == variant);
  CHECK(j["threads"] == (std::string(variant) == "seq" ? 1 : threads));
  CHECK(j["size"] == size);
  CHECK(j["verified"] == true);
  CHECK(j["block"] == block);
}

}  // namespace

TEST_CASE("lu: every variant verifies at 1-3 threads and every block", "[lu]") {
  for (const char* variant : {"seq", "naive", "openmp"}) {
    for (int threads = 1; threads <= 3; ++threads) {
      for (const int block : {8, 16, 32})
        check_lu(variant, threads, 64, block);
    }
  }
}

TEST_CASE("lu: a matrix of one tile, and threads that own no tile", "[lu]") {
  check_lu("naive", 3, 8, 8);
  check_lu("naive", 3, 16, 8);
}

TEST_CASE("lu refuses bad sizes and blocks and other variants with status 2", "[lu]") {
  for (const char* args : {"--variant seq --size 20 --block 8", "--variant seq --block 12",
                           "--variant naive --size 0", "--variant cached"}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("LU", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
  }
}
