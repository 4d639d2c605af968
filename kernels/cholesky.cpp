// kernels/cholesky.cpp — Barton et al.'s multiblocked Cholesky factorisation: A = UᵀU of a
// size x size symmetric positive definite double matrix declared `shared [b][b] double A[n][n]`,
// right-looking on tiles (U overwrites A's upper triangle: for each step k, potrf of the
// diagonal tile, trsm of the tiles right of it, then syrk / gemm updates of the trailing
// tiles; each tile computed by the thread that owns it, the steps' phases separated by
// barriers). Row-major U is column-major L = Uᵀ, so LAPACK's lower factor is the same memory.
// Variants (kernels/harness.hpp, tile_variants): seq, naive (A(i, j) per element), cut (the
// locality cuts), openmp, blas (LAPACKE dpotrf and cblas dtrsm, dsyrk, dgemm per tile) and
// library (one LAPACKE dpotrf on the whole matrix with OpenBLAS's threads). Every run is
// checked by its residual: max |A - UᵀU| / (max |A| · n · ε).
// Entry point: main(); the PGAS variants run in job_body() on every thread.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "dense.hpp"
#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;
using pk::kernel_args;
using pk::timing;
using matrix = pgas::shared_array<double, 2>;

// The input: symmetric, with off-diagonal values in [-0.5, 0.5] and n on the diagonal, so
// strictly diagonally dominant and therefore positive definite.
double a_value(std::size_t n, std::size_t i, std::size_t j) {
  if (i == j) return static_cast<double>(n);
  return static_cast<double>((i + j) * 7 % 11 + i * j % 5) / 14.0 - 0.5;
}

// --- the tile operations, on any element access -------------------------------------------
//
// `at(r, c)` is a reference to element (r, c) of a matrix; each operation works on b x b tiles
// whose top-left elements are given. Rows are updated by multiples of other rows (no sums to
// reassociate), so the innermost loops vectorise on plain memory.

// potrf: the tile at (k0, k0) becomes its upper factor U (row by row: divide by the diagonal,
// then subtract its outer product from the rows below).
template <class At>
void potrf_tile(At&& at, std::size_t k0, std::size_t b) {
  for (std::size_t k = k0; k < k0 + b; ++k) {
    const double d = std::sqrt(at(k, k));
    at(k, k) = d;
    for (std::size_t j = k + 1; j < k0 + b; ++j)
      at(k, j) /= d;
    for (std::size_t i = k + 1; i < k0 + b; ++i) {
      const double u = at(k, i);
      for (std::size_t j = i; j < k0 + b; ++j)
        at(i, j) -= u * at(k, j);
    }
  }
}

// trsm: the tile at (k0, j0) becomes X with UᵀX = it, U the factored tile at (k0, k0): forward
// substitution by rows, row r = (row r - Σ_{s<r} U[s][r] · row s) / U[r][r].
template <class At>
void trsm_tile(At&& at, std::size_t k0, std::size_t j0, std::size_t b) {
  for (std::size_t r = 0; r < b; ++r) {
    for (std::size_t s = 0; s < r; ++s) {
      const double u = at(k0 + s, k0 + r);
      for (std::size_t c = 0; c < b; ++c)
        at(k0 + r, j0 + c) -= u * at(k0 + s, j0 + c);
    }
    const double d = at(k0 + r, k0 + r);
    for (std::size_t c = 0; c < b; ++c)
      at(k0 + r, j0 + c) /= d;
  }
}

// syrk and gemm: the tile at (i0, j0) -= Uᵢᵀ Uⱼ, Uᵢ and Uⱼ the solved tiles at (k0, i0) and
// (k0, j0); on the diagonal (i0 == j0) only its upper triangle.
template <class At>
void update_tile(At&& at, std::size_t k0, std::size_t i0, std::size_t j0, std::size_t b) {
  for (std::size_t r = 0; r < b; ++r) {
    const std::size_t c0 = i0 == j0 ? r : 0;
    for (std::size_t s = 0; s < b; ++s) {
      const double u = at(k0 + s, i0 + r);
      for (std::size_t c = c0; c < b; ++c)
        at(i0 + r, j0 + c) -= u * at(k0 + s, j0 + c);
    }
  }
}

// --- verification --------------------------------------------------------------------------

// max |A - UᵀU| over the upper triangle / (max |A| · n · ε), U the upper triangle of `u`
// (row-major n x n, below the diagonal ignored): every element up to size 512; beyond that the
// rows of UᵀU for 64 rows spread over the matrix. A backward-stable factorisation gives a few
// units at most; NaN (a non-positive pivot) never passes.
double residual(std::size_t n, const double* u) {
  std::vector<std::size_t> rows;
  const std::size_t count = n <= 512 ? n : 64;
  for (std::size_t s = 0; s < count; ++s)
    rows.push_back(n <= 512 ? s : s * (n - 1) / (count - 1));
  double worst = 0;
  std::vector<double> row(n);
  for (const std::size_t i : rows) {
    // Row i of UᵀU, upper part: Σ_{s <= i} U[s][i] U[s][j] for j >= i.
    std::fill(row.begin(), row.end(), 0.0);
    for (std::size_t s = 0; s <= i; ++s) {
      const double u_si = u[s * n + i];
      for (std::size_t j = i; j < n; ++j)
        row[j] += u_si * u[s * n + j];
    }
    for (std::size_t j = i; j < n; ++j) {
      const double e = std::fabs(a_value(n, i, j) - row[j]);
      worst = std::isnan(e) || std::isnan(worst) ? std::numeric_limits<double>::quiet_NaN()
                                                 : std::max(worst, e);
    }
  }
  // max |A| is the diagonal, n.
  return worst /
         (static_cast<double>(n) * static_cast<double>(n) * std::numeric_limits<double>::epsilon());
}

constexpr double residual_limit = 16;

int report(const kernel_args& a, int threads, const timing& t, std::size_t tile, const double* u) {
  const double res = residual(a.size, u);
  const double n = static_cast<double>(a.size);
  nlohmann::ordered_json e = pk::gflops_fields(n * n * n / 3, t, threads);
  e["tile"] = tile;
  e["residual"] = std::isnan(res) ? -1.0 : res;
  const bool ok = res <= residual_limit;  // false for NaN
  if (!ok) std::fprintf(stderr, "cholesky: residual %g above %g\n", res, residual_limit);
  return pk::print_result(a, threads, t, ok, e);
}

// --- seq, openmp, library: plain arrays, no runtime -------------------------------------------

int run_plain(const kernel_args& args, std::size_t bs) {
  const std::size_t n = args.size, tiles = n / bs;
  pk::plain_vector<double> a(n * n);
  const std::string& v = args.variant;
  const int nt = v == "seq" ? 1 : pk::openmp_threads();
  double* ap = a.data();
  const auto at = [ap, n](std::size_t r, std::size_t c) -> double& { return ap[r * n + c]; };
  const auto prepare = [&] {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        ap[i * n + j] = a_value(n, i, j);
  };
  std::function<void()> once;
  if (v == "seq") {
    once = [&] {
      for (std::size_t k = 0; k < tiles; ++k) {
        potrf_tile(at, k * bs, bs);
        for (std::size_t j = k + 1; j < tiles; ++j)
          trsm_tile(at, k * bs, j * bs, bs);
        for (std::size_t i = k + 1; i < tiles; ++i)
          for (std::size_t j = i; j < tiles; ++j)
            update_tile(at, k * bs, i * bs, j * bs, bs);
      }
    };
  } else if (v == "openmp") {
    // What an OpenMP user writes: the same steps, each phase's tiles shared out by a worksharing
    // loop (its implicit barrier orders the phases).
    once = [&] {
#pragma omp parallel num_threads(nt)
      for (std::size_t k = 0; k < tiles; ++k) {
#pragma omp single
        potrf_tile(at, k * bs, bs);
#pragma omp for schedule(static)
        for (std::size_t j = k + 1; j < tiles; ++j)
          trsm_tile(at, k * bs, j * bs, bs);
        const std::size_t m = tiles - k - 1;  // trailing tiles (i, j), k < i <= j: m(m+1)/2
#pragma omp for schedule(dynamic)
        for (std::size_t t = 0; t < m * m; ++t) {
          const std::size_t i = k + 1 + t / m, j = k + 1 + t % m;
          if (j >= i) update_tile(at, k * bs, i * bs, j * bs, bs);
        }
      }
    };
  } else {
    pk::blas_threads(nt);
    // Row-major upper U is column-major lower L: the same memory, no transposed copy.
    once = [=] {
      const lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', static_cast<lapack_int>(n), ap,
                                             static_cast<lapack_int>(n));
      if (info != 0) std::fprintf(stderr, "cholesky: LAPACKE_dpotrf returned %d\n", info);
    };
  }
  const timing t = pk::time_reps(
      args.reps, once, [] {}, prepare);
  return report(args, nt, t, bs, ap);
}

// --- the PGAS variants ---------------------------------------------------------------------

// The owner of tile (ti, tj): tiles are dealt round-robin in row-major tile order.
int tile_owner(const matrix& A, std::size_t bs, std::size_t ti, std::size_t tj) {
  return A.ptr(ti * bs, tj * bs).thread();
}

// The three phases of step k, each over the tiles the calling thread owns, separated by
// barriers: a tile is written only by its owner, and read by others only once final (the
// diagonal tile after its potrf, row k's tiles after their trsm), so no barrier is needed
// after the updates — the next step's potrf and trsm read tiles their own thread updated.
template <class Potrf, class Trsm, class Update>
void factor_tiles(const matrix& A, std::size_t bs, Potrf&& potrf, Trsm&& trsm, Update&& update) {
  const std::size_t tiles = A.extent(0) / bs;
  const int me = pgas::mythread();
  for (std::size_t k = 0; k < tiles; ++k) {
    if (tile_owner(A, bs, k, k) == me) potrf(k);
    pgas::barrier();
    for (std::size_t j = k + 1; j < tiles; ++j)
      if (tile_owner(A, bs, k, j) == me) trsm(k, j);
    pgas::barrier();
    for (std::size_t i = k + 1; i < tiles; ++i)
      for (std::size_t j = i; j < tiles; ++j)
        if (tile_owner(A, bs, i, j) == me) update(k, i, j);
  }
}

// naive: the tile operations with every element through A(i, j).
void factor_naive(const matrix& A, std::size_t bs) {
  const auto at = [&A](std::size_t r, std::size_t c) -> double& { return A(r, c); };
  factor_tiles(
      A, bs, [&](std::size_t k) { potrf_tile(at, k * bs, bs); },
      [&](std::size_t k, std::size_t j) { trsm_tile(at, k * bs, j * bs, bs); },
      [&](std::size_t k, std::size_t i, std::size_t j) {
        update_tile(at, k * bs, i * bs, j * bs, bs);
      });
}

// cut: each step's phases as pgas::forall_cuts loops over the phase's box (upc_forall with
// affinity &A[r][c]: every thread makes the call, the owner of each tile runs it), each
// element written in the per-element (Crout) form of its tile operation. The element written
// is the loop's one access at a constant offset from the affinity element, so the cuts make it
// a plain pointer; the sums read elements that move with the inner s, which the locality
// analysis does not cover: they take the general path, A(i, j), as in naive. Within a tile the
// iterations run row-major, so every element a sum reads was final before.
void factor_cut(const matrix& A, std::size_t bs) {
  const std::size_t n = A.extent(0);
  const pgas::offsets self{{0, 0}};
  // Σ_{s0 <= s < s1} U[s][r] · U[s][c].
  const auto dot = [&A](std::size_t s0, std::size_t s1, std::size_t r, std::size_t c) {
    double sum = 0;
    for (std::size_t s = s0; s < s1; ++s)
      sum += A(s, r) * A(s, c);
    return sum;
  };
  for (std::size_t k0 = 0; k0 < n; k0 += bs) {
    const std::size_t k1 = k0 + bs;
    pgas::forall_cuts(A, pgas::box{{k0, k1}, {k0, k1}}, self,
                      [&](auto e, std::size_t r, std::size_t c) {
                        if (c < r) return;
                        const double v = e[0] - dot(k0, r, r, c);
                        e[0] = c == r ? std::sqrt(v) : v / A(r, r);
                      });
    pgas::barrier();
    pgas::forall_cuts(
        A, pgas::box{{k0, k1}, {k1, n}}, self,
        [&](auto e, std::size_t r, std::size_t c) { e[0] = (e[0] - dot(k0, r, r, c)) / A(r, r); });
    pgas::barrier();
    pgas::forall_cuts(A, pgas::box{{k1, n}, {k1, n}}, self,
                      [&](auto e, std::size_t r, std::size_t c) {
                        if (c >= r) e[0] -= dot(k0, k1, r, c);
                      });
  }
}

// blas: one LAPACKE / BLAS call per tile on the tile's own storage (b x b row-major, upper U
// = column-major lower L); remote tiles memget into scratch: the diagonal tile once per trsm
// phase, row k's tiles once per update phase (each the first time this thread needs it).
void factor_blas(const matrix& A, std::size_t bs, double* diag, double* panel,
                 std::vector<const double*>& row_k) {
  const auto b = static_cast<blasint>(bs);
  const std::size_t tiles = A.extent(0) / bs;
  const auto mine = [&](std::size_t i, std::size_t j) {
    return pgas::to_local(A.ptr(i * bs, j * bs));
  };
  const double* u_kk = nullptr;
  std::size_t diag_step = tiles, panel_step = tiles;
  factor_tiles(
      A, bs,
      [&](std::size_t k) {
        const lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', b, mine(k, k), b);
        if (info != 0) std::fprintf(stderr, "cholesky: LAPACKE_dpotrf returned %d\n", info);
      },
      [&](std::size_t k, std::size_t j) {
        if (diag_step != k) {
          u_kk = pk::tile_here(A, bs, k, k, diag);
          diag_step = k;
        }
        cblas_dtrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, b, b, 1.0, u_kk,
                    b, mine(k, j), b);
      },
      [&](std::size_t k, std::size_t i, std::size_t j) {
        if (panel_step != k) {
          std::fill(row_k.begin(), row_k.end(), nullptr);
          panel_step = k;
        }
        for (const std::size_t t : {i, j}) {
          if (row_k[t] == nullptr) row_k[t] = pk::tile_here(A, bs, k, t, panel + t * bs * bs);
        }
        if (i == j) {
          cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, b, b, -1.0, row_k[i], b, 1.0,
                      mine(i, i), b);
        } else {
          cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, b, b, b, -1.0, row_k[i], b, row_k[j],
                      b, 1.0, mine(i, j), b);
        }
      });
}

int job_body(const kernel_args& args, std::size_t bs) {
  const std::size_t n = args.size, tiles = n / bs;
  const matrix A({n, n}, pgas::block_spec::tiles({bs, bs}));  // shared [b][b] double
  const auto prepare = [&] {
    A.for_each_mine([n](double& x, const matrix::index_type& ix) { x = a_value(n, ix[0], ix[1]); });
  };

  pk::plain_vector<double> scratch((tiles + 1) * bs * bs);
  std::vector<const double*> row_k(tiles);
  std::function<void()> once;
  if (args.variant == "naive") {
    once = [&] { factor_naive(A, bs); };
  } else if (args.variant == "cut") {
    once = [&] { factor_cut(A, bs); };
  } else {  // blas
    once = [&] { factor_blas(A, bs, scratch.data(), scratch.data() + bs * bs, row_k); };
  }
  const timing t = pk::time_reps(
      args.reps, once, [] { pgas::barrier(); }, prepare);

  if (pgas::mythread() != 0) return 0;
  pk::plain_vector<double> u(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j)
      u[i * n + j] = A(i, j);
  return report(args, pgas::threads(), t, bs, u.data());
}

}  // namespace

int main(int argc, char** argv) {
  pk::tile_option tile;
  const kernel_args args = pk::parse_kernel_args(
      argc, argv, "cholesky",
      "Tiled Cholesky factorisation A = U^T U on shared [b][b] double (Barton et al.)", 1024, 1,
      pk::tile_variants, [&](CLI::App& app) { tile.add_to(app); });
  tile.check(args);
  const std::string& v = args.variant;
  if (v == "seq" || v == "openmp" || v == "library") return run_plain(args, tile.tile);
  pk::blas_threads(1);  // every pgas thread calls LAPACKE and the BLAS on its own tiles, alone
  return pgas::run(argc, argv, [&] { return job_body(args, tile.tile); });
}
