/* cg.upc — the UPC original that kernels/apps/cg.cpp was ported from (kept for the line count
 * of the port in README.md "Porting from UPC"; not compiled: pgas builds no UPC).
 *
 * The conjugate gradient method on the five-point Laplacian of an M x M grid (4 on the
 * diagonal, -1 for each neighbour in the grid: symmetric positive definite). The right-hand
 * side is A x* for a known x*, so the program can report how far its x is from x* as well as
 * the residual. The vectors are shared, one grid row per block, rows dealt to the threads in
 * turn; the matrix-vector product reads the neighbouring rows wherever they are, and dot
 * products end in a reduction of per-thread partial sums. Prints the norms after a fixed number
 * of iterations. */
#include <upc.h>
#include <upc_collective.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define M 128 /* grid side */
#define N (M * M)

shared [M] double x[N], r[N], p[N], q[N], b[N];
shared double partial[THREADS];
shared double dot_result;

/* The unknown the right-hand side is made from. */
static double exact(int i) {
  return sin(0.001 * i) + (double)(i % 7) / 7.0;
}

/* a . b over the whole vector: this thread's rows, then a reduction. */
static double dot(shared [M] double *a, shared [M] double *c) {
  double s = 0.0;
  upc_forall(int i = 0; i < N; i++; &a[i]) s += a[i] * c[i];
  partial[MYTHREAD] = s;
  upc_all_reduceD(&dot_result, partial, UPC_ADD, THREADS, 1, NULL,
                  UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
  return dot_result;
}

/* out = A in, for this thread's rows; the caller has made `in` complete (a barrier). */
static void laplacian(shared [M] double *out, shared [M] double *in) {
  upc_forall(int i = 0; i < N; i++; &out[i]) {
    int row = i / M, col = i % M;
    double v = 4.0 * in[i];
    if (col > 0) v -= in[i - 1];
    if (col < M - 1) v -= in[i + 1];
    if (row > 0) v -= in[i - M];
    if (row < M - 1) v -= in[i + M];
    out[i] = v;
  }
}

int main(int argc, char **argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 100;
  if (iterations < 1 || iterations > 100000) {
    if (MYTHREAD == 0) fprintf(stderr, "cg: ITERATIONS must be in [1, 100000]\n");
    return 2;
  }
  /* b = A x*, with x* in q for the moment; x = 0, so r = p = b. */
  upc_forall(int i = 0; i < N; i++; &q[i]) q[i] = exact(i);
  upc_barrier;
  laplacian(b, q);
  upc_forall(int i = 0; i < N; i++; &x[i]) {
    x[i] = 0.0;
    r[i] = b[i];
    p[i] = b[i];
  }
  double rho = dot(r, r);
  double b_norm = sqrt(dot(b, b));

  for (int it = 0; it < iterations; it++) {
    laplacian(q, p);
    double alpha = rho / dot(p, q);
    upc_forall(int i = 0; i < N; i++; &x[i]) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    double rho_next = dot(r, r);
    double beta = rho_next / rho;
    rho = rho_next;
    upc_forall(int i = 0; i < N; i++; &p[i]) p[i] = r[i] + beta * p[i];
    upc_barrier;
  }

  /* The error, with q = x - x*. */
  upc_forall(int i = 0; i < N; i++; &q[i]) q[i] = x[i] - exact(i);
  double error = sqrt(dot(q, q));
  if (MYTHREAD == 0) {
    printf("cg: M %d iterations %d threads %d\n", M, iterations, THREADS);
    printf("residual %.15e\nerror %.15e\n", sqrt(rho) / b_norm, error);
  }
  return 0;
}
