// kernels/apps/ep.cpp — an embarrassingly parallel Monte Carlo kernel in the style of the NAS EP
// benchmark, written as a UPC program and ported with <pgas/upc.hpp>; ep.upc beside it is the
// UPC original (README.md "Porting from UPC" counts the lines the port changed).
//
// 2^M pairs of uniform numbers in (-1, 1) from the linear congruential generator
// x' = 5^13 x mod 2^46 become Gaussian pairs by the Marsaglia polar method; the program prints
// the sums of the Gaussians and the count of pairs in each square annulus l <= max(|X|, |Y|) <
// l + 1. Batch b of 2^BATCH_LOG2 pairs starts at the seed jumped ahead by 2^(BATCH_LOG2+1) b
// steps, so the counts do not depend on THREADS and the sums only by rounding (the partial sums
// are added in another order). Usage: pgasrun -n T ./ep [M] (default 24; M in [10, 40]).
// tests/kernels/ep_test.cpp checks it at 1-4 threads against a sequential computation.
//
// The port kept every statement but these: the includes, the shared declarations
// (pgas::static_array / static_scalar, created by the runtime when the job starts), the
// per-thread global (thread_local), upc_forall (pgas::forall), the two shared scalars passed to
// printf (*x: varargs take no conversion), and main (pgas::run starts the threads).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pgas/upc.hpp>

#define NQ 10
#define BATCH_LOG2 10
#define MULTIPLIER 1220703125ULL /* 5^13 */
#define SEED 271828183ULL
#define MASK46 ((1ULL << 46) - 1)

pgas::static_array<double, 1, 1> sx_part(pgas::per_thread(1)), sy_part(pgas::per_thread(1));
pgas::static_scalar<double> sx_total, sy_total;
pgas::static_array<long, 1, 1> counts(NQ);
thread_local upc_lock_t* counts_lock;

/* a * b mod 2^46: the low 64 bits of the product keep the low 46. */
static unsigned long long mul46(unsigned long long a, unsigned long long b) {
  return (a * b) & MASK46;
}

/* a^n mod 2^46 by squaring: the jump of n steps. */
static unsigned long long pow46(unsigned long long a, unsigned long long n) {
  unsigned long long r = 1;
  for (; n != 0; n >>= 1) {
    if (n & 1) r = mul46(r, a);
    a = mul46(a, a);
  }
  return r;
}

/* The pairs of batch b, added to *sx, *sy and q. */
static void batch(long b, double* sx, double* sy, long q[NQ]) {
  const double scale = 1.0 / (double)(1ULL << 46);
  unsigned long long x = mul46(SEED, pow46(MULTIPLIER, (2ULL << BATCH_LOG2) * b));
  for (long k = 0; k < (1L << BATCH_LOG2); k++) {
    x = mul46(MULTIPLIER, x);
    double u = 2.0 * (x * scale) - 1.0;
    x = mul46(MULTIPLIER, x);
    double v = 2.0 * (x * scale) - 1.0;
    double t = u * u + v * v;
    if (t > 1.0 || t == 0.0) continue;
    double f = sqrt(-2.0 * log(t) / t);
    double gx = u * f, gy = v * f;
    int l = (int)fmax(fabs(gx), fabs(gy));
    if (l < NQ) q[l]++;
    *sx += gx;
    *sy += gy;
  }
}

static int ep_main(int argc, char** argv) {
  int m = argc > 1 ? atoi(argv[1]) : 24;
  if (m < BATCH_LOG2 || m > 40) {
    if (MYTHREAD == 0) fprintf(stderr, "ep: M must be in [%d, 40]\n", BATCH_LOG2);
    return 2;
  }
  long batches = 1L << (m - BATCH_LOG2);
  counts_lock = upc_all_lock_alloc();

  double sx = 0.0, sy = 0.0;
  long q[NQ] = {0};
  pgas::forall(0L, batches, [&](long b) { batch(b, &sx, &sy, q); });

  sx_part[MYTHREAD] = sx;
  sy_part[MYTHREAD] = sy;
  upc_lock(counts_lock);
  for (int l = 0; l < NQ; l++)
    counts[l] += q[l];
  upc_unlock(counts_lock);
  upc_all_reduceD(&sx_total, sx_part, UPC_ADD, THREADS, 1, NULL, UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
  upc_all_reduceD(&sy_total, sy_part, UPC_ADD, THREADS, 1, NULL, UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);

  if (MYTHREAD == 0) {
    long gaussians = 0;
    printf("ep: M %d threads %d\n", m, THREADS);
    for (int l = 0; l < NQ; l++) {
      printf("q%d %ld\n", l, counts[l]);
      gaussians += counts[l];
    }
    printf("gaussians %ld\nsx %.17g\nsy %.17g\n", gaussians, *sx_total, *sy_total);
    upc_lock_free(counts_lock);
  }
  return 0;
}

int main(int argc, char** argv) {
  return pgas::run(argc, argv, ep_main);
}
