/* kernels/plain/cholesky.c — the plain C baseline of kernels/cholesky.cpp: A = UᵀU of the same
 * size × size symmetric positive definite matrix, right-looking on 256 × 256 tiles (the kernel's
 * default; the largest power of two up to 256 that divides the size otherwise) with the same
 * row-oriented tile loops, one untimed warm-up and the median of the timed repetitions, the
 * matrix restored before each; checked by the residual max |A - UᵀU| / (max |A| · n · ε). */
#include <float.h>
#include <math.h>

#include "plain.h"

static double a_value(size_t n, size_t i, size_t j) {
  if (i == j) return (double)n;
  return (double)((i + j) * 7 % 11 + i * j % 5) / 14.0 - 0.5;
}

static void potrf_tile(double* a, size_t n, size_t k0, size_t b) {
  for (size_t k = k0; k < k0 + b; ++k) {
    const double d = sqrt(a[k * n + k]);
    a[k * n + k] = d;
    for (size_t j = k + 1; j < k0 + b; ++j)
      a[k * n + j] /= d;
    for (size_t i = k + 1; i < k0 + b; ++i) {
      const double u = a[k * n + i];
      for (size_t j = i; j < k0 + b; ++j)
        a[i * n + j] -= u * a[k * n + j];
    }
  }
}

static void trsm_tile(double* a, size_t n, size_t k0, size_t j0, size_t b) {
  for (size_t r = 0; r < b; ++r) {
    double* x_r = a + (k0 + r) * n + j0;
    for (size_t s = 0; s < r; ++s) {
      const double u = a[(k0 + s) * n + k0 + r];
      const double* x_s = a + (k0 + s) * n + j0;
      for (size_t c = 0; c < b; ++c)
        x_r[c] -= u * x_s[c];
    }
    const double d = a[(k0 + r) * n + k0 + r];
    for (size_t c = 0; c < b; ++c)
      x_r[c] /= d;
  }
}

static void update_tile(double* a, size_t n, size_t k0, size_t i0, size_t j0, size_t b) {
  for (size_t r = 0; r < b; ++r) {
    const size_t c0 = i0 == j0 ? r : 0;
    double* c_r = a + (i0 + r) * n + j0;
    for (size_t s = 0; s < b; ++s) {
      const double u = a[(k0 + s) * n + i0 + r];
      const double* u_s = a + (k0 + s) * n + j0;
      for (size_t c = c0; c < b; ++c)
        c_r[c] -= u * u_s[c];
    }
  }
}

static void factor(double* a, size_t n, size_t b) {
  const size_t tiles = n / b;
  for (size_t k = 0; k < tiles; ++k) {
    potrf_tile(a, n, k * b, b);
    for (size_t j = k + 1; j < tiles; ++j)
      trsm_tile(a, n, k * b, j * b, b);
    for (size_t i = k + 1; i < tiles; ++i)
      for (size_t j = i; j < tiles; ++j)
        update_tile(a, n, k * b, i * b, j * b, b);
  }
}

static void fill(double* a, size_t n) {
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      a[i * n + j] = a_value(n, i, j);
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "cholesky", 1024, 1);
  const size_t n = args.size;
  size_t b = 256;
  while (n % b != 0)
    b /= 2;
  double* a = plain_alloc_huge(n * n * sizeof(double));
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  fill(a, n);
  factor(a, n, b);
  for (int r = 0; r < args.reps; ++r) {
    fill(a, n);
    const double t0 = plain_now();
    factor(a, n, b);
    s[r] = plain_now() - t0;
  }
  /* Rows of UᵀU (every row up to size 512, else 64 spread), upper part, against A. */
  double worst = 0;
  double* row = plain_alloc(n * sizeof(double));
  const size_t checked = n <= 512 ? n : 64;
  for (size_t s_i = 0; s_i < checked; ++s_i) {
    const size_t i = n <= 512 ? s_i : s_i * (n - 1) / 63;
    for (size_t j = 0; j < n; ++j)
      row[j] = 0;
    for (size_t k = 0; k <= i; ++k)
      for (size_t j = i; j < n; ++j)
        row[j] += a[k * n + i] * a[k * n + j];
    for (size_t j = i; j < n; ++j) {
      const double e = fabs(a_value(n, i, j) - row[j]);
      worst = isnan(e) || isnan(worst) ? NAN : (e > worst ? e : worst);
    }
  }
  const double res = worst / ((double)n * (double)n * DBL_EPSILON);
  char extra[128];
  snprintf(extra, sizeof extra, "\"gflops\":%.6g,\"tile\":%zu,\"residual\":%.6g",
           (double)n * (double)n * (double)n / 3 / 1e9 / plain_median(s, args.reps), b,
           isnan(res) ? -1.0 : res);
  return plain_report(&args, s, res <= 16, extra);
}
