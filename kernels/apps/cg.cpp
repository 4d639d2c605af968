// kernels/apps/cg.cpp — the conjugate gradient method on the five-point Laplacian of an M x M
// grid, written as a UPC program and ported with <pgas/upc.hpp> and static shared data; cg.upc
// beside it is the UPC original (README.md "Porting from UPC" counts the lines the port changed).
//
// The right-hand side is A x* for a known x*, so the program reports how far its x is from x*
// as well as the residual. The vectors are shared, one grid row per block, rows dealt to the
// threads in turn; the matrix-vector product reads the neighbouring rows wherever they are, and
// dot products end in a reduction of per-thread partial sums (upc_all_reduceD).
// Usage: pgasrun -n T ./cg [ITERATIONS] (default 100). tests/kernels/cg_test.cpp checks it at
// 1-4 threads against a sequential computation.
//
// The port kept every statement but these: the includes, the shared declarations
// (pgas::static_array / static_scalar, which the runtime creates when the job starts), the
// pointer-to-shared parameters (pgas::sptr<double, M>), each upc_forall (pgas::forall with the
// same affinity), and main (pgas::run starts the threads).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pgas/upc.hpp>

#define M 128 /* grid side */
#define N (M * M)

pgas::static_array<double, 1, M> x(N), r(N), p(N), q(N), b(N);
pgas::static_array<double> partial(pgas::per_thread(1));
pgas::static_scalar<double> dot_result;

/* The unknown the right-hand side is made from. */
static double exact(int i) {
  return sin(0.001 * i) + (double)(i % 7) / 7.0;
}

/* a . b over the whole vector: this thread's rows, then a reduction. */
static double dot(pgas::sptr<double, M> a, pgas::sptr<double, M> c) {
  double s = 0.0;
  pgas::forall(0, N, a, [&](int i) { s += a[i] * c[i]; });
  partial[MYTHREAD] = s;
  upc_all_reduceD(&dot_result, partial, UPC_ADD, THREADS, 1, NULL,
                  UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
  return dot_result;
}

/* out = A in, for this thread's rows; the caller has made `in` complete (a barrier). */
static void laplacian(pgas::sptr<double, M> out, pgas::sptr<double, M> in) {
  pgas::forall(0, N, out, [&](int i) {
    int row = i / M, col = i % M;
    double v = 4.0 * in[i];
    if (col > 0) v -= in[i - 1];
    if (col < M - 1) v -= in[i + 1];
    if (row > 0) v -= in[i - M];
    if (row < M - 1) v -= in[i + M];
    out[i] = v;
  });
}

static int cg_main(int argc, char** argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 100;
  if (iterations < 1 || iterations > 100000) {
    if (MYTHREAD == 0) fprintf(stderr, "cg: ITERATIONS must be in [1, 100000]\n");
    return 2;
  }
  /* b = A x*, with x* in q for the moment; x = 0, so r = p = b. */
  pgas::forall(0, N, q, [&](int i) { q[i] = exact(i); });
  upc_barrier;
  laplacian(b, q);
  pgas::forall(0, N, x, [&](int i) {
    x[i] = 0.0;
    r[i] = b[i];
    p[i] = b[i];
  });
  double rho = dot(r, r);
  double b_norm = sqrt(dot(b, b));

  for (int it = 0; it < iterations; it++) {
    laplacian(q, p);
    double alpha = rho / dot(p, q);
    pgas::forall(0, N, x, [&](int i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    });
    double rho_next = dot(r, r);
    double beta = rho_next / rho;
    rho = rho_next;
    pgas::forall(0, N, p, [&](int i) { p[i] = r[i] + beta * p[i]; });
    upc_barrier;
  }

  /* The error, with q = x - x*. */
  pgas::forall(0, N, q, [&](int i) { q[i] = x[i] - exact(i); });
  double error = sqrt(dot(q, q));
  if (MYTHREAD == 0) {
    printf("cg: M %d iterations %d threads %d\n", M, iterations, THREADS);
    printf("residual %.15e\nerror %.15e\n", sqrt(rho) / b_norm, error);
  }
  return 0;
}

int main(int argc, char** argv) {
  return pgas::run(argc, argv, cg_main);
}
