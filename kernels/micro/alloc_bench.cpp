// kernels/micro/alloc_bench.cpp — the shared space's costs, as JSON lines:
//   * "pairs":  local_alloc/free pairs per second per thread, every thread at once, against
//               malloc/free and jemalloc's mallocx/dallocx run the same way in the same job;
//   * "all_alloc": latency of a collective all_alloc + all_free pair;
//   * "first_touch": seconds to first-touch 1 GiB of shared space through all_alloc (huge
//               pages asked for), against an anonymous mapping touched with 4 KiB pages and one
//               touched with transparent huge pages.
// Each figure is the median of --reps repetitions, with min and max.

#include <jemalloc/jemalloc.h>
#include <sys/mman.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Rows' keys come out sorted (nlohmann::json, not ordered_json), as they always have.
void emit(nlohmann::json row, const stats& s, const char* unit) {
  row["median_" + std::string(unit)] = s.median;
  row["min_" + std::string(unit)] = s.min;
  row["max_" + std::string(unit)] = s.max;
  print_row(row);
}

pgas::run_options job(int threads) {
  pgas::run_options o;
  o.threads = threads;
  return o;
}

// Pairs per second per thread of alloc(size)/free on every thread at once; the median thread.
template <class Alloc, class Free>
double pairs_per_second(long pairs, std::size_t size, Alloc alloc, Free free_fn) {
  // A window of live blocks so that frees are not always of the block just allocated.
  constexpr int window = 64;
  void* live[window] = {};
  pgas::barrier();
  const auto t0 = clock_type::now();
  for (long i = 0; i < pairs; ++i) {
    void*& slot = live[i % window];
    if (slot != nullptr) free_fn(slot);
    slot = alloc(size);
    static_cast<char*>(slot)[0] = 1;
    // Keep the compiler from pairing and eliding malloc/free (it knows their semantics).
    asm volatile("" : : "r"(slot) : "memory");
  }
  const double s = seconds_since(t0);
  for (void*& p : live) {
    if (p != nullptr) free_fn(p);
  }
  return static_cast<double>(pairs) / s;
}

// jemalloc flags for an arena and a tcache of the calling thread's own, as local_alloc uses:
// the reference that separates jemalloc's explicit-arena path from what pgas adds to it.
int own_arena_flags() {
  unsigned arena = 0, tcache = 0;
  std::size_t len = sizeof(unsigned);
  if (mallctl("arenas.create", &arena, &len, nullptr, 0) != 0) return 0;
  len = sizeof(unsigned);
  if (mallctl("tcache.create", &tcache, &len, nullptr, 0) != 0) return 0;
  return static_cast<int>(MALLOCX_ARENA(arena) | MALLOCX_TCACHE(tcache));
}

void bench_pairs(int threads, int reps, long pairs, std::size_t size) {
  const char* impls[] = {"pgas_local_alloc", "malloc", "mallocx", "mallocx_own_arena"};
  constexpr std::size_t n_impls = 4;
  std::vector<std::vector<double>> rates(n_impls);
  // Interleaved: each rep runs the four implementations in the same job, one after another.
  for (int r = 0; r < reps; ++r) {
    std::vector<double> rep(n_impls * static_cast<std::size_t>(threads));
    pgas::run(job(threads), 0, nullptr, [&] {
      const auto me = static_cast<std::size_t>(pgas::mythread());
      rep[0 * static_cast<std::size_t>(threads) + me] = pairs_per_second(
          pairs, size, [](std::size_t n) { return pgas::local_alloc(n); },
          [](void* p) { pgas::free(p); });
      rep[1 * static_cast<std::size_t>(threads) + me] = pairs_per_second(
          pairs, size, [](std::size_t n) { return std::malloc(n); }, [](void* p) { std::free(p); });
      rep[2 * static_cast<std::size_t>(threads) + me] = pairs_per_second(
          pairs, size, [](std::size_t n) { return mallocx(n, 0); }, [](void* p) { dallocx(p, 0); });
      thread_local int flags = own_arena_flags();
      rep[3 * static_cast<std::size_t>(threads) + me] = pairs_per_second(
          pairs, size, [](std::size_t n) { return mallocx(n, flags); },
          [](void* p) { dallocx(p, flags); });
    });
    for (std::size_t k = 0; k < n_impls; ++k) {
      std::vector<double> per_thread(rep.begin() + static_cast<std::ptrdiff_t>(k * threads),
                                     rep.begin() + static_cast<std::ptrdiff_t>((k + 1) * threads));
      rates[k].push_back(summarise(per_thread).median);
    }
  }
  for (std::size_t k = 0; k < n_impls; ++k) {
    emit({{"kernel", "alloc"},
          {"bench", "pairs"},
          {"impl", impls[k]},
          {"threads", threads},
          {"size", size},
          {"pairs", pairs},
          {"reps", reps},
          {"verified", true}},
         summarise(rates[k]), "pairs_per_s");
  }
  // Time ratios pgas/reference, rep by rep (side by side in one job).
  for (std::size_t ref : {std::size_t{2}, std::size_t{3}}) {
    std::vector<double> ratio;
    for (std::size_t r = 0; r < static_cast<std::size_t>(reps); ++r) {
      ratio.push_back(rates[ref][r] / rates[0][r]);
    }
    emit({{"kernel", "alloc"},
          {"bench", "pairs_time_ratio"},
          {"impl", std::string("pgas_local_alloc_over_") + impls[ref]},
          {"threads", threads},
          {"size", size},
          {"reps", reps},
          {"verified", true}},
         summarise(ratio), "x");
  }
}

void bench_all_alloc(int threads, int reps, int iterations) {
  std::vector<double> ns;
  bool ok = true;
  for (int r = 0; r < reps; ++r) {
    pgas::run(job(threads), 0, nullptr, [&] {
      pgas::barrier();
      const auto t0 = clock_type::now();
      for (int i = 0; i < iterations; ++i) {
        pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(pgas::threads()), 4096);
        if (!a) ok = false;
        pgas::all_free(a);
      }
      if (pgas::mythread() == 0) ns.push_back(seconds_since(t0) * 1e9 / iterations);
    });
  }
  emit({{"kernel", "alloc"},
        {"bench", "all_alloc"},
        {"impl", "pgas_all_alloc_all_free"},
        {"threads", threads},
        {"size", 4096},
        {"iterations", iterations},
        {"reps", reps},
        {"verified", ok}},
       summarise(ns), "ns");
}

double touch_anonymous(std::size_t bytes, int advice) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return -1;
  madvise(p, bytes, advice);
  const auto t0 = clock_type::now();
  auto* c = static_cast<volatile char*>(p);
  for (std::size_t i = 0; i < bytes; i += 4096)
    c[i] = 1;
  const double s = seconds_since(t0);
  munmap(p, bytes);
  return s;
}

void bench_first_touch(int threads, int reps) {
  constexpr std::size_t gib = std::size_t{1} << 30;
  std::vector<double> pgas_s, small_s, huge_s;
  for (int r = 0; r < reps; ++r) {
    pgas::run(job(threads), 0, nullptr, [&] {
      pgas::barrier();
      const auto t0 = clock_type::now();
      // all_alloc has each owner touch its part: 1 GiB in all.
      pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(pgas::threads()),
                                             gib / static_cast<std::size_t>(pgas::threads()));
      pgas::barrier();
      if (pgas::mythread() == 0) pgas_s.push_back(seconds_since(t0));
      pgas::all_free(a);
    });
    small_s.push_back(touch_anonymous(gib, MADV_NOHUGEPAGE));
    huge_s.push_back(touch_anonymous(gib, MADV_HUGEPAGE));
  }
  const char* names[] = {"pgas_all_alloc", "mmap_4k_pages", "mmap_huge_pages"};
  const std::vector<double>* figures[] = {&pgas_s, &small_s, &huge_s};
  for (int k = 0; k < 3; ++k) {
    emit({{"kernel", "alloc"},
          {"bench", "first_touch"},
          {"impl", names[k]},
          {"threads", k == 0 ? threads : 1},
          {"size", gib},
          {"reps", reps},
          {"verified", true}},
         summarise(*figures[k]), "s");
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Shared-space allocation costs: local_alloc pairs, all_alloc latency, first touch.");
  std::vector<int> threads{1, 2};
  std::vector<int> collective_threads{2, 8};
  int reps = 5;
  long pairs = 2'000'000;
  std::size_t size = 64;
  bool skip_touch = false;
  app.add_option("--threads", threads, "Thread counts for the pairs benchmark")->delimiter(',');
  app.add_option("--collective-threads", collective_threads, "Thread counts for all_alloc")
      ->delimiter(',');
  app.add_option("--reps", reps, "Repetitions; medians are quoted")->check(CLI::PositiveNumber);
  app.add_option("--pairs", pairs, "alloc/free pairs per thread per repetition")
      ->check(CLI::PositiveNumber);
  app.add_option("--size", size, "Bytes per allocation in the pairs benchmark")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-touch", skip_touch, "Skip the 1 GiB first-touch measurement");
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines");
  CLI11_PARSE(app, argc, argv);

  for (int t : threads)
    bench_pairs(t, reps, pairs, size);
  for (int t : collective_threads)
    bench_all_alloc(t, reps, 2000);
  if (!skip_touch) bench_first_touch(2, reps);
  return 0;
}
