/* kernels/plain/cc.c — the plain C baseline of kernels/cc.cpp: connected components of the
 * same random graph (size vertices, 4 × size edges from splitmix64), by union-find with union
 * by the smaller root and path halving, so that each vertex's label is the smallest vertex of
 * its component. Checked against a breadth-first search over the graph's adjacency lists. */
#include "plain.h"

#include <stdint.h>

#define EDGES_PER_VERTEX 4
#define GRAPH_SEED 0x5eedcc000001ull

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static int32_t find_root(int32_t* d, int32_t x) {
  while (d[x] != x) {
    d[x] = d[d[x]];
    x = d[x];
  }
  return x;
}

static void components(const int32_t* eu, const int32_t* ev, size_t m, int32_t* d, size_t n) {
  for (size_t i = 0; i < n; ++i)
    d[i] = (int32_t)i;
  for (size_t e = 0; e < m; ++e) {
    const int32_t a = find_root(d, eu[e]), b = find_root(d, ev[e]);
    if (a < b)
      d[b] = a;
    else if (b < a)
      d[a] = b;
  }
  for (size_t i = 0; i < n; ++i)
    d[i] = d[d[i]];
}

/* Breadth-first search from each unlabelled vertex in increasing order: the label is the
 * component's smallest vertex. */
static int check(const int32_t* eu, const int32_t* ev, size_t m, const int32_t* d, size_t n) {
  size_t* first = calloc(n + 1, sizeof *first);
  int32_t* adj = plain_alloc(2 * m * sizeof *adj);
  int32_t* label = plain_alloc(n * sizeof *label);
  int32_t* queue = plain_alloc(n * sizeof *queue);
  if (first == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  for (size_t e = 0; e < m; ++e) {
    ++first[eu[e] + 1];
    ++first[ev[e] + 1];
  }
  for (size_t i = 0; i < n; ++i)
    first[i + 1] += first[i];
  size_t* fill = plain_alloc(n * sizeof *fill);
  memcpy(fill, first, n * sizeof *fill);
  for (size_t e = 0; e < m; ++e) {
    adj[fill[eu[e]]++] = ev[e];
    adj[fill[ev[e]]++] = eu[e];
  }
  for (size_t i = 0; i < n; ++i)
    label[i] = -1;
  for (size_t s = 0; s < n; ++s) {
    if (label[s] != -1) continue;
    size_t head = 0, tail = 0;
    label[s] = (int32_t)s;
    queue[tail++] = (int32_t)s;
    while (head < tail) {
      const int32_t x = queue[head++];
      for (size_t k = first[x]; k < first[x + 1]; ++k) {
        if (label[adj[k]] == -1) {
          label[adj[k]] = (int32_t)s;
          queue[tail++] = adj[k];
        }
      }
    }
  }
  int ok = 1;
  for (size_t i = 0; i < n; ++i)
    ok = ok && d[i] == label[i];
  free(first);
  free(adj);
  free(label);
  free(queue);
  free(fill);
  return ok;
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "cc", 1 << 20, 1);
  const size_t n = args.size, m = EDGES_PER_VERTEX * n;
  int32_t* eu = plain_alloc(m * sizeof *eu);
  int32_t* ev = plain_alloc(m * sizeof *ev);
  int32_t* d = plain_alloc(n * sizeof *d);
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  for (size_t e = 0; e < m; ++e) {
    const uint64_t h = splitmix64(GRAPH_SEED + e);
    eu[e] = (int32_t)((h >> 32) % n);
    ev[e] = (int32_t)((h & 0xffffffffu) % n);
  }
  components(eu, ev, m, d, n);
  for (int r = 0; r < args.reps; ++r) {
    const double t0 = plain_now();
    components(eu, ev, m, d, n);
    s[r] = plain_now() - t0;
  }
  size_t count = 0;
  for (size_t i = 0; i < n; ++i)
    count += d[i] == (int32_t)i;
  char extra[96];
  snprintf(extra, sizeof extra, "\"edges\":%zu,\"components\":%zu", m, count);
  return plain_report(&args, s, check(eu, ev, m, d, n), extra);
}
