// kernels/npb_ft.cpp — NAS FT (the NPB report RNR-94-007, "3-D FFT PDE"): the diffusion equation
// u_t = α ∇²u on an nx × ny × nz periodic grid of complex values solved spectrally. The initial
// field comes from NAS's generator (kernels/npb_common.hpp); one forward 3-D FFT, then for each
// of 6 steps t the spectrum is scaled by exp(-4απ²|k|²) once more (so it holds the field's
// transform times exp(-4απ²|k|²t)), transformed back, and 1024 fixed elements are summed: the
// checksums verified against NAS's published ones. Variants (npb_common.hpp): seq and openmp on
// one plain array, ndarray on a slab of planes per thread whose lines along k are read and
// written across the slabs through the pieces' global views. Entry point: main().
//
// The 1-D transforms are radix-2 Stockham autosort FFTs (no bit reversal) on `lanes` lines at
// once: a block of lines is copied into a contiguous scratch buffer with its lines interleaved
// and split into real and imaginary planes, so that every butterfly is a unit-stride loop over
// the lanes that the compiler vectorises, whatever the lines' stride in the grid.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include <pgas/ndarray.hpp>
#include <pgas/ndarray_copy.hpp>
#include <pgas/pgas.hpp>

#include "npb_common.hpp"

namespace {

namespace pk = pgas::kernels;
namespace npb = pgas::kernels::npb;
using cplx = std::complex<double>;
using index_t = std::ptrdiff_t;

constexpr int steps = 6;
constexpr double alpha = 1e-6;
// Lines transformed together: 16 lanes of doubles are two AVX-512 or four AVX2 vectors per
// butterfly, and a 256-point block (two buffers, real and imaginary planes) fits in 128 KiB.
constexpr int lanes = 16;

struct ft_class {
  char name;
  int nx, ny, nz;
  std::array<cplx, steps> checksums;  // NAS's published values, from the NPB's verify routine
};

// clang-format off
const std::array<ft_class, 3> classes = {{
    {'S', 64, 64, 64, {{{554.6087004964, 484.5363331978}, {554.6385409189, 486.5304269511},
                        {554.6148406171, 488.3910722336}, {554.5423607415, 490.1273169046},
                        {554.4255039624, 491.7475857993}, {554.2683411902, 493.2597244941}}}},
    {'W', 128, 128, 32, {{{567.3612178944, 529.3246849175}, {563.1436885271, 528.2149986629},
                          {559.4024089970, 527.0996558037}, {556.0698047020, 526.0027904925},
                          {553.0898991250, 524.9400845633}, {550.4159734538, 523.9212247086}}}},
    {'A', 256, 256, 128, {{{504.6735008193, 511.4047905510}, {505.9412319734, 509.8809666433},
                           {506.9376896287, 509.8144042213}, {507.7892868474, 510.1336130759},
                           {508.5233095391, 510.4914655194}, {509.1487099959, 510.7917842803}}}},
}};
// clang-format on

const ft_class& class_of(char name) {
  return *std::find_if(classes.begin(), classes.end(),
                       [&](const ft_class& c) { return c.name == name; });
}

// NAS's relative tolerance on each checksum: |sum - published| / |published|.
bool verify(const ft_class& c, const std::array<cplx, steps>& sums) {
  for (int t = 0; t < steps; ++t) {
    if (!(std::abs((sums[t] - c.checksums[t]) / c.checksums[t]) <= 1e-12)) return false;
  }
  return true;
}

// Floating-point operations of one run as NAS counts them (its Mop/s formula for FT).
double operations(const ft_class& c) {
  const double n = static_cast<double>(c.nx) * c.ny * c.nz;
  return n * (14.8157 + 7.19641 * std::log(n) + (5.23518 + 7.21113 * std::log(n)) * steps);
}

// --- 1-D transforms of blocks of lines ----------------------------------------------------

// The roots of unity of one line length n (a power of two): w^k = exp(-2πik/n) for k < n/2.
struct roots {
  int n = 0;
  std::vector<double> re, im;
  explicit roots(int length) : n(length), re(length / 2), im(length / 2) {
    for (int k = 0; k < n / 2; ++k) {
      const double angle = 2 * std::numbers::pi * k / n;
      re[k] = std::cos(angle);
      im[k] = -std::sin(angle);
    }
  }
};

// A block's scratch: two buffers of n points × lanes, each a real plane then an imaginary one
// (point p of lane b at p * lanes + b). One per thread, grown to the longest line. Both
// start on a cache line (a vector's 16-byte alignment split every other vector load across two
// lines, at a cost that changed from run to run with malloc's addresses), and b is 320 bytes
// past a multiple of 4 KiB from a, so that a butterfly's loads from one buffer and stores to
// the other do not alias in the low address bits.
struct scratch {
  pk::plain_vector<double> store;
  double* a = nullptr;
  double* b = nullptr;
  std::vector<double*> points, points_out;  // fft_k's grid addresses of a block's points
  void fit(int n) {
    const std::size_t need = std::size_t{2} * static_cast<std::size_t>(n) * lanes;
    const std::size_t gap = (need + 511) / 512 * 512 + 40;
    if (store.size() < gap + need) {
      store.resize(gap + need);
      a = store.data();
      b = a + gap;
    }
  }
};

scratch& my_scratch() {
  thread_local scratch s;
  return s;
}

// The Stockham radix-2 passes on the lanes held in x (y is the other buffer): decimation in
// frequency, each pass halving the length of the transforms still to do and doubling their
// interleaving s, so the result comes out in natural order. Returns the buffer that holds it.
// `inverse` uses the conjugate roots (NAS's backward transform, not normalised).
double* fft_lanes(const roots& w, bool inverse, double* x, double* y) {
  const int n = w.n;
  const index_t plane = static_cast<index_t>(n) * lanes;
  const double sign = inverse ? -1.0 : 1.0;
  for (int len = n, s = 1; len > 1; len /= 2, s *= 2) {
    const int m = len / 2;
    const index_t run = static_cast<index_t>(s) * lanes;
    for (int p = 0; p < m; ++p) {
      const double wr = w.re[static_cast<std::size_t>(p) * s];
      const double wi = sign * w.im[static_cast<std::size_t>(p) * s];
      const double* __restrict ar = x + p * run;
      const double* __restrict ai = ar + plane;
      const double* __restrict cr = x + (p + m) * run;
      const double* __restrict ci = cr + plane;
      double* __restrict sr = y + 2 * p * run;
      double* __restrict si = sr + plane;
      double* __restrict dr = y + (2 * p + 1) * run;
      double* __restrict di = dr + plane;
#pragma omp simd
      for (index_t t = 0; t < run; ++t) {
        const double ur = ar[t] - cr[t], ui = ai[t] - ci[t];
        sr[t] = ar[t] + cr[t];
        si[t] = ai[t] + ci[t];
        dr[t] = ur * wr - ui * wi;
        di[t] = ur * wi + ui * wr;
      }
    }
    std::swap(x, y);
  }
  return x;
}

// A 3-D box of complex values in (k, j, i) order as some variant stores it: the address of its
// first element, its extents, its strides in elements and the global index of its first
// element (what the evolution factors depend on).
struct box {
  cplx* at = nullptr;
  std::array<index_t, 3> extent{}, stride{}, origin{};
};

// The evolution factors exp(-4απ²k²) of one dimension of length n: index i's wave number is
// i for i < n/2 and i - n above (NAS's index map); the product of the three dimensions' factors
// is exp(-4απ²|k|²).
std::vector<double> evolution_factors(int n) {
  std::vector<double> f(static_cast<std::size_t>(n));
  const double ap = -4.0 * alpha * std::numbers::pi * std::numbers::pi;
  for (int i = 0; i < n; ++i) {
    const double k = i < n / 2 ? i : i - n;
    f[static_cast<std::size_t>(i)] = std::exp(ap * k * k);
  }
  return f;
}

struct evolution {
  std::vector<double> x, y, z;  // by global i, j and k
};

// Moves a block's lines between the grid (interleaved complex: point p of lane l at
// g[p * ps + l * ls], in doubles) and a scratch buffer's planes, into the scratch when
// `to_scratch`. The inner loop runs along the grid's smaller stride: along the points for
// lines along i, across the lanes otherwise.
template <bool to_scratch>
void move_lines(double* g, index_t ps, index_t ls, index_t n, double* re, double* im) {
  const auto one = [&](index_t p, int l) {
    double* e = g + p * ps + l * ls;
    if constexpr (to_scratch) {
      re[p * lanes + l] = e[0];
      im[p * lanes + l] = e[1];
    } else {
      e[0] = re[p * lanes + l];
      e[1] = im[p * lanes + l];
    }
  };
  if (ps < ls) {
    for (int l = 0; l < lanes; ++l) {
      for (index_t p = 0; p < n; ++p)
        one(p, l);
    }
  } else {
    for (index_t p = 0; p < n; ++p) {
      for (int l = 0; l < lanes; ++l)
        one(p, l);
    }
  }
}

// Transforms along dimension `d` (1: j, 2: i) every line of `b` whose plane k is in [lo, hi),
// in blocks of `lanes` lines adjacent along the other dimension, in place.
void fft_plane_lines(const box& b, int d, const roots& w, bool inverse, index_t lo, index_t hi) {
  const int across = d == 2 ? 1 : 2;
  const index_t n = b.extent[d];
  scratch& s = my_scratch();
  s.fit(w.n);
  const index_t plane = n * lanes;
  const index_t ps = 2 * b.stride[d], ls = 2 * b.stride[across];
  for (index_t k = lo; k < hi; ++k) {
    for (index_t c = 0; c < b.extent[across]; c += lanes) {
      double* g = reinterpret_cast<double*>(b.at + k * b.stride[0] + c * b.stride[across]);
      move_lines<true>(g, ps, ls, n, s.a, s.a + plane);
      double* r = fft_lanes(w, inverse, s.a, s.b);
      move_lines<false>(g, ps, ls, n, r, r + plane);
    }
  }
}

// Plane k of `b` transformed along i and then j (forward), or j and then i (inverse): both
// passes back to back, while the plane (256 KiB at class W) is still in L2. Every variant
// goes plane by plane this way; two passes over a whole slab (8 MiB at W on one thread) read
// it from L3 twice and took 1.05x the time.
void fft_planes(const box& b, const roots& wx, const roots& wy, bool inverse, index_t k) {
  fft_plane_lines(b, inverse ? 1 : 2, inverse ? wy : wx, inverse, k, k + 1);
  fft_plane_lines(b, inverse ? 2 : 1, inverse ? wx : wy, inverse, k, k + 1);
}

// A whole grid seen along k: runs of whole planes, run r holding planes [k0, k0 + n) at `at`,
// every run with the grid's strides (stride_k between planes, nx between rows). One run for a
// plain array; for ndarray, every thread's z-slab, reached through the directory of pieces.
struct plane_run {
  cplx* at = nullptr;
  index_t k0 = 0, n = 0;
};
struct k_grid {
  std::vector<plane_run> runs;
  index_t nx = 0, stride_k = 0;
};

// Transforms along k every line of rows [lo, hi) (global j) of `in`, in blocks of `lanes` lines
// adjacent along i, writing into `out` (the same runs of planes, or another grid's). A line's
// points are gathered from every run into one block of scratch and scattered back the same
// way. With `ev` (inverse transforms), every element of `in` is first multiplied by its
// evolution factor in place: the spectrum advanced one step, transformed on the way.
void fft_k(const k_grid& in, const k_grid& out, const roots& w, bool inverse, index_t lo,
           index_t hi, const evolution* ev = nullptr) {
  scratch& s = my_scratch();
  s.fit(w.n);
  const index_t plane = static_cast<index_t>(w.n) * lanes;
  const index_t ps = 2 * in.stride_k;
  const index_t n = w.n;
  // The block's points along k in every run, in k order: point p's 16 lanes are 4 lines at
  // at[p]; the loops fetch the lines a few points ahead, across the runs' ends too.
  std::vector<double*>& at = s.points;
  std::vector<double*>& to = s.points_out;
  at.resize(static_cast<std::size_t>(n));
  to.resize(static_cast<std::size_t>(n));
  constexpr index_t ahead = 4;
  const auto fetch = [](const double* p) {
    for (int b = 0; b < 2 * lanes; b += 8)
      __builtin_prefetch(p + b, 1);
  };
  std::array<double, lanes> lane_factor{};
  for (index_t j = lo; j < hi; ++j) {
    for (index_t c = 0; c < in.nx; c += lanes) {
      const index_t first = j * in.nx + c;
      for (const plane_run& r : in.runs)
        for (index_t p = 0; p < r.n; ++p)
          at[static_cast<std::size_t>(r.k0 + p)] = reinterpret_cast<double*>(r.at + first) + p * ps;
      for (const plane_run& r : out.runs)
        for (index_t p = 0; p < r.n; ++p)
          to[static_cast<std::size_t>(r.k0 + p)] = reinterpret_cast<double*>(r.at + first) + p * ps;
      double* xr = s.a;
      double* xi = xr + plane;
      if (ev != nullptr) {
        const double fj = ev->y[static_cast<std::size_t>(j)];
        for (int l = 0; l < lanes; ++l)
          lane_factor[l] = ev->x[static_cast<std::size_t>(c + l)] * fj;
      }
      for (index_t p = 0; p < n; ++p) {
        if (p + ahead < n) fetch(at[static_cast<std::size_t>(p + ahead)]);
        double* g = at[static_cast<std::size_t>(p)];
        if (ev == nullptr) {
          for (int l = 0; l < lanes; ++l) {
            xr[p * lanes + l] = g[2 * l];
            xi[p * lanes + l] = g[2 * l + 1];
          }
          continue;
        }
        const double fk = ev->z[static_cast<std::size_t>(p)];
        for (int l = 0; l < lanes; ++l) {
          double* e = g + 2 * l;
          const double f = fk * lane_factor[l];
          e[0] *= f;
          e[1] *= f;
          xr[p * lanes + l] = e[0];
          xi[p * lanes + l] = e[1];
        }
      }
      const double* res = fft_lanes(w, inverse, s.a, s.b);
      for (index_t p = 0; p < n; ++p) {
        if (p + ahead < n) fetch(to[static_cast<std::size_t>(p + ahead)]);
        double* g = to[static_cast<std::size_t>(p)];
        for (int l = 0; l < lanes; ++l) {
          g[2 * l] = res[p * lanes + l];
          g[2 * l + 1] = res[plane + p * lanes + l];
        }
      }
    }
  }
}

// The initial field of planes [k0, k1): NAS's sequence from the seed, two values (real, then
// imaginary) per element in (k, j, i) order, each plane jumping ahead to where it starts.
void initial_planes(const box& b, const ft_class& c, index_t k0, index_t k1) {
  const index_t per_plane = 2 * static_cast<index_t>(c.nx) * c.ny;
  for (index_t k = k0; k < k1; ++k) {
    double x = npb::seed;  // x(0) · a^(first value of plane k): randlc with the jump
    npb::randlc(x, npb::pow46(npb::amult, (b.origin[0] + k) * per_plane));
    for (index_t j = 0; j < b.extent[1]; ++j)
      npb::vranlc(static_cast<std::size_t>(2 * b.extent[2]), x, npb::amult,
                  reinterpret_cast<double*>(b.at + k * b.stride[0] + j * b.stride[1]));
  }
}

// NAS's checksum points: for q = 1..1024 the element (k, j, i) = (5q mod nz, 3q mod ny, q mod
// nx); `sum` adds those inside [k0, k1) × [j0, j1) × all i of b.
cplx checksum_part(const box& b, const ft_class& c) {
  cplx sum = 0;
  for (index_t q = 1; q <= 1024; ++q) {
    const index_t k = 5 * q % c.nz - b.origin[0], j = 3 * q % c.ny - b.origin[1],
                  i = q % c.nx - b.origin[2];
    if (k >= 0 && k < b.extent[0] && j >= 0 && j < b.extent[1] && i >= 0 && i < b.extent[2])
      sum += b.at[k * b.stride[0] + j * b.stride[1] + i * b.stride[2]];
  }
  return sum;
}

int report(const npb::npb_args& a, const ft_class& c, int threads, const pk::timing& t, bool ok) {
  nlohmann::ordered_json extra;
  extra["nx"] = c.nx;
  extra["ny"] = c.ny;
  extra["nz"] = c.nz;
  extra["iterations"] = steps;
  return npb::print_npb_result(a, threads, t, ok, operations(c), extra);
}

// --- seq and openmp: one plain array ------------------------------------------------------

// `par(lo, hi, f)` runs f(o) for every o in [lo, hi), split as the variant splits it.
template <class Par>
int run_plain(const npb::npb_args& a, int threads, Par&& par) {
  const ft_class& c = class_of(a.cls);
  const std::size_t total = static_cast<std::size_t>(c.nx) * c.ny * c.nz;
  pk::plain_vector<cplx> u0(total), u1(total);
  const auto whole = [&](cplx* at) {
    box b;
    b.at = at;
    b.extent = {c.nz, c.ny, c.nx};
    b.stride = {static_cast<index_t>(c.nx) * c.ny, c.nx, 1};
    return b;
  };
  const box b1 = whole(u1.data());
  const auto along_k = [&](cplx* at) {
    return k_grid{{{at, 0, c.nz}}, c.nx, static_cast<index_t>(c.nx) * c.ny};
  };
  const k_grid g0 = along_k(u0.data()), g1 = along_k(u1.data());
  const roots wx(c.nx), wy(c.ny), wz(c.nz);
  const evolution ev{evolution_factors(c.nx), evolution_factors(c.ny), evolution_factors(c.nz)};
  std::array<cplx, steps> sums{};
  const auto run = [&] {
    par(0, c.nz, [&](index_t k) { initial_planes(b1, c, k, k + 1); });
    par(0, c.nz, [&](index_t k) { fft_planes(b1, wx, wy, false, k); });
    par(0, c.ny, [&](index_t j) { fft_k(g1, g0, wz, false, j, j + 1); });
    for (int t = 0; t < steps; ++t) {
      par(0, c.ny, [&](index_t j) { fft_k(g0, g1, wz, true, j, j + 1, &ev); });
      par(0, c.nz, [&](index_t k) { fft_planes(b1, wx, wy, true, k); });
      sums[t] = checksum_part(b1, c) / static_cast<double>(total);
    }
  };
  run();
  const bool ok = verify(c, sums);
  const pk::timing t = pk::time_reps(a.run.reps, run);
  return report(a, c, threads, t, ok && verify(c, sums));
}

int run_seq(const npb::npb_args& a) {
  return run_plain(a, 1, [](index_t lo, index_t hi, auto&& f) {
    for (index_t o = lo; o < hi; ++o)
      f(o);
  });
}

int run_openmp(const npb::npb_args& a) {
  const int nt = pk::openmp_threads();
  return run_plain(a, nt, [nt](index_t lo, index_t hi, auto&& f) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (index_t o = lo; o < hi; ++o)
      f(o);
  });
}

// --- ndarray: a z-slab of planes per thread, lines along k read across the slabs -------------
//
// Thread t owns the planes k of its z-slab (a balanced block of [0, nz)) of each of the two
// grids, a pgas::ndarray in its own segment, published once with pgas::exchange. The
// transforms along i and j run on the thread's own planes. Those along k take the rows j of the
// thread's y-block and read and write their lines in every thread's slab through the
// directory's global views (direct loads and stores in the one address space, no transpose
// copy); the barrier between the two kinds of transform orders the slabs' writers.

using piece = pgas::ndarray<cplx, 3, pgas::local, pgas::simple>;

// The first of the n items of thread t's block when nt threads share them.
index_t block_start(index_t n, int t, int nt) {
  return n * t / nt;
}

box box_of(const piece& a) {
  box b;
  b.at = a.base();
  const pgas::rectdomain<3>& d = a.domain();
  for (int x = 0; x < 3; ++x) {
    b.extent[x] = d.empty() ? 0 : d.extent(x);
    b.stride[x] = a.memory_strides()[x];
    b.origin[x] = d.empty() ? 0 : d.lower()[x];
  }
  return b;
}

// The whole grid along k from every thread's slab of it (`mine`: this thread's piece, in the
// exchange's collective call); every slab holds whole planes with the same strides.
k_grid grid_along_k(const piece& mine, const ft_class& c) {
  k_grid g;
  g.nx = c.nx;
  g.stride_k = mine.memory_strides()[0];
  for (const pgas::ndarray<cplx, 3>& slab : pgas::exchange(pgas::ndarray<cplx, 3>(mine))) {
    const pgas::rectdomain<3>& d = slab.domain();
    if (d.empty()) continue;  // a thread with no plane (more threads than planes)
    g.runs.push_back({slab.base(), d.lower()[0], d.extent(0)});
  }
  return g;
}

int job(const npb::npb_args& a) {
  const ft_class& c = class_of(a.cls);
  const int me = pgas::mythread(), nt = pgas::threads();
  const index_t nx = c.nx, ny = c.ny, nz = c.nz;
  const pgas::rectdomain<3> zslab({block_start(nz, me, nt), 0, 0},
                                  {block_start(nz, me + 1, nt), ny, nx});
  const index_t j0 = block_start(ny, me, nt), j1 = block_start(ny, me + 1, nt);
  // On a 2 MiB boundary, as the plain variants' arrays (at a cache line chosen by the
  // allocator the transforms took about 1.03x the time).
  const pgas::alignment huge_page{std::size_t{2} << 20};
  const piece u0(zslab, huge_page), u1(zslab, huge_page);
  const k_grid g0 = grid_along_k(u0, c), g1 = grid_along_k(u1, c);
  const box b1 = box_of(u1);
  const roots wx(c.nx), wy(c.ny), wz(c.nz);
  const evolution ev{evolution_factors(c.nx), evolution_factors(c.ny), evolution_factors(c.nz)};
  const double total = static_cast<double>(nx) * ny * nz;
  std::array<cplx, steps> sums{};
  // A line along k crosses every slab, so each transform along k waits for every thread's planes
  // (the barrier), and the planes' transforms for every line (the barrier after). The next
  // step's lines wait for the checksum's allreduce: every thread is then done with its planes.
  const auto run = [&] {
    initial_planes(b1, c, 0, b1.extent[0]);
    for (index_t k = 0; k < b1.extent[0]; ++k)
      fft_planes(b1, wx, wy, false, k);
    pgas::barrier();
    fft_k(g1, g0, wz, false, j0, j1);
    for (int t = 0; t < steps; ++t) {
      fft_k(g0, g1, wz, true, j0, j1, &ev);
      pgas::barrier();
      for (index_t k = 0; k < b1.extent[0]; ++k)
        fft_planes(b1, wx, wy, true, k);
      sums[t] = pgas::allreduce(checksum_part(b1, c), std::plus<>{}) / total;
    }
  };
  run();
  const bool ok = verify(c, sums);
  const pk::timing t = pk::time_reps(a.run.reps, run, [] { pgas::barrier(); });
  return me == 0 ? report(a, c, nt, t, ok && verify(c, sums)) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const npb::npb_args a = npb::parse_npb_args(
      argc, argv, "npb_ft",
      "NAS FT: 3-D FFT solution of the diffusion equation on an nx x ny x nz complex grid, 6 "
      "steps, checksums verified against NAS's published values (class S 64^3, W 128x128x32, "
      "A 256x256x128).",
      "SWA", [](char cls) { return static_cast<std::size_t>(class_of(cls).nx); });
  if (a.run.variant == "seq") return run_seq(a);
  if (a.run.variant == "openmp") return run_openmp(a);
  return pgas::run(argc, argv, [&] { return job(a); });
}
