/* kernels/plain/matmul_tiled.c — the plain C baseline of kernels/matmul_tiled.cpp: C = A × B on
 * size × size double matrices, computed tile by tile (256 × 256, the kernel's default; smaller at
 * the edges) in i-k-j order within each tile,
 * one untimed warm-up and the median of the timed repetitions. Same inputs as the kernel (small
 * integers: every sum is exact); every row up to size 512, else 64 rows, checked against a
 * product accumulated over the rows of B. */
#include "plain.h"

enum { tile = 256 };

static double a_value(size_t i, size_t k) {
  return (double)((int)((i * 31 + k * 17) % 17) - 8);
}
static double b_value(size_t k, size_t j) {
  return (double)((int)((k * 13 + j * 29) % 15) - 7);
}

static size_t min(size_t x, size_t y) {
  return x < y ? x : y;
}

static void multiply(const double* a, const double* b, double* c, size_t n) {
  for (size_t i0 = 0; i0 < n; i0 += tile) {
    for (size_t j0 = 0; j0 < n; j0 += tile) {
      const size_t i1 = min(n, i0 + tile), w = min(n, j0 + tile) - j0;
      for (size_t i = i0; i < i1; ++i)
        for (size_t j = j0; j < j0 + w; ++j)
          c[i * n + j] = 0;
      for (size_t k0 = 0; k0 < n; k0 += tile) {
        for (size_t i = i0; i < i1; ++i) {
          double* c_i = c + i * n + j0;
          for (size_t k = k0; k < min(n, k0 + tile); ++k) {
            const double a_ik = a[i * n + k];
            const double* b_k = b + k * n + j0;
            for (size_t j = 0; j < w; ++j)
              c_i[j] += a_ik * b_k[j];
          }
        }
      }
    }
  }
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "matmul_tiled", 1024, 1);
  const size_t n = args.size;
  double* a = plain_alloc_huge(n * n * sizeof(double));
  double* b = plain_alloc_huge(n * n * sizeof(double));
  double* c = plain_alloc_huge(n * n * sizeof(double));
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < n; ++k) {
      a[i * n + k] = a_value(i, k);
      b[i * n + k] = b_value(i, k);
    }
  }
  multiply(a, b, c, n);
  for (int r = 0; r < args.reps; ++r) {
    const double t0 = plain_now();
    multiply(a, b, c, n);
    s[r] = plain_now() - t0;
  }
  int ok = 1;
  double* want = plain_alloc(n * sizeof(double));
  const size_t checked = n <= 512 ? n : 64;
  for (size_t s_i = 0; s_i < checked && ok; ++s_i) {
    const size_t i = n <= 512 ? s_i : s_i * (n - 1) / 63;
    for (size_t j = 0; j < n; ++j)
      want[j] = 0;
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n; ++j)
        want[j] += a[i * n + k] * b[k * n + j];
    for (size_t j = 0; j < n && ok; ++j)
      ok = want[j] == c[i * n + j];
  }
  char extra[96];
  snprintf(extra, sizeof extra, "\"gflops\":%.6g,\"tile\":%d,\"checked_rows\":%zu",
           2.0 * (double)n * (double)n * (double)n / 1e9 / plain_median(s, args.reps), tile,
           checked);
  return plain_report(&args, s, ok, extra);
}
