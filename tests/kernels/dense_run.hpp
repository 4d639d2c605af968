// Runs a dense tiled kernel (kernels/matmul_tiled.cpp, kernels/cholesky.cpp) through pgasrun and
// checks the fields every run of one reports: the kernel contract's (kernels/harness.hpp),
// verified, and kernels/dense.hpp's GFLOP/s beside the machine's peak.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace dense_test {

// `pgasrun -n threads $program --variant V --size S --tile B --reps 1`; the JSON line, checked.
inline nlohmann::json run_verified(const char* program_env, const char* kernel,
                                   const std::string& variant, int threads, int size, int tile) {
  INFO(kernel << ' ' << variant << " at " << threads << " threads, size " << size << ", tile "
              << tile);
  const nlohmann::json j = app_test::run_kernel(
      program_env, kernel, variant, threads,
      "--size " + std::to_string(size) + " --tile " + std::to_string(tile) + " --reps 1");
  CHECK(j["size"] == size);
  CHECK(j["tile"] == tile);
  CHECK(j["gflops"].get<double>() > 0);
  CHECK(j["peak_gflops"].get<double>() > 0);
  CHECK(j["core_peak"]["cores"].get<int>() >= 1);
  return j;
}

// Every variant at 1-3 threads on 6 x 6 tiles of 8; `check` sees each JSON line.
template <class Check>
void run_every_variant(const char* program_env, const char* kernel, Check&& check) {
  for (const char* variant : {"seq", "naive", "cut", "openmp", "blas", "library"}) {
    for (int threads = 1; threads <= 3; ++threads)
      check(run_verified(program_env, kernel, variant, threads, 48, 8));
  }
}

// The PGAS variants where tiles are few or tiny: one tile (two of three threads own none), tiles
// of one element, four tiles over three threads.
inline void run_edge_tiles(const char* program_env, const char* kernel) {
  for (const char* variant : {"naive", "cut", "blas"}) {
    run_verified(program_env, kernel, variant, 3, 16, 16);
    run_verified(program_env, kernel, variant, 2, 5, 1);
    run_verified(program_env, kernel, variant, 3, 14, 7);
  }
}

// A usage error: status 2 and `message` in the output.
inline void check_usage_error(const char* program_env, const std::string& args,
                              const std::string& message) {
  INFO(args);
  const app_test::app_output out = app_test::run_app(program_env, 1, args);
  INFO(out.text);
  CHECK(out.status == 2);
  CHECK(out.text.find(message) != std::string::npos);
}

// A size that is not a multiple of the tile (given or the default 256), a zero tile and another
// kernel's variant exit 2 with a message naming what was wrong.
inline void check_usage_errors(const char* program_env) {
  check_usage_error(program_env, "--variant blas --size 50 --tile 8",
                    "--size 50 is not a multiple of --tile 8");
  check_usage_error(program_env, "--variant library --size 100",
                    "--size 100 is not a multiple of --tile 256");
  check_usage_error(program_env, "--variant seq --size 64 --tile 0", "--tile");
  check_usage_error(program_env, "--variant tables --size 64", "--variant");
}

}  // namespace dense_test
