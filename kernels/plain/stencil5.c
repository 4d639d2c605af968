/* kernels/plain/stencil5.c — the plain C baseline of kernels/stencil5.cpp: 10 Jacobi sweeps over a
 * size × size grid of doubles, each interior point the mean of itself and its 4 neighbours (N,
 * W, E, S), out of place, the border fixed; the loop a C programmer writes. Same initial grid as
 * the kernel; the result checked against the sweeps recomputed point by point. */
#include "plain.h"

#include <math.h>

#define STEPS 10

static double initial(size_t i, size_t j, size_t n) {
  const double x = (double)i / (double)n, y = (double)j / (double)n;
  return 1.0 + sin(3.0 * x) * cos(2.0 * y) * 0.5 + 0.25 * (double)((i * 7 + j * 13) % 5) / 4.0;
}

static void sweep(const double* restrict in, double* restrict out, size_t n) {
  for (size_t i = 1; i + 1 < n; ++i) {
    const double* u = in + (i - 1) * n;
    const double* m = in + i * n;
    const double* d = in + (i + 1) * n;
    double* o = out + i * n;
    for (size_t j = 1; j + 1 < n; ++j)
      o[j] = (u[j] + m[j - 1] + m[j] + m[j + 1] + d[j]) * 0.2;
  }
}

static double* run(double* a, double* b, size_t n) {
  for (int s = 0; s < STEPS; ++s) {
    sweep(a, b, n);
    double* t = a;
    a = b;
    b = t;
  }
  return a;
}

static void init(double* g, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j)
      g[i * n + j] = initial(i, j, n);
  }
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "stencil5", 2048, 3);
  const size_t n = args.size;
  double* a = plain_alloc_huge(n * n * sizeof *a);
  double* b = plain_alloc_huge(n * n * sizeof *b);
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  init(a, n);
  init(b, n);
  const double* got = run(a, b, n);
  /* The check: the same sweeps, each point summed from its neighbours one at a time. */
  double* x = plain_alloc(n * n * sizeof *x);
  double* y = plain_alloc(n * n * sizeof *y);
  init(x, n);
  init(y, n);
  for (int step = 0; step < STEPS; ++step) {
    for (size_t i = 1; i + 1 < n; ++i) {
      for (size_t j = 1; j + 1 < n; ++j) {
        double sum = x[(i - 1) * n + j];
        sum += x[i * n + j - 1];
        sum += x[i * n + j];
        sum += x[i * n + j + 1];
        sum += x[(i + 1) * n + j];
        y[i * n + j] = sum * 0.2;
      }
    }
    double* t = x;
    x = y;
    y = t;
  }
  int ok = 1;
  for (size_t k = 0; k < n * n && ok; ++k)
    ok = fabs(got[k] - x[k]) <= 1e-12;
  for (int r = 0; r < args.reps; ++r) {
    const double t0 = plain_now();
    run(a, b, n);
    s[r] = plain_now() - t0;
  }
  char extra[64];
  snprintf(extra, sizeof extra, "\"gflops\":%.6g,\"steps\":%d",
           5.0 * STEPS * (double)(n - 2) * (double)(n - 2) / 1e9 / plain_median(s, args.reps),
           STEPS);
  return plain_report(&args, s, ok, extra);
}
