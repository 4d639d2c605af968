// kernels/dense.hpp — what the dense tiled kernels (matmul_tiled, cholesky) share: their --tile
// option and its check against --size, a tile as plain memory, OpenBLAS's thread count, and
// the machine's peak.
//
// The peak, in double-precision GFLOP/s, is computed as the paper reports it (its "theoretical
// peak: 6.9 GFlops x TPN"): the peak of one core times the cores the run uses (its threads, at
// most the machine's cores), one core's peak being
//
//     doubles per vector x 2 (a fused multiply-add is two flops) x 2 FMA pipes x GHz
//
// with the vector width the widest the CPU runs (8 doubles with AVX-512F, 4 with AVX2 and FMA,
// else SSE2's 2 with a separate add and multiply: 2 x 2), two FMA pipes per core (every x86 core
// since Haswell and Zen 2 has two), and the frequency the kernel reports: cpufreq's
// cpuinfo_max_freq when the machine has cpufreq, else /proc/cpuinfo's first "cpu MHz" (under a
// hypervisor, as here, the nominal clock: a core that boosts beyond it runs faster than this
// peak, and one that splits 512-bit operations in two, as Zen 4 does, at half of it).
#pragma once

#include <cblas.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <pgas/bulk.hpp>
#include <pgas/shared_array.hpp>

#include "harness.hpp"

namespace pgas::kernels {

/// The tile edge b of `shared [b][b] double` and the tile loops of every variant.
struct tile_option {
  std::size_t tile = 256;
  /// Adds --tile to a kernel's command line (parse_kernel_args' add_options).
  void add_to(CLI::App& app) {
    app.add_option("--tile", tile,
                   "Tile edge b of shared [b][b] double (default " + std::to_string(tile) +
                       "); --size must be a multiple of it")
        ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  }
  /// Exits 2 with a message when --size is not a multiple of --tile (the tiles cover the
  /// matrix exactly: a BLAS call takes whole tiles).
  void check(const kernel_args& a) const {
    if (a.size % tile == 0) return;
    std::fprintf(stderr,
                 "%s: --size %zu is not a multiple of --tile %zu (the tiles must cover the matrix "
                 "exactly; try --size %zu)\n",
                 a.kernel.c_str(), a.size, tile, (a.size / tile + 1) * tile);
    std::exit(2);
  }
};

/// OpenBLAS's own threads for the next calls. Inside pgas threads every call must run on the
/// calling thread alone (1), or each of THREADS callers would start OpenBLAS's pool on cores
/// the other pgas threads are pinned to; the library variant gives it PGAS_THREADS. The call,
/// not OPENBLAS_NUM_THREADS, so that one binary does both and a user's environment does not
/// change what a variant measures.
inline void blas_threads(int n) {
  openblas_set_num_threads(n);
}

/// Tile (ti, tj) of `shared [b][b] double M`, whole and row-major (b x b, as the BLAS takes it):
/// the owner's own storage when the calling thread owns it, else a copy in `scratch` (b x b
/// doubles) made by one pgas::memget of the whole tile (Barton et al.'s upc_memget). Inside a
/// job.
inline const double* tile_here(const pgas::shared_array<double, 2>& M, std::size_t b,
                               std::size_t ti, std::size_t tj, double* scratch) {
  const auto p = M.ptr(ti * b, tj * b);
  if (pgas::is_local(p)) return pgas::to_local(p);
  pgas::memget(scratch, p, b * b * sizeof(double));
  return scratch;
}

/// One core's double-precision peak in GFLOP/s (see the top of this file), and what it came
/// from.
struct core_peak {
  int doubles_per_vector = 2;
  int flops_per_cycle = 4;
  double ghz = 0;
  double gflops() const { return flops_per_cycle * ghz; }
};

inline double read_ghz() {
  if (std::ifstream f("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"); f) {
    double khz = 0;
    if (f >> khz && khz > 0) return khz / 1e6;
  }
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos) return std::strtod(line.c_str() + colon + 1, nullptr) / 1e3;
  }
  return 0;
}

inline core_peak this_core_peak() {
  core_peak p;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    p.doubles_per_vector = 8;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    p.doubles_per_vector = 4;
  }
  // Two FMA pipes, two flops each; SSE2 alone: one add and one multiply pipe.
  p.flops_per_cycle = p.doubles_per_vector == 2 ? 4 : p.doubles_per_vector * 2 * 2;
  p.ghz = read_ghz();
  return p;
}

/// The contract's extra fields of a dense kernel: "gflops" (`flops` over the median time),
/// "peak_gflops" for the cores `threads` threads use, "peak_percent", and the per-core figures
/// the peak came from.
inline nlohmann::ordered_json gflops_fields(double flops, const timing& t, int threads) {
  const core_peak core = this_core_peak();
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const int cores = std::min(threads, static_cast<int>(hw));
  const double gflops = t.median > 0 ? flops / t.median / 1e9 : 0.0;
  const double peak = core.gflops() * cores;
  nlohmann::ordered_json e;
  e["gflops"] = gflops;
  e["peak_gflops"] = peak;
  e["peak_percent"] = peak > 0 ? 100 * gflops / peak : 0.0;
  e["core_peak"] = {{"doubles_per_vector", core.doubles_per_vector},
                    {"flops_per_cycle", core.flops_per_cycle},
                    {"ghz", core.ghz},
                    {"cores", cores}};
  return e;
}

}  // namespace pgas::kernels
