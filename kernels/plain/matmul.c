/* kernels/plain/matmul.c — the plain C baseline of kernels/matmul.cpp: C = A × B on size × size
 * int matrices with B stored transposed, the textbook triple loop, one untimed warm-up and the
 * median of the timed repetitions. Same inputs as the kernel; every row up to size 2048 checked
 * against a product accumulated over the rows of the untransposed B. */
#include "plain.h"

static int a_value(size_t i, size_t k) {
  return (int)((i * 31 + k * 17) % 23) - 11;
}
static int bt_value(size_t j, size_t k) {
  return (int)((j * 13 + k * 29) % 19) - 9;
}

static void multiply(const int* a, const int* bt, int* c, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      int r = 0;
      for (size_t k = 0; k < n; ++k)
        r += a[i * n + k] * bt[j * n + k];
      c[i * n + j] = r;
    }
  }
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "matmul", 1024, 1);
  const size_t n = args.size;
  int* a = plain_alloc(n * n * sizeof(int));
  int* bt = plain_alloc(n * n * sizeof(int));
  int* b = plain_alloc(n * n * sizeof(int));
  int* c = plain_alloc(n * n * sizeof(int));
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < n; ++k) {
      a[i * n + k] = a_value(i, k);
      bt[i * n + k] = bt_value(i, k);
      b[k * n + i] = bt_value(i, k);
      c[i * n + k] = 0;
    }
  }
  multiply(a, bt, c, n);
  for (int r = 0; r < args.reps; ++r) {
    const double t0 = plain_now();
    multiply(a, bt, c, n);
    s[r] = plain_now() - t0;
  }
  /* Row i of A × B accumulated over the rows of B (i-k-j order), against row i of C. */
  int ok = 1;
  int* want = plain_alloc(n * sizeof(int));
  const size_t checked = n <= 2048 ? n : 64;
  for (size_t s_i = 0; s_i < checked && ok; ++s_i) {
    const size_t i = n <= 2048 ? s_i : s_i * (n - 1) / 63;
    memset(want, 0, n * sizeof(int));
    for (size_t k = 0; k < n; ++k) {
      const int aik = a[i * n + k];
      for (size_t j = 0; j < n; ++j)
        want[j] += aik * b[k * n + j];
    }
    ok = memcmp(want, c + i * n, n * sizeof(int)) == 0;
  }
  char extra[96];
  snprintf(extra, sizeof extra, "\"gops\":%.6g,\"checked_rows\":%zu",
           2.0 * (double)n * (double)n * (double)n / 1e9 / plain_median(s, args.reps), checked);
  return plain_report(&args, s, ok, extra);
}
