// kernels/micro/atomic_bench.cpp — the cost of an atomic operation through a domain
// (pgas/atomic.hpp), as JSON lines: a relaxed fetch-add through pgas::atomic_domain<long>
// against std::atomic_ref<long>::fetch_add with memory_order_relaxed on the same element, in
// the same job, one after the other, every thread at once, on
//   * "shared": one element (thread 0's) that every thread adds to (contended from 2 threads);
//   * "own":    each thread's own element (uncontended).
// Each variant's operations are timed in --chunks chunks, alternating with the other's. Rows give
// ns per operation (median chunk, median thread, median of --reps) and the ratio domain /
// atomic_ref of adjacent chunks (median pair, median thread, median of --reps). Verified: the
// fetched values of the shared element are each value below threads * ops exactly once (their sum
// and the final value are checked), and every element ends at the number of additions made to it.

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

struct sample {
  double domain_ns = 0, ref_ns = 0, ratio = 0;
};

// Times `ops` fetch-adds of 1 by `add` on every thread at once; returns ns per operation on
// this thread and adds the fetched values to `sum`.
template <class Add>
double timed(long ops, Add add, long& sum) {
  pgas::barrier();
  const auto t0 = clock_type::now();
  long s = 0;
  for (long i = 0; i < ops; ++i)
    s += add();
  const double ns = std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
  sum += s;
  return ns / static_cast<double>(ops);
}

bool bench(int threads, int reps, long ops, int chunks, const std::string& target) {
  std::vector<sample> per_rep;
  bool ok = true;
  for (int r = 0; r < reps; ++r) {
    std::vector<sample> per_thread(static_cast<std::size_t>(threads));
    std::atomic<long> sums{0};
    std::atomic<bool> counted{true};
    pgas::run_options o;
    o.threads = threads;
    pgas::run(o, 0, nullptr, [&] {
      const int me = pgas::mythread();
      pgas::atomic_domain<long> d(pgas::atomic_op::fadd | pgas::atomic_op::get);
      pgas::shared_array<long> a({static_cast<std::size_t>(threads)});
      const auto p = a.ptr(target == "shared" ? 0 : static_cast<std::size_t>(me));
      long* raw = p.get();
      long sum = 0;
      sample& s = per_thread[static_cast<std::size_t>(me)];
      // Short chunks of each, alternating (and alternating which goes first), compared chunk
      // pair by chunk pair: a machine whose load changes during the run moves both alike.
      std::vector<double> dom, ref, ratio;
      const long chunk = ops / chunks;
      for (int c = 0; c < chunks; ++c) {
        for (int k = 0; k < 2; ++k) {
          if ((k + c) % 2 == 0) {
            dom.push_back(timed(
                chunk, [&] { return d.fetch_add(p, 1, pgas::atomic_order::relaxed); }, sum));
          } else {
            ref.push_back(timed(
                chunk,
                [&] { return std::atomic_ref<long>(*raw).fetch_add(1, std::memory_order_relaxed); },
                sum));
          }
        }
        ratio.push_back(dom.back() / ref.back());
      }
      s = {median(dom), median(ref), median(ratio)};
      sums.fetch_add(sum);
      pgas::barrier();
      const long added = 2 * chunk * chunks * (target == "shared" ? threads : 1);
      if (d.load(p) != added) counted.store(false);
      pgas::barrier();
    });
    // Fetched values: 0 .. n-1 on each element, each once, over both variants.
    const long n = 2 * (ops / chunks) * chunks * (target == "shared" ? threads : 1);
    const long per_element = n * (n - 1) / 2;
    if (sums.load() != per_element * (target == "shared" ? 1 : threads) || !counted) ok = false;
    std::vector<double> dom, ref, ratio;
    for (const sample& s : per_thread) {
      dom.push_back(s.domain_ns);
      ref.push_back(s.ref_ns);
      ratio.push_back(s.ratio);
    }
    per_rep.push_back({median(dom), median(ref), median(ratio)});
  }
  std::vector<double> dom, ref, ratio;
  for (const sample& s : per_rep) {
    dom.push_back(s.domain_ns);
    ref.push_back(s.ref_ns);
    ratio.push_back(s.ratio);
  }
  const auto row = [&](const char* impl, const std::vector<double>& v, const char* unit,
                       int places) {
    const stats st = summarise(v);
    nlohmann::json j{
        {"kernel", "atomic"}, {"bench", "fetch_add_relaxed"}, {"chunks", chunks}, {"impl", impl},
        {"target", target},   {"threads", threads},           {"ops", ops},       {"reps", reps},
        {"verified", ok}};
    j["median_" + std::string(unit)] = round_places(st.median, places);
    j["min_" + std::string(unit)] = round_places(st.min, places);
    j["max_" + std::string(unit)] = round_places(st.max, places);
    print_row(j);
  };
  row("pgas_atomic_domain", dom, "ns", 3);
  row("std_atomic_ref", ref, "ns", 3);
  row("domain_over_atomic_ref", ratio, "x", 3);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Relaxed fetch-add through a pgas::atomic_domain against std::atomic_ref.");
  std::vector<int> threads{1, 2};
  std::vector<std::string> targets{"shared", "own"};
  int reps = 7;
  long ops = 5'000'000;
  int chunks = 50;
  app.add_option("--threads", threads, "Thread counts")->delimiter(',');
  app.add_option("--target", targets, "Elements: shared (one for all), own (one per thread)")
      ->delimiter(',')
      ->check(CLI::IsMember({"shared", "own"}));
  app.add_option("--reps", reps, "Repetitions; medians are quoted")->check(CLI::PositiveNumber);
  app.add_option("--ops", ops, "Fetch-adds per thread per variant and repetition")
      ->check(CLI::PositiveNumber);
  app.add_option("--chunks", chunks, "Chunks each variant's operations are timed in")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines");
  CLI11_PARSE(app, argc, argv);

  if (chunks > ops) chunks = static_cast<int>(ops);
  bool ok = true;
  for (const std::string& t : targets) {
    for (int n : threads)
      ok = bench(n, reps, ops, chunks, t) && ok;
  }
  return ok ? 0 : 1;
}
