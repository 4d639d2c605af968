/* kernels/plain/plain.h — what the plain C baselines share: the kernel contract's command line
 * (--variant c [--size S] [--reps R] [--json]), a monotonic clock, the median of the timed
 * repetitions and the JSON result line (kernels/harness.hpp describes the contract).
 *
 * The baselines are what a C programmer writes for each kernel, with nothing of the project in
 * them: no runtime, no C++ and no harness inside the timed loop. pgas-bench runs them beside
 * each kernel's seq variant and fails the benchmark run when seq is more than 5 % slower. */
#ifndef PGAS_KERNELS_PLAIN_H
#define PGAS_KERNELS_PLAIN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct plain_args {
  const char* kernel;
  size_t size;
  int reps;
};

/* Parses the contract's options; exits 2 with a message on anything else. */
static struct plain_args plain_parse(int argc, char** argv, const char* kernel, size_t size,
                                     size_t min_size) {
  struct plain_args a = {kernel, size, 5};
  int variant_given = 0;
  for (int i = 1; i < argc; ++i) {
    const char* opt = argv[i];
    const char* val = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = NULL;
    if (strcmp(opt, "--json") == 0) continue;
    if (val == NULL) {
      fprintf(stderr, "%s: %s needs a value\n", kernel, opt);
      exit(2);
    }
    if (strcmp(opt, "--variant") == 0) {
      if (strcmp(val, "c") != 0) {
        fprintf(stderr, "%s: --variant %s: this plain C baseline runs only variant c\n", kernel,
                val);
        exit(2);
      }
      variant_given = 1;
    } else if (strcmp(opt, "--size") == 0) {
      unsigned long long v = strtoull(val, &end, 10);
      if (*val == '-' || *end != '\0' || v < min_size || v > (1ull << 20)) {
        fprintf(stderr, "%s: --size %s: expected a whole number from %zu to %llu\n", kernel, val,
                min_size, 1ull << 20);
        exit(2);
      }
      a.size = (size_t)v;
    } else if (strcmp(opt, "--reps") == 0) {
      long v = strtol(val, &end, 10);
      if (*end != '\0' || v < 1 || v > 100000) {
        fprintf(stderr, "%s: --reps %s: expected a whole number from 1 to 100000\n", kernel, val);
        exit(2);
      }
      a.reps = (int)v;
    } else {
      fprintf(stderr, "%s: unknown option %s (expected --variant c, --size, --reps, --json)\n",
              kernel, opt);
      exit(2);
    }
    ++i;
  }
  if (!variant_given) {
    fprintf(stderr, "%s: --variant c is required\n", kernel);
    exit(2);
  }
  return a;
}

static double plain_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int plain_cmp(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

/* Sorts the `n` repetition times in place and returns their median. */
static double plain_median(double* s, int n) {
  qsort(s, (size_t)n, sizeof *s, plain_cmp);
  return n % 2 != 0 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Prints the contract's JSON line; `extra` is more "key": value pairs (or ""). Returns the exit
 * status: 0 when verified, 1 otherwise. */
static int plain_report(const struct plain_args* a, double* s, int verified, const char* extra) {
  const double med = plain_median(s, a->reps);
  printf(
      "{\"kernel\":\"%s\",\"variant\":\"c\",\"threads\":1,\"size\":%zu,\"seconds\":%.9g,"
      "\"min_seconds\":%.9g,\"max_seconds\":%.9g,\"reps\":%d,\"verified\":%s%s%s}\n",
      a->kernel, a->size, med, s[0], s[a->reps - 1], a->reps, verified ? "true" : "false",
      extra[0] != '\0' ? "," : "", extra);
  fflush(stdout);
  if (!verified) fprintf(stderr, "%s: c did not verify\n", a->kernel);
  return verified ? 0 : 1;
}

static void* plain_alloc(size_t bytes) {
  void* p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* Memory as the kernels' seq arrays get it (kernels/harness.hpp, plain_allocator): aligned to
 * 2 MiB and advised into transparent huge pages. The dense double kernels' baselines use it: with
 * malloc's alignment and 4 KiB pages the 1024 x 1024 tiled multiply took 1.8x as long. */
static inline void* plain_alloc_huge(size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  const size_t rounded = (bytes + huge - 1) / huge * huge;
  void* p = aligned_alloc(huge, rounded);
  if (p == NULL) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  madvise(p, rounded, MADV_HUGEPAGE); /* advice only: without THP, plain pages */
  return p;
}

#endif
