// kernels/micro/ndarray_bench.cpp — what pgas::ndarray's indexing costs, as
// JSON lines: one 7-point Jacobi sweep of an n^3 grid (B = c0·A + c1·Σ six neighbours, over
// the interior) written in each indexing form, on the same two arrays, side by side:
//   * "hand":            for-loops over raw pointers, p[(i*n + j)*n + k] (the reference);
//   * "loops_ints":      the same for-loops, A(i, j, k) on simple arrays;
//   * "foreach_n_ints":  pgas::foreach_n over the interior, A(i, j, k) on simple arrays;
//   * "foreach_n_point": pgas::foreach_n, A[point<3>(i, j, k)] and A[p + point::direction(d)];
//   * "foreach_point":   pgas::foreach (one point per iteration), A[p] on simple arrays;
//   * "strided_point":   pgas::foreach, A[p] on the default strided layout (its domain has unit
//                        strides, so one test per access replaces the divisions a strided
//                        domain needs: the general layout's cost, for scale).
// Method. A sweep of a cache-resident grid takes tens of microseconds (S = 64: ~130 us), less
// than the machine's drift over a few sweeps, so the forms are timed rep by rep, round-robin:
// each of --reps rounds times ONE sweep of every form in turn (starting from a form that
// rotates with the round, so that no form always follows the same one), after a warm-up round
// that also verifies every form. A form's "relative_speed" is the median over the rounds of
// hand's sweep time divided by the form's in the same round (the target is >= 0.95): drift
// slower than a round cancels, and a sweep disturbed by other load is one outlier among
// hundreds. Each row also gives the form's median and minimum nanoseconds per interior point
// and the middle half (quartiles) of its per-round ratios. Every form's B must equal hand's
// within 1e-13 relative (verified; GCC may contract c0·a + c1·s into a fused multiply-add
// differently in each loop). Every thread sweeps its own grid at once, each sweep after a
// barrier; thread 0 reports its own times.
// Usage: ndarray_bench [--threads N] [--size n] [--reps R] [--json]

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;
using pgas::nd_index;
using pgas::point;

constexpr double c0 = -6.0 / 7.0, c1 = 1.0 / 7.0;

using simple_in = pgas::ndarray<const double, 3, pgas::local, pgas::simple>;
using simple_out = pgas::ndarray<double, 3, pgas::local, pgas::simple>;

[[gnu::noinline]] void hand(const double* a, double* b, nd_index n) {
  for (nd_index i = 1; i < n - 1; ++i) {
    for (nd_index j = 1; j < n - 1; ++j) {
      for (nd_index k = 1; k < n - 1; ++k) {
        b[(i * n + j) * n + k] = c0 * a[(i * n + j) * n + k] +
                                 c1 * (a[((i - 1) * n + j) * n + k] + a[((i + 1) * n + j) * n + k] +
                                       a[(i * n + j - 1) * n + k] + a[(i * n + j + 1) * n + k] +
                                       a[(i * n + j) * n + k - 1] + a[(i * n + j) * n + k + 1]);
      }
    }
  }
}

[[gnu::noinline]] void loops_ints(const simple_in& A, const simple_out& B, nd_index n) {
  for (nd_index i = 1; i < n - 1; ++i) {
    for (nd_index j = 1; j < n - 1; ++j) {
      for (nd_index k = 1; k < n - 1; ++k) {
        B(i, j, k) = c0 * A(i, j, k) + c1 * (A(i - 1, j, k) + A(i + 1, j, k) + A(i, j - 1, k) +
                                             A(i, j + 1, k) + A(i, j, k - 1) + A(i, j, k + 1));
      }
    }
  }
}

[[gnu::noinline]] void foreach_n_ints(const simple_in& A, const simple_out& B) {
  pgas::foreach_n(A.domain().shrink(1), [&](nd_index i, nd_index j, nd_index k) {
    B(i, j, k) = c0 * A(i, j, k) + c1 * (A(i - 1, j, k) + A(i + 1, j, k) + A(i, j - 1, k) +
                                         A(i, j + 1, k) + A(i, j, k - 1) + A(i, j, k + 1));
  });
}

// The stencil at point p, by point indexing.
template <class In, class Out>
[[gnu::always_inline]] inline void stencil_at(const In& A, const Out& B, const point<3>& p) {
  using P = point<3>;
  B[p] =
      c0 * A[p] + c1 * (A[p - P::direction(1)] + A[p + P::direction(1)] + A[p - P::direction(2)] +
                        A[p + P::direction(2)] + A[p - P::direction(3)] + A[p + P::direction(3)]);
}

[[gnu::noinline]] void foreach_n_point(const simple_in& A, const simple_out& B) {
  pgas::foreach_n(A.domain().shrink(1),
                  [&](nd_index i, nd_index j, nd_index k) { stencil_at(A, B, point<3>(i, j, k)); });
}

[[gnu::noinline]] void foreach_point(const simple_in& A, const simple_out& B) {
  pgas::foreach(A.domain().shrink(1), [&](const point<3>& p) { stencil_at(A, B, p); });
}

[[gnu::noinline]] void strided_point(const pgas::ndarray<const double, 3>& A,
                                     const pgas::ndarray<double, 3>& B) {
  pgas::foreach(A.domain().shrink(1), [&](const point<3>& p) { stencil_at(A, B, p); });
}

const std::vector<std::string> forms = {
    "hand", "loops_ints", "foreach_n_ints", "foreach_n_point", "foreach_point", "strided_point"};

void sweep(std::size_t form, const simple_in& A, const simple_out& B, nd_index n) {
  switch (form) {
    case 0:
      hand(A.base(), B.base(), n);
      break;
    case 1:
      loops_ints(A, B, n);
      break;
    case 2:
      foreach_n_ints(A, B);
      break;
    case 3:
      foreach_n_point(A, B);
      break;
    case 4:
      foreach_point(A, B);
      break;
    default:
      strided_point(A, B);
      break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ndarray_bench: a 7-point stencil in each ndarray indexing form, against hand-written "
      "index arithmetic"};
  int threads = 1;
  long size = 96;
  int reps = 200;
  bool json = false;
  app.add_option("--threads", threads, "UPC threads (each sweeps its own grid)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--size", size, "grid points per dimension")->check(CLI::Range(3L, 1024L));
  app.add_option("--reps", reps, "rounds (one timed sweep of every form each)")
      ->check(CLI::Range(1, 100000));
  app.add_flag("--json", json, "JSON lines (the only output format)");
  CLI11_PARSE(app, argc, argv);
  pgas::run_options o;
  o.threads = threads;
  bool ok = true;
  const int status = pgas::run(o, argc, argv, [&](int, char**) {
    const nd_index n = size;
    const pgas::rectdomain<3> grid({0, 0, 0}, {n, n, n});
    const simple_out A = pgas::ndarray<double, 3, pgas::local>(grid).as_layout<pgas::simple>();
    const simple_out B = pgas::ndarray<double, 3, pgas::local>(grid).as_layout<pgas::simple>();
    pgas::foreach_n(grid, [&](nd_index i, nd_index j, nd_index k) {
      A(i, j, k) = static_cast<double>((i * 7 + j * 13 + k * 29) % 101) / 101.0;
    });
    const std::size_t points = static_cast<std::size_t>(n * n * n);
    std::vector<double> want(points);
    hand(A.base(), B.base(), n);
    std::memcpy(want.data(), B.base(), points * sizeof(double));
    bool mine_ok = true;
    // The warm-up round: every form once from a zeroed B, verified.
    for (std::size_t f = 0; f < forms.size(); ++f) {
      std::memset(static_cast<void*>(B.base()), 0, points * sizeof(double));
      sweep(f, A, B, n);
      pgas::foreach_n(grid.shrink(1), [&](nd_index i, nd_index j, nd_index k) {
        const double w = want[static_cast<std::size_t>((i * n + j) * n + k)];
        mine_ok = mine_ok && std::abs(B(i, j, k) - w) <= 1e-13 * (std::abs(w) + 1.0);
      });
    }
    // The timed rounds: one sweep of each form per round, round-robin (see the method above).
    const std::size_t nf = forms.size();
    std::vector<std::vector<double>> ns(nf), ratio(nf);
    std::vector<double> round_s(nf);
    const double interior = static_cast<double>((n - 2) * (n - 2) * (n - 2));
    for (int round = 0; round < reps; ++round) {
      for (std::size_t step = 0; step < nf; ++step) {
        const std::size_t f = (static_cast<std::size_t>(round) + step) % nf;
        pgas::barrier();
        const auto t0 = clock_type::now();
        sweep(f, A, B, n);
        round_s[f] = std::chrono::duration<double>(clock_type::now() - t0).count();
      }
      for (std::size_t f = 0; f < nf; ++f) {
        ns[f].push_back(round_s[f] * 1e9 / interior);
        ratio[f].push_back(round_s[0] / round_s[f]);
      }
    }
    if (!mine_ok) ok = false;
    const bool all_ok = pgas::allreduce(mine_ok, std::logical_and<>{});
    if (pgas::mythread() == 0) {
      for (std::size_t f = 0; f < nf; ++f) {
        const stats st = summarise(ns[f]);
        std::vector<double> r = ratio[f];
        std::sort(r.begin(), r.end());
        nlohmann::ordered_json row;
        row["kernel"] = "ndarray_stencil7";
        row["form"] = forms[f];
        row["threads"] = pgas::threads();
        row["size"] = size;
        row["median_ns_per_point"] = round_places(median(ns[f]), 4);
        row["min_ns_per_point"] = round_places(st.min, 4);
        row["rounds"] = reps;
        row["relative_speed"] = round_places(median(ratio[f]), 3);
        row["relative_speed_q1"] = round_places(r[r.size() / 4], 3);
        row["relative_speed_q3"] = round_places(r[r.size() * 3 / 4], 3);
        row["verified"] = all_ok;
        print_row(row);
      }
    }
    return 0;
  });
  return status != 0 ? status : (ok ? 0 : 1);
}
