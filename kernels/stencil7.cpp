// kernels/stencil7.cpp — the 3-D 7-point Jacobi stencil: `steps` sweeps over a size^3 grid of
// doubles, each interior point becoming a weighted sum of itself and its six face neighbours,
// out of place into a second grid, the boundary faces fixed. The run also measures the STREAM
// triad (a = b + s·c) on the same threads and arrays of the grid's size, so that the JSON line
// carries the stencil's bandwidth ("gbytes_per_s": one read of the input and one write of the
// output per interior point and sweep, STREAM's way of counting) beside the machine's
// ("triad_gbytes_per_s": 24 bytes per element) and their ratio, the two timed rep by rep in
// turn so that both see the machine in the same state.
// Variants (kernels/harness.hpp): seq and openmp on plain arrays; ndarray, where every thread
// owns a slab of planes as a pgas::ndarray with a ghost plane on each side in its own segment,
// sweeps it with pgas::foreach_n, and refreshes its ghost planes from its neighbours' slabs with
// pgas::fill_ghosts (pgas/ndarray_copy.hpp). All three sweep in blocks of rows and store whole
// rows with streaming stores through one row kernel (row7). Entry point: main(); ndarray runs
// in job_body().
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include <omp.h>
#include <unistd.h>
#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;
using pk::kernel_args;
using pk::timing;

const std::vector<std::string> variants = {"seq", "ndarray", "openmp"};

// Sweeps per run (even: the result ends in the grid it started in).
constexpr int steps = 8;

// The new value of a point from itself `c` and its neighbours along the first (`im`, `ip`),
// second (`jm`, `jp`) and third (`km`, `kp`) dimensions: every variant adds in this order, so
// every variant computes the same bits, on doubles or on vectors of them.
template <class T>
inline T point7(T c, T im, T ip, T jm, T jp, T km, T kp) {
  return 0.4 * c + 0.1 * (((((im + ip) + jm) + jp) + km) + kp);
}

// The initial grid: a smooth field plus a ripple, in [0, 2).
double initial(std::size_t i, std::size_t j, std::size_t k, std::size_t n) {
  const double x = static_cast<double>(i) / static_cast<double>(n);
  const double y = static_cast<double>(j) / static_cast<double>(n);
  const double z = static_cast<double>(k) / static_cast<double>(n);
  return 1.0 + 0.5 * std::sin(3.0 * x) * std::cos(2.0 * y) * std::cos(z) +
         0.25 * static_cast<double>((i * 7 + j * 13 + k * 5) % 5) / 4.0;
}

// Plane i's interior of `out` from `in` (both n x n x n, row-major): the reference's loop.
void plain_plane(const double* in, double* out, std::size_t n, std::size_t i) {
  const std::size_t plane = n * n;
  for (std::size_t j = 1; j + 1 < n; ++j) {
    const double* c = in + i * plane + j * n;
    const double *im = c - plane, *ip = c + plane, *jm = c - n, *jp = c + n;
    double* o = out + i * plane + j * n;
    for (std::size_t k = 1; k + 1 < n; ++k)
      o[k] = point7(c[k], im[k], ip[k], jm[k], jp[k], c[k - 1], c[k + 1]);
  }
}

// --- the sweep every variant runs: blocked rows, streaming stores ----------------------------
//
// A 256^3 grid's plane is 512 KiB: the three input planes a plane's update reads (1.5 MiB) do
// not stay in a 1 MiB L2, so a sweep plane by plane reads its input from L3 or memory more than
// once. Every variant therefore sweeps its planes in blocks of rows (spatial blocking, not
// fused sweeps): within a block of `rows` rows it goes plane by plane, so the block's rows of
// three planes stay in L2 and each input line comes from memory once (plus the block's two halo
// rows). The output is written with non-temporal stores, which do not read the line first
// (without them a sweep moves 24 bytes per point against the 16 counted) nor evict the input.

#if defined(__AVX512F__)
constexpr std::size_t lanes = 8;
#elif defined(__AVX__)
constexpr std::size_t lanes = 4;
#else
constexpr std::size_t lanes = 2;
#endif
using vec = double __attribute__((vector_size(lanes * sizeof(double))));

inline vec load(const double* p) {
  vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Stores v at p (aligned to sizeof(vec)) around the caches where the target has such stores.
inline void stream(double* p, vec v) {
#if defined(__AVX512F__)
  _mm512_stream_pd(p, v);
#elif defined(__AVX__)
  _mm256_stream_pd(p, v);
#elif defined(__SSE2__)
  _mm_stream_pd(p, v);
#else
  std::memcpy(p, &v, sizeof v);
#endif
}

// Orders this thread's streaming stores before its later stores (the barrier that publishes
// the sweep): they are weakly ordered.
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// A whole row `o` (n points; the row's two boundary points copied from `c`) from its row `c` of
// the input and the rows beside it along the first (`im`, `ip`) and second (`jm`, `jp`)
// dimension. A vector at the row's ends reads c[-1] and c[n], the rows beside it in the same
// plane (the row is never a plane's first or last), and takes the boundary lane from `c`. A row
// whose length is not a whole number of vectors, or that does not start on a vector's
// alignment, is computed with plain stores.
void row7(const double* c, const double* im, const double* ip, const double* jm, const double* jp,
          double* o, std::size_t n) {
  if (n % lanes != 0 || reinterpret_cast<std::uintptr_t>(o) % sizeof(vec) != 0) {
    for (std::size_t k = 1; k + 1 < n; ++k)
      o[k] = point7(c[k], im[k], ip[k], jm[k], jp[k], c[k - 1], c[k + 1]);
    return;
  }
  const auto at = [&](std::size_t k) {
    return point7(load(c + k), load(im + k), load(ip + k), load(jm + k), load(jp + k),
                  load(c + k - 1), load(c + k + 1));
  };
  vec first = at(0);
  first[0] = c[0];
  if (n == lanes) first[lanes - 1] = c[n - 1];
  stream(o, first);
  if (n == lanes) return;
  for (std::size_t k = lanes; k + lanes < n; k += lanes)
    stream(o + k, at(k));
  vec last = at(n - lanes);
  last[lanes - 1] = c[n - 1];
  stream(o + n - lanes, last);
}

// Rows per block for an n x n plane: the block's rows of three input planes, halo rows
// included, in 256 KiB, a quarter of this machine's 1 MiB L2, room left for what the
// prefetchers bring ahead of the sweep (40 rows of 2 KiB at n = 256). A fixed budget, not the
// cache's size, so that the blocks and the tests that cross them are the same everywhere.
std::size_t block_rows(std::size_t n) {
  constexpr std::size_t budget = std::size_t{256} << 10;
  const std::size_t fit = budget / (3 * n * sizeof(double));
  return fit > 3 ? fit - 2 : 1;
}

// Rows [j0, j1) of plane i of `out` from `in` (both n x n x n, row-major, plain arrays).
void plain_rows(const double* in, double* out, std::size_t n, std::size_t i, std::size_t j0,
                std::size_t j1) {
  const std::size_t plane = n * n;
  for (std::size_t j = j0; j < j1; ++j) {
    const double* c = in + i * plane + j * n;
    row7(c, c - plane, c + plane, c - n, c + n, out + i * plane + j * n, n);
  }
}

// The expected grid after `steps` sweeps, computed apart from every variant (one thread).
std::vector<double> reference(std::size_t n) {
  std::vector<double> a(n * n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < n; ++k)
        a[(i * n + j) * n + k] = initial(i, j, k, n);
  std::vector<double> b = a;
  for (int s = 0; s < steps; ++s) {
    for (std::size_t i = 1; i + 1 < n; ++i)
      plain_plane(a.data(), b.data(), n, i);
    std::swap(a, b);
  }
  return a;
}

// True when every point of planes [i0, i1) (through get(i, j, k)) is the reference's `want`;
// names the first that is not.
template <class Get>
bool verify_planes(const std::vector<double>& want, std::size_t n, std::size_t i0, std::size_t i1,
                   Get&& get) {
  for (std::size_t i = i0; i < i1; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t k = 0; k < n; ++k) {
        const double got = get(i, j, k), w = want[(i * n + j) * n + k];
        if (std::abs(got - w) > 1e-12) {
          std::fprintf(stderr, "stencil7: G[%zu][%zu][%zu] = %.17g, expected %.17g\n", i, j, k, got,
                       w);
          return false;
        }
      }
    }
  }
  return true;
}

// --- the STREAM triad ------------------------------------------------------------------------

inline constexpr double triad_scalar = 3.0;

// a[i] = b[i] + s * c[i] over [lo, hi): STREAM's triad, as its C source writes it.
void triad_part(double* a, const double* b, const double* c, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i)
    a[i] = b[i] + triad_scalar * c[i];
}

// The part [lo, hi) of `m` elements that thread t of `nt` takes (static, as OpenMP's).
std::pair<std::size_t, std::size_t> part_of(std::size_t m, int t, int nt) {
  const auto T = static_cast<std::size_t>(nt), i = static_cast<std::size_t>(t);
  return {m * i / T, m * (i + 1) / T};
}

// The median, least and largest of `s` (not empty), as pk::time_reps reports them.
timing summary_of(std::vector<double> s) {
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  const double med = n % 2 != 0 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return {med, s.front(), s.back(), static_cast<int>(n)};
}

// Times `reps` calls of the stencil's `once` and of `triad` alternately, after one untimed call
// of each, with `sync` before and after each call (as pk::time_reps): on a shared machine whose
// load changes from second to second, two series timed one after the other compare different
// moments, and their ratio is what the JSON line reports.
std::pair<timing, timing> time_both(int reps, const std::function<void()>& once,
                                    const std::function<void()>& triad,
                                    const std::function<void()>& sync) {
  const auto timed = [&](const std::function<void()>& f) {
    sync();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    sync();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  sync();
  once();
  triad();
  std::vector<double> s, t;
  for (int r = 0; r < reps; ++r) {
    s.push_back(timed(once));
    t.push_back(timed(triad));
  }
  return {summary_of(s), summary_of(t)};
}

// The stencil's and the triad's bandwidth and their ratio, for the JSON line.
nlohmann::ordered_json bandwidth_fields(std::size_t n, const timing& stencil, const timing& triad,
                                        std::size_t triad_elements) {
  const double inner = static_cast<double>(n - 2);
  const double bytes = 16.0 * steps * inner * inner * inner;
  const double gbs = stencil.median > 0 ? bytes / stencil.median / 1e9 : 0.0;
  const double tgbs =
      triad.median > 0 ? 24.0 * static_cast<double>(triad_elements) / triad.median / 1e9 : 0.0;
  nlohmann::ordered_json e;
  e["steps"] = steps;
  e["gbytes_per_s"] = gbs;
  e["triad_gbytes_per_s"] = tgbs;
  e["triad_percent"] = tgbs > 0 ? 100 * gbs / tgbs : 0.0;
  e["triad_seconds"] = triad.median;
  return e;
}

// --- seq and openmp: plain arrays, no runtime ----------------------------------------------

int run_plain(const kernel_args& args) {
  const std::size_t n = args.size, m = n * n * n;
  const bool seq = args.variant == "seq";
  const int nt = seq ? 1 : pk::openmp_threads();
  pk::plain_vector<double> g0(m), g1(m);
  // First touch by the thread that computes the plane (openmp), both grids with the boundary.
#pragma omp parallel for schedule(static) num_threads(nt)
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < n; ++k)
        g0[(i * n + j) * n + k] = g1[(i * n + j) * n + k] = initial(i, j, k, n);
  }
  double *in = g0.data(), *out = g1.data();
  const std::size_t rows = block_rows(n);
  std::function<void()> once;
  if (seq) {
    once = [&] {
      for (int s = 0; s < steps; ++s) {
        for (std::size_t j0 = 1; j0 + 1 < n; j0 += rows)
          for (std::size_t i = 1; i + 1 < n; ++i)
            plain_rows(in, out, n, i, j0, std::min(j0 + rows, n - 1));
        stream_fence();
        std::swap(in, out);
      }
    };
  } else {
    // What an OpenMP user writes: the planes of each block of rows shared out statically (the
    // same planes to a thread for every block, so a thread's slab is the one it touched first);
    // no barrier between blocks, the region's end one per sweep.
    once = [&] {
      for (int s = 0; s < steps; ++s) {
#pragma omp parallel num_threads(nt)
        {
          for (std::size_t j0 = 1; j0 + 1 < n; j0 += rows) {
#pragma omp for schedule(static) nowait
            for (std::size_t i = 1; i < n - 1; ++i)
              plain_rows(in, out, n, i, j0, std::min(j0 + rows, n - 1));
          }
          stream_fence();
        }
        std::swap(in, out);
      }
    };
  }
  once();
  const bool ok = verify_planes(
      reference(n), n, 0, n,
      [&](std::size_t i, std::size_t j, std::size_t k) { return in[(i * n + j) * n + k]; });
  // The triad on the same threads, each touching first the part it runs.
  pk::plain_vector<double> a(m), b(m), c(m);
#pragma omp parallel num_threads(nt)
  {
    const auto [lo, hi] = part_of(m, omp_get_thread_num(), omp_get_num_threads());
    std::fill(a.data() + lo, a.data() + hi, 0.0);
    std::fill(b.data() + lo, b.data() + hi, 1.0);
    std::fill(c.data() + lo, c.data() + hi, 2.0);
  }
  const auto [t, tt] = time_both(
      args.reps, once,
      [&] {
#pragma omp parallel num_threads(nt)
        {
          const auto [lo, hi] = part_of(m, omp_get_thread_num(), omp_get_num_threads());
          triad_part(a.data(), b.data(), c.data(), lo, hi);
        }
      },
      [] {});
  return pk::print_result(args, nt, t, ok, bandwidth_fields(n, t, tt, m));
}

// --- ndarray: a slab of planes per thread --------------------------------------------------

using piece = pgas::ndarray<double, 3, pgas::local, pgas::simple>;
using pgas::nd_index;

// The interior planes [lo, hi) thread t of nt updates: planes 1 .. n-2 shared out as evenly as
// openmp's static schedule does.
std::pair<nd_index, nd_index> planes_of(std::size_t n, int t, int nt) {
  const auto [lo, hi] = part_of(n - 2, t, nt);
  return {static_cast<nd_index>(lo) + 1, static_cast<nd_index>(hi) + 1};
}

// One sweep of the owned interior of `out` from `in` (the same domains), a block of rows at a
// time, foreach_n handing each block's rows, plane by plane, to the row kernel.
void sweep_piece(const piece& in, const piece& out, const pgas::rectdomain<3>& interior,
                 std::size_t n, nd_index rows) {
  const nd_index i0 = interior.lower()[0], i1 = interior.upper()[0], j1 = interior.upper()[1];
  for (nd_index j0 = interior.lower()[1]; j0 < j1; j0 += rows) {
    const pgas::rectdomain<2> block({i0, j0}, {i1, std::min(j0 + rows, j1)});
    pgas::foreach_n(block, [&](nd_index i, nd_index j) {
      row7(&in(i, j, 0), &in(i - 1, j, 0), &in(i + 1, j, 0), &in(i, j - 1, 0), &in(i, j + 1, 0),
           &out(i, j, 0), n);
    });
  }
  stream_fence();
}

int job_body(const kernel_args& args) {
  const std::size_t n = args.size;
  const auto N = static_cast<nd_index>(n);
  const int me = pgas::mythread(), nt = pgas::threads();
  const auto [i0, i1] = planes_of(n, me, nt);
  // The piece: the owned planes and a ghost plane on each side (the grid's boundary planes
  // for the first and last thread: fixed, never exchanged); a thread that owns no plane
  // still holds its two ghost planes.
  const pgas::rectdomain<3> owned({i0, 0, 0}, {i1, N, N});
  const pgas::rectdomain<3> box({i0 - 1, 0, 0}, {i1 + 1, N, N});
  const pgas::rectdomain<3> interior({i0, 1, 1}, {i1, N - 1, N - 1});
  const piece g0(box), g1(box);
  pgas::foreach_n(box, [&](nd_index i, nd_index j, nd_index k) {
    g0(i, j, k) = g1(i, j, k) = initial(static_cast<std::size_t>(i), static_cast<std::size_t>(j),
                                        static_cast<std::size_t>(k), n);
  });
  // Each grid's directory of what every thread owns: the ghost planes' sources.
  const std::vector<pgas::ndarray<double, 3>> owned0 = pgas::exchange(g0.constrict(owned));
  const std::vector<pgas::ndarray<double, 3>> owned1 = pgas::exchange(g1.constrict(owned));

  // A sweep from one grid into the other, then the other's ghost planes from the neighbours
  // (fill_ghosts' entry barrier: every thread's sweep is done; no exit barrier: the next sweep
  // writes the grid the neighbours read before that barrier, not this one).
  const auto rows = static_cast<nd_index>(block_rows(n));
  const auto once = [&] {
    for (int s = 0; s < steps; s += 2) {
      sweep_piece(g0, g1, interior, n, rows);
      pgas::fill_ghosts(g1, owned1, pgas::ghost_sync::entry);
      sweep_piece(g1, g0, interior, n, rows);
      pgas::fill_ghosts(g0, owned0, pgas::ghost_sync::entry);
    }
  };
  once();
  pgas::barrier();
  // Thread 0 checks every thread's owned planes through the directory (direct loads), and the
  // boundary planes in its own and the last thread's piece.
  bool ok = true;
  if (me == 0) {
    const std::vector<double> want = reference(n);
    for (int t = 0; t < nt && ok; ++t) {
      const pgas::ndarray<double, 3>& a = owned0[static_cast<std::size_t>(t)];
      const auto [lo, hi] = planes_of(n, t, nt);
      ok = verify_planes(want, n, static_cast<std::size_t>(lo), static_cast<std::size_t>(hi),
                         [&](std::size_t i, std::size_t j, std::size_t k) {
                           return a(static_cast<nd_index>(i), static_cast<nd_index>(j),
                                    static_cast<nd_index>(k));
                         });
    }
  }
  pgas::barrier();

  // The triad on the same threads: each thread's part of the three arrays in its own segment.
  const std::size_t m = n * n * n;
  const auto [lo, hi] = part_of(m, me, nt);
  const pgas::rectdomain<1> part({0}, {static_cast<nd_index>(hi - lo)});
  const pgas::ndarray<double, 1, pgas::local, pgas::simple> a(part), b(part), c(part);
  pgas::foreach_n(part, [&](nd_index i) {
    b(i) = 1.0;
    c(i) = 2.0;
  });
  const auto [t, tt] = time_both(
      args.reps, once, [&] { triad_part(a.base(), b.base(), c.base(), 0, hi - lo); },
      [] { pgas::barrier(); });
  return me == 0 ? pk::print_result(args, nt, t, ok, bandwidth_fields(n, t, tt, m)) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const kernel_args args = pk::parse_kernel_args(
      argc, argv, "stencil7",
      "The 3-D 7-point stencil: 8 Jacobi sweeps over a size^3 grid of doubles, each interior "
      "point 0.4 of itself plus 0.1 of each of its 6 face neighbours, beside the STREAM triad "
      "on the same threads",
      256, 3, variants);
  // A grid larger than the machine's memory would fail in its allocation, as the runtime's
  // uncaught bad_shared_alloc or std::vector's abort: refuse it as a usage error first. Five
  // arrays of size^3 doubles (the two grids and the triad's three) at least, in double so
  // that no size the option accepts overflows.
  const double cube = static_cast<double>(args.size) * static_cast<double>(args.size) *
                      static_cast<double>(args.size);
  const double need = 5 * 8 * cube;
  const double have =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (need > have) {
    std::fprintf(stderr,
                 "stencil7: --size %zu needs at least %.3g GB (five arrays of %zu^3 doubles); "
                 "this machine has %.3g GB of memory\n",
                 args.size, need / 1e9, args.size, have / 1e9);
    return 2;
  }
  if (args.variant == "seq" || args.variant == "openmp") return run_plain(args);
  return pgas::run(argc, argv, [&] { return job_body(args); });
}
