// kernels/jacobi.cpp — a dense Jacobi solver of A x = b, as the reuse-distance kernels record
// it: A is a size × size matrix of doubles made diagonally dominant, b a vector, x kept in two
// vectors X[0] and X[1] (the old and the new iterate). Each of `iterations` iterations updates
// every unknown, x'(i) = (b(i) - sum over j != i of A(i, j) x(j)) / A(i, i), from the old
// iterate, then computes each row's residual d(i) = |sum over j of A(i, j) x'(j) - b(i)| and
// their maximum. Everything is distributed block-cyclically in blocks of ceil(size / THREADS)
// (a UPC program's `shared [N] double A[SIZE][SIZE], X[2][SIZE], B[SIZE], D[SIZE]` with
// SIZE = N THREADS): a thread owns rows (b, d) and columns (A's, x's) of its blocks, updates
// the rows it owns, and reads all of x every iteration, so its reads of other threads' x have
// one reuse distance per row after the first.
// Variants (kernels/harness.hpp, reuse_variants): seq and openmp on plain vectors; naive with
// every access through the shared arrays. Every run is verified against a sequential
// computation (the same sums in the same order). Entry point: main().
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;

// Iterations per run.
constexpr int iterations = 4;

// A(i, j) in [0, 1), plus size on the diagonal: diagonally dominant, so the iteration converges.
double initial_a(std::size_t i, std::size_t j, std::size_t n) {
  const double v = static_cast<double>((i * 7 + j * 13) % 17) / 17.0;
  return i == j ? v + static_cast<double>(n) : v;
}

// b(i), also the first iterate.
double initial_b(std::size_t i) {
  return static_cast<double>(i % 11) + 1.0;
}

// The rows [lo, hi) of one iteration through a(i, j), x_old(j), b(i): x_new(i) via set_x.
// Every variant sums in this order, so all compute the same bits.
template <class A, class XOld, class B, class SetX>
void update_rows(std::size_t lo, std::size_t hi, std::size_t n, A&& a, XOld&& x, B&& b,
                 SetX&& set_x) {
  for (std::size_t i = lo; i < hi; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j != i) sum += a(i, j) * x(j);
    }
    set_x(i, (b(i) - sum) / a(i, i));
  }
}

// The residuals of rows [lo, hi) against the new iterate, through set_d(i, d(i)).
template <class A, class XNew, class B, class SetD>
void residual_rows(std::size_t lo, std::size_t hi, std::size_t n, A&& a, XNew&& x, B&& b,
                   SetD&& set_d) {
  for (std::size_t i = lo; i < hi; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j)
      sum += a(i, j) * x(j);
    set_d(i, std::abs(sum - b(i)));
  }
}

struct solution {
  std::vector<double> x;
  double max_residual = 0;
};

// The expected iterate and largest residual after every iteration, computed apart.
solution reference(std::size_t n) {
  std::vector<double> a(n * n), b(n), d(n);
  std::vector<double> x[2] = {std::vector<double>(n), std::vector<double>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      a[i * n + j] = initial_a(i, j, n);
    b[i] = x[0][i] = x[1][i] = initial_b(i);
  }
  const auto ga = [&](std::size_t i, std::size_t j) { return a[i * n + j]; };
  const auto gb = [&](std::size_t i) { return b[i]; };
  double max_d = 0;
  for (int it = 0; it < iterations; ++it) {
    const std::vector<double>& from = x[it % 2];
    std::vector<double>& to = x[(it + 1) % 2];
    update_rows(
        0, n, n, ga, [&](std::size_t j) { return from[j]; }, gb,
        [&](std::size_t i, double v) { to[i] = v; });
    residual_rows(
        0, n, n, ga, [&](std::size_t j) { return to[j]; }, gb,
        [&](std::size_t i, double v) { d[i] = v; });
    max_d = *std::max_element(d.begin(), d.end());
  }
  return {x[iterations % 2], max_d};
}

bool close(double got, double want) {
  return std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want));
}

// True when the final iterate (through get(i)) and the largest residual are the reference's.
template <class Get>
bool verify(std::size_t n, Get get, double max_residual) {
  const solution want = reference(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!close(get(i), want.x[i])) return false;
  }
  return close(max_residual, want.max_residual);
}

int report(const pk::kernel_args& a, int threads, const pk::timing& t, bool ok,
           double max_residual) {
  const double n = static_cast<double>(a.size);
  nlohmann::ordered_json extra;
  extra["iterations"] = iterations;
  extra["residual"] = max_residual;
  // Two passes over A per iteration, a multiply and an add per element.
  extra["gflops"] = t.median > 0 ? 4.0 * iterations * n * n / t.median * 1e-9 : 0.0;
  return pk::print_result(a, threads, t, ok, extra);
}

// --- seq and openmp: plain vectors ---------------------------------------------------------

// `rows(f)` runs f(lo, hi) over the rows [0, n), split as the variant splits them.
template <class Rows>
int run_plain(const pk::kernel_args& a, int threads, Rows&& rows) {
  const std::size_t n = a.size;
  pk::plain_vector<double> av(n * n), bv(n), dv(n), x0(n), x1(n);
  const double* pa = av.data();
  const double* pb = bv.data();
  double* pd = dv.data();
  double* px[2] = {x0.data(), x1.data()};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      av[i * n + j] = initial_a(i, j, n);
    bv[i] = initial_b(i);
  }
  const auto ga = [=](std::size_t i, std::size_t j) { return pa[i * n + j]; };
  const auto gb = [=](std::size_t i) { return pb[i]; };
  double max_d = 0;
  const auto run = [&] {
    for (std::size_t i = 0; i < n; ++i)  // every run starts from x = b
      px[0][i] = px[1][i] = initial_b(i);
    for (int it = 0; it < iterations; ++it) {
      const double* from = px[it % 2];
      double* to = px[(it + 1) % 2];
      rows([&](std::size_t lo, std::size_t hi) {
        update_rows(
            lo, hi, n, ga, [=](std::size_t j) { return from[j]; }, gb,
            [=](std::size_t i, double v) { to[i] = v; });
      });
      rows([&](std::size_t lo, std::size_t hi) {
        residual_rows(
            lo, hi, n, ga, [=](std::size_t j) { return to[j]; }, gb,
            [=](std::size_t i, double v) { pd[i] = v; });
      });
      max_d = *std::max_element(pd, pd + n);
    }
  };
  run();
  const double* result = px[iterations % 2];
  const bool ok = verify(
      n, [=](std::size_t i) { return result[i]; }, max_d);
  const pk::timing t = pk::time_reps(a.reps, run);
  return report(a, threads, t, ok, max_d);
}

int run_seq(const pk::kernel_args& a) {
  return run_plain(a, 1, [&](auto&& f) { f(0, a.size); });
}

int run_openmp(const pk::kernel_args& a) {
  const int nt = pk::openmp_threads();
  return run_plain(a, nt, [&](auto&& f) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::size_t i = 0; i < a.size; ++i)
      f(i, i + 1);
  });
}

// --- naive: every access through the shared arrays -----------------------------------------

using matrix = pgas::shared_array<double, 2>;
using shared_vector = pgas::shared_array<double, 1>;

int job(const pk::kernel_args& a) {
  const std::size_t n = a.size;
  const auto t = static_cast<std::size_t>(pgas::threads());
  const auto me = static_cast<std::size_t>(pgas::mythread());
  const std::size_t block = (n + t - 1) / t;
  const auto spec = pgas::block_spec::cyclic(block);
  const matrix ga({n, n}, spec);
  const matrix gx({2, n}, spec);
  const shared_vector gb({n}, spec);
  const shared_vector gd({n}, spec);
  pgas::trace_name(ga.ptr(0, 0).get(), "A");
  pgas::trace_name(gx.ptr(0, 0).get(), "X");
  pgas::trace_name(gb.ptr(0).get(), "B");
  pgas::trace_name(gd.ptr(0).get(), "D");
  // The rows this thread updates: those whose b it owns (upc_forall's &B[i]).
  const auto mine = [&](std::size_t i) { return (i / block) % t == me; };
  const auto get_a = [&](std::size_t i, std::size_t j) -> double { return ga(i, j); };
  const auto get_b = [&](std::size_t i) -> double { return gb(i); };
  const auto each_row = [&](auto&& f) {
    for (std::size_t i = 0; i < n; ++i) {
      if (mine(i)) f(i, i + 1);
    }
  };
  for (auto [i, j] : ga.my_range())  // each thread fills its own part of A and of b
    ga(i, j) = initial_a(i, j, n);
  for (auto i : gb.my_range())
    gb(i) = initial_b(i);
  double max_d = 0;
  const auto run = [&] {
    for (auto [k, i] : gx.my_range())  // every run starts from x = b
      gx(k, i) = initial_b(i);
    pgas::barrier();
    for (std::size_t it = 0; it < iterations; ++it) {
      const std::size_t from = it % 2, to = (it + 1) % 2;
      each_row([&](std::size_t lo, std::size_t hi) {
        update_rows(
            lo, hi, n, get_a, [&](std::size_t j) -> double { return gx(from, j); }, get_b,
            [&](std::size_t i, double v) { gx(to, i) = v; });
      });
      pgas::barrier();
      each_row([&](std::size_t lo, std::size_t hi) {
        residual_rows(
            lo, hi, n, get_a, [&](std::size_t j) -> double { return gx(to, j); }, get_b,
            [&](std::size_t i, double v) { gd(i) = v; });
      });
      pgas::barrier();
      max_d = 0;  // every thread reads every residual, as the solver's termination test does
      for (std::size_t i = 0; i < n; ++i)
        max_d = std::max(max_d, static_cast<double>(gd(i)));
    }
    pgas::barrier();  // the next run's first writes of X after everyone's last reads
  };
  run();
  bool ok = true;
  if (me == 0)
    ok = verify(
        n, [&](std::size_t i) -> double { return gx(iterations % 2, i); }, max_d);
  pgas::barrier();
  const pk::timing tm = pk::time_reps(a.reps, run, [] { pgas::barrier(); });
  return me == 0 ? report(a, pgas::threads(), tm, ok, max_d) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const pk::kernel_args a = pk::parse_kernel_args(
      argc, argv, "jacobi",
      "Dense Jacobi solver: 4 iterations of x' = (b - (A - diag A) x) / diag A on a size x size "
      "diagonally dominant matrix, each followed by the largest residual |A x' - b| "
      "(block-cyclic in blocks of ceil(size / threads); every thread reads all of x).",
      1024, 1, pk::reuse_variants);
  if (a.variant == "seq") return run_seq(a);
  if (a.variant == "openmp") return run_openmp(a);
  return pgas::run(argc, argv, [&] { return job(a); });
}
