// kernels/micro/alias_bench.cpp — streaming loops over equal-sized vectors allocated back to
// back, as JSON lines: do collective allocations alias each other in the caches?
//
// Three shared arrays of n doubles (pgas::shared_array, cyclic blocks, so each thread's part is
// contiguous) are created one after the other, the way a program declares its vectors. Each
// thread runs a kernel over its local parts:
//   * "dot":   s += x[i] * y[i]          (two vectors read)
//   * "daxpy": y[i] += a * x[i]          (two vectors, one of them written)
//   * "triad": z[i] = x[i] + a * y[i]    (three vectors, one written)
// and the same compiled loop over the same number of elements of plain memory laid out as a
// careful OpenMP programmer lays it out: one 2 MiB-aligned buffer holding the vectors with
// 4 KiB + 64 bytes of padding between them ("plain_padded"); and, to show the trap on plain
// memory too, the same buffer without padding, the vectors exactly a power of two apart
// ("plain_unpadded"). Each thread takes its contiguous slice of the plain vectors, first
// touched by itself.
//
// Each repetition times one pass of every variant (thread 0's wall time from a barrier to the
// barrier after the pass), in an order that rotates with the repetition. Rows give ms per pass
// (median, min, max over --reps) and the ratio shared / plain_padded of the same repetition
// (median), and each variant's vector start addresses modulo 64 KiB ("starts_mod_64k").
// Verified: every variant computes bit-identical results (dot sums, and the written vector's
// sum after the same number of passes).

#include <sys/mman.h>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

constexpr double a = 0.5;

// One pass of `kernel` over n elements; the dot product's sum, or 0. Out of line so that every
// variant runs the same machine code.
[[gnu::noinline]] double pass(const std::string& kernel, double* __restrict x, double* __restrict y,
                              double* __restrict z, std::size_t n) {
  if (kernel == "dot") {
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i)
      s += x[i] * y[i];
    return s;
  }
  if (kernel == "daxpy") {
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i)
      y[i] += a * x[i];
    return 0;
  }
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i)
    z[i] = x[i] + a * y[i];
  return 0;
}

// The vector the kernel writes (checked after the passes).
int written(const std::string& kernel) {
  return kernel == "dot" ? -1 : kernel == "daxpy" ? 1 : 2;
}

// A 2 MiB-aligned buffer of three vectors of `each` bytes, `pad` bytes apart, as huge pages.
struct plain_buffer {
  char* base = nullptr;
  std::size_t stride = 0;
  plain_buffer(std::size_t each, std::size_t pad) : stride(each + pad) {
    constexpr std::size_t huge = std::size_t{2} << 20;
    const std::size_t bytes = (3 * stride + huge - 1) / huge * huge;
    base = static_cast<char*>(std::aligned_alloc(huge, bytes));
    if (base == nullptr) throw std::bad_alloc();
    madvise(base, bytes, MADV_HUGEPAGE);
  }
  plain_buffer(const plain_buffer&) = delete;
  plain_buffer& operator=(const plain_buffer&) = delete;
  ~plain_buffer() { std::free(base); }
  double* vec(int v) const { return reinterpret_cast<double*>(base + v * stride); }
};

constexpr const char* variants[] = {"shared", "plain_padded", "plain_unpadded"};

struct result {
  std::vector<double> ms[3];
  std::vector<double> ratio;
  bool ok = true;
  nlohmann::json layout;  // per variant, the vectors' start addresses modulo 64 KiB
};

result bench(const std::string& kernel, int threads, std::size_t n, int reps) {
  result r;
  pgas::run_options o;
  o.threads = threads;
  pgas::run(o, 0, nullptr, [&] {
    const int me = pgas::mythread();
    const auto t = static_cast<std::size_t>(threads);
    const std::size_t block = std::min<std::size_t>(n / t, pgas::config::max_block);
    pgas::shared_array<double> sx({n}, pgas::block_spec::cyclic(block));
    pgas::shared_array<double> sy({n}, pgas::block_spec::cyclic(block));
    pgas::shared_array<double> sz({n}, pgas::block_spec::cyclic(block));
    const std::size_t mine = sx.local_part().size();
    static plain_buffer* padded = nullptr;
    static plain_buffer* unpadded = nullptr;
    if (me == 0) {
      padded = new plain_buffer(n * sizeof(double), 4096 + 64);
      unpadded = new plain_buffer(n * sizeof(double), 0);
    }
    pgas::barrier();
    double* vec[3][3] = {{sx.local_part().data(), sy.local_part().data(), sz.local_part().data()},
                         {padded->vec(0), padded->vec(1), padded->vec(2)},
                         {unpadded->vec(0), unpadded->vec(1), unpadded->vec(2)}};
    for (int v = 1; v < 3; ++v) {
      for (double*& p : vec[v])
        p += static_cast<std::size_t>(me) * mine;
    }
    for (auto& row : vec) {
      for (std::size_t i = 0; i < mine; ++i) {
        row[0][i] = 1.0 + static_cast<double>(i % 7);
        row[1][i] = 0.25 * static_cast<double>(i % 5);
        row[2][i] = 0;
      }
    }
    if (me == 0) {
      for (int v = 0; v < 3; ++v) {
        for (double* p : vec[v])
          r.layout[variants[v]].push_back(reinterpret_cast<std::uintptr_t>(p) % 65536);
      }
    }
    double sums[3] = {};
    for (int rep = -1; rep < reps; ++rep) {  // rep -1: untimed warm-up
      double ms[3] = {};
      for (int k = 0; k < 3; ++k) {
        const int v = (k + rep + 3) % 3;
        pgas::barrier();
        const auto t0 = clock_type::now();
        sums[v] += pass(kernel, vec[v][0], vec[v][1], vec[v][2], mine);
        pgas::barrier();
        ms[v] = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
      }
      if (me == 0 && rep >= 0) {
        for (int v = 0; v < 3; ++v)
          r.ms[v].push_back(ms[v]);
        r.ratio.push_back(ms[0] / ms[1]);
      }
    }
    if (const int w = written(kernel); w >= 0) {
      for (int v = 0; v < 3; ++v) {
        for (std::size_t i = 0; i < mine; ++i)
          sums[v] += vec[v][w][i];
      }
    }
    static std::atomic<bool> ok;
    if (me == 0) ok = true;
    pgas::barrier();
    if (sums[0] != sums[1] || sums[0] != sums[2]) ok = false;
    pgas::barrier();
    if (me == 0) {
      r.ok = ok;
      delete padded;
      delete unpadded;
    }
  });
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Streaming loops over vectors allocated back to back: shared arrays against "
      "padded plain memory.");
  std::vector<int> threads{1, 2};
  std::vector<int> log2n{22, 23, 24, 25};
  std::vector<std::string> kernels{"dot", "daxpy", "triad"};
  int reps = 7;
  app.add_option("--threads", threads, "Thread counts")->delimiter(',');
  app.add_option("--log2n", log2n, "log2 of the elements per vector")
      ->delimiter(',')
      ->check(CLI::Range(10, 30));
  app.add_option("--kernel", kernels, "Kernels: dot, daxpy, triad")
      ->delimiter(',')
      ->check(CLI::IsMember({"dot", "daxpy", "triad"}));
  app.add_option("--reps", reps, "Repetitions; medians are quoted")->check(CLI::PositiveNumber);
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines");
  CLI11_PARSE(app, argc, argv);

  bool ok = true;
  for (const std::string& k : kernels) {
    for (int l : log2n) {
      for (int t : threads) {
        const std::size_t n = std::size_t{1} << l;
        const result r = bench(k, t, n, reps);
        ok = ok && r.ok;
        const nlohmann::json base{{"kernel", "alias"},
                                  {"bench", k},
                                  {"log2n", l},
                                  {"threads", t},
                                  {"reps", reps},
                                  {"verified", r.ok},
                                  {"starts_mod_64k", r.layout}};
        for (int v = 0; v < 3; ++v) {
          const stats s = summarise(r.ms[v]);
          nlohmann::json j = base;
          j["impl"] = variants[v];
          j["median_ms"] = round_places(s.median, 3);
          j["min_ms"] = round_places(s.min, 3);
          j["max_ms"] = round_places(s.max, 3);
          print_row(j);
        }
        nlohmann::json j = base;
        j["impl"] = "shared_over_plain_padded";
        j["median_x"] = round_places(median(r.ratio), 3);
        print_row(j);
      }
    }
  }
  return ok ? 0 : 1;
}
