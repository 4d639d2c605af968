// Runs a locality-cut kernel (kernels/matvec.cpp, kernels/stencil5.cpp) through pgasrun: every
// variant of kernels/harness.hpp's cut_variants at 1-3 threads, tilings where threads own few
// tiles or none, and the usage errors every such kernel shares. The JSON fields are checked by
// tests/kernels/dense_run.hpp's run_verified (contract, tile, GFLOP/s beside the peak).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/dense_run.hpp"

namespace cut_test {

// kernels/harness.hpp: cut_variants.
inline const char* const variants[] = {"seq", "naive", "privatized", "cut", "openmp"};

// Every variant at 1-3 threads, size 48 in tiles of 8; `check` sees each JSON line.
template <class Check>
void run_every_variant(const char* program_env, const char* kernel, Check&& check) {
  for (const char* variant : variants) {
    for (int threads = 1; threads <= 3; ++threads)
      check(dense_test::run_verified(program_env, kernel, variant, threads, 48, 8));
  }
}

// The PGAS variants where tiles are few or tiny: one tile (two of three threads own none),
// tiles of one element, four tiles along each dimension over three threads.
inline void run_edge_tiles(const char* program_env, const char* kernel) {
  for (const char* variant : variants) {
    if (std::string(variant) == "seq" || std::string(variant) == "openmp") continue;
    dense_test::run_verified(program_env, kernel, variant, 3, 16, 16);
    dense_test::run_verified(program_env, kernel, variant, 2, 5, 1);
    dense_test::run_verified(program_env, kernel, variant, 3, 28, 7);
  }
}

// A size that is not a multiple of the tile (given or the default 256), a size below the
// kernel's least, a zero tile and another kernel's variant exit 2 with a message naming what
// was wrong.
inline void check_usage_errors(const char* program_env, int too_small) {
  dense_test::check_usage_error(program_env, "--variant privatized --size 50 --tile 8",
                                "--size 50 is not a multiple of --tile 8");
  dense_test::check_usage_error(program_env, "--variant naive --size 100",
                                "--size 100 is not a multiple of --tile 256");
  dense_test::check_usage_error(
      program_env, "--variant seq --size " + std::to_string(too_small) + " --tile 1", "--size");
  dense_test::check_usage_error(program_env, "--variant seq --size 64 --tile 0", "--tile");
  dense_test::check_usage_error(program_env, "--variant blas --size 64", "--variant");
}

}  // namespace cut_test
