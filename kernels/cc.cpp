// kernels/cc.cpp — connected components of a random graph (Cong et al. Fig. 5): the Shiloach–
// Vishkin grafting and shortcutting loops over a parent-label array D, iterated until no edge
// joins two trees. size vertices, 4·size edges (average degree 8, as Cong et al.'s 10000
// vertices and 40000 edges), drawn from a fixed seed. Every variant's labels are checked, as a
// partition, against a union-find run on the same graph. Variants (kernels/harness.hpp,
// cache_variants): seq (union-find) and openmp on plain memory; naive, cached and coalesced on
// shared arrays D and El distributed in blocks. Entry point: main().
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;
using vertex = std::int32_t;

struct edge {
  vertex u, v;
};

constexpr std::size_t edges_per_vertex = 4;

// --- the graph -----------------------------------------------------------------------------
//
// Edge e joins two vertices drawn from splitmix64(seed + e), so that any thread generates any
// stretch of the edge list alone, and every variant sees the same graph.
constexpr std::uint64_t graph_seed = 0x5eed'cc00'0001;

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

inline edge edge_at(std::uint64_t e, std::size_t n) {
  const std::uint64_t h = splitmix64(graph_seed + e);
  return {static_cast<vertex>((h >> 32) % n), static_cast<vertex>((h & 0xffffffff) % n)};
}

void make_edges(edge* el, std::size_t first, std::size_t count, std::size_t n) {
  for (std::size_t e = 0; e < count; ++e)
    el[e] = edge_at(first + e, n);
}

// --- seq and the check: union-find ---------------------------------------------------------
//
// The strongest sequential algorithm: union by the smaller root, path halving. Every root is
// its tree's smallest vertex, so after the final pass each vertex's label is the smallest
// vertex of its component, as the Shiloach–Vishkin loops leave it.
inline vertex find_root(vertex* d, vertex x) {
  while (d[x] != x) {
    d[x] = d[d[x]];
    x = d[x];
  }
  return x;
}

void union_find(const edge* el, std::size_t m, vertex* d, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    d[i] = static_cast<vertex>(i);
  for (std::size_t e = 0; e < m; ++e) {
    const vertex a = find_root(d, el[e].u), b = find_root(d, el[e].v);
    if (a < b) {
      d[b] = a;
    } else if (b < a) {
      d[a] = b;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    d[i] = d[d[i]];  // roots precede their descendants: one pass flattens every tree
}

std::vector<vertex> reference(std::size_t n) {
  std::vector<edge> el(edges_per_vertex * n);
  make_edges(el.data(), 0, el.size(), n);
  std::vector<vertex> d(n);
  union_find(el.data(), el.size(), d.data(), n);
  return d;
}

// True when `got` (label of vertex i, through get(i)) groups the vertices exactly as `want`
// does: a one-to-one map between the two labellings.
template <class Get>
bool same_partition(Get get, const std::vector<vertex>& want) {
  const std::size_t n = want.size();
  std::vector<vertex> to_want(n, -1), to_got(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const vertex g = get(i), w = want[i];
    if (g < 0 || static_cast<std::size_t>(g) >= n) return false;
    if (to_want[g] == -1 && to_got[w] == -1) {
      to_want[g] = w;
      to_got[w] = g;
    } else if (to_want[g] != w || to_got[w] != g) {
      return false;
    }
  }
  return true;
}

std::size_t components(const std::vector<vertex>& want) {
  std::size_t c = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    c += want[i] == static_cast<vertex>(i) ? 1 : 0;
  return c;
}

int report(const pk::kernel_args& a, int threads, const pk::timing& t, bool ok, int iterations,
           const std::vector<vertex>& want) {
  nlohmann::ordered_json extra;
  extra["edges"] = edges_per_vertex * a.size;
  extra["components"] = components(want);
  if (iterations > 0) extra["iterations"] = iterations;
  return pk::print_result(a, threads, t, ok, extra);
}

int run_seq(const pk::kernel_args& a) {
  const std::size_t n = a.size, m = edges_per_vertex * n;
  pk::plain_vector<edge> el(m);
  pk::plain_vector<vertex> d(n);
  make_edges(el.data(), 0, m, n);
  const pk::timing t = pk::time_reps(a.reps, [&] { union_find(el.data(), m, d.data(), n); });
  const std::vector<vertex> want = reference(n);
  return report(a, 1, t, same_partition([&](std::size_t i) { return d[i]; }, want), 0, want);
}

// --- the Shiloach–Vishkin loops, over any way of reaching D --------------------------------
//
// The loops of Cong et al. Fig. 5, shared by every parallel variant; `D` is how the variant
// reads and writes the labels (load(i), store(i, x)). Threads race on D as the CRCW PRAM
// allows: a graft reads D[u] and D[v] once and hooks the larger label's vertex under the
// smaller, so every label written is smaller than the vertex it is written to and lies in its
// component; whichever racing graft lands, D stays a forest of trees inside the components,
// and every iteration that grafts removes a root. The accesses are relaxed atomics (plain
// moves on x86), so the races are defined behaviour.

// Graft along one edge: true when it joined two trees.
template <class D>
inline bool graft_edge(edge uv, D& d) {
  const vertex du = d.load(uv.u), dv = d.load(uv.v);
  if (du < dv) {
    d.store(dv, du);
    return true;
  }
  if (dv < du) {
    d.store(du, dv);
    return true;
  }
  return false;
}

// Shortcut one vertex: while D[i] != D[D[i]], D[i] = D[D[i]].
template <class D>
inline void shortcut_vertex(vertex i, D& d) {
  vertex di = d.load(i);
  for (vertex up = d.load(di); up != di; up = d.load(di)) {
    d.store(i, up);
    di = up;
  }
}

inline vertex relaxed_load(vertex& x) {
  return std::atomic_ref<vertex>(x).load(std::memory_order_relaxed);
}
inline void relaxed_store(vertex& x, vertex v) {
  std::atomic_ref<vertex>(x).store(v, std::memory_order_relaxed);
}

// D as a plain array (openmp).
struct plain_labels {
  vertex* d;
  vertex load(vertex i) const { return relaxed_load(d[i]); }
  void store(vertex i, vertex x) const { relaxed_store(d[i], x); }
};

// --- openmp --------------------------------------------------------------------------------

int run_openmp(const pk::kernel_args& a) {
  const std::size_t n = a.size, m = edges_per_vertex * n;
  const int nt = pk::openmp_threads();
  pk::plain_vector<edge> el(m);
  pk::plain_vector<vertex> dv(n);
  plain_labels d{dv.data()};
#pragma omp parallel for num_threads(nt) schedule(static)
  for (std::size_t e = 0; e < m; ++e)
    el[e] = edge_at(e, n);
  int iterations = 0;
  // As an OpenMP user writes Fig. 5: a parallel loop per phase, the flag a reduction.
  const auto once = [&] {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::size_t i = 0; i < n; ++i)
      dv[i] = static_cast<vertex>(i);
    for (iterations = 1;; ++iterations) {
      bool grafted = false;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(|| : grafted)
      for (std::size_t e = 0; e < m; ++e)
        grafted = graft_edge(el[e], d) || grafted;
      if (!grafted) break;
#pragma omp parallel for num_threads(nt) schedule(static)
      for (std::size_t i = 0; i < n; ++i)
        shortcut_vertex(static_cast<vertex>(i), d);
    }
  };
  const pk::timing t = pk::time_reps(a.reps, once);
  const std::vector<vertex> want = reference(n);
  return report(a, nt, t, same_partition([&](std::size_t i) { return dv[i]; }, want), iterations,
                want);
}

// --- the PGAS variants ---------------------------------------------------------------------
//
// `shared [*] int D[n]` and `shared [*] edge El[m]`: each thread owns a block of the vertices
// and a block of the edges (Cong et al. deal both cyclically, which on one chip only puts
// neighbouring labels of different threads into one cache line). Each thread grafts along its
// own edges and shortcuts its own vertices, as the upc_forall loops of Fig. 5 with affinity
// &El[i] and &D[i] do.
using shared_labels = pgas::shared_array<vertex>;
using shared_edges = pgas::shared_array<edge>;
using label_ptr = shared_labels::pointer;

// D through the generic pointer-to-shared (naive): &D[i] by pointer arithmetic from &D[0] at
// every access, as a UPC compiler translates D[i].
struct naive_labels {
  label_ptr base;
  vertex load(vertex i) const { return relaxed_load(*(base + i)); }
  void store(vertex i, vertex x) const { relaxed_store(*(base + i), x); }
};

// D through the calling thread's software cache (cached): its own labels directly, the other
// threads' from a copy fetched once per phase; a graft's write to another thread's label stays
// in the copy until the phase's barrier, where the last write-back wins (the CRCW rule the
// loops allow). Reads within a phase see the phase's start plus this thread's own writes,
// which keeps every graft a hook of a smaller label under a root of the phase's start.
struct cached_labels {
  pgas::cache<vertex>& c;
  vertex load(vertex i) const { return c.read(static_cast<std::size_t>(i)); }
  void store(vertex i, vertex x) const { c.write(static_cast<std::size_t>(i), x); }
};

// D through a coalescing schedule (coalesced): get(i) reads another thread's label from the
// schedule's buffer, downloaded in one pass per owner at the start of the phase, put(i, x)
// keeps it there until the upload at the phase's end, where the last store to land wins
// (upload_combine::last: any racing graft may, as the CRCW rule above allows); the calling
// thread's own labels are read and written in place (own_first).
struct scheduled_labels {
  pgas::access_schedule<vertex>& s;
  vertex load(vertex i) const { return s.get(static_cast<std::size_t>(i)); }
  void store(vertex i, vertex x) const { s.put(static_cast<std::size_t>(i), x); }
};

// cached and coalesced read and write the thread's own labels [lo, lo + count) through a plain
// pointer, `mine`, as a UPC programmer privatises them, and the others' through `Far` (the
// cache or the schedule): both would compute an own element's address from its index at every
// access (1.7x the time at 1 thread for the schedule).
template <class Far>
struct own_first {
  Far far;
  vertex* mine;
  std::size_t lo, count;
  [[gnu::always_inline]] vertex load(vertex i) const {
    const std::size_t k = static_cast<std::size_t>(i) - lo;
    return k < count ? relaxed_load(mine[k]) : far.load(i);
  }
  [[gnu::always_inline]] void store(vertex i, vertex x) const {
    const std::size_t k = static_cast<std::size_t>(i) - lo;
    if (k < count) {
      relaxed_store(mine[k], x);
    } else {
      far.store(i, x);
    }
  }
};

// One step of a schedule's cycle, as Cong et al. write it: start, then finish.
void download(pgas::access_schedule<vertex>& s) {
  s.start_download();
  s.finish_download();
}
void upload(pgas::access_schedule<vertex>& s) {
  s.start_upload();
  s.finish_upload();
}

// The cached shortcut drops its copies (flush) after every shortcut_tile vertices: the owners
// shorten their labels' chains during the phase, and a copy kept for the whole phase makes
// every later walk through it follow the chain as it was at the first read (at 2^20 vertices
// and 2 threads the whole-phase copies took 1.4x as long as copies refreshed every 256).
constexpr std::size_t shortcut_tile = 256;

// The part of a [*] array that thread `t` owns: [lo, hi).
struct block_range {
  std::size_t lo, hi;
};
template <class A>
block_range mine(const A& array) {
  const std::size_t n = array.size(), b = array.blocksizeof();
  const std::size_t lo = std::min(n, static_cast<std::size_t>(pgas::mythread()) * b);
  return {lo, std::min(n, lo + b)};
}

// The iterations of Fig. 5 from D[i] = i, with `graft_mine` (true when an edge of this thread
// joined two trees) and `shortcut_mine` the variant's two loops; returns the iterations run.
// The allreduce is Fig. 5's barrier and all_reduce_i (it contains a barrier); the barrier
// after the shortcut ends the phase.
template <class Graft, class Shortcut>
int sv_iterations(Graft&& graft_mine, Shortcut&& shortcut_mine) {
  for (int iterations = 1;; ++iterations) {
    const bool grafted = graft_mine();
    if (!pgas::allreduce(grafted, std::logical_or<>{})) return iterations;
    shortcut_mine();
    pgas::barrier();
  }
}

int job(const pk::kernel_args& a) {
  const std::size_t n = a.size, m = edges_per_vertex * n;
  const int me = pgas::mythread();
  const shared_labels D({n}, pgas::block_spec::star());
  const shared_edges El({m}, pgas::block_spec::star());
  pgas::trace_name(D.ptr(0).get(), "D (labels)");  // as pgas-trace names them
  pgas::trace_name(El.ptr(0).get(), "edges");
  const block_range v = mine(D), e = mine(El);
  edge* const el_mine = El.local_part().data();  // edge i at i - e.lo
  make_edges(el_mine, e.lo, e.hi - e.lo, n);
  vertex* const d_mine = D.local_part().data();  // vertex i at i - v.lo
  const auto reset = [&] {
    for (std::size_t i = v.lo; i < v.hi; ++i)
      relaxed_store(d_mine[i - v.lo], static_cast<vertex>(i));
    pgas::barrier();
  };
  pgas::barrier();

  int iterations = 0;
  std::function<void()> once;
  if (a.variant == "naive") {
    once = [&] {
      const naive_labels d{D.begin_ptr()};
      reset();
      iterations = sv_iterations(
          [&] {
            bool grafted = false;
            auto el = El.begin_ptr() + static_cast<std::ptrdiff_t>(e.lo);
            for (std::size_t i = e.lo; i < e.hi; ++i, ++el)
              grafted = graft_edge(*el, d) || grafted;
            return grafted;
          },
          [&] {
            for (std::size_t i = v.lo; i < v.hi; ++i)
              shortcut_vertex(static_cast<vertex>(i), d);
          });
    };
  }

  // The cache holds every label of the other threads, so that a phase never runs out (each
  // thread's part may begin and end inside a line).
  const std::size_t lines_slack = 2 * pgas::cache<vertex>::line_elements * pgas::threads();
  std::optional<pgas::cache<vertex>> cache;
  if (a.variant == "cached") {
    cache.emplace(
        D, pgas::cache_options{.capacity = n + lines_slack, .winner = pgas::cache_winner::any},
        std::source_location::current());
    once = [&] {
      const own_first<cached_labels> d{{*cache}, d_mine, v.lo, v.hi - v.lo};
      reset();
      iterations = sv_iterations(
          [&] {
            bool grafted = false;
            for (std::size_t i = e.lo; i < e.hi; ++i)
              grafted = graft_edge(el_mine[i - e.lo], d) || grafted;
            return grafted;
          },
          [&] {
            for (std::size_t i = v.lo; i < v.hi; ++i) {
              shortcut_vertex(static_cast<vertex>(i), d);
              if ((i - v.lo) % shortcut_tile == shortcut_tile - 1) cache->flush();
            }
          });
    };
  }
  // One schedule serves both loops. The graft reads the endpoints of this thread's edges and
  // writes the label of a root, which may be any vertex; the shortcut follows labels anywhere
  // and writes only this thread's labels. So every vertex is hinted for reading and writing,
  // once: the plan is made at the first download and reused by every phase, each phase
  // downloading the labels before its loop and uploading the graft's puts after it. Only the
  // other threads' vertices are hinted: the thread's own labels are read and written in place
  // (own_first), so a download copies no label the loops would not read from the buffer (at 1
  // thread the schedule holds nothing), and one buffer for both loops keeps the labels a
  // thread reads in the fewest cache lines.
  std::optional<pgas::access_schedule<vertex>> s;
  if (a.variant == "coalesced") {
    s.emplace(D, pgas::schedule_options{.combine = pgas::upload_combine::last},
              std::source_location::current());
    for (std::size_t i = 0; i < n; ++i) {
      if (i >= v.lo && i < v.hi) continue;
      s->hint(i);
      s->hint_write(i);
    }
    once = [&] {
      const own_first<scheduled_labels> d{{*s}, d_mine, v.lo, v.hi - v.lo};
      reset();
      iterations = sv_iterations(
          [&] {
            download(*s);
            bool grafted = false;
            for (std::size_t i = e.lo; i < e.hi; ++i)
              grafted = graft_edge(el_mine[i - e.lo], d) || grafted;
            upload(*s);
            return grafted;
          },
          [&] {
            download(*s);
            for (std::size_t i = v.lo; i < v.hi; ++i)
              shortcut_vertex(static_cast<vertex>(i), d);
            upload(*s);
          });
    };
  }
  const pk::timing t = pk::time_reps(a.reps, once, [] { pgas::barrier(); });
  if (me != 0) return 0;
  const std::vector<vertex> want = reference(n);
  const label_ptr d0 = D.begin_ptr();
  const bool ok = same_partition(
      [&](std::size_t i) { return relaxed_load(*(d0 + static_cast<std::ptrdiff_t>(i))); }, want);
  return report(a, pgas::threads(), t, ok, iterations, want);
}

}  // namespace

int main(int argc, char** argv) {
  const pk::kernel_args a = pk::parse_kernel_args(
      argc, argv, "cc",
      "Connected components of a random graph of size vertices and 4*size edges: the "
      "Shiloach-Vishkin grafting and shortcutting loops (Cong et al. Fig. 5).",
      1 << 20, 1, pk::cache_variants);
  if (a.variant == "seq") return run_seq(a);
  if (a.variant == "openmp") return run_openmp(a);
  return pgas::run(argc, argv, [&a] { return job(a); });
}
