// kernels/lu.cpp — LU decomposition without pivoting of a diagonally dominant size × size
// matrix, in place (L unit lower, U upper), right-looking by blocks of --block columns: at step
// k the diagonal tile is factored, then the tiles right of it (U's row, by forward substitution
// with L's unit lower tile) and below it (L's column, by U's upper tile), then every trailing
// tile takes away the product of its row's L tile and its column's U tile. The matrix is a
// tiled shared array, `shared [b][b] double A[size][size]`, and each tile's owner updates it.
// Variants (kernels/harness.hpp, reuse_variants): seq and openmp on a plain vector (openmp's
// threads take the tiles round-robin); naive with every access through A(i, j). Every run's
// factors are verified against an unblocked sequential factorisation. Entry point: main().
#include <omp.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;

// The matrix: small entries off the diagonal, size + 1 on it (diagonally dominant).
double initial(std::size_t i, std::size_t j, std::size_t n) {
  if (i == j) return static_cast<double>(n) + 1.0;
  return static_cast<double>((i * 7 + j * 3) % 11) / 11.0 - 0.5;
}

// Column p's elimination in rows [lo, hi): each row's multiplier l (stored in column p) and
// columns (p, end) less l times row p's.
template <class At>
void eliminate(At& at, std::size_t p, std::size_t lo, std::size_t hi, std::size_t end) {
  for (std::size_t i = lo; i < hi; ++i) {
    const double l = at(i, p) / at(p, p);
    at(i, p) = l;
    for (std::size_t j = p + 1; j < end; ++j)
      at(i, j) -= l * at(p, j);
  }
}

// The blocked factorisation over `at(i, j)` (a double&): `mine(ti, tj)` says whether the
// caller updates tile (ti, tj), `sync()` waits for every participant (a barrier).
template <class At, class Mine, class Sync>
void factor(std::size_t n, std::size_t b, At&& at, Mine&& mine, Sync&& sync) {
  const std::size_t nt = n / b;
  for (std::size_t k = 0; k < nt; ++k) {
    const std::size_t k0 = k * b, k1 = k0 + b;
    if (mine(k, k)) {  // the diagonal tile, unblocked
      for (std::size_t p = k0; p < k1; ++p)
        eliminate(at, p, p + 1, k1, k1);
    }
    sync();
    for (std::size_t t = k + 1; t < nt; ++t) {
      const std::size_t t0 = t * b;
      if (mine(k, t)) {  // U's tile: the unit lower tile's forward substitution
        for (std::size_t p = k0; p < k1; ++p) {
          for (std::size_t i = p + 1; i < k1; ++i) {
            for (std::size_t j = t0; j < t0 + b; ++j)
              at(i, j) -= at(i, p) * at(p, j);
          }
        }
      }
      if (mine(t, k)) {  // L's tile: solved against the upper tile
        for (std::size_t p = k0; p < k1; ++p)
          eliminate(at, p, t0, t0 + b, k1);
      }
    }
    sync();
    for (std::size_t ti = k + 1; ti < nt; ++ti) {
      for (std::size_t tj = k + 1; tj < nt; ++tj) {
        if (!mine(ti, tj)) continue;
        for (std::size_t i = ti * b; i < (ti + 1) * b; ++i) {
          for (std::size_t p = k0; p < k1; ++p) {
            const double l = at(i, p);
            for (std::size_t j = tj * b; j < (tj + 1) * b; ++j)
              at(i, j) -= l * at(p, j);
          }
        }
      }
    }
    sync();
  }
}

// True when every factor (through get(i, j)) is an unblocked factorisation's within 1e-10.
template <class Get>
bool verify(std::size_t n, Get get) {
  std::vector<double> a(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      a[i * n + j] = initial(i, j, n);
  }
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t i = p + 1; i < n; ++i) {
      const double l = a[i * n + p] / a[p * n + p];
      a[i * n + p] = l;
      for (std::size_t j = p + 1; j < n; ++j)
        a[i * n + j] -= l * a[p * n + j];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (!(std::abs(get(i, j) - a[i * n + j]) <= 1e-10 * (1.0 + std::abs(a[i * n + j]))))
        return false;
    }
  }
  return true;
}

int report(const pk::kernel_args& a, std::size_t b, int threads, const pk::timing& t, bool ok) {
  const double n = static_cast<double>(a.size);
  nlohmann::ordered_json extra;
  extra["block"] = b;
  extra["gflops"] = t.median > 0 ? 2.0 / 3.0 * n * n * n / t.median * 1e-9 : 0.0;
  return pk::print_result(a, threads, t, ok, extra);
}

// seq and openmp: a plain vector, refilled before every factorisation.
int run_plain(const pk::kernel_args& a, std::size_t b, int nt) {
  const std::size_t n = a.size;
  pk::plain_vector<double> m(n * n);
  const auto at = [&](std::size_t i, std::size_t j) -> double& { return m[i * n + j]; };
  const auto run = [&] {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j)
        m[i * n + j] = initial(i, j, n);
    }
    if (nt == 0) {
      factor(
          n, b, at, [](std::size_t, std::size_t) { return true; }, [] {});
      return;
    }
#pragma omp parallel num_threads(nt)
    {
      const std::size_t me = static_cast<std::size_t>(omp_get_thread_num());
      const std::size_t tiles = n / b, all = static_cast<std::size_t>(omp_get_num_threads());
      factor(
          n, b, at, [&](std::size_t ti, std::size_t tj) { return (ti * tiles + tj) % all == me; },
          [] {
#pragma omp barrier
          });
    }
  };
  run();
  const bool ok = verify(n, [&](std::size_t i, std::size_t j) { return m[i * n + j]; });
  const pk::timing t = pk::time_reps(a.reps, run);
  return report(a, b, nt == 0 ? 1 : nt, t, ok);
}

// naive: every access through A(i, j) on the tiled shared array, each tile updated by its owner.
int job(const pk::kernel_args& a, std::size_t b) {
  const std::size_t n = a.size;
  const int me = pgas::mythread();
  const pgas::shared_array<double, 2> A({n, n}, pgas::block_spec::tiles({b, b}));
  pgas::trace_name(A.ptr(0, 0).get(), "A");
  const auto at = [&](std::size_t i, std::size_t j) -> double& { return A(i, j); };
  const auto mine = [&](std::size_t ti, std::size_t tj) {
    return A.ptr(ti * b, tj * b).thread() == me;
  };
  const auto run = [&] {
    for (std::size_t ti = 0; ti < n / b; ++ti) {
      for (std::size_t tj = 0; tj < n / b; ++tj) {
        if (!mine(ti, tj)) continue;
        for (std::size_t i = ti * b; i < (ti + 1) * b; ++i) {
          for (std::size_t j = tj * b; j < (tj + 1) * b; ++j)
            A(i, j) = initial(i, j, n);
        }
      }
    }
    pgas::barrier();
    factor(n, b, at, mine, [] { pgas::barrier(); });
  };
  run();
  bool ok = true;
  if (me == 0) ok = verify(n, [&](std::size_t i, std::size_t j) -> double { return A(i, j); });
  pgas::barrier();
  const pk::timing t = pk::time_reps(a.reps, run, [] { pgas::barrier(); });
  return me == 0 ? report(a, b, pgas::threads(), t, ok) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t b = 16;
  const pk::kernel_args a = pk::parse_kernel_args(
      argc, argv, "lu",
      "LU decomposition without pivoting of a diagonally dominant size x size matrix, right-"
      "looking by blocks of --block columns on a tiled shared array.",
      512, 1, pk::reuse_variants, [&b](CLI::App& app) {
        app.add_option("--block", b, "Tile side: 8, 16 or 32 (default 16)")
            ->check(CLI::IsMember({std::size_t{8}, std::size_t{16}, std::size_t{32}}));
      });
  if (a.size % b != 0) {
    std::fprintf(stderr, "lu: --size %zu is not a multiple of --block %zu\n", a.size, b);
    return 2;
  }
  if (a.variant == "seq") return run_plain(a, b, 0);
  if (a.variant == "openmp") return run_plain(a, b, pk::openmp_threads());
  return pgas::run(argc, argv, [&] { return job(a, b); });
}
