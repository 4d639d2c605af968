/* kernels/plain/randomaccess.c — the plain C baseline of kernels/randomaccess.cpp: HPCC
 * RandomAccess, 4N updates `tab[ran & (N-1)] ^= ran` (`ran % N` when N is not a power of two)
 * to a table of N = size × size 32-bit words, ran the HPCC stream. The table asks for
 * transparent huge pages, as the kernel's does. Verified the HPCC way: the same updates applied
 * again restore the initial table. */
#include "plain.h"

#include <stdint.h>
#include <sys/mman.h>

#define POLY 7u

static uint64_t next(uint64_t ran) {
  return (ran << 1) ^ ((int64_t)ran < 0 ? POLY : 0);
}

static void update(uint32_t* tab, uint64_t n, uint64_t updates) {
  uint64_t ran = 1;
  if ((n & (n - 1)) == 0) {
    const uint64_t mask = n - 1;
    for (uint64_t u = 0; u < updates; ++u) {
      ran = next(ran);
      tab[ran & mask] ^= (uint32_t)ran;
    }
  } else {
    for (uint64_t u = 0; u < updates; ++u) {
      ran = next(ran);
      tab[ran % n] ^= (uint32_t)ran;
    }
  }
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "randomaccess", 1024, 1);
  const uint64_t n = (uint64_t)args.size * args.size;
  const size_t huge = (size_t)2 << 20, bytes = (n * 4 + huge - 1) / huge * huge;
  uint32_t* tab = aligned_alloc(huge, bytes);
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  if (tab == NULL) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    return 1;
  }
  madvise(tab, bytes, MADV_HUGEPAGE);
  for (uint64_t i = 0; i < n; ++i)
    tab[i] = (uint32_t)i;
  /* Updates from stream position 0: the same 4N as the kernel's seq variant. */
  update(tab, n, 4 * n);
  update(tab, n, 4 * n);
  uint64_t errors = 0;
  for (uint64_t i = 0; i < n; ++i)
    errors += tab[i] != (uint32_t)i;
  for (int r = 0; r < args.reps; ++r) {
    const double t0 = plain_now();
    update(tab, n, 4 * n);
    s[r] = plain_now() - t0;
  }
  char extra[96];
  snprintf(extra, sizeof extra, "\"updates\":%llu,\"errors\":%llu,\"gups\":%.6g",
           (unsigned long long)(4 * n), (unsigned long long)errors,
           (double)(4 * n) / plain_median(s, args.reps) / 1e9);
  return plain_report(&args, s, errors == 0, extra);
}
