/* kernels/plain/matvec.c — the plain C baseline of kernels/matvec.cpp: y = A × x on a size × size
 * double matrix, one dot product per row, one untimed warm-up and the median of the timed
 * repetitions. Same inputs as the kernel (small integers: every sum is exact); y checked
 * against a product accumulated column by column. */
#include "plain.h"

static double a_value(size_t i, size_t j) {
  return (double)((int)((i * 31 + j * 17) % 17) - 8);
}
static double x_value(size_t j) {
  return (double)((int)((j * 13) % 15) - 7);
}

static void multiply(const double* a, const double* x, double* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    /* Vectorised as the kernel's seq is (exact inputs: any order of the sum gives the same
     * bits). */
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; ++j)
      s += a[i * n + j] * x[j];
    y[i] = s;
  }
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "matvec", 4096, 1);
  const size_t n = args.size;
  double* a = plain_alloc_huge(n * n * sizeof(double));
  double* x = plain_alloc_huge(n * sizeof(double));
  double* y = plain_alloc_huge(n * sizeof(double));
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  for (size_t i = 0; i < n; ++i) {
    x[i] = x_value(i);
    for (size_t j = 0; j < n; ++j)
      a[i * n + j] = a_value(i, j);
  }
  multiply(a, x, y, n);
  for (int r = 0; r < args.reps; ++r) {
    const double t0 = plain_now();
    multiply(a, x, y, n);
    s[r] = plain_now() - t0;
  }
  double* want = plain_alloc(n * sizeof(double));
  for (size_t i = 0; i < n; ++i)
    want[i] = 0;
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < n; ++i)
      want[i] += a[i * n + j] * x[j];
  int ok = 1;
  for (size_t i = 0; i < n && ok; ++i)
    ok = want[i] == y[i];
  char extra[64];
  snprintf(extra, sizeof extra, "\"gflops\":%.6g",
           2.0 * (double)n * (double)n / 1e9 / plain_median(s, args.reps));
  return plain_report(&args, s, ok, extra);
}
