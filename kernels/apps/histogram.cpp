// histogram.cpp — the worked example of README.md "Porting from UPC": histogram.upc ported
// with <pgas/upc.hpp>. Exits 1 if the bins do not add up to every value.
#include <stdio.h>
#include <pgas/upc.hpp>

#define N 1000 /* values per thread */
#define BINS 16

pgas::static_array<int, 1, 1> data(pgas::per_thread(N));
pgas::static_array<int, 1, 1> hist(BINS);
thread_local upc_lock_t* lock; /* each thread's copy of the lock's handle */

static auto upc_main(int, char**) {
  lock = upc_all_lock_alloc();
  pgas::forall(0, N * THREADS, data, [&](int i) { data[i] = (i * 7919) % 1000; });
  upc_barrier;

  int mine[BINS] = {0};
  for (int i = MYTHREAD; i < N * THREADS; i += THREADS)
    mine[data[i] * BINS / 1000]++;
  upc_lock(lock);
  for (int b = 0; b < BINS; b++)
    hist[b] += mine[b];
  upc_unlock(lock);
  upc_barrier;

  if (MYTHREAD == 0) {
    int total = 0;
    for (int b = 0; b < BINS; b++) {
      printf("%2d %d\n", b, hist[b]);
      total += hist[b];
    }
    if (total != N * THREADS) return 1;
    upc_lock_free(lock);
  }
  return 0;
}

int main(int argc, char** argv) {
  return pgas::run(argc, argv, upc_main);
}
