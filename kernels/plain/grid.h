/* kernels/plain/grid.h — what the plain C baselines of the Jacobi stencils (stencil2d.c,
 * stencil5.c) share: their kernels' initial grid, STEPS out-of-place sweeps over two grids, and
 * the run itself (one untimed run checked against the same sweeps recomputed point by point,
 * then the timed repetitions). Each baseline supplies its sweep, the loop a C programmer writes,
 * and its check, the same stencil summed one neighbour at a time. */
#ifndef PGAS_KERNELS_PLAIN_GRID_H
#define PGAS_KERNELS_PLAIN_GRID_H

#include <math.h>

#include "plain.h"

#define STEPS 10

/* One sweep of the interior of `out` from `in`, both size n x n, the border left as it is. */
typedef void grid_sweep(const double* restrict in, double* restrict out, size_t n);

static double grid_initial(size_t i, size_t j, size_t n) {
  const double x = (double)i / (double)n, y = (double)j / (double)n;
  return 1.0 + sin(3.0 * x) * cos(2.0 * y) * 0.5 + 0.25 * (double)((i * 7 + j * 13) % 5) / 4.0;
}

static void grid_init(double* g, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j)
      g[i * n + j] = grid_initial(i, j, n);
  }
}

/* STEPS sweeps from a into b and back; returns the grid holding the last. */
static double* grid_run(grid_sweep* sweep, double* a, double* b, size_t n) {
  for (int s = 0; s < STEPS; ++s) {
    sweep(a, b, n);
    double* t = a;
    a = b;
    b = t;
  }
  return a;
}

/* The baseline's run: grids from `alloc` (plain_alloc or plain_alloc_huge), one untimed run of
 * `sweep` checked point by point against `check`'s, then `reps` timed runs into s[]. Returns 1
 * when the result verified. */
static int grid_measure(grid_sweep* sweep, grid_sweep* check, void* (*alloc)(size_t), size_t n,
                        int reps, double* s) {
  double* a = alloc(n * n * sizeof *a);
  double* b = alloc(n * n * sizeof *b);
  grid_init(a, n);
  grid_init(b, n);
  const double* got = grid_run(sweep, a, b, n);
  double* x = plain_alloc(n * n * sizeof *x);
  double* y = plain_alloc(n * n * sizeof *y);
  grid_init(x, n);
  grid_init(y, n);
  const double* want = grid_run(check, x, y, n);
  int ok = 1;
  for (size_t k = 0; k < n * n && ok; ++k)
    ok = fabs(got[k] - want[k]) <= 1e-12;
  free(x);
  free(y);
  for (int r = 0; r < reps; ++r) {
    const double t0 = plain_now();
    grid_run(sweep, a, b, n);
    s[r] = plain_now() - t0;
  }
  return ok;
}

#endif
