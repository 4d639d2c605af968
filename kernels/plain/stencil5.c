/* kernels/plain/stencil5.c — the plain C baseline of kernels/stencil5.cpp: 10 Jacobi sweeps over a
 * size × size grid of doubles, each interior point the mean of itself and its 4 neighbours (N,
 * W, E, S), out of place, the border fixed; the loop a C programmer writes. Same initial grid as
 * the kernel; the result checked against the sweeps recomputed point by point (grid.h). */
#include "grid.h"

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

/* The check: each point summed from its neighbours one at a time. */
static void check(const double* restrict x, double* restrict y, size_t n) {
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
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "stencil5", 2048, 3);
  const size_t n = args.size;
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  const int ok = grid_measure(sweep, check, plain_alloc_huge, n, args.reps, s);
  char extra[64];
  snprintf(extra, sizeof extra, "\"gflops\":%.6g,\"steps\":%d",
           5.0 * STEPS * (double)(n - 2) * (double)(n - 2) / 1e9 / plain_median(s, args.reps),
           STEPS);
  return plain_report(&args, s, ok, extra);
}
