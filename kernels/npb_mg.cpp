// kernels/npb_mg.cpp — NAS MG (the NPB report RNR-94-007): `nit` V-cycles of a multigrid solver
// of the discrete Poisson problem A u = v on a periodic n × n × n grid, v zero but for +1 at the
// 10 largest and -1 at the 10 smallest points of a field of NAS's random numbers. Each level k
// (n_k = 2^k points per edge, k = 1 … log2 n) is an array of (n_k + 2)^3 doubles, index 0 and
// n_k + 1 of every dimension being the periodic ghost layers; a V-cycle restricts the residual
// down to level 1 (P, NAS's rprj3), smooths there (S, psinv), and on the way up interpolates
// the correction (Q, interp), recomputes the residual (A, resid) and smooths again. The result
// is the L2 norm of the final residual, checked against NAS's published value for the class.
// Variants (kernels/npb_common.hpp): seq and openmp on plain arrays; ndarray with every level a
// slab of planes per thread, each a pgas::ndarray piece with its ghost planes, published by
// pgas::exchange and filled with pgas::copy. Entry point: main().
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <pgas/ndarray.hpp>
#include <pgas/ndarray_copy.hpp>
#include <pgas/pgas.hpp>

#include "harness.hpp"
#include "npb_common.hpp"

namespace {

namespace pk = pgas::kernels;
namespace npb = pk::npb;
using idx = std::ptrdiff_t;

// --- the problem ----------------------------------------------------------------------------

struct mg_class {
  char name;
  idx n;          // points per edge of the finest grid
  int nit;        // V-cycles
  double verify;  // NAS's L2 norm of the final residual
};
constexpr std::array<mg_class, 3> classes = {{{'S', 32, 4, 0.5307707005734e-04},
                                              {'W', 128, 4, 0.6467329375339e-05},
                                              {'A', 256, 4, 0.2433365309069e-05}}};
// NAS's tolerance on the norm, relative.
constexpr double tolerance = 1e-8;

const mg_class& class_of(char c) {
  return *std::find_if(classes.begin(), classes.end(),
                       [c](const mg_class& k) { return k.name == c; });
}

// The operators' coefficients (NAS's a and c; a(1) and c(3) are 0 and left out, as NAS does).
// Classes S, W and A smooth with S(a); B and beyond would take -3/17, 1/33, -1/61.
constexpr double a0 = -8.0 / 3.0, a2 = 1.0 / 6.0, a3 = 1.0 / 12.0;
constexpr double c0 = -3.0 / 8.0, c1 = 1.0 / 32.0, c2 = -1.0 / 64.0;

// The longest row (ghosts included): the per-row scratch of the operators lives on the stack.
constexpr idx max_edge = 256 + 2;

// Points per edge of level k, ghosts included.
constexpr idx edge_of(int k) {
  return (idx{1} << k) + 2;
}

// --- the operators, one plane at a time -----------------------------------------------------
//
// A grid G is anything with `double& operator()(i3, i2, i1)` in the level's coordinates (0 …
// edge - 1 in each dimension, i1 contiguous): every variant runs these same loops, on plain
// arrays or on ndarray pieces; each row is reached through the grid's indexing and walked by a
// plain pointer, which GCC vectorises. The sums keep NAS's order but for rprj3's corners,
// which take resid's.

// The sums around row (i3, i2) of g, for every i1 of a row of m points: `edges` of its 4
// neighbours across rows and planes (i2 ± 1, i3 ± 1), `corners` of its 4 diagonal ones
// (i2 ± 1 and i3 ± 1 at once). Returns the row itself.
template <class G>
const double* ring_sums(const G& g, idx m, idx i3, idx i2, double* edges, double* corners) {
  const double *s = &g(i3, i2 - 1, 0), *n = &g(i3, i2 + 1, 0), *b = &g(i3 - 1, i2, 0),
               *t = &g(i3 + 1, i2, 0), *bs = &g(i3 - 1, i2 - 1, 0), *bn = &g(i3 - 1, i2 + 1, 0),
               *ts = &g(i3 + 1, i2 - 1, 0), *tn = &g(i3 + 1, i2 + 1, 0);
  for (idx i1 = 0; i1 < m; ++i1) {
    edges[i1] = s[i1] + n[i1] + b[i1] + t[i1];
    corners[i1] = bs[i1] + bn[i1] + ts[i1] + tn[i1];
  }
  return &g(i3, i2, 0);
}

// r = v - A u on plane i3 of a level of edge m (r may be v).
template <class U, class V, class R>
void resid_plane(const U& u, const V& v, const R& r, idx m, idx i3) {
  double u1[max_edge], u2[max_edge];
  for (idx i2 = 1; i2 < m - 1; ++i2) {
    const double* c = ring_sums(u, m, i3, i2, u1, u2);
    const double* vr = &v(i3, i2, 0);
    double* rr = &r(i3, i2, 0);
    for (idx i1 = 1; i1 < m - 1; ++i1) {
      rr[i1] = vr[i1] - a0 * c[i1] - a2 * (u2[i1] + u1[i1 - 1] + u1[i1 + 1]) -
               a3 * (u2[i1 - 1] + u2[i1 + 1]);
    }
  }
}

// u = u + S r on plane i3 (psinv).
template <class R, class U>
void psinv_plane(const R& r, const U& u, idx m, idx i3) {
  double r1[max_edge], r2[max_edge];
  for (idx i2 = 1; i2 < m - 1; ++i2) {
    const double* c = ring_sums(r, m, i3, i2, r1, r2);
    double* ur = &u(i3, i2, 0);
    for (idx i1 = 1; i1 < m - 1; ++i1) {
      ur[i1] = ur[i1] + c0 * c[i1] + c1 * (c[i1 - 1] + c[i1 + 1] + r1[i1]) +
               c2 * (r2[i1] + r1[i1 - 1] + r1[i1 + 1]);
    }
  }
}

// Coarse plane j3 of s = P r (rprj3): s has edge mc, r edge 2 mc - 2; coarse point j lies on
// fine point 2 j.
template <class R, class S>
void rprj3_plane(const R& r, const S& s, idx mc, idx j3) {
  double x[max_edge], y[max_edge];
  const idx mf = 2 * mc - 2;
  for (idx j2 = 1; j2 < mc - 1; ++j2) {
    const double* c = ring_sums(r, mf, 2 * j3, 2 * j2, x, y);
    double* out = &s(j3, j2, 0);
    for (idx j1 = 1; j1 < mc - 1; ++j1) {
      const idx i = 2 * j1;
      out[j1] = 0.5 * c[i] + 0.25 * (c[i - 1] + c[i + 1] + x[i]) +
                0.125 * (x[i - 1] + x[i + 1] + y[i]) + 0.0625 * (y[i - 1] + y[i + 1]);
    }
  }
}

// Fine plane f of u = u + Q z (interp): z has edge mc, u edge 2 mc - 2, ghost planes included
// (every fine plane 0 … 2 mc - 3 takes coarse planes f / 2 and, when f is odd, f / 2 + 1).
template <class Z, class U>
void interp_plane(const Z& z, const U& u, idx mc, idx f) {
  double z1[max_edge], z2[max_edge], z3[max_edge];
  const idx c3 = f / 2;
  for (idx c2 = 0; c2 < mc - 1; ++c2) {
    const double *za = &z(c3, c2, 0), *zb = &z(c3, c2 + 1, 0);
    for (idx i = 0; i < mc; ++i)
      z1[i] = zb[i] + za[i];
    double *even = &u(f, 2 * c2, 0), *odd = &u(f, 2 * c2 + 1, 0);
    if (f % 2 == 0) {
      for (idx i = 0; i < mc - 1; ++i) {
        even[2 * i] += za[i];
        even[2 * i + 1] += 0.5 * (za[i + 1] + za[i]);
      }
      for (idx i = 0; i < mc - 1; ++i) {
        odd[2 * i] += 0.5 * z1[i];
        odd[2 * i + 1] += 0.25 * (z1[i] + z1[i + 1]);
      }
    } else {
      const double *zc = &z(c3 + 1, c2, 0), *zd = &z(c3 + 1, c2 + 1, 0);
      for (idx i = 0; i < mc; ++i) {
        z2[i] = zc[i] + za[i];
        z3[i] = zd[i] + zc[i] + z1[i];
      }
      for (idx i = 0; i < mc - 1; ++i) {
        even[2 * i] += 0.5 * z2[i];
        even[2 * i + 1] += 0.25 * (z2[i] + z2[i + 1]);
      }
      for (idx i = 0; i < mc - 1; ++i) {
        odd[2 * i] += 0.25 * z3[i];
        odd[2 * i + 1] += 0.125 * (z3[i] + z3[i + 1]);
      }
    }
  }
}

// The periodic ghosts of plane i3 along i1 and i2 (NAS's comm3 on its first two axes; the
// third, whole planes, is each variant's).
template <class G>
void ghost_plane(const G& u, idx m, idx i3) {
  for (idx i2 = 1; i2 < m - 1; ++i2) {
    double* row = &u(i3, i2, 0);
    row[0] = row[m - 2];
    row[m - 1] = row[1];
  }
  std::memcpy(&u(i3, 0, 0), &u(i3, m - 2, 0), static_cast<std::size_t>(m) * sizeof(double));
  std::memcpy(&u(i3, m - 1, 0), &u(i3, 1, 0), static_cast<std::size_t>(m) * sizeof(double));
}

// Adds plane i3's interior to the sum of squares and the maximum magnitude (NAS's norm2u3).
template <class G>
void norm_plane(const G& r, idx m, idx i3, double& sum, double& max) {
  for (idx i2 = 1; i2 < m - 1; ++i2) {
    const double* row = &r(i3, i2, 0);
    for (idx i1 = 1; i1 < m - 1; ++i1) {
      sum += row[i1] * row[i1];
      max = std::max(max, std::abs(row[i1]));
    }
  }
}

// --- the right-hand side (NAS's zran3) ------------------------------------------------------

// A point of the finest grid and its random value.
struct pick {
  double value = 0;
  idx i3 = 0, i2 = 0, i1 = 0;
};

// The 10 largest and 10 smallest values offered, each list sorted from the most extreme.
// Values are distinct in practice; on a tie the point offered first stays, as in NAS's scan.
struct extremes {
  static constexpr int count = 10;
  std::array<pick, count> high{}, low{};
  int highs = 0, lows = 0;

  void offer(const pick& p) {
    insert(high, highs, p, [](double a, double b) { return a > b; });
    insert(low, lows, p, [](double a, double b) { return a < b; });
  }

 private:
  template <class Better>
  static void insert(std::array<pick, count>& list, int& size, const pick& p, Better better) {
    if (size == count && !better(p.value, list[count - 1].value)) return;
    int at = std::min(size, count - 1);
    while (at > 0 && better(p.value, list[at - 1].value)) {
      list[at] = list[at - 1];
      --at;
    }
    list[at] = p;
    size = std::min(size + 1, count);
  }
};

// Fills the interior planes [lo, hi) of the finest grid (edge n + 2) with NAS's random sequence
// from `seed` in Fortran order (i1 fastest: point (i3, i2, i1) takes element (i3 - 1) n^2 +
// (i2 - 1) n + i1 of the sequence) and returns their extremes.
template <class G>
extremes random_planes(const G& z, idx n, idx lo, idx hi) {
  double x = npb::seed;  // jumped to x_k = a^k · seed, k the points before plane lo
  npb::randlc(x, npb::pow46(npb::amult, (lo - 1) * n * n));
  extremes e;
  for (idx i3 = lo; i3 < hi; ++i3) {
    for (idx i2 = 1; i2 <= n; ++i2) {
      double* row = &z(i3, i2, 0);
      npb::vranlc(static_cast<std::size_t>(n), x, npb::amult, row + 1);
      for (idx i1 = 1; i1 <= n; ++i1)
        e.offer({row[i1], i3, i2, i1});
    }
  }
  return e;
}

// Zeroes the interior planes [lo, hi) and sets -1 at the low and +1 at the high extremes that
// lie there.
template <class G>
void charge_planes(const G& z, idx n, idx lo, idx hi, const extremes& e) {
  for (idx i3 = lo; i3 < hi; ++i3) {
    for (idx i2 = 1; i2 <= n; ++i2)
      std::fill_n(&z(i3, i2, 1), n, 0.0);
  }
  for (const auto& [list, value] : {std::pair{&e.low, -1.0}, std::pair{&e.high, 1.0}}) {
    for (const pick& p : *list) {
      if (p.i3 >= lo && p.i3 < hi) z(p.i3, p.i2, p.i1) = value;
    }
  }
}

// --- the V-cycle, for any variant -----------------------------------------------------------
//
// M holds the levels and runs each operator over its part of them, ghosts exchanged after
// resid, psinv and rprj3 as NAS's comm3: residual(k, top) (r_k = v - A u_k when top, else r_k =
// r_k - A u_k), smooth(k), restrict_to(k) (r_{k-1} = P r_k), prolong(k) (u_k += Q u_{k-1}),
// zero_u(k) and norm() (of the finest residual, collective).

template <class M>
void vcycle(M& g, int lt) {
  for (int k = lt; k > 1; --k)
    g.restrict_to(k);
  g.zero_u(1);
  g.smooth(1);
  for (int k = 2; k < lt; ++k) {
    g.zero_u(k);
    g.prolong(k);
    g.residual(k, false);
    g.smooth(k);
  }
  g.prolong(lt);
  g.residual(lt, true);
  g.smooth(lt);
}

// NAS's timed part: the residual of u = 0 and its norm, nit V-cycles each followed by the
// residual, and the final norm (returned).
template <class M>
double benchmark(M& g, int lt, int nit) {
  g.residual(lt, true);
  g.norm();
  for (int it = 0; it < nit; ++it) {
    vcycle(g, lt);
    g.residual(lt, true);
  }
  return g.norm();
}

int log2_of(idx n) {
  int k = 0;
  while ((idx{1} << k) < n)
    ++k;
  return k;
}

struct outcome {
  bool ok = true;
  double norm = 0;
};

// Checks one run's norm against NAS's value; `o` keeps whether every run verified.
void check_norm(outcome& o, const mg_class& c, double norm) {
  o.norm = norm;
  if (!(std::abs(norm - c.verify) / c.verify <= tolerance)) o.ok = false;
}

int report(const npb::npb_args& a, const mg_class& c, int threads, const pk::timing& t,
           const outcome& o) {
  if (!o.ok) {
    std::fprintf(stderr, "npb_mg: L2 norm %.13e, NAS's for class %c is %.13e\n", o.norm, c.name,
                 c.verify);
  }
  nlohmann::ordered_json e;
  e["nit"] = c.nit;
  e["l2_norm"] = o.norm;
  const double points =
      static_cast<double>(c.n) * static_cast<double>(c.n) * static_cast<double>(c.n);
  return npb::print_npb_result(a, threads, t, o.ok, 58.0 * c.nit * points, e);
}

// --- seq and openmp: plain arrays -----------------------------------------------------------

// A level of edge m as a plain row-major array.
struct plain_grid {
  double* p;
  idx m;
  double& operator()(idx i3, idx i2, idx i1) const { return p[(i3 * m + i2) * m + i1]; }
};

// The loops over planes: serial for seq; for openmp, shared out among the team of the
// enclosing parallel region (each ends with the team's barrier).
template <bool Omp, class F>
void for_planes(idx lo, idx hi, F&& body) {
  if constexpr (Omp) {
#pragma omp for schedule(static)
    for (idx i = lo; i < hi; ++i)
      body(i);
  } else {
    for (idx i = lo; i < hi; ++i)
      body(i);
  }
}

// Runs `body` on a team of nt threads (openmp), or once here (seq).
template <bool Omp, class F>
void region(int nt, F&& body) {
  if constexpr (Omp) {
#pragma omp parallel num_threads(nt)
    body();
  } else {
    body();
  }
}

// The levels of the plain variants: u and r at every level, v at the finest; level k's
// operators are parallel loops over its planes (openmp: one parallel region per operator, as an
// OpenMP user writes NAS's routines, comm3 inside it).
template <bool Omp>
class plain_levels {
 public:
  plain_levels(idx n, int nt) : lt_(log2_of(n)), nt_(nt), u_(lt_ + 1), r_(lt_ + 1) {
    for (int k = 1; k <= lt_; ++k) {
      const auto size = static_cast<std::size_t>(edge_of(k) * edge_of(k) * edge_of(k));
      u_[k].resize(size);
      r_[k].resize(size);
    }
    v_.resize(u_[lt_].size());
    // First touch by the thread that computes the plane (openmp).
    region<Omp>(nt_, [&] {
      for (int k = 1; k <= lt_; ++k) {
        zero(grid(u_, k), k);
        zero(grid(r_, k), k);
      }
      zero(plain_grid{v_.data(), edge_of(lt_)}, lt_);
    });
    const plain_grid v{v_.data(), edge_of(lt_)};
    const extremes e = random_planes(v, n, 1, n + 1);
    charge_planes(v, n, 1, n + 1, e);
    region<Omp>(nt_, [&] { comm3(v, edge_of(lt_)); });
  }

  int top() const { return lt_; }
  void zero_top() {
    region<Omp>(nt_, [&] { zero(grid(u_, lt_), lt_); });
  }

  void residual(int k, bool top) {
    const idx m = edge_of(k);
    const plain_grid u = grid(u_, k), r = grid(r_, k);
    const plain_grid v = top ? plain_grid{v_.data(), m} : r;
    region<Omp>(nt_, [&] {
      for_planes<Omp>(1, m - 1, [&](idx i3) { resid_plane(u, v, r, m, i3); });
      comm3(r, m);
    });
  }
  void smooth(int k) {
    const idx m = edge_of(k);
    const plain_grid u = grid(u_, k), r = grid(r_, k);
    region<Omp>(nt_, [&] {
      for_planes<Omp>(1, m - 1, [&](idx i3) { psinv_plane(r, u, m, i3); });
      comm3(u, m);
    });
  }
  void restrict_to(int k) {
    const idx mc = edge_of(k - 1);
    const plain_grid r = grid(r_, k), s = grid(r_, k - 1);
    region<Omp>(nt_, [&] {
      for_planes<Omp>(1, mc - 1, [&](idx j3) { rprj3_plane(r, s, mc, j3); });
      comm3(s, mc);
    });
  }
  void prolong(int k) {
    const idx mc = edge_of(k - 1);
    const plain_grid z = grid(u_, k - 1), u = grid(u_, k);
    region<Omp>(nt_,
                [&] { for_planes<Omp>(0, edge_of(k), [&](idx f) { interp_plane(z, u, mc, f); }); });
  }
  void zero_u(int k) {
    region<Omp>(nt_, [&] { zero(grid(u_, k), k); });
  }
  double norm() const {
    const idx m = edge_of(lt_);
    const plain_grid r = grid(r_, lt_);
    double sum = 0, peak = 0;
    if constexpr (Omp) {
#pragma omp parallel for schedule(static) num_threads(nt_) reduction(+ : sum) reduction(max : peak)
      for (idx i3 = 1; i3 < m - 1; ++i3)
        norm_plane(r, m, i3, sum, peak);
    } else {
      for (idx i3 = 1; i3 < m - 1; ++i3)
        norm_plane(r, m, i3, sum, peak);
    }
    const double points =
        static_cast<double>(m - 2) * static_cast<double>(m - 2) * static_cast<double>(m - 2);
    return std::sqrt(sum / points);
  }

 private:
  static plain_grid grid(std::vector<pk::plain_vector<double>>& levels, int k) {
    return {levels[k].data(), edge_of(k)};
  }
  static plain_grid grid(const std::vector<pk::plain_vector<double>>& levels, int k) {
    return {const_cast<double*>(levels[k].data()), edge_of(k)};
  }
  static void zero(const plain_grid& g, int k) {
    const idx m = edge_of(k);
    for_planes<Omp>(0, m, [&](idx i3) { std::fill_n(&g(i3, 0, 0), m * m, 0.0); });
  }
  // NAS's comm3: the ghosts along i1 and i2 plane by plane, then the ghost planes whole.
  static void comm3(const plain_grid& g, idx m) {
    for_planes<Omp>(1, m - 1, [&](idx i3) { ghost_plane(g, m, i3); });
    for_planes<Omp>(0, m, [&](idx i2) {
      std::memcpy(&g(0, i2, 0), &g(m - 2, i2, 0), static_cast<std::size_t>(m) * sizeof(double));
      std::memcpy(&g(m - 1, i2, 0), &g(1, i2, 0), static_cast<std::size_t>(m) * sizeof(double));
    });
  }

  int lt_, nt_;
  std::vector<pk::plain_vector<double>> u_, r_;
  pk::plain_vector<double> v_;
};

template <bool Omp>
int run_plain(const npb::npb_args& args, const mg_class& c) {
  const int nt = Omp ? pk::openmp_threads() : 1;
  plain_levels<Omp> g(c.n, nt);
  outcome o;
  const pk::timing t = pk::time_reps(
      args.run.reps, [&] { check_norm(o, c, benchmark(g, g.top(), c.nit)); }, [] {},
      [&] { g.zero_top(); });
  return report(args, c, nt, t, o);
}

// --- ndarray: a slab of planes per thread ---------------------------------------------------

// A thread's piece of a level: its planes i3 in [lo, hi) and the ghost planes lo - 1 and hi,
// every row whole (the ghosts along i1 and i2 included), in the level's coordinates.
using piece = pgas::ndarray<double, 3, pgas::local, pgas::simple>;
using directory = std::vector<pgas::ndarray<double, 3, pgas::global>>;

// The planes of level k each thread owns: thread t has [b[t], b[t + 1]). The finest level is
// split evenly; each coarser level's bounds are the finer's halved upwards (ceil(b / 2)), so
// that coarse plane j (on fine plane 2 j) is on the thread of fine planes 2 j - 1 … 2 j + 1
// (rprj3), and fine plane f needs only coarse planes f / 2 and f / 2 + 1 (interp): every
// operator reads the thread's own planes and ghost planes alone. A thread may own no plane of
// a coarse level (it keeps its two ghost planes, which interp reads).
std::vector<std::vector<idx>> slab_bounds(int lt, int threads) {
  std::vector<std::vector<idx>> b(static_cast<std::size_t>(lt + 1));
  const idx n = idx{1} << lt;
  for (int t = 0; t <= threads; ++t)
    b[lt].push_back(1 + n * t / threads);
  for (int k = lt - 1; k >= 1; --k) {
    for (const idx f : b[k + 1])
      b[k].push_back((f + 1) / 2);
  }
  return b;
}

pgas::rectdomain<3> planes_of(idx lo, idx hi, idx m) {
  return pgas::rectdomain<3>(pgas::point<3>(lo, 0, 0), pgas::point<3>(hi, m, m));
}

// A level's array of one kind (u, r or v) as the threads hold it.
struct slab {
  piece mine;     // planes [lo - 1, hi + 1)
  directory own;  // every thread's owned planes [b[t], b[t + 1])

  slab(idx lo, idx hi, idx m) : mine(planes_of(lo - 1, hi + 1, m)) {
    own = pgas::exchange(mine.constrict(planes_of(lo, hi, m)));
  }
};

class nd_levels {
 public:
  explicit nd_levels(idx n) : lt_(log2_of(n)), bounds_(slab_bounds(lt_, pgas::threads())) {
    const auto me = static_cast<std::size_t>(pgas::mythread());
    for (int k = 0; k <= lt_; ++k) {
      const idx lo = k == 0 ? 1 : bounds_[k][me], hi = k == 0 ? 1 : bounds_[k][me + 1];
      lo_.push_back(lo);
      hi_.push_back(hi);
      if (k == 0) continue;
      u_.emplace_back(lo, hi, edge_of(k));
      r_.emplace_back(lo, hi, edge_of(k));
    }
    v_.emplace_back(lo_[lt_], hi_[lt_], edge_of(lt_));
    // The right-hand side: each thread its planes of the random field, then everyone's
    // extremes merged (in thread order, which is the scan's) and charged where they lie.
    const piece& v = v_[0].mine;
    const extremes mine = random_planes(v, n, lo_[lt_], hi_[lt_]);
    std::vector<extremes> all(static_cast<std::size_t>(pgas::threads()));
    pgas::allgather(mine, std::span(all));
    extremes e;
    for (const extremes& x : all) {
      for (int i = 0; i < x.highs; ++i)
        e.offer(x.high[i]);
      for (int i = 0; i < x.lows; ++i)
        e.offer(x.low[i]);
    }
    charge_planes(v, n, lo_[lt_], hi_[lt_], e);
    comm3(v_[0], lt_);
  }

  int top() const { return lt_; }
  void zero_top() { zero_u(lt_); }

  void residual(int k, bool top) {
    const piece &u = u_[k - 1].mine, &r = r_[k - 1].mine, &v = top ? v_[0].mine : r;
    for (idx i3 = lo_[k]; i3 < hi_[k]; ++i3)
      resid_plane(u, v, r, edge_of(k), i3);
    comm3(r_[k - 1], k);
  }
  void smooth(int k) {
    for (idx i3 = lo_[k]; i3 < hi_[k]; ++i3)
      psinv_plane(r_[k - 1].mine, u_[k - 1].mine, edge_of(k), i3);
    comm3(u_[k - 1], k);
  }
  void restrict_to(int k) {
    for (idx j3 = lo_[k - 1]; j3 < hi_[k - 1]; ++j3)
      rprj3_plane(r_[k - 1].mine, r_[k - 2].mine, edge_of(k - 1), j3);
    comm3(r_[k - 2], k - 1);
  }
  // The thread's planes and ghost planes, from its coarse planes and ghost planes: no
  // exchange after it (as NAS's interp, which computes the ghosts too).
  void prolong(int k) {
    for (idx f = lo_[k] - 1; f <= hi_[k]; ++f)
      interp_plane(u_[k - 2].mine, u_[k - 1].mine, edge_of(k - 1), f);
  }
  void zero_u(int k) {
    const piece& u = u_[k - 1].mine;
    std::fill_n(u.base(), u.size(), 0.0);
  }
  double norm() const {
    struct parts {
      double sum = 0, peak = 0;
    } p;
    const idx m = edge_of(lt_);
    for (idx i3 = lo_[lt_]; i3 < hi_[lt_]; ++i3)
      norm_plane(r_[lt_ - 1].mine, m, i3, p.sum, p.peak);
    p = pgas::allreduce(p, [](const parts& a, const parts& b) {
      return parts{a.sum + b.sum, std::max(a.peak, b.peak)};
    });
    const auto n = static_cast<double>(m - 2);
    return std::sqrt(p.sum / (n * n * n));
  }

 private:
  // NAS's comm3 on level k: the ghosts along i1 and i2 of the thread's planes, a barrier
  // (every thread's planes are final), then its two ghost planes copied whole from the threads
  // that own them, periodic images across the grid's faces. Every thread writes only its own
  // piece here and after; another thread may still copy from this piece's planes once this
  // returns, so the next write to them waits for the next exchange's barrier: every operator
  // after an exchange writes another array than the one exchanged (see vcycle), and the
  // timed loop's own barriers end each repetition.
  void comm3(const slab& s, int k) {
    const idx m = edge_of(k);
    for (idx i3 = lo_[k]; i3 < hi_[k]; ++i3)
      ghost_plane(s.mine, m, i3);
    pgas::barrier();
    for (const idx g : {lo_[k] - 1, hi_[k]}) {
      const idx w = g == 0 ? m - 2 : g == m - 1 ? 1 : g;  // the plane ghost g copies
      const std::vector<idx>& b = bounds_[k];
      const auto t = std::upper_bound(b.begin(), b.end(), w) - b.begin() - 1;
      pgas::copy(s.mine.constrict(planes_of(g, g + 1, m)),
                 s.own[static_cast<std::size_t>(t)].translate(pgas::point<3>(g - w, 0, 0)));
    }
  }

  int lt_;
  std::vector<std::vector<idx>> bounds_;
  std::vector<idx> lo_, hi_;  // the thread's planes of each level
  std::vector<slab> u_, r_;   // levels 1 … lt at [k - 1]
  std::vector<slab> v_;       // the finest level's right-hand side
};

int job_body(const npb::npb_args& args, const mg_class& c) {
  nd_levels g(c.n);
  outcome o;
  const pk::timing t = pk::time_reps(
      args.run.reps, [&] { check_norm(o, c, benchmark(g, g.top(), c.nit)); },
      [] { pgas::barrier(); }, [&] { g.zero_top(); });
  return pgas::mythread() == 0 ? report(args, c, pgas::threads(), t, o) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const npb::npb_args args = npb::parse_npb_args(
      argc, argv, "npb_mg",
      "NAS MG: V-cycle multigrid on a periodic 3-D grid (class S 32^3, W 128^3, A 256^3; 4 "
      "V-cycles), verified against NAS's L2 norm of the residual",
      "SWA", [](char c) { return static_cast<std::size_t>(class_of(c).n); });
  const mg_class& c = class_of(args.cls);
  if (args.run.variant == "seq") return run_plain<false>(args, c);
  if (args.run.variant == "openmp") return run_plain<true>(args, c);
  return pgas::run(argc, argv, [&] { return job_body(args, c); });
}
