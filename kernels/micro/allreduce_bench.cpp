// allreduce_bench — how long pgas::allreduce of one double takes next to one pgas::barrier, and
// next to OpenMP's `reduction(+:x)` on a worksharing loop (libgomp: a reduction and the loop's
// barrier), at each thread count.
//
// Entry point: main() parses options; for each thread count, pgas_team() runs one job that
// calibrates a batch size on the barrier, then times batches of barriers and of allreduces
// alternately (rep by rep, so both see the same machine), and omp_team() times batches of the
// OpenMP loop. Output: one JSON object per (impl, threads) line with the median/min/max ns per
// operation; the allreduce row also has the median of the per-rep ratios to the barrier.
#include <pthread.h>
#include <sched.h>

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include <pgas/collectives.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sync.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

struct options {
  std::vector<int> threads{1, 2, 4, 8};
  int reps = 7;
  double seconds = 0.1;
};

struct series {
  std::vector<double> ns;  // per operation, one per rep
  bool verified = true;
};

struct results {
  long iterations = 0;
  series barrier, allreduce, omp;
  std::vector<double> ratio;  // allreduce / barrier, per rep
};

double elapsed_ns(clock_type::time_point t0) {
  return std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
}

// Every thread contributes mythread()+1, so every sum is n(n+1)/2, exactly.
void pgas_team(int n, const options& opt, results& r, int argc, char** argv) {
  cpu_set_t mask;
  const bool saved = pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) == 0;
  pgas::run_options o;
  o.threads = n;
  std::atomic<bool> wrong{false};
  const int rc = pgas::run(o, argc, argv, [&] {
    const int me = pgas::mythread();
    const double mine = me + 1;
    const double want = n * (n + 1) / 2.0;
    // Calibration on the barrier: thread 0 doubles the batch until it takes the wanted time,
    // and broadcasts its decision so every thread runs the same batches.
    long k = 1;
    for (;;) {
      const auto t0 = clock_type::now();
      for (long i = 0; i < k; ++i)
        pgas::barrier();
      const bool enough =
          pgas::broadcast(elapsed_ns(t0) >= opt.seconds * 1e9 || k >= (1L << 30), 0);
      if (enough) break;
      k *= 2;
    }
    for (int rep = 0; rep < opt.reps; ++rep) {
      pgas::barrier();
      auto t0 = clock_type::now();
      for (long i = 0; i < k; ++i)
        pgas::barrier();
      const double barrier_ns = elapsed_ns(t0) / static_cast<double>(k);
      pgas::barrier();
      t0 = clock_type::now();
      double bad = 0;
      for (long i = 0; i < k; ++i)
        bad += pgas::allreduce(mine, std::plus<>{}) != want;
      const double allreduce_ns = elapsed_ns(t0) / static_cast<double>(k);
      if (bad != 0) wrong = true;
      if (me == 0) {
        r.barrier.ns.push_back(barrier_ns);
        r.allreduce.ns.push_back(allreduce_ns);
        r.ratio.push_back(allreduce_ns / barrier_ns);
      }
    }
    if (me == 0) r.iterations = k;
  });
  if (rc != 0 || wrong) r.barrier.verified = r.allreduce.verified = false;
  if (saved) pthread_setaffinity_np(pthread_self(), sizeof mask, &mask);
}

// One reduction per iteration: the loop has one iteration per thread, each adding its thread's
// number + 1 to the shared x; the loop's closing barrier makes the sum available.
void omp_team(int n, long k, int reps, series& s) {
  for (int rep = 0; rep < reps; ++rep) {
    double x = 0;
    double ns = 0;
    bool full_team = true;
#pragma omp parallel num_threads(n)
    {
      if (omp_get_num_threads() != n) full_team = false;
#pragma omp barrier
      const auto t0 = clock_type::now();
      for (long i = 0; i < k; ++i) {
#pragma omp for schedule(static, 1) reduction(+ : x)
        for (int t = 0; t < n; ++t)
          x += t + 1;
      }
#pragma omp master
      ns = elapsed_ns(t0);
    }
    s.ns.push_back(ns / static_cast<double>(k));
    s.verified = s.verified && full_team && x == static_cast<double>(k) * n * (n + 1) / 2.0;
  }
}

void print(const std::string& impl, int n, long iterations, const series& s, int reps,
           const std::vector<double>* ratio) {
  const stats st = summarise(s.ns);
  nlohmann::ordered_json j;
  j["kernel"] = "allreduce";
  j["impl"] = impl;
  j["variant"] = impl;
  j["threads"] = n;
  j["cores"] = std::thread::hardware_concurrency();
  j["iterations"] = iterations;
  j["reps"] = reps;
  j["median_ns"] = round_places(median(s.ns), 1);
  j["min_ns"] = round_places(st.min, 1);
  j["max_ns"] = round_places(st.max, 1);
  if (ratio != nullptr) j["ratio_to_barrier"] = round_places(median(*ratio), 3);
  j["verified"] = s.verified;
  print_row(j);
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{"allreduce(double) latency: pgas against its barrier and OpenMP reduction."};
  app.add_option("--threads", opt.threads, "Thread counts to measure (comma-separated).")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", opt.reps, "Timed batches per measurement; median/min/max over them.")
      ->check(CLI::PositiveNumber);
  app.add_option("--seconds", opt.seconds, "Wanted duration of one timed barrier batch.")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines.");
  CLI11_PARSE(app, argc, argv);

  bool ok = true;
  for (const int n : opt.threads) {
    results r;
    pgas_team(n, opt, r, argc, argv);
    if (r.barrier.ns.empty()) {
      ok = false;
      continue;
    }
    omp_team(n, r.iterations, opt.reps, r.omp);
    print("pgas_barrier", n, r.iterations, r.barrier, opt.reps, nullptr);
    print("pgas_allreduce", n, r.iterations, r.allreduce, opt.reps, &r.ratio);
    print("omp_reduction", n, r.iterations, r.omp, opt.reps, nullptr);
    ok = ok && r.barrier.verified && r.allreduce.verified && r.omp.verified;
  }
  return ok ? 0 : 1;
}
