// kernels/harness.hpp — the kernel contract, and what every benchmark kernel shares to keep it:
//
//   pgasrun -n N build/kernels/NAME --variant V [--size S] [--reps R] [--json]
//
// prints one JSON line with at least kernel, variant, threads, size, seconds (the median of R
// timed repetitions, after one untimed warm-up), min/max seconds, reps and verified, and exits 1
// when the result does not verify (2 for a usage error). Variants:
//   seq         plain C++ on plain arrays, no runtime (threads is reported as 1): the fastest
//               sequential code for the algorithm, nothing in the timed loop that the
//               algorithm does not need; pgas-bench checks it against the plain C program
//               beside each kernel (kernels/plain/, variant c) and fails when it is more than
//               5 % slower;
//   naive       every access through a generic pointer-to-shared (what a UPC compiler emits);
//   privatized  the thread's own part through plain pointers, the rest through pointers-to-
//               shared (Serres et al. "privatization");
//   tables      inter-thread privatization: pgas::privatize tables for every array;
//   auto        plain A(i, j) on pgas::shared_array (automatic tables when they apply);
//   openmp      the same kernel as an OpenMP user writes it, on PGAS_THREADS threads;
//   cached      (cc, stencil2d) other threads' elements through the software cache;
//   coalesced   (cc, stencil2d) other threads' elements through a coalescing schedule.
//   blas, library  (matmul_tiled, cholesky) see tile_variants below.
//   cut         (matvec, stencil5, matmul_tiled, cholesky) see cut_variants and tile_variants.
// A kernel runs all_variants unless it declares its own list (cache_variants below).
//
// A kernel supplies main(), parses with parse_kernel_args, runs its variant and calls
// print_result. The PGAS variants run inside pgas::run (collectively); seq and openmp do not.
#pragma once

#include <sys/mman.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <nlohmann/json.hpp>
#include <pgas/reuse.hpp>
#include <pgas/runtime.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace pgas::kernels {

/// The variants of Serres et al.'s kernels (matmul, sobel, randomaccess): the list a kernel
/// takes unless it declares its own.
inline const std::vector<std::string> all_variants = {"seq",    "naive", "privatized",
                                                      "tables", "auto",  "openmp"};

/// The variants of the kernels that measure the software cache and coalescing schedules (cc,
/// stencil2d):
///   cached      the other threads' elements read through pgas::cache (pgas/cache.hpp);
///   coalesced   the other threads' elements fetched in batches by a coalescing schedule
///               (pgas/coalesce.hpp), built once and reused while the index set stays fixed;
/// seq, naive and openmp as above.
inline const std::vector<std::string> cache_variants = {"seq", "naive", "cached", "coalesced",
                                                        "openmp"};

/// The variants of the kernels whose reuse distances pgas-reuse records and predicts (jacobi, lu):
/// seq, naive (every access through the shared arrays) and openmp as above.
inline const std::vector<std::string> reuse_variants = {"seq", "naive", "openmp"};

/// The variants of the dense tiled kernels of Barton et al.'s multiblocking (matmul_tiled,
/// cholesky), on `shared [b][b] double` arrays:
///   naive       A(i, j) on the tiled arrays for every element;
///   cut         the same element loops through the locality cuts (pgas/cuts.hpp): the element
///               written through a plain pointer, the reads that move with the inner loop (not
///               at a constant offset) through the general path;
///   blas        each tile through OpenBLAS and LAPACKE, single-threaded inside each pgas
///               thread, remote tiles copied whole into scratch with pgas::memget;
///   library     the baseline: one OpenBLAS / LAPACKE call on the whole plain matrix with
///               OpenBLAS's own threads (PGAS_THREADS of them), no runtime;
/// seq (plain C++, no BLAS) and openmp (the seq loops under OpenMP, no BLAS) as above.
inline const std::vector<std::string> tile_variants = {"seq",    "naive", "cut",
                                                       "openmp", "blas",  "library"};

/// The variants of the kernels that measure locality analysis and privatization on tiled
/// arrays (matvec, stencil5):
///   naive       A(i, j) on the tiled arrays for every element, in a pgas::forall with the
///               array's affinity (the paper's non-optimised form);
///   privatized  the optimised form by hand: the thread's own tiles through plain pointers
///               (index arithmetic written out), the rest through the general path;
///   cut         the same loop through the locality cuts (pgas/cuts.hpp): local runs as plain
///               pointers, remote runs through the general path, no index arithmetic;
/// seq and openmp as above.
inline const std::vector<std::string> cut_variants = {"seq", "naive", "privatized", "cut",
                                                      "openmp"};

struct kernel_args {
  std::string kernel;
  std::string variant;
  std::size_t size = 0;
  int reps = 5;
  bool json = true;
};

/// "a, b or c".
inline std::string variants_text(const std::vector<std::string>& variants) {
  std::string text;
  for (std::size_t i = 0; i < variants.size(); ++i)
    text += (i == 0 ? "" : i + 1 == variants.size() ? " or " : ", ") + variants[i];
  return text;
}

/// Parses the contract's options (exits 2 with CLI11's message on a usage error, 0 for --help).
/// `min_size` is the smallest size the kernel accepts, `variants` the ones it runs, and
/// `add_options` adds the kernel's own options (stencil2d's --points) to the same command line.
inline kernel_args parse_kernel_args(int argc, char** argv, const std::string& kernel,
                                     const std::string& summary, std::size_t default_size,
                                     std::size_t min_size,
                                     const std::vector<std::string>& variants = all_variants,
                                     const std::function<void(CLI::App&)>& add_options = {}) {
  kernel_args a;
  a.kernel = kernel;
  a.size = default_size;
  CLI::App app(summary, kernel);
  app.add_option("--variant", a.variant, variants_text(variants))
      ->required()
      ->check(CLI::IsMember(variants));
  app.add_option("--size", a.size, "Problem size (default " + std::to_string(default_size) + ")")
      ->check(CLI::Range(min_size, std::size_t{1} << 20));
  app.add_option("--reps", a.reps, "Timed repetitions; seconds is their median (default 5)")
      ->check(CLI::Range(1, 100000));
  app.add_flag("--json", a.json, "Print the result as one JSON line (the default)");
  if (add_options) add_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);  // prints the message; CLI11's own codes are not ours
    std::exit(status == 0 ? 0 : 2);
  }
  pgas::reuse_size(a.size);  // the "size" of a pgasrun --reuse recording
  return a;
}

/// Threads an openmp variant uses: THREADS as a job would resolve it (pgasrun -n), default 1.
/// A malformed PGAS_* variable is a usage error, as it is for a job.
inline int openmp_threads() {
  try {
    return *pgas::run_options{}.resolved().threads;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    std::exit(2);
  }
}

/// The allocator of the seq and openmp variants' arrays: memory as the shared arrays get it
/// (alloc/space.cpp), aligned to 2 MiB and advised into transparent huge pages, so that a
/// comparison measures address translation and not page size or alignment (a vector's 16-byte
/// alignment splits every other 64-byte AVX-512 load across two cache lines: matmul's seq ran
/// 1.4x its PGAS variants for that alone). Elements are default-initialised (left as they are):
/// the kernels write every one before use.
template <class T>
struct plain_allocator {
  using value_type = T;
  plain_allocator() = default;
  template <class U>
  plain_allocator(const plain_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    constexpr std::size_t huge = std::size_t{2} << 20;
    const std::size_t bytes = (n * sizeof(T) + huge - 1) / huge * huge;
    void* p = std::aligned_alloc(huge, bytes);
    if (p == nullptr) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without THP, plain pages
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  void construct(U*) noexcept {}  // default-initialise
  template <class U, class V>
  void construct(U* p, const V& v) {
    ::new (static_cast<void*>(p)) U(v);
  }
  friend bool operator==(plain_allocator, plain_allocator) { return true; }
};
template <class T>
using plain_vector = std::vector<T, plain_allocator<T>>;

struct timing {
  double median = 0, min = 0, max = 0;
  int reps = 0;
};

/// Times `reps` calls of `once` after one untimed warm-up call. `sync` runs before and after
/// each call (a pgas::barrier for collective variants, nothing otherwise), so a repetition's
/// time is the slowest thread's. `prepare` runs untimed before every call, before `sync` (a
/// kernel that overwrites its input, such as cholesky, restores it there).
inline timing time_reps(
    int reps, const std::function<void()>& once, const std::function<void()>& sync = [] {},
    const std::function<void()>& prepare = [] {}) {
  using clock = std::chrono::steady_clock;
  std::vector<double> s;
  prepare();
  sync();
  once();
  for (int r = 0; r < reps; ++r) {
    prepare();
    sync();
    const auto t0 = clock::now();
    once();
    sync();
    s.push_back(std::chrono::duration<double>(clock::now() - t0).count());
  }
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  const double med = n % 2 != 0 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return {med, s.front(), s.back(), reps};
}

/// Prints the contract's JSON line (plus `extra` fields) and returns the exit status: 0 when
/// verified, 1 otherwise.
inline int print_result(const kernel_args& a, int threads, const timing& t, bool verified,
                        const nlohmann::ordered_json& extra = nlohmann::ordered_json::object()) {
  nlohmann::ordered_json j;
  j["kernel"] = a.kernel;
  j["variant"] = a.variant;
  j["threads"] = threads;
  j["size"] = a.size;
  j["seconds"] = t.median;
  j["min_seconds"] = t.min;
  j["max_seconds"] = t.max;
  j["reps"] = t.reps;
  j["verified"] = verified;
  for (auto it = extra.begin(); it != extra.end(); ++it)
    j[it.key()] = it.value();
  std::printf("%s\n", j.dump().c_str());
  std::fflush(stdout);
  if (!verified)
    std::fprintf(stderr, "%s: %s did not verify\n", a.kernel.c_str(), a.variant.c_str());
  return verified ? 0 : 1;
}

}  // namespace pgas::kernels
