// kernels/micro/static_bench.cpp — the cost of reaching a static shared array
// (pgas/static_shared.hpp) in a loop, as JSON lines: one row per access path, each the median
// nanoseconds per element of --reps sweeps over the calling thread's elements (owner-computes,
// as UPC's `upc_forall (…; &A[i])` does), all measured in the same job:
//   * "shared_array":   a(i) on a pgas::shared_array made in the body (the reference);
//   * "static_array":   S(i) on a namespace-scope pgas::static_array of the same layout;
//   * "static_get":     s(i) with `auto& s = S.get();` taken before the loop.
// Usage: static_bench [--threads N] [--elements E] [--reps R] [--json]

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

std::size_t elements_per_thread = std::size_t{1} << 20;

// shared [1024] long S[E*THREADS]
pgas::static_array<long, 1, 1024> S([](int threads) {
  return static_cast<long long>(elements_per_thread) * threads;
});

// Sums a[i] + i over the calling thread's blocks, one sweep.
template <class Array>
[[gnu::noinline]] long sweep(const Array& a, std::size_t n) {
  long sum = 0;
  const std::size_t me = static_cast<std::size_t>(pgas::mythread());
  const std::size_t t = static_cast<std::size_t>(pgas::threads());
  for (std::size_t b = me * 1024; b < n; b += t * 1024) {
    for (std::size_t i = b; i < b + 1024 && i < n; ++i)
      sum += a(i) + static_cast<long>(i);
  }
  return sum;
}

template <class Array>
double ns_per_element(const Array& a, std::size_t n, int reps, long expect, bool& ok) {
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    pgas::barrier();
    const auto t0 = clock_type::now();
    const long sum = sweep(a, n);
    const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
    ok = ok && sum == expect;
    samples.push_back(s * 1e9 / static_cast<double>(n / static_cast<std::size_t>(pgas::threads())));
  }
  return median(samples);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"static_bench: cost of a static shared array's element access"};
  int threads = 1;
  int reps = 21;
  bool json = false;
  app.add_option("--threads", threads, "UPC threads")->check(CLI::Range(1, 64));
  app.add_option("--elements", elements_per_thread, "elements per thread")
      ->check(CLI::Range(1024, 1 << 26));
  app.add_option("--reps", reps, "sweeps per access path")->check(CLI::Range(1, 1000));
  app.add_flag("--json", json, "JSON lines (the only output format)");
  CLI11_PARSE(app, argc, argv);
  pgas::run_options o;
  o.threads = threads;
  bool ok = true;
  const int status = pgas::run(o, argc, argv, [&](int, char**) {
    const std::size_t n = S.size();
    pgas::shared_array<long, 1, 1024> a({n});
    long expect = 0;
    const std::size_t me = static_cast<std::size_t>(pgas::mythread());
    for (std::size_t i = 0; i < n; ++i) {
      if ((i / 1024) % static_cast<std::size_t>(pgas::threads()) != me) continue;
      a(i) = static_cast<long>(i % 7);
      S(i) = static_cast<long>(i % 7);
      expect += static_cast<long>(i % 7) + static_cast<long>(i);
    }
    pgas::barrier();
    bool mine_ok = true;
    // Interleaved rounds so that drift of the machine touches every path alike.
    std::vector<double> ref, stat, get;
    for (int round = 0; round < 3; ++round) {
      ref.push_back(ns_per_element(a, n, reps, expect, mine_ok));
      stat.push_back(ns_per_element(S, n, reps, expect, mine_ok));
      auto& s = S.get();
      get.push_back(ns_per_element(s, n, reps, expect, mine_ok));
    }
    if (!mine_ok) ok = false;
    if (pgas::mythread() == 0) {
      const double r = median(ref);
      for (const auto& [name, v] :
           {std::pair{"shared_array", r}, std::pair{"static_array", median(stat)},
            std::pair{"static_get", median(get)}}) {
        nlohmann::json row;
        row["kernel"] = "static_access";
        row["path"] = name;
        row["threads"] = pgas::threads();
        row["elements_per_thread"] = n / static_cast<std::size_t>(pgas::threads());
        row["median_ns_per_element"] = round_places(v, 3);
        row["ratio_to_shared_array"] = round_places(v / r, 3);
        row["verified"] = mine_ok;
        print_row(row);
      }
    }
    pgas::barrier();
    return 0;
  });
  return status != 0 ? status : (ok ? 0 : 1);
}
