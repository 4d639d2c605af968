/* is.upc — the UPC original that kernels/apps/is.cpp was ported from (kept for the line count
 * of the port in README.md "Porting from UPC"; not compiled: pgas builds no UPC).
 *
 * An integer bucket sort in the style of the NAS IS benchmark: 2^K keys in [0, 2^16), each the
 * mean of four uniform numbers from the generator x' = 5^13 x mod 2^46 (so the keys bunch in the
 * middle of the range). Thread t makes keys [t 2^K / THREADS, (t + 1) 2^K / THREADS) of one
 * stream, jumping ahead to its first, so the keys do not depend on THREADS. Thread t owns the
 * key range that key * THREADS / 2^16 maps to t; every thread counts its keys per owner, the
 * counts go into a shared matrix, each owner allocates an inbox for what it will receive, the
 * senders put their keys straight into the owners' inboxes (pointers-to-shared kept in a shared
 * array), and each owner counting-sorts its inbox in place. The program verifies the order and
 * prints the key count, the sum of the keys and the keys at ranks n/4, n/2 and 3n/4. */
#include <upc.h>
#include <upc_collective.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEY_LOG2 16
#define MAX_KEY (1 << MAX_KEY_LOG2)
#define MULTIPLIER 1220703125ULL /* 5^13 */
#define SEED 314159265ULL
#define MASK46 ((1ULL << 46) - 1)

/* [from][to]; block 1: column `to` is on thread to */
shared int send_count[THREADS][THREADS];
/* each owner's keys, sorted in place at the end */
shared [] int *shared inbox[THREADS];
shared long inbox_size[THREADS];
shared long key_sum[THREADS];
shared long total_keys, total_sum;

int *my_keys; /* the keys this thread made */
long my_count;

static unsigned long long mul46(unsigned long long a, unsigned long long b) {
  return (a * b) & MASK46;
}

static unsigned long long pow46(unsigned long long a, unsigned long long n) {
  unsigned long long r = 1;
  for (; n != 0; n >>= 1) {
    if (n & 1) r = mul46(r, a);
    a = mul46(a, a);
  }
  return r;
}

/* Keys [first, first + count) of the stream into my_keys. */
static void make_keys(long first, long count) {
  const double scale = 1.0 / (double)(1ULL << 46);
  unsigned long long x = mul46(SEED, pow46(MULTIPLIER, 4ULL * (unsigned long long)first));
  for (long i = 0; i < count; i++) {
    double s = 0.0;
    for (int k = 0; k < 4; k++) {
      x = mul46(MULTIPLIER, x);
      s += x * scale;
    }
    my_keys[i] = (int)(s / 4.0 * MAX_KEY);
  }
}

static int owner(int key) {
  return (int)((long)key * THREADS / MAX_KEY);
}

/* The smallest key thread t owns. */
static int range_start(int t) {
  return (int)(((long)t * MAX_KEY + THREADS - 1) / THREADS);
}

int main(int argc, char **argv) {
  int log2n = argc > 1 ? atoi(argv[1]) : 22;
  if (log2n < 4 || log2n > 30) {
    if (MYTHREAD == 0) fprintf(stderr, "is: K must be in [4, 30]\n");
    return 2;
  }
  long n = 1L << log2n;
  long first = n * MYTHREAD / THREADS;
  my_count = n * (MYTHREAD + 1) / THREADS - first;
  my_keys = (int *)malloc((my_count + 1) * sizeof(int));
  make_keys(first, my_count);

  /* How many keys go to each owner, and my keys grouped by owner. */
  long *count = (long *)calloc(THREADS, sizeof(long));
  long *start = (long *)calloc(THREADS + 1, sizeof(long));
  int *grouped = (int *)malloc((my_count + 1) * sizeof(int));
  for (long i = 0; i < my_count; i++)
    count[owner(my_keys[i])]++;
  for (int t = 0; t < THREADS; t++) {
    start[t + 1] = start[t] + count[t];
    send_count[MYTHREAD][t] = (int)count[t];
  }
  for (long i = 0; i < my_count; i++)
    grouped[start[owner(my_keys[i])]++] = my_keys[i];
  for (int t = THREADS; t > 0; t--)
    start[t] = start[t - 1];
  start[0] = 0;
  upc_barrier;

  /* My inbox, as big as what the others will send me. */
  long incoming = 0;
  for (int s = 0; s < THREADS; s++)
    incoming += send_count[s][MYTHREAD];
  inbox[MYTHREAD] = upc_alloc((incoming + 1) * sizeof(int));
  inbox_size[MYTHREAD] = incoming;
  upc_barrier;

  /* Each group of keys to its place in its owner's inbox: after the senders below me. */
  for (int t = 0; t < THREADS; t++) {
    long at = 0;
    for (int s = 0; s < MYTHREAD; s++)
      at += send_count[s][t];
    if (count[t] > 0) upc_memput(inbox[t] + at, grouped + start[t], count[t] * sizeof(int));
  }
  upc_barrier;

  /* Counting sort of my inbox, in place: my key range, one counter per key. */
  int lo = range_start(MYTHREAD), hi = range_start(MYTHREAD + 1);
  long *histogram = (long *)calloc(hi - lo + 1, sizeof(long));
  int *mine = (int *)inbox[MYTHREAD];
  long sum = 0;
  for (long i = 0; i < incoming; i++) {
    if (mine[i] < lo || mine[i] >= hi) {
      fprintf(stderr, "is: thread %d received key %d outside its range [%d, %d)\n", MYTHREAD,
              mine[i], lo, hi);
      upc_global_exit(1);
    }
    histogram[mine[i] - lo]++;
    sum += mine[i];
  }
  long at = 0;
  for (int k = lo; k < hi; k++)
    for (long c = 0; c < histogram[k - lo]; c++)
      mine[at++] = k;
  key_sum[MYTHREAD] = sum;
  upc_all_reduceL(&total_keys, inbox_size, UPC_ADD, THREADS, 1, NULL,
                  UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
  upc_all_reduceL(&total_sum, key_sum, UPC_ADD, THREADS, 1, NULL, UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);

  if (MYTHREAD == 0) {
    int sorted = 1, previous = -1;
    for (int t = 0; t < THREADS; t++) {
      shared [] int *keys = inbox[t];
      for (long i = 0; i < inbox_size[t]; i++) {
        if (keys[i] < previous) sorted = 0;
        previous = keys[i];
      }
    }
    printf("is: K %d threads %d\n", log2n, THREADS);
    printf("keys %ld\nsum %ld\nsorted %s\n", total_keys, total_sum, sorted ? "yes" : "no");
    for (int q = 1; q <= 3; q++) {
      long rank = n / 4 * q, before = 0;
      int t = 0;
      while (before + inbox_size[t] <= rank)
        before += inbox_size[t++];
      printf("rank %ld key %d\n", rank, inbox[t][rank - before]);
    }
  }
  upc_barrier;
  upc_free(inbox[MYTHREAD]);
  free(histogram);
  free(grouped);
  free(start);
  free(count);
  free(my_keys);
  return 0;
}
