// kernels/matmul_tiled.cpp — Barton et al.'s multiblocked matrix multiply: C = A x B on size x
// size double matrices declared `shared [b][b] double A[n][n], B[n][n], C[n][n]`, each thread
// computing the tiles of C it owns (upc_forall over C's tiles with affinity &C[ii][jj]).
// Variants (kernels/harness.hpp, tile_variants): seq, naive (A(i, k) per element), cut (the
// locality cuts), openmp, blas (remote tiles memget into scratch, then cblas_dgemm per tile, as
// the paper's listing) and library (one OpenBLAS dgemm on the whole matrix).
// Entry point: main(); the PGAS variants run in job_body() on every thread.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
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

// Inputs: small integers, so that every product and every sum of them is exact in double (|a·b|
// <= 56 and 56 x 2^20 < 2^53): the variants add in different orders and still agree exactly.
double a_value(std::size_t i, std::size_t k) {
  return static_cast<double>(static_cast<int>((i * 31 + k * 17) % 17) - 8);
}
double b_value(std::size_t k, std::size_t j) {
  return static_cast<double>(static_cast<int>((k * 13 + j * 29) % 15) - 7);
}

// The inputs as plain row-major arrays: seq, openmp and library multiply these, and every
// variant is checked against rows computed from them.
struct plain_inputs {
  std::size_t n;
  pk::plain_vector<double> a, b;
  explicit plain_inputs(std::size_t size) : n(size), a(size * size), b(size * size) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < n; ++k) {
        a[i * n + k] = a_value(i, k);
        b[i * n + k] = b_value(i, k);
      }
    }
  }
};

// --- verification --------------------------------------------------------------------------

// Every row up to size 512, beyond that 64 rows spread over the matrix, first and last included.
std::vector<std::size_t> rows_to_check(std::size_t n) {
  std::vector<std::size_t> rows;
  const std::size_t count = n <= 512 ? n : 64;
  for (std::size_t s = 0; s < count; ++s)
    rows.push_back(n <= 512 ? s : s * (n - 1) / (count - 1));
  return rows;
}

// Row i of C, read through `c(j)`, against row i of A x B computed from the plain inputs.
template <class Row>
bool row_matches(const plain_inputs& in, std::size_t i, Row&& c) {
  const std::size_t n = in.n;
  std::vector<double> want(n, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    const double a = in.a[i * n + k];
    for (std::size_t j = 0; j < n; ++j)
      want[j] += a * in.b[k * n + j];
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (c(j) != want[j]) {
      std::fprintf(stderr, "matmul_tiled: C[%zu][%zu] = %g, expected %g\n", i, j, c(j), want[j]);
      return false;
    }
  }
  return true;
}

nlohmann::ordered_json extra_fields(const kernel_args& a, const timing& t, int threads,
                                    std::size_t tile, std::size_t checked) {
  const double n = static_cast<double>(a.size);
  nlohmann::ordered_json e = pk::gflops_fields(2 * n * n * n, t, threads);
  e["tile"] = tile;
  e["checked_rows"] = checked;
  return e;
}

// --- seq, openmp, library: plain arrays, no runtime -------------------------------------------

// Tile (ti, tj) of C = A x B on plain row-major n x n arrays, b x b tiles: for each tile of the
// inner dimension, rows of C updated by a multiple of a row of B (i-k-j order, so the innermost
// loop runs along rows and vectorises without reassociating a sum).
void tile_product_plain(const double* a, const double* b, double* c, std::size_t n, std::size_t bs,
                        std::size_t ti, std::size_t tj) {
  const std::size_t i0 = ti * bs, j0 = tj * bs;
  for (std::size_t i = i0; i < i0 + bs; ++i)
    std::fill(c + i * n + j0, c + i * n + j0 + bs, 0.0);
  for (std::size_t k0 = 0; k0 < n; k0 += bs) {
    for (std::size_t i = i0; i < i0 + bs; ++i) {
      double* c_i = c + i * n + j0;
      for (std::size_t k = k0; k < k0 + bs; ++k) {
        const double a_ik = a[i * n + k];
        const double* b_k = b + k * n + j0;
        for (std::size_t j = 0; j < bs; ++j)
          c_i[j] += a_ik * b_k[j];
      }
    }
  }
}

int run_plain(const kernel_args& args, std::size_t bs, const plain_inputs& in) {
  const std::size_t n = args.size, tiles = n / bs;
  pk::plain_vector<double> c(n * n);
  const std::string& v = args.variant;
  const int nt = v == "seq" ? 1 : pk::openmp_threads();
  const double *a = in.a.data(), *b = in.b.data();
  double* cp = c.data();
  std::function<void()> once;
  if (v == "seq") {
    once = [&] {
      for (std::size_t ti = 0; ti < tiles; ++ti)
        for (std::size_t tj = 0; tj < tiles; ++tj)
          tile_product_plain(a, b, cp, n, bs, ti, tj);
    };
  } else if (v == "openmp") {
    // What an OpenMP user writes: the tiles of C shared out statically.
    once = [&] {
#pragma omp parallel for collapse(2) schedule(static) num_threads(nt)
      for (std::size_t ti = 0; ti < tiles; ++ti)
        for (std::size_t tj = 0; tj < tiles; ++tj)
          tile_product_plain(a, b, cp, n, bs, ti, tj);
    };
  } else {
    pk::blas_threads(nt);
    const auto ni = static_cast<blasint>(n);
    once = [=] {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0, a, ni, b, ni, 0.0, cp,
                  ni);
    };
  }
  const timing t = pk::time_reps(args.reps, once);
  const std::vector<std::size_t> rows = rows_to_check(n);
  bool ok = true;
#pragma omp parallel for schedule(dynamic) num_threads(nt) reduction(&& : ok)
  for (std::size_t s = 0; s < rows.size(); ++s)
    ok = row_matches(in, rows[s], [&](std::size_t j) { return cp[rows[s] * n + j]; }) && ok;
  return pk::print_result(args, nt, t, ok, extra_fields(args, t, nt, bs, rows.size()));
}

// --- the PGAS variants ---------------------------------------------------------------------

// upc_forall (t = 0; t < tiles²; t++; &C[ti * b][tj * b]): each thread takes the tiles of C it
// owns, f(ti, tj).
template <class F>
void for_my_tiles(const matrix& C, std::size_t bs, std::size_t tiles, F&& f) {
  pgas::forall(
      std::size_t{0}, tiles * tiles,
      [&](std::size_t t) { return C.ptr(t / tiles * bs, t % tiles * bs); },
      [&](std::size_t t) { f(t / tiles, t % tiles); });
}

// naive: the UPC source as written on the tiled arrays, every element through A(i, k) — the
// owner, tile and offset computed at each access.
void multiply_naive(const matrix& A, const matrix& B, const matrix& C, std::size_t n,
                    std::size_t bs) {
  for_my_tiles(C, bs, n / bs, [&](std::size_t ti, std::size_t tj) {
    const std::size_t i0 = ti * bs, j0 = tj * bs;
    for (std::size_t i = i0; i < i0 + bs; ++i) {
      for (std::size_t j = j0; j < j0 + bs; ++j)
        C(i, j) = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const double a_ik = A(i, k);
        for (std::size_t j = j0; j < j0 + bs; ++j)
          C(i, j) += a_ik * B(k, j);
      }
    }
  });
}

// cut: the naive loop through the locality cuts (pgas::forall_cuts over C, affinity &C[i][j]).
// C's element is the loop's one access at a constant offset from the affinity element, so the
// cuts make it a plain pointer in every run; A(i, k) and B(k, j) move with the inner k, which
// Barton et al.'s analysis (and so pgas/cuts.hpp) does not cover: they take the general path,
// as in naive. The element's sum runs over k (a dot product of A's row and B's column).
void multiply_cut(const matrix& A, const matrix& B, const matrix& C, std::size_t n) {
  pgas::forall_cuts(C, pgas::box{{0, n}, {0, n}}, pgas::offsets{{0, 0}},
                    [&](auto c, std::size_t i, std::size_t j) {
                      double r = 0;
                      for (std::size_t k = 0; k < n; ++k)
                        r += A(i, k) * B(k, j);
                      c[0] = r;
                    });
}

// blas: the paper's listing — for each tile of C this thread owns, the tiles of A's row and B's
// column memget into scratch when another thread owns them, and one dgemm per pair into the
// tile of C in place (a tile is stored whole and row-major: the BLAS takes it as it is). A
// thread's tiles of C come row by row, so A's row of tiles is fetched once per row of C.
void multiply_blas(const matrix& A, const matrix& B, const matrix& C, std::size_t n, std::size_t bs,
                   double* scratch_a, double* scratch_b, std::vector<const double*>& a_row) {
  const auto b = static_cast<blasint>(bs);
  const std::size_t tiles = n / bs;
  std::size_t row = tiles;  // the row of tiles a_row holds
  for_my_tiles(C, bs, tiles, [&](std::size_t ti, std::size_t tj) {
    if (row != ti) {
      for (std::size_t tk = 0; tk < tiles; ++tk)
        a_row[tk] = pk::tile_here(A, bs, ti, tk, scratch_a + tk * bs * bs);
      row = ti;
    }
    double* c = pgas::to_local(C.ptr(ti * bs, tj * bs));
    for (std::size_t tk = 0; tk < tiles; ++tk) {
      const double* bt = pk::tile_here(B, bs, tk, tj, scratch_b);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, b, b, b, 1.0, a_row[tk], b, bt, b,
                  tk == 0 ? 0.0 : 1.0, c, b);
    }
  });
}

int job_body(const kernel_args& args, std::size_t bs, const plain_inputs& in) {
  const std::size_t n = args.size;
  const pgas::block_spec spec = pgas::block_spec::tiles({bs, bs});  // shared [b][b] double
  const matrix A({n, n}, spec), B({n, n}, spec), C({n, n}, spec);
  A.for_each_mine([](double& x, const matrix::index_type& ix) { x = a_value(ix[0], ix[1]); });
  B.for_each_mine([](double& x, const matrix::index_type& ix) { x = b_value(ix[0], ix[1]); });
  pgas::barrier();

  const std::size_t tiles = n / bs;
  pk::plain_vector<double> scratch((tiles + 1) * bs * bs);  // a row of A's tiles, one of B's
  std::vector<const double*> a_row(tiles);
  std::function<void()> once;
  const std::string& v = args.variant;
  if (v == "naive") {
    once = [&] { multiply_naive(A, B, C, n, bs); };
  } else if (v == "cut") {
    once = [&] { multiply_cut(A, B, C, n); };
  } else {  // blas
    once = [&] {
      multiply_blas(A, B, C, n, bs, scratch.data(), scratch.data() + tiles * bs * bs, a_row);
    };
  }
  const timing t = pk::time_reps(args.reps, once, [] { pgas::barrier(); });

  if (pgas::mythread() != 0) return 0;
  const std::vector<std::size_t> check = rows_to_check(n);
  bool verified = true;
  for (const std::size_t i : check)
    verified = row_matches(in, i, [&](std::size_t j) { return C(i, j); }) && verified;
  return pk::print_result(args, pgas::threads(), t, verified,
                          extra_fields(args, t, pgas::threads(), bs, check.size()));
}

}  // namespace

int main(int argc, char** argv) {
  pk::tile_option tile;
  const kernel_args args = pk::parse_kernel_args(
      argc, argv, "matmul_tiled",
      "Tiled matrix multiplication C = A x B on shared [b][b] double arrays (Barton et al.)", 1024,
      1, pk::tile_variants, [&](CLI::App& app) { tile.add_to(app); });
  tile.check(args);
  const plain_inputs in(args.size);
  const std::string& v = args.variant;
  if (v == "seq" || v == "openmp" || v == "library") return run_plain(args, tile.tile, in);
  pk::blas_threads(1);  // every pgas thread calls the BLAS on its own tiles, alone
  return pgas::run(argc, argv, [&] { return job_body(args, tile.tile, in); });
}
