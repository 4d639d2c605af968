// kernels/jacobi.cpp — Jacobi iteration on a 2-D grid, as the reuse-distance kernels record
// it: two size × size grids of doubles, A and B; each of `sweeps` sweeps writes into B every
// interior point of A averaged over its 4 neighbours (N, W, E, S), then copies B's interior back
// into A; the border stays fixed. The rows are distributed in blocks, a block of rows per
// thread, as a UPC program declares `shared [R*size] double A[size][size]`.
// Variants (kernels/harness.hpp, reuse_variants): seq and openmp on plain vectors; naive with
// every access through the shared arrays' A(i, j). Every run is verified against a sequential
// computation. Entry point: main().
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;

// Sweeps per run.
constexpr int sweeps = 8;

// The initial grid: a ramp plus a small pattern, in [0, 2).
double initial(std::size_t i, std::size_t j, std::size_t n) {
  return static_cast<double>(i + j) / static_cast<double>(2 * n) + ((i * 5 + j * 3) % 7) / 7.0;
}

// One sweep over rows [lo, hi) of the interior, through get(i, j) and set(i, j, v): B from A,
// then A from B. Every variant adds the neighbours in this order, so all compute the same bits.
template <class GetA, class SetB>
void average_rows(std::size_t lo, std::size_t hi, std::size_t n, GetA&& a, SetB&& set_b) {
  for (std::size_t i = lo; i < hi; ++i) {
    for (std::size_t j = 1; j + 1 < n; ++j)
      set_b(i, j, (a(i - 1, j) + a(i, j - 1) + a(i, j + 1) + a(i + 1, j)) * 0.25);
  }
}

template <class GetB, class SetA>
void copy_rows(std::size_t lo, std::size_t hi, std::size_t n, GetB&& b, SetA&& set_a) {
  for (std::size_t i = lo; i < hi; ++i) {
    for (std::size_t j = 1; j + 1 < n; ++j)
      set_a(i, j, b(i, j));
  }
}

// The expected grid A after every sweep, computed apart from the variants.
std::vector<double> reference(std::size_t n) {
  std::vector<double> a(n * n), b(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      a[i * n + j] = b[i * n + j] = initial(i, j, n);
  }
  const auto ga = [&](std::size_t i, std::size_t j) { return a[i * n + j]; };
  const auto gb = [&](std::size_t i, std::size_t j) { return b[i * n + j]; };
  const auto sa = [&](std::size_t i, std::size_t j, double v) { a[i * n + j] = v; };
  const auto sb = [&](std::size_t i, std::size_t j, double v) { b[i * n + j] = v; };
  for (int s = 0; s < sweeps; ++s) {
    average_rows(1, n - 1, n, ga, sb);
    copy_rows(1, n - 1, n, gb, sa);
  }
  return a;
}

// True when every point of A (through get(i, j)) is the reference's.
template <class Get>
bool verify(std::size_t n, Get get) {
  const std::vector<double> want = reference(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (std::abs(get(i, j) - want[i * n + j]) > 1e-12) return false;
    }
  }
  return true;
}

int report(const pk::kernel_args& a, int threads, const pk::timing& t, bool ok) {
  const double updates = static_cast<double>(sweeps) * static_cast<double>(a.size - 2) *
                         static_cast<double>(a.size - 2);
  nlohmann::ordered_json extra;
  extra["sweeps"] = sweeps;
  extra["mpoints_per_s"] = t.median > 0 ? updates / t.median * 1e-6 : 0.0;
  return pk::print_result(a, threads, t, ok, extra);
}

// --- seq and openmp: plain vectors ---------------------------------------------------------

// `rows(f)` runs f(lo, hi) over the interior rows [1, n-1), split as the variant splits them.
template <class Rows>
int run_plain(const pk::kernel_args& a, int threads, Rows&& rows) {
  const std::size_t n = a.size;
  pk::plain_vector<double> av(n * n), bv(n * n);
  double *pa = av.data(), *pb = bv.data();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      pa[i * n + j] = pb[i * n + j] = initial(i, j, n);
  }
  const auto ga = [=](std::size_t i, std::size_t j) { return pa[i * n + j]; };
  const auto gb = [=](std::size_t i, std::size_t j) { return pb[i * n + j]; };
  const auto sa = [=](std::size_t i, std::size_t j, double v) { pa[i * n + j] = v; };
  const auto sb = [=](std::size_t i, std::size_t j, double v) { pb[i * n + j] = v; };
  const auto run = [&] {
    for (std::size_t i = 0; i < n; ++i) {  // every run starts from the initial grid
      for (std::size_t j = 0; j < n; ++j)
        pa[i * n + j] = initial(i, j, n);
    }
    for (int s = 0; s < sweeps; ++s) {
      rows([&](std::size_t lo, std::size_t hi) { average_rows(lo, hi, n, ga, sb); });
      rows([&](std::size_t lo, std::size_t hi) { copy_rows(lo, hi, n, gb, sa); });
    }
  };
  run();
  const bool ok = verify(n, ga);
  const pk::timing t = pk::time_reps(a.reps, run);
  return report(a, threads, t, ok);
}

int run_seq(const pk::kernel_args& a) {
  return run_plain(a, 1, [&](auto&& f) { f(1, a.size - 1); });
}

int run_openmp(const pk::kernel_args& a) {
  const int nt = pk::openmp_threads();
  return run_plain(a, nt, [&](auto&& f) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::size_t i = 1; i < a.size - 1; ++i)
      f(i, i + 1);
  });
}

// --- naive: every access through the shared arrays -----------------------------------------

using grid = pgas::shared_array<double, 2>;

int job(const pk::kernel_args& a) {
  const std::size_t n = a.size;
  const int me = pgas::mythread();
  const std::size_t r = (n + pgas::threads() - 1) / pgas::threads();
  const std::size_t lo = std::min(n, static_cast<std::size_t>(me) * r), hi = std::min(n, lo + r);
  const std::size_t first = std::max<std::size_t>(lo, 1);
  const std::size_t last = std::max(first, std::min(hi, n - 1));
  const grid ga({n, n}, pgas::block_spec::cyclic(r * n));
  const grid gb({n, n}, pgas::block_spec::cyclic(r * n));
  pgas::trace_name(ga.ptr(0, 0).get(), "A");
  pgas::trace_name(gb.ptr(0, 0).get(), "B");
  const auto get_a = [&](std::size_t i, std::size_t j) -> double { return ga(i, j); };
  const auto get_b = [&](std::size_t i, std::size_t j) -> double { return gb(i, j); };
  const auto set_a = [&](std::size_t i, std::size_t j, double v) { ga(i, j) = v; };
  const auto set_b = [&](std::size_t i, std::size_t j, double v) { gb(i, j) = v; };
  const auto run = [&] {
    for (std::size_t i = lo; i < hi; ++i) {  // every run starts from the initial grid
      for (std::size_t j = 0; j < n; ++j) {
        set_a(i, j, initial(i, j, n));
        set_b(i, j, initial(i, j, n));
      }
    }
    pgas::barrier();
    for (int s = 0; s < sweeps; ++s) {
      average_rows(first, last, n, get_a, set_b);
      pgas::barrier();  // B complete before A changes under the neighbours' reads
      copy_rows(first, last, n, get_b, set_a);
      pgas::barrier();
    }
  };
  run();
  bool ok = true;
  if (me == 0) ok = verify(n, get_a);
  pgas::barrier();
  const pk::timing t = pk::time_reps(a.reps, run, [] { pgas::barrier(); });
  return me == 0 ? report(a, pgas::threads(), t, ok) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const pk::kernel_args a = pk::parse_kernel_args(
      argc, argv, "jacobi",
      "Jacobi iteration: 8 sweeps over a size x size grid of doubles, each interior point of B the "
      "average of A's 4 neighbours, then B copied back into A (row blocks per thread).",
      1024, 3, pk::reuse_variants);
  if (a.variant == "seq") return run_seq(a);
  if (a.variant == "openmp") return run_openmp(a);
  return pgas::run(argc, argv, [&] { return job(a); });
}
