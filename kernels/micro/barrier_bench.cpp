// barrier_bench — how long one full barrier takes: pgas::barrier() against pthread_barrier_wait,
// libgomp's `#pragma omp barrier` and C++20 std::barrier, at each thread count, including
// oversubscribed ones (more threads than cores), where spinning barriers fall apart.
//
// Entry point: main() parses options and, for each thread count, interleaves the implementations
// rep by rep; session_run() is the SPMD measuring loop every implementation's team executes.
// Output: one JSON object per (impl, threads) line with the median/min/max ns per barrier, then
// per thread count one "compare" line putting pgas beside the spin and std::barrier references.
#include <pthread.h>
#include <sched.h>

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include <pgas/runtime.hpp>
#include <pgas/sync.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

// Barriers in the correctness pass each team runs before it is timed. It doubles as the warm-up
// that gets every thread started and spinning (or sleeping) before the clock runs.
constexpr int verify_phases = 32;

// One team's work: either calibrate (find how many barriers fill the wanted time) or time one
// batch of `iterations` barriers. Thread 0 owns the clock and decides; the other threads follow
// `command`, which thread 0 writes before a barrier and everybody reads after it.
struct session {
  int threads = 1;
  bool calibrate = false;
  long iterations = 1;   // in: batch size when timing; out: batch size found by calibrating
  double target_ns = 0;  // wanted duration of one timed batch
  double sample_ns = 0;  // out: ns per barrier of the timed batch
  std::atomic<long> command{0};
  std::atomic<bool> failed{false};
  // arrived[p] counts threads that reached barrier p; after it every thread must see `threads`.
  // A barrier that let a thread through early shows up as a smaller count.
  std::array<std::atomic<int>, verify_phases> arrived{};

  // Thread 0, after a batch of k barriers took `ns`: the next batch size, or 0 to stop.
  long next(long k, double ns) {
    if (!calibrate) {
      sample_ns = ns / static_cast<double>(k);
      return 0;
    }
    // Double until a batch takes a tenth of the target, so that a slow barrier (oversubscribed
    // pthread barriers reach milliseconds) costs little calibration time, then scale.
    if (ns < target_ns / 10 && k < (1L << 32)) return 2 * k;
    iterations = std::max(1L, std::lround(static_cast<double>(k) * target_ns / ns));
    return 0;
  }
};

// The SPMD body every team runs, whatever its barrier: verification, then batches driven by
// thread 0's commands. Every thread makes the same sequence of barrier calls.
template <class Barrier>
void session_run(int me, session& s, Barrier bar) {
  for (int p = 0; p < verify_phases; ++p) {
    s.arrived[p].fetch_add(1, std::memory_order_relaxed);
    bar();
    if (s.arrived[p].load(std::memory_order_relaxed) != s.threads)
      s.failed.store(true, std::memory_order_relaxed);
  }
  for (;;) {
    bar();  // publishes the command thread 0 stored after the previous batch
    const long k = s.command.load(std::memory_order_relaxed);
    if (k == 0) break;
    const auto t0 = clock_type::now();
    for (long i = 0; i < k; ++i)
      bar();
    if (me == 0) {
      const std::chrono::duration<double, std::nano> ns = clock_type::now() - t0;
      s.command.store(s.next(k, ns.count()), std::memory_order_relaxed);
    }
  }
}

// --- the teams -------------------------------------------------------------------------------

// pgas::run binds thread 0, the caller, to one core for the job. runtime.hpp does not promise to
// unbind it afterwards, and libgomp's pool and later std::threads inherit the caller's mask, so
// the mask is put back here to leave the other implementations every core.
void team_pgas(session& s, int argc, char** argv) {
  cpu_set_t mask;
  const bool saved = pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) == 0;
  pgas::run_options o;
  o.threads = s.threads;  // binding stays at its default (core)
  const int rc = pgas::run(o, argc, argv, [&s](int, char**) {
    if (pgas::threads() != s.threads) s.failed.store(true, std::memory_order_relaxed);
    session_run(pgas::mythread(), s, [] { pgas::barrier(); });
    return 0;
  });
  if (rc != 0) s.failed.store(true, std::memory_order_relaxed);
  if (saved) pthread_setaffinity_np(pthread_self(), sizeof mask, &mask);
}

// Runs `bar` in the caller (thread 0) and threads-1 std::threads (pthreads underneath).
template <class Barrier>
void team_threads(session& s, Barrier bar) {
  std::vector<std::thread> team;
  team.reserve(static_cast<std::size_t>(s.threads - 1));
  for (int t = 1; t < s.threads; ++t)
    team.emplace_back([&s, bar, t] { session_run(t, s, bar); });
  session_run(0, s, bar);
  for (auto& th : team)
    th.join();
}

void team_pthread(session& s) {
  pthread_barrier_t b;
  if (pthread_barrier_init(&b, nullptr, static_cast<unsigned>(s.threads)) != 0) {
    s.failed = true;
    return;
  }
  team_threads(s, [&b] { pthread_barrier_wait(&b); });
  pthread_barrier_destroy(&b);
}

void team_std(session& s) {
  std::barrier<> b(s.threads);
  team_threads(s, [&b] { b.arrive_and_wait(); });
}

// The textbook baseline: a centralised sense-reversing spin barrier with no checks and no
// escalation, threads pinned like pgas's (thread t on CPU t mod CPUs). It bounds what any
// counter barrier can do on this machine, and shows why spinning alone fails oversubscribed.
struct spin_barrier {
  explicit spin_barrier(int n) : n_(n) {}
  void wait(bool& sense) {
    sense = !sense;
    if (count_.fetch_add(1, std::memory_order_acq_rel) == n_ - 1) {
      count_.store(0, std::memory_order_relaxed);
      flag_.store(sense, std::memory_order_release);
    } else {
      while (flag_.load(std::memory_order_acquire) != sense)
        __builtin_ia32_pause();
    }
  }
  const int n_;
  alignas(64) std::atomic<int> count_{0};
  alignas(64) std::atomic<bool> flag_{false};
};

void team_spin(session& s) {
  spin_barrier b(s.threads);
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  cpu_set_t saved;
  pthread_getaffinity_np(pthread_self(), sizeof saved, &saved);
  std::vector<std::thread> team;
  auto body = [&s, &b, cpus](int t) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(t % cpus, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    bool sense = false;
    session_run(t, s, [&b, &sense] { b.wait(sense); });
  };
  for (int t = 1; t < s.threads; ++t)
    team.emplace_back(body, t);
  body(0);
  for (auto& th : team)
    th.join();
  pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
}

// An orphaned `omp barrier` binds to the innermost enclosing parallel region at run time.
struct omp_barrier {
  void operator()() const {
#pragma omp barrier
  }
};

// libgomp with its defaults: no OMP_* variable is set here. OMP_PROC_BIND=true pins the team and
// OMP_WAIT_POLICY (active/passive, with GOMP_SPINCOUNT) changes how long waiters spin, both of
// which move libgomp's figures a lot, so main() records them in each omp row when they are set.
void team_omp(session& s) {
#pragma omp parallel num_threads(s.threads)
  {
    // A smaller team than asked for (OMP_THREAD_LIMIT, OMP_DYNAMIC) would be no comparison.
    if (omp_get_num_threads() != s.threads) s.failed.store(true, std::memory_order_relaxed);
    session_run(omp_get_thread_num(), s, omp_barrier{});
  }
}

// --- driver ---------------------------------------------------------------------------------

struct options {
  std::vector<int> threads{1, 2, 4, 8};
  std::vector<std::string> impls{"pgas", "spin", "std", "pthread", "omp"};
  int reps = 5;
  double seconds = 0.2;
};

// Starts one team of `impl`; fills s's outputs.
void run_session(const std::string& impl, session& s, int argc, char** argv) {
  s.command.store(s.calibrate ? 1 : s.iterations);
  if (impl == "pgas") {
    team_pgas(s, argc, argv);
  } else if (impl == "pthread") {
    team_pthread(s);
  } else if (impl == "omp") {
    team_omp(s);
  } else if (impl == "spin") {
    team_spin(s);
  } else {
    team_std(s);
  }
}

struct result {
  long iterations = 0;
  std::vector<double> ns;
  bool verified = true;
};

nlohmann::json env_or_null(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? nlohmann::json(v) : nlohmann::json(nullptr);
}

void print_result(const std::string& impl, int threads, const result& r, const options& opt) {
  const double med = median(r.ns);
  const unsigned cores = std::thread::hardware_concurrency();
  // Key order is kept so rows read alike; `variant`, `size` and `seconds` repeat `impl`,
  // `iterations` and the median batch time as the kernels' common fields (kernels/harness.hpp).
  nlohmann::ordered_json j;
  j["kernel"] = "barrier";
  j["impl"] = impl;
  j["variant"] = impl;
  j["threads"] = threads;
  j["cores"] = cores;
  j["oversubscribed"] = static_cast<unsigned>(threads) > cores;
  j["iterations"] = r.iterations;
  j["size"] = r.iterations;
  j["ns_per_barrier"] = round_places(med, 1);
  j["reps"] = opt.reps;
  j["median_ns"] = round_places(med, 1);
  j["min_ns"] = round_places(*std::min_element(r.ns.begin(), r.ns.end()), 1);
  j["max_ns"] = round_places(*std::max_element(r.ns.begin(), r.ns.end()), 1);
  j["seconds"] = std::round(med * static_cast<double>(r.iterations)) * 1e-9;
  j["verified"] = r.verified;
  if (impl == "omp") {
    j["omp_proc_bind"] = env_or_null("OMP_PROC_BIND");
    j["omp_wait_policy"] = env_or_null("OMP_WAIT_POLICY");
  }
  print_row(j);
}

// The median over reps of pgas's time divided by `ref`'s in the same rep. Reps of different
// implementations run back to back, so each ratio compares them in one latency regime of the
// VM; a ratio of the two medians would compare whichever regimes each median fell in.
double paired_ratio(const result& pgas, const result& ref) {
  std::vector<double> r;
  for (std::size_t i = 0; i < pgas.ns.size() && i < ref.ns.size(); ++i)
    r.push_back(pgas.ns[i] / ref.ns[i]);
  return median(r);
}

// The "compare" row of one thread count: pgas beside the textbook spin barrier (the floor at
// threads <= cores) and std::barrier (the reference when oversubscribed), with the ratios.
void print_compare(int threads, const std::map<std::string, result>& results) {
  const auto pgas = results.find("pgas");
  if (pgas == results.end()) return;
  nlohmann::ordered_json j;
  j["kernel"] = "barrier";
  j["impl"] = "compare";
  j["threads"] = threads;
  j["oversubscribed"] = static_cast<unsigned>(threads) > std::thread::hardware_concurrency();
  j["pgas_ns"] = round_places(median(pgas->second.ns), 1);
  for (const char* ref : {"spin", "std"}) {
    const auto r = results.find(ref);
    if (r == results.end()) continue;
    j[std::string(ref) + "_ns"] = round_places(median(r->second.ns), 1);
    j[std::string("pgas_over_") + ref] = round_places(paired_ratio(pgas->second, r->second), 2);
  }
  j["verified"] = pgas->second.verified;
  print_row(j);
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  CLI::App app{"Barrier latency: pgas against a spin barrier, std::barrier, pthread and libgomp."};
  app.add_option("--threads", opt.threads, "Thread counts to measure (comma-separated).")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--impl,--variant", opt.impls, "Implementations: pgas,pthread,omp,std,spin.")
      ->delimiter(',')
      ->check(CLI::IsMember({"pgas", "pthread", "omp", "std", "spin"}));
  app.add_option("--reps", opt.reps, "Timed batches per measurement; median/min/max over them.")
      ->check(CLI::PositiveNumber);
  app.add_option("--seconds", opt.seconds, "Wanted duration of one timed batch.")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines.");
  CLI11_PARSE(app, argc, argv);

  bool all_verified = true;
  for (const int n : opt.threads) {
    // Calibrate every implementation first, then take reps round-robin over implementations:
    // this VM's inter-core latency switches regime every few seconds, and interleaving spreads
    // each implementation's samples over the same regimes.
    std::map<std::string, result> results;
    for (const auto& impl : opt.impls) {
      session s;
      s.threads = n;
      s.calibrate = true;
      s.target_ns = opt.seconds * 1e9;
      run_session(impl, s, argc, argv);
      results[impl].iterations = s.iterations;
      results[impl].verified = !s.failed;
    }
    for (int rep = 0; rep < opt.reps; ++rep) {
      for (const auto& impl : opt.impls) {
        result& r = results[impl];
        session s;
        s.threads = n;
        s.iterations = r.iterations;
        run_session(impl, s, argc, argv);
        r.ns.push_back(s.sample_ns);
        r.verified = r.verified && !s.failed;
      }
    }
    for (const auto& impl : opt.impls) {
      print_result(impl, n, results[impl], opt);
      all_verified = all_verified && results[impl].verified;
    }
    print_compare(n, results);
  }
  return all_verified ? 0 : 1;
}
