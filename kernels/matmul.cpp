// kernels/matmul.cpp — the matrix multiplication of Serres et al. V.B: C = A × B on size × size
// int matrices, B stored transposed (Bt[j][k] = B[k][j]) so the inner loop reads both operands
// along rows, and rows dealt to threads in blocks (`shared [R*size] int`, R = ceil(size /
// THREADS)). Variants
// (kernels/harness.hpp): seq, naive (a pointer-to-shared per access), privatized (own rows
// through plain pointers), tables (pgas::privatize row pointers), auto (A(i, k)) and openmp.
// Entry point: main(); the PGAS variants run in job_body() on every thread.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

using pgas::kernels::kernel_args;
using pgas::kernels::timing;
using matrix = pgas::shared_array<int, 2>;
using shared_int = pgas::sptr<int, pgas::dynamic_block>;  // what matrix::ptr() returns

// Inputs: small values, so that no sum of `size` products overflows an int (|a·b| <= 99, and
// 99 × 16384 is far below 2^31).
int a_value(std::size_t i, std::size_t k) {
  return static_cast<int>((i * 31 + k * 17) % 23) - 11;
}
int bt_value(std::size_t j, std::size_t k) {
  return static_cast<int>((j * 13 + k * 29) % 19) - 9;
}

// The inputs as plain row-major arrays: the seq and openmp variants multiply these, and every
// variant is verified against products computed from them.
struct plain_inputs {
  std::size_t n;
  pgas::kernels::plain_vector<int> a, bt;
  explicit plain_inputs(std::size_t size) : n(size), a(size * size), bt(size * size) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < n; ++k) {
        a[i * n + k] = a_value(i, k);
        bt[i * n + k] = bt_value(i, k);
      }
    }
  }
};

// Rows per block: R = ceil(size / THREADS), the paper's one block per thread, whatever its
// size (run-time blocks reach config::max_runtime_block elements).
std::size_t rows_per_block(std::size_t n, int threads) {
  return (n + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
}

// --- verification --------------------------------------------------------------------------

// The rows checked: every row up to size 2048, beyond that 64 rows spread over the matrix
// (first and last included), all columns of each.
std::vector<std::size_t> rows_to_check(std::size_t n) {
  std::vector<std::size_t> rows;
  if (n <= 2048) {
    for (std::size_t i = 0; i < n; ++i)
      rows.push_back(i);
  } else {
    for (std::size_t s = 0; s < 64; ++s)
      rows.push_back(s * (n - 1) / 63);
  }
  return rows;
}

// Row i of C against the product computed from the plain inputs by the textbook loop.
bool row_matches(const plain_inputs& in, std::size_t i, const int* c_i) {
  const std::size_t n = in.n;
  for (std::size_t j = 0; j < n; ++j) {
    int r = 0;
    for (std::size_t k = 0; k < n; ++k)
      r += in.a[i * n + k] * in.bt[j * n + k];
    if (c_i[j] != r) {
      std::fprintf(stderr, "matmul: C[%zu][%zu] = %d, expected %d\n", i, j, c_i[j], r);
      return false;
    }
  }
  return true;
}

// Extra JSON fields: integer operations per second (2·size³ per product) and rows verified.
nlohmann::ordered_json extra_fields(const kernel_args& args, const timing& t, std::size_t checked) {
  const double n = static_cast<double>(args.size);
  nlohmann::ordered_json e;
  e["gops"] = t.median > 0 ? 2 * n * n * n / t.median / 1e9 : 0.0;
  e["checked_rows"] = checked;
  return e;
}

// --- seq and openmp: plain arrays, no runtime ------------------------------------------------

// Row i of C = A × B on plain arrays: the loop every variant mirrors.
void multiply_plain(const int* a, const int* bt, int* c, std::size_t n, std::size_t i) {
  const int* a_i = a + i * n;
  int* c_i = c + i * n;
  for (std::size_t j = 0; j < n; ++j) {
    const int* bt_j = bt + j * n;
    int r = 0;
    for (std::size_t k = 0; k < n; ++k)
      r += a_i[k] * bt_j[k];
    c_i[j] = r;
  }
}

int run_plain(const kernel_args& args, const plain_inputs& in) {
  const std::size_t n = args.size;
  pgas::kernels::plain_vector<int> c(n * n);
  const bool omp = args.variant == "openmp";
  const int nt = omp ? pgas::kernels::openmp_threads() : 1;
  const int *a = in.a.data(), *bt = in.bt.data();
  int* cp = c.data();
  const timing t = pgas::kernels::time_reps(args.reps, [&] {
    if (omp) {
      // What an OpenMP user writes: static scheduling deals contiguous runs of rows, as the
      // PGAS variants' blocks do.
#pragma omp parallel for schedule(static) num_threads(nt)
      for (std::size_t i = 0; i < n; ++i)
        multiply_plain(a, bt, cp, n, i);
    } else {
      for (std::size_t i = 0; i < n; ++i)
        multiply_plain(a, bt, cp, n, i);
    }
  });
  const std::vector<std::size_t> rows = rows_to_check(n);
  bool ok = true;
#pragma omp parallel for schedule(dynamic) num_threads(nt) reduction(&& : ok)
  for (std::size_t s = 0; s < rows.size(); ++s)
    ok = row_matches(in, rows[s], cp + rows[s] * n) && ok;
  return pgas::kernels::print_result(args, nt, t, ok, extra_fields(args, t, rows.size()));
}

// --- the PGAS variants ---------------------------------------------------------------------

// upc_forall (i = 0; i < size; i++; i / R): each thread takes the rows of its blocks, as the
// paper's loop does (affinity i / nb_lines).
template <class F>
void for_my_rows(std::size_t n, std::size_t block_rows, F&& body) {
  pgas::forall(
      std::size_t{0}, n, [block_rows](std::size_t i) { return i / block_rows; }, body);
}

// naive: what a UPC compiler emits for `a[i][k]` with no privatization — every load and the
// store go through a pointer-to-shared (the array's own `shared [R*size] int *`, whose block
// is known only at run time), stepped with UPC's block-cyclic ++ and dereferenced as base +
// offset. No plain pointer is ever formed, so the inner loop cannot be vectorised.
void multiply_naive(const matrix& A, const matrix& Bt, const matrix& C, std::size_t n,
                    std::size_t block_rows) {
  for_my_rows(n, block_rows, [&](std::size_t i) {
    for (std::size_t j = 0; j < n; ++j) {
      shared_int pa = A.ptr(i, 0);
      shared_int pb = Bt.ptr(j, 0);
      int r = 0;
      for (std::size_t k = 0; k < n; ++k, ++pa, ++pb)
        r += *pa * *pb;
      *C.ptr(i, j) = r;
    }
  });
}

// Row a_i times the row of Bt at pb, through the pointer-to-shared (its own function, so
// that its loop compiles alike wherever it is called).
[[gnu::noinline]] int remote_dot(const int* a_i, shared_int pb, std::size_t n) {
  int r = 0;
  for (std::size_t k = 0; k < n; ++k, ++pb)
    r += a_i[k] * *pb;
  return r;
}

// privatized: the paper's manual optimisation — data with affinity to this thread through
// plain pointers cast from pointers-to-shared: its rows of A and C, and its own block of Bt (a
// block of rows lies contiguous on its owner, so one test and one cast per block, as a UPC
// programmer hoists them); blocks of Bt on other threads still through pointers-to-shared, as
// in naive.
void multiply_privatized(const matrix& A, const matrix& Bt, const matrix& C, std::size_t n,
                         std::size_t block_rows) {
  for_my_rows(n, block_rows, [&](std::size_t i) {
    const int* a_i = pgas::to_local(A.ptr(i, 0));
    int* c_i = pgas::to_local(C.ptr(i, 0));
    for (std::size_t j0 = 0; j0 < n; j0 += block_rows) {
      const std::size_t j1 = std::min(n, j0 + block_rows);
      if (const shared_int block = Bt.ptr(j0, 0); pgas::is_local(block)) {
        const int* bt_j = pgas::to_local(block);
        for (std::size_t j = j0; j < j1; ++j, bt_j += n) {
          int r = 0;
          for (std::size_t k = 0; k < n; ++k)
            r += a_i[k] * bt_j[k];
          c_i[j] = r;
        }
      } else {
        for (std::size_t j = j0; j < j1; ++j)
          c_i[j] = remote_dot(a_i, Bt.ptr(j, 0), n);
      }
    }
  });
}

// tables: inter-thread privatization of all three arrays; the row pointers are hoisted out of
// the inner loops as in the paper (`int *ppc_i = pc[i]`).
void multiply_tables(const pgas::table<int, 2>& ta, const pgas::table<int, 2>& tb,
                     const pgas::table<int, 2>& tc, std::size_t n, std::size_t block_rows) {
  for_my_rows(n, block_rows, [&](std::size_t i) {
    const int* a_i = ta.row(i);
    int* c_i = tc.row(i);
    for (std::size_t j = 0; j < n; ++j) {
      const int* bt_j = tb.row(j);
      int r = 0;
      for (std::size_t k = 0; k < n; ++k)
        r += a_i[k] * bt_j[k];
      c_i[j] = r;
    }
  });
}

// auto: the UPC source as written, `a[i][k]`, on shared arrays; A(i, k) indexes through the
// array's automatic table when one pays (size >= 64 here), else computes owner and offset.
void multiply_auto(const matrix& A, const matrix& Bt, const matrix& C, std::size_t n,
                   std::size_t block_rows) {
  for_my_rows(n, block_rows, [&](std::size_t i) {
    for (std::size_t j = 0; j < n; ++j) {
      int r = 0;
      for (std::size_t k = 0; k < n; ++k)
        r += A(i, k) * Bt(j, k);
      C(i, j) = r;
    }
  });
}

int job_body(const kernel_args& args, const plain_inputs& in) {
  const std::size_t n = args.size;
  const std::size_t rows = rows_per_block(n, pgas::threads());
  const pgas::block_spec spec = pgas::block_spec::cyclic(rows * n);  // shared [R*size] int
  const matrix A({n, n}, spec), Bt({n, n}, spec), C({n, n}, spec);
  A.for_each_mine([](int& x, const matrix::index_type& ix) { x = a_value(ix[0], ix[1]); });
  Bt.for_each_mine([](int& x, const matrix::index_type& ix) { x = bt_value(ix[0], ix[1]); });
  pgas::barrier();

  pgas::table<int, 2> ta, tb, tc;
  std::function<void()> once;
  const std::string& v = args.variant;
  if (v == "naive") {
    once = [&] { multiply_naive(A, Bt, C, n, rows); };
  } else if (v == "privatized") {
    once = [&] { multiply_privatized(A, Bt, C, n, rows); };
  } else if (v == "tables") {
    ta = pgas::privatize(A);
    tb = pgas::privatize(Bt);
    tc = pgas::privatize(C);
    once = [&] { multiply_tables(ta, tb, tc, n, rows); };
  } else {
    once = [&] { multiply_auto(A, Bt, C, n, rows); };
  }
  const timing t = pgas::kernels::time_reps(args.reps, once, [] { pgas::barrier(); });

  // Each thread checks the rows it owns; one flag per thread (block 1: flag t on thread t).
  const std::vector<std::size_t> check = rows_to_check(n);
  pgas::shared_array<int> ok({static_cast<std::size_t>(pgas::threads())});
  bool mine_ok = true;
  for (const std::size_t i : check) {
    if (pgas::is_local(C.ptr(i, 0)))
      mine_ok = row_matches(in, i, pgas::to_local(C.ptr(i, 0))) && mine_ok;
  }
  ok[pgas::mythread()] = mine_ok ? 1 : 0;
  pgas::barrier();
  if (pgas::mythread() != 0) return 0;
  bool verified = true;
  for (int th = 0; th < pgas::threads(); ++th)
    verified = verified && ok[th] == 1;
  nlohmann::ordered_json extra = extra_fields(args, t, check.size());
  extra["rows_per_block"] = rows;
  if (v == "auto") extra["uses_table"] = A.uses_table() && Bt.uses_table() && C.uses_table();
  return pgas::kernels::print_result(args, pgas::threads(), t, verified, extra);
}

}  // namespace

int main(int argc, char** argv) {
  const kernel_args args = pgas::kernels::parse_kernel_args(
      argc, argv, "matmul", "Matrix multiplication C = A x B with B transposed (Serres et al. V.B)",
      1024, 1);
  const plain_inputs in(args.size);
  if (args.variant == "seq" || args.variant == "openmp") return run_plain(args, in);
  return pgas::run(argc, argv, [&args, &in] { return job_body(args, in); });
}
