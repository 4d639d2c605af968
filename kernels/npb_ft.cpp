// kernels/npb_ft.cpp — NAS FT (the NPB report RNR-94-007, "3-D FFT PDE"): the diffusion equation
// u_t = α ∇²u on an nx × ny × nz periodic grid of complex values solved spectrally. The initial
// field comes from NAS's generator (kernels/npb_common.hpp); one forward 3-D FFT, then for each
// of 6 steps t the spectrum is scaled by exp(-4απ²|k|²) once more (so it holds the field's
// transform times exp(-4απ²|k|²t)), transformed back, and 1024 fixed elements are summed: the
// checksums verified against NAS's published ones. Variants (npb_common.hpp): seq and openmp on
// one plain array, ndarray on slabs of planes per thread, transposed with pgas::copy between
// the threads' pieces. Entry point: main().
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

// Transforms along dimension `d` (0: k, 1: j, 2: i) every line of `b` whose "outer" index (k for
// d = 1 and 2, j for d = 0) is in [lo, hi), in blocks of `lanes` lines adjacent along the
// remaining dimension, writing into `out` (same shape, may be `b` itself). With `ev` (inverse
// transforms along k only), every element of b is first multiplied by its evolution factor in
// place: the spectrum advanced one step, transformed on the way.
void fft_dim(const box& b, const box& out, int d, const roots& w, bool inverse, index_t lo,
             index_t hi, const evolution* ev = nullptr) {
  const int outer = d == 0 ? 1 : 0;
  const int across = d == 2 ? 1 : 2;
  const index_t n = b.extent[d];
  scratch& s = my_scratch();
  s.fit(w.n);
  const index_t plane = n * lanes;
  std::array<double, lanes> lane_factor{};
  for (index_t o = lo; o < hi; ++o) {
    for (index_t c = 0; c < b.extent[across]; c += lanes) {
      const index_t first = o * b.stride[outer] + c * b.stride[across];
      double* in = reinterpret_cast<double*>(b.at + first);
      const index_t ps = 2 * b.stride[d], ls = 2 * b.stride[across];
      double* xr = s.a;
      double* xi = xr + plane;
      if (ev != nullptr) {
        const double fj = ev->y[static_cast<std::size_t>(b.origin[1] + o)];
        for (int l = 0; l < lanes; ++l)
          lane_factor[l] = ev->x[static_cast<std::size_t>(b.origin[2] + c + l)] * fj;
        for (index_t p = 0; p < n; ++p) {
          const double fk = ev->z[static_cast<std::size_t>(b.origin[0] + p)];
          for (int l = 0; l < lanes; ++l) {
            double* e = in + p * ps + l * ls;
            const double f = fk * lane_factor[l];
            e[0] *= f;
            e[1] *= f;
            xr[p * lanes + l] = e[0];
            xi[p * lanes + l] = e[1];
          }
        }
      } else {
        move_lines<true>(in, ps, ls, n, xr, xi);
      }
      double* r = fft_lanes(w, inverse, s.a, s.b);
      move_lines<false>(reinterpret_cast<double*>(out.at + first), ps, ls, n, r, r + plane);
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
  const box b0 = whole(u0.data()), b1 = whole(u1.data());
  const roots wx(c.nx), wy(c.ny), wz(c.nz);
  const evolution ev{evolution_factors(c.nx), evolution_factors(c.ny), evolution_factors(c.nz)};
  std::array<cplx, steps> sums{};
  const auto run = [&] {
    par(0, c.nz, [&](index_t k) { initial_planes(b1, c, k, k + 1); });
    par(0, c.nz, [&](index_t k) {
      fft_dim(b1, b1, 2, wx, false, k, k + 1);
      fft_dim(b1, b1, 1, wy, false, k, k + 1);
    });
    par(0, c.ny, [&](index_t j) { fft_dim(b1, b0, 0, wz, false, j, j + 1); });
    for (int t = 0; t < steps; ++t) {
      par(0, c.ny, [&](index_t j) { fft_dim(b0, b1, 0, wz, true, j, j + 1, &ev); });
      par(0, c.nz, [&](index_t k) {
        fft_dim(b1, b1, 1, wy, true, k, k + 1);
        fft_dim(b1, b1, 2, wx, true, k, k + 1);
      });
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

// --- ndarray: slabs of planes per thread, transposed with pgas::copy -------------------------
//
// Thread t owns the planes k of its z-slab (a balanced block of [0, nz)) and the rows j of its
// y-slab (a block of [0, ny)), each a pgas::ndarray in its own segment. The transforms along i
// and j run on z-slabs, those along k on y-slabs; the transpose between them is one pgas::copy
// from every thread's piece into the caller's (the intersection of the two slabs, contiguous
// runs of rows), pieces published once with pgas::exchange. The spectrum stays in y-slabs.
// Alone, a thread's two slabs are the whole grid: one array, no transpose.

using piece = pgas::ndarray<cplx, 3, pgas::local, pgas::simple>;
using directory = std::vector<pgas::ndarray<cplx, 3>>;

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

int job(const npb::npb_args& a) {
  const ft_class& c = class_of(a.cls);
  const int me = pgas::mythread(), nt = pgas::threads();
  const index_t nx = c.nx, ny = c.ny, nz = c.nz;
  const pgas::rectdomain<3> zslab({block_start(nz, me, nt), 0, 0},
                                  {block_start(nz, me + 1, nt), ny, nx});
  const pgas::rectdomain<3> yslab({0, block_start(ny, me, nt), 0},
                                  {nz, block_start(ny, me + 1, nt), nx});
  const bool alone = nt == 1;
  const piece u0(yslab), u1y(yslab);
  const piece u1z = alone ? u1y : piece(zslab);
  const directory zdir = pgas::exchange(pgas::ndarray<cplx, 3>(u1z));
  const directory ydir = pgas::exchange(pgas::ndarray<cplx, 3>(u1y));
  // Every piece of `from` complete (the barrier), then this thread's piece `to` filled from
  // all of them, its own first. A later write into a piece of `from` waits for the next
  // collective (the checksum's allreduce, or the other transpose's barrier).
  const auto transpose = [&](const piece& to, const directory& from) {
    if (alone) return;
    pgas::barrier();
    for (int s = 0; s < nt; ++s)
      pgas::copy(to, from[static_cast<std::size_t>((me + s) % nt)]);
  };
  const box b0 = box_of(u0), b1y = box_of(u1y), b1z = box_of(u1z);
  const roots wx(c.nx), wy(c.ny), wz(c.nz);
  const evolution ev{evolution_factors(c.nx), evolution_factors(c.ny), evolution_factors(c.nz)};
  const double total = static_cast<double>(nx) * ny * nz;
  std::array<cplx, steps> sums{};
  const auto run = [&] {
    initial_planes(b1z, c, 0, b1z.extent[0]);
    fft_dim(b1z, b1z, 2, wx, false, 0, b1z.extent[0]);
    fft_dim(b1z, b1z, 1, wy, false, 0, b1z.extent[0]);
    transpose(u1y, zdir);
    fft_dim(b1y, b0, 0, wz, false, 0, b1y.extent[1]);
    for (int t = 0; t < steps; ++t) {
      fft_dim(b0, b1y, 0, wz, true, 0, b0.extent[1], &ev);
      transpose(u1z, ydir);
      fft_dim(b1z, b1z, 1, wy, true, 0, b1z.extent[0]);
      fft_dim(b1z, b1z, 2, wx, true, 0, b1z.extent[0]);
      sums[t] = pgas::allreduce(checksum_part(b1z, c), std::plus<>{}) / total;
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
