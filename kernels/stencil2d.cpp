// kernels/stencil2d.cpp — a 2-D Jacobi stencil (Cong et al. §5 "Stencil"): `steps` sweeps over
// a size × size grid of doubles, each interior point becoming the average of its 4 (N, W, E,
// S) or, with --points 8, 8 neighbours (with the diagonals), out of place, the border fixed.
// The grid is distributed by rows, a block of rows per thread, so a thread's first and last
// rows need a row of each neighbouring thread (the "ghost" rows) at every step.
// Variants (kernels/harness.hpp, cache_variants): seq and openmp on plain vectors; naive
// (every neighbour through a pointer-to-shared), cached (the ghost rows' points through
// pgas::cache) and coalesced (the ghost rows fetched by a coalescing schedule once per step)
// on shared arrays. Entry point: main().
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;

// Sweeps per run: enough that a run is dominated by the sweeps, not by the barrier before it.
constexpr int steps = 10;

// --- the stencil, shared by every variant --------------------------------------------------
//
// The neighbours of point (i, j) as row and column offsets, in the order every variant adds
// them (so that every variant computes the same bits), and the weight of each.
struct offset {
  int di, dj;
};
constexpr std::array<offset, 4> four = {{{-1, 0}, {0, -1}, {0, 1}, {1, 0}}};
constexpr std::array<offset, 8> eight = {
    {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}}};

template <int Points>
constexpr const auto& neighbours() {
  if constexpr (Points == 4) {
    return four;
  } else {
    return eight;
  }
}

template <int Points>
constexpr double weight = 1.0 / Points;

// One row's interior points, out[1 .. n-2]: `nb[k]` reads neighbour k of the row's point 1
// and steps along the row with ++ (a plain pointer, or a pointer-to-shared), `out` likewise.
// Every variant runs this loop; with plain pointers it vectorises.
template <int Points, class In, class Out>
void stencil_row(std::array<In, Points> nb, Out out, std::size_t n) {
  for (std::size_t j = 1; j + 1 < n; ++j) {
    double s = *nb[0];
    for (int k = 1; k < Points; ++k)
      s += *nb[k];
    *out = s * weight<Points>;
    for (int k = 0; k < Points; ++k)
      ++nb[k];
    ++out;
  }
}

// The neighbours of point (i, 1) from `row(r)`, the address of row r's column 0.
template <int Points, class Row>
auto neighbours_of(std::size_t i, Row&& row) {
  using ptr = decltype(row(i));
  std::array<ptr, Points> nb;
  for (int k = 0; k < Points; ++k) {
    const offset o = neighbours<Points>()[k];
    nb[k] = row(i + o.di) + (1 + o.dj);
  }
  return nb;
}

// --- the grid and the check ----------------------------------------------------------------

// The initial grid: a smooth hill plus a ripple, in [0, 2).
double initial(std::size_t i, std::size_t j, std::size_t n) {
  const double x = static_cast<double>(i) / static_cast<double>(n);
  const double y = static_cast<double>(j) / static_cast<double>(n);
  return 1.0 + std::sin(3.0 * x) * std::cos(2.0 * y) * 0.5 + 0.25 * ((i * 7 + j * 13) % 5) / 4.0;
}

void initial_row(double* row, std::size_t i, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j)
    row[j] = initial(i, j, n);
}

// The expected grid after `steps` sweeps, computed apart from every variant: each point from
// its neighbours' offsets, two whole grids swapped.
std::vector<double> reference(std::size_t n, int points) {
  std::vector<double> a(n * n), b;
  for (std::size_t i = 0; i < n; ++i)
    initial_row(a.data() + i * n, i, n);
  b = a;
  const auto sweep = [&](const auto& offsets) {
    for (std::size_t i = 1; i + 1 < n; ++i) {
      for (std::size_t j = 1; j + 1 < n; ++j) {
        double s = 0;
        bool first = true;
        for (const offset o : offsets) {
          const double v = a[(i + o.di) * n + (j + o.dj)];
          s = first ? v : s + v;
          first = false;
        }
        b[i * n + j] = s / static_cast<double>(offsets.size());
      }
    }
  };
  for (int s = 0; s < steps; ++s) {
    if (points == 4) {
      sweep(four);
    } else {
      sweep(eight);
    }
    std::swap(a, b);
  }
  return a;
}

// True when every point of the grid (through get(i, j)) is the reference's within rounding:
// a weight of 1/4 or 1/8 is exact, so the variants' products equal the reference's quotients.
template <class Get>
bool verify(std::size_t n, int points, Get get) {
  const std::vector<double> want = reference(n, points);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (std::abs(get(i, j) - want[i * n + j]) > 1e-12) return false;
    }
  }
  return true;
}

int report(const pk::kernel_args& a, int points, int threads, const pk::timing& t, bool ok) {
  const double updates = static_cast<double>(steps) * static_cast<double>(a.size - 2) *
                         static_cast<double>(a.size - 2);
  nlohmann::ordered_json extra;
  extra["points"] = points;
  extra["steps"] = steps;
  extra["mpoints_per_s"] = t.median > 0 ? updates / t.median * 1e-6 : 0.0;
  return pk::print_result(a, threads, t, ok, extra);
}

// Calls f.template operator()<P>() with P = points (4 or 8), as a compile-time constant.
template <class F>
decltype(auto) with_points(int points, F&& f) {
  if (points == 4) return f.template operator()<4>();
  return f.template operator()<8>();
}

// --- seq and openmp: plain vectors ---------------------------------------------------------

template <int Points>
void plain_row(const double* in, double* out, std::size_t n, std::size_t i) {
  stencil_row<Points>(neighbours_of<Points>(i, [&](std::size_t r) { return in + r * n; }),
                      out + i * n + 1, n);
}

// seq and openmp: `init(f)` runs f(i) for every row i (the first touch), `sweep<P>(in, out)`
// computes one sweep of the interior rows.
template <class Init, class Sweep>
int run_plain(const pk::kernel_args& a, int points, int threads, Init&& init, Sweep&& sweep) {
  const std::size_t n = a.size;
  pk::plain_vector<double> g0(n * n), g1(n * n);
  init([&](std::size_t i) {
    initial_row(g0.data() + i * n, i, n);
    initial_row(g1.data() + i * n, i, n);
  });
  double *in = g0.data(), *out = g1.data();
  const auto run = [&] {
    with_points(points, [&]<int P>() {
      for (int s = 0; s < steps; ++s) {
        sweep.template operator()<P>(in, out);
        std::swap(in, out);
      }
    });
  };
  run();
  const bool ok = verify(n, points, [&](std::size_t i, std::size_t j) { return in[i * n + j]; });
  const pk::timing t = pk::time_reps(a.reps, run);
  return report(a, points, threads, t, ok);
}

int run_seq(const pk::kernel_args& a, int points) {
  const std::size_t n = a.size;
  return run_plain(
      a, points, 1,
      [&](auto&& row) {
        for (std::size_t i = 0; i < n; ++i)
          row(i);
      },
      [&]<int P>(const double* in, double* out) {
        for (std::size_t i = 1; i + 1 < n; ++i)
          plain_row<P>(in, out, n, i);
      });
}

int run_openmp(const pk::kernel_args& a, int points) {
  const std::size_t n = a.size;
  const int nt = pk::openmp_threads();
  return run_plain(
      a, points, nt,
      [&](auto&& row) {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (std::size_t i = 0; i < n; ++i)  // first touch by the thread that computes the row
          row(i);
      },
      [&]<int P>(const double* in, double* out) {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (std::size_t i = 1; i < n - 1; ++i)
          plain_row<P>(in, out, n, i);
      });
}

// --- the PGAS variants: row bands of shared arrays ------------------------------------------
//
// Thread t owns rows [t*R, (t+1)*R), R = ceil(size / THREADS): `shared [R*size] double
// G[size][size]`, one block per thread, two grids swapped after every sweep.
using grid = pgas::shared_array<double, 2>;

struct band {
  std::size_t lo, hi;       // the rows this thread owns
  std::size_t first, last;  // the interior rows among them: [first, last)
};

band band_of(std::size_t n, int t, int threads) {
  const std::size_t r = (n + threads - 1) / threads;
  const std::size_t lo = std::min(n, static_cast<std::size_t>(t) * r), hi = std::min(n, lo + r);
  return {lo, hi, std::max<std::size_t>(lo, 1),
          std::max(std::min(hi, n - 1), std::max<std::size_t>(lo, 1))};
}

// `steps` sweeps, sweep(in, out) computing this thread's interior rows of `out`, a barrier
// after each (the next sweep reads the neighbours' rows); `in` ends on the latest grid.
template <class Sweep>
void sweeps(const grid*& in, const grid*& out, Sweep&& sweep) {
  for (int s = 0; s < steps; ++s) {
    sweep(*in, *out);
    pgas::barrier();
    std::swap(in, out);
  }
}

template <int Points>
void naive_sweep(const grid& in, const grid& out, const band& b, std::size_t n) {
  for (std::size_t i = b.first; i < b.last; ++i) {
    stencil_row<Points>(neighbours_of<Points>(i, [&](std::size_t r) { return in.ptr(r, 0); }),
                        out.ptr(i, 1), n);
  }
}

// A point of a row read through the software cache (cached): *p is c.read(i, j), ++ moves
// along the row; another thread's point comes from the copy of its line, fetched once per
// sweep, the calling thread's from its memory.
struct cached_point {
  pgas::cache<double, 2>* c;
  std::size_t i, j;
  double operator*() const { return c->read(i, j); }
  cached_point& operator++() {
    ++j;
    return *this;
  }
  friend cached_point operator+(cached_point p, std::ptrdiff_t k) {
    p.j += static_cast<std::size_t>(k);
    return p;
  }
};

// cached: the rows whose neighbours are all this thread's through plain pointers, the first
// and last (a neighbour row another thread's) through the cache over `in`.
template <int Points>
void cached_sweep(const grid& in, const grid& out, pgas::cache<double, 2>& c, const band& b,
                  std::size_t n) {
  const double* const from = in.local_part().data();  // row r at (r - b.lo) * n
  double* const to = out.local_part().data();
  for (std::size_t i = b.first; i < b.last; ++i) {
    double* const o = to + (i - b.lo) * n + 1;
    if (i == b.lo || i + 1 == b.hi) {
      stencil_row<Points>(neighbours_of<Points>(i,
                                                [&](std::size_t r) {
                                                  return cached_point{&c, r, 0};
                                                }),
                          o, n);
    } else {
      stencil_row<Points>(
          neighbours_of<Points>(i, [&](std::size_t r) { return from + (r - b.lo) * n; }), o, n);
    }
  }
}

// coalesced: the ghost rows of one grid through a coalescing schedule, planned once (the rows
// a sweep needs never change) and downloaded at every sweep, one pass per neighbour; the
// sweep then reads them from two row buffers, and every row through plain pointers.
class ghost_rows {
 public:
  ghost_rows(const grid& g, const band& b, std::size_t n)
      : s_(g, {}, std::source_location::current()),

        up_(b.first < b.last && b.first == b.lo ? n : 0),
        down_(b.first < b.last && b.last == b.hi ? n : 0),
        lo_(b.lo),
        hi_(b.hi) {
    for (std::size_t j = 0; j < up_.size(); ++j)
      s_.hint(lo_ - 1, j);
    for (std::size_t j = 0; j < down_.size(); ++j)
      s_.hint(hi_, j);
  }

  // Downloads the ghost rows (a sweep's start, after the barrier that ended the last one).
  void fetch() {
    if (up_.empty() && down_.empty()) return;
    s_.start_download();
    s_.finish_download();
    for (std::size_t j = 0; j < up_.size(); ++j)
      up_[j] = s_.get(lo_ - 1, j);
    for (std::size_t j = 0; j < down_.size(); ++j)
      down_[j] = s_.get(hi_, j);
  }
  const double* up() const { return up_.data(); }
  const double* down() const { return down_.data(); }

 private:
  pgas::access_schedule<double, 2> s_;
  std::vector<double> up_, down_;
  std::size_t lo_, hi_;
};

template <int Points>
void coalesced_sweep(const grid& in, const grid& out, ghost_rows& ghosts, const band& b,
                     std::size_t n) {
  ghosts.fetch();
  const double* const from = in.local_part().data();
  double* const to = out.local_part().data();
  const auto row = [&](std::size_t r) {
    return r < b.lo ? ghosts.up() : r >= b.hi ? ghosts.down() : from + (r - b.lo) * n;
  };
  for (std::size_t i = b.first; i < b.last; ++i)
    stencil_row<Points>(neighbours_of<Points>(i, row), to + (i - b.lo) * n + 1, n);
}

int job(const pk::kernel_args& a, int points) {
  const std::size_t n = a.size;
  const int me = pgas::mythread();
  const band b = band_of(n, me, pgas::threads());
  const std::size_t per_block = (n + pgas::threads() - 1) / pgas::threads() * n;
  const grid g0({n, n}, pgas::block_spec::cyclic(per_block));
  const grid g1({n, n}, pgas::block_spec::cyclic(per_block));
  pgas::trace_name(g0.ptr(0, 0).get(), "grid 0");  // as pgas-trace names them
  pgas::trace_name(g1.ptr(0, 0).get(), "grid 1");
  for (std::size_t i = b.lo; i < b.hi; ++i) {
    initial_row(g0.local_part().data() + (i - b.lo) * n, i, n);
    initial_row(g1.local_part().data() + (i - b.lo) * n, i, n);
  }
  pgas::barrier();

  const grid *in = &g0, *out = &g1;
  std::function<void()> run;
  if (a.variant == "naive") {
    run = [&] {
      with_points(points, [&]<int P>() {
        sweeps(in, out, [&](const grid& from, const grid& to) { naive_sweep<P>(from, to, b, n); });
      });
    };
  }
  // One cache per grid, each holding the two ghost rows a sweep reads from it (a row of n
  // elements spans at most n / line_elements + 2 lines).
  std::optional<pgas::cache<double, 2>> c0, c1;
  if (a.variant == "cached") {
    const pgas::cache_options opts{.capacity = 2 * (n + 2 * pgas::cache<double, 2>::line_elements)};
    c0.emplace(g0, opts, std::source_location::current());
    c1.emplace(g1, opts, std::source_location::current());
    run = [&] {
      with_points(points, [&]<int P>() {
        sweeps(in, out, [&](const grid& from, const grid& to) {
          cached_sweep<P>(from, to, &from == &g0 ? *c0 : *c1, b, n);
        });
      });
    };
  }
  std::optional<ghost_rows> ghosts0, ghosts1;
  if (a.variant == "coalesced") {
    ghosts0.emplace(g0, b, n);
    ghosts1.emplace(g1, b, n);
    run = [&] {
      with_points(points, [&]<int P>() {
        sweeps(in, out, [&](const grid& from, const grid& to) {
          coalesced_sweep<P>(from, to, &from == &g0 ? *ghosts0 : *ghosts1, b, n);
        });
      });
    };
  }
  run();
  bool ok = true;
  if (me == 0) ok = verify(n, points, [&](std::size_t i, std::size_t j) { return *in->ptr(i, j); });
  pgas::barrier();
  const pk::timing t = pk::time_reps(a.reps, run, [] { pgas::barrier(); });
  return me == 0 ? report(a, points, pgas::threads(), t, ok) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  int points = 4;
  const pk::kernel_args a = pk::parse_kernel_args(
      argc, argv, "stencil2d",
      "A 2-D Jacobi stencil: 10 sweeps over a size x size grid of doubles, each interior point "
      "the average of its 4 or 8 neighbours (Cong et al. section 5).",
      2048, 3, pk::cache_variants, [&points](CLI::App& app) {
        app.add_option("--points", points, "Neighbours averaged: 4 (N, W, E, S) or 8 (default 4)")
            ->check(CLI::IsMember({4, 8}));
      });
  if (a.variant == "seq") return run_seq(a, points);
  if (a.variant == "openmp") return run_openmp(a, points);
  return pgas::run(argc, argv, [&] { return job(a, points); });
}
