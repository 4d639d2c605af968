// kernels/micro/forall_bench.cpp — what pgas::forall costs to find a thread's iterations, as
// JSON lines: one row per form of UPC's `upc_forall (i = 0; i < N; i++; &A[i])`, each the
// median nanoseconds per iteration the calling thread runs (its own elements), over --reps
// loops, all measured in the same job and interleaved:
//   * "my_chunks":         for (auto [b, e] : A.my_chunks()) for (i = b; i < e; ++i) … (the
//                          reference: a plain loop over this thread's blocks);
//   * "array":             pgas::forall(0, N, A, body) (array affinity: walks its blocks);
//   * "pointer":           pgas::forall(0, N, p, body) with p = A.ptr(0) (p + i);
//   * "affinity_function": pgas::forall(0, N, [&](long i) { return A.ptr(i); }, body), which
//                          evaluates the affinity of all N iterations on every thread.
// The body adds the index to a private sum (checked against the sum of the thread's indices),
// so that the rows compare how the loops find their iterations, not the element accesses.
// Usage: forall_bench [--threads N] [--elements E] [--block B] [--reps R] [--json]

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

using array = pgas::shared_array<long>;

// One loop of `form` over [0, n); the sum of the indices it ran.
[[gnu::noinline]] long run_form(const std::string& form, const array& a, long n) {
  long sum = 0;
  const auto body = [&sum](long i) { sum += i; };
  if (form == "my_chunks") {
    for (const auto& c : a.my_chunks()) {
      for (auto i = static_cast<long>(c.begin); i < static_cast<long>(c.end); ++i)
        body(i);
    }
  } else if (form == "array") {
    pgas::forall(0L, n, a, body);
  } else if (form == "pointer") {
    pgas::forall(0L, n, a.ptr(0), body);
  } else {
    pgas::forall(
        0L, n, [&a](long i) { return a.ptr(static_cast<std::size_t>(i)); }, body);
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"forall_bench: the cost of pgas::forall's forms of upc_forall with &A[i]"};
  int threads = 2;
  long elements = 1L << 16;
  long block = 64;
  int reps = 11;
  bool json = false;
  app.add_option("--threads", threads, "UPC threads")->check(CLI::Range(1, 4096));
  app.add_option("--elements", elements, "elements per thread")->check(CLI::Range(1L, 1L << 26));
  app.add_option("--block", block, "the array's block size")->check(CLI::Range(1L, 1L << 20));
  app.add_option("--reps", reps, "loops per form and round")->check(CLI::Range(1, 1000));
  app.add_flag("--json", json, "JSON lines (the only output format)");
  CLI11_PARSE(app, argc, argv);
  pgas::run_options o;
  o.threads = threads;
  bool ok = true;
  const std::vector<std::string> forms = {"my_chunks", "array", "pointer", "affinity_function"};
  const int status = pgas::run(o, argc, argv, [&](int, char**) {
    const long n = elements * pgas::threads();
    const array a({static_cast<std::size_t>(n)},
                  pgas::block_spec::cyclic(static_cast<std::size_t>(block)));
    long expect = 0;
    long mine = 0;
    for (long i = 0; i < n; ++i) {
      if (a.ptr(static_cast<std::size_t>(i)).thread() == pgas::mythread()) {
        expect += i;
        ++mine;
      }
    }
    bool mine_ok = true;
    // Rounds of every form in turn, so that drift of the machine touches each alike.
    std::vector<std::vector<double>> ns(forms.size());
    for (int round = 0; round < 3; ++round) {
      for (std::size_t f = 0; f < forms.size(); ++f) {
        for (int r = 0; r < reps; ++r) {
          pgas::barrier();
          const auto t0 = clock_type::now();
          const long sum = run_form(forms[f], a, n);
          const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
          mine_ok = mine_ok && sum == expect;
          ns[f].push_back(s * 1e9 / static_cast<double>(mine > 0 ? mine : 1));
        }
      }
    }
    if (!mine_ok) ok = false;
    const bool all_ok = pgas::allreduce(mine_ok, std::logical_and<>{});
    if (pgas::mythread() == 0) {
      const double ref = median(ns[0]);
      for (std::size_t f = 0; f < forms.size(); ++f) {
        const stats st = summarise(ns[f]);
        nlohmann::ordered_json row;
        row["kernel"] = "forall";
        row["form"] = forms[f];
        row["threads"] = pgas::threads();
        row["elements_per_thread"] = elements;
        row["block"] = block;
        row["median_ns_per_iteration"] = round_places(median(ns[f]), 3);
        row["min_ns_per_iteration"] = round_places(st.min, 3);
        row["ratio_to_my_chunks"] = round_places(median(ns[f]) / ref, 3);
        row["verified"] = all_ok;
        print_row(row);
      }
    }
    return 0;
  });
  return status != 0 ? status : (ok ? 0 : 1);
}
