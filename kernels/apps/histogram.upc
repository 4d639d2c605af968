/* histogram.upc — the UPC original of histogram.cpp (README.md "Porting from UPC"). */
#include <stdio.h>
#include <upc.h>

#define N 1000 /* values per thread */
#define BINS 16

shared int data[N * THREADS];
shared int hist[BINS];
upc_lock_t* lock; /* each thread's copy of the lock's handle */

int main(void) {
  lock = upc_all_lock_alloc();
  upc_forall(int i = 0; i < N * THREADS; i++; &data[i]) data[i] = (i * 7919) % 1000;
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
