// kernels/stencil5.cpp — the 5-point stencil of the paper behind the locality cuts ("Locality
// Analysis and Privatization", `shared [100][100] double A[6000][6000]`): `steps` Jacobi sweeps
// over a size x size grid of doubles declared `shared [b][b] double G[n][n]` (tile k, row-major
// in tile order, on thread k % THREADS), each interior point becoming the mean of itself and its
// four neighbours (N, W, E, S), out of place into a second grid of the same layout, the border
// fixed. A point on a tile's edge needs the neighbouring tile's edge, another thread's unless
// THREADS is 1.
// Variants (kernels/harness.hpp, cut_variants): seq and openmp on plain arrays; naive (the
// paper's non-optimised form: for each row, a forall over its points with affinity &G[i][j],
// every access through the general path), privatized (its optimised form by hand: a tile's
// inner points through plain pointers, its edge points through the general path) and cut (the
// same through pgas::forall_cuts). Entry point: main(); the PGAS variants run in job_body().
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <pgas/pgas.hpp>

#include "dense.hpp"
#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;
using pk::kernel_args;
using pk::timing;
using grid = pgas::shared_array<double, 2>;

// Sweeps per run: enough that a run is dominated by the sweeps, not by the barrier before it.
constexpr int steps = 10;

// The new value of a point from its column neighbours `n` and `s`, its row neighbours `w` and
// `e` and itself `c`: every variant adds in this order, so every variant computes the same bits.
inline double point(double n, double w, double c, double e, double s) {
  return (n + w + c + e + s) * 0.2;
}

// The initial grid: a smooth hill plus a ripple, in [0, 2).
double initial(std::size_t i, std::size_t j, std::size_t n) {
  const double x = static_cast<double>(i) / static_cast<double>(n);
  const double y = static_cast<double>(j) / static_cast<double>(n);
  return 1.0 + std::sin(3.0 * x) * std::cos(2.0 * y) * 0.5 + 0.25 * ((i * 7 + j * 13) % 5) / 4.0;
}

// The expected grid after `steps` sweeps, computed apart from every variant.
std::vector<double> reference(std::size_t n) {
  std::vector<double> a(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      a[i * n + j] = initial(i, j, n);
  std::vector<double> b = a;
  for (int s = 0; s < steps; ++s) {
    for (std::size_t i = 1; i + 1 < n; ++i) {
      for (std::size_t j = 1; j + 1 < n; ++j) {
        b[i * n + j] = point(a[(i - 1) * n + j], a[i * n + j - 1], a[i * n + j], a[i * n + j + 1],
                             a[(i + 1) * n + j]);
      }
    }
    std::swap(a, b);
  }
  return a;
}

// True when every point (through get(i, j)) is the reference's; names the first that is not.
template <class Get>
bool verify(std::size_t n, Get&& get) {
  const std::vector<double> want = reference(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (std::abs(get(i, j) - want[i * n + j]) > 1e-12) {
        std::fprintf(stderr, "stencil5: G[%zu][%zu] = %.17g, expected %.17g\n", i, j, get(i, j),
                     want[i * n + j]);
        return false;
      }
    }
  }
  return true;
}

int report(const kernel_args& a, int threads, const timing& t, std::size_t tile, bool ok) {
  const double inner = static_cast<double>(a.size - 2);
  nlohmann::ordered_json e = pk::gflops_fields(5.0 * steps * inner * inner, t, threads);
  e["tile"] = tile;
  e["steps"] = steps;
  return pk::print_result(a, threads, t, ok, e);
}

// --- seq and openmp: plain arrays, no runtime ----------------------------------------------

// Interior row i of `out` from `in` (row-major n x n): the loop every plain variant runs, and
// the one that vectorises.
void plain_row(const double* in, double* out, std::size_t n, std::size_t i) {
  const double *up = in + (i - 1) * n, *row = in + i * n, *down = in + (i + 1) * n;
  double* o = out + i * n;
  for (std::size_t j = 1; j + 1 < n; ++j)
    o[j] = point(up[j], row[j - 1], row[j], row[j + 1], down[j]);
}

int run_plain(const kernel_args& args, std::size_t bs) {
  const std::size_t n = args.size;
  const bool seq = args.variant == "seq";
  const int nt = seq ? 1 : pk::openmp_threads();
  pk::plain_vector<double> g0(n * n), g1(n * n);
  // First touch by the thread that computes the row (openmp), both grids with the border.
#pragma omp parallel for schedule(static) num_threads(nt)
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      g0[i * n + j] = g1[i * n + j] = initial(i, j, n);
  }
  double *in = g0.data(), *out = g1.data();
  std::function<void()> once;
  if (seq) {
    once = [&] {
      for (int s = 0; s < steps; ++s) {
        for (std::size_t i = 1; i + 1 < n; ++i)
          plain_row(in, out, n, i);
        std::swap(in, out);
      }
    };
  } else {
    // What an OpenMP user writes: the rows of each sweep shared out statically.
    once = [&] {
      for (int s = 0; s < steps; ++s) {
#pragma omp parallel for schedule(static) num_threads(nt)
        for (std::size_t i = 1; i < n - 1; ++i)
          plain_row(in, out, n, i);
        std::swap(in, out);
      }
    };
  }
  once();
  const bool ok = verify(n, [&](std::size_t i, std::size_t j) { return in[i * n + j]; });
  const timing t = pk::time_reps(args.reps, once);
  return report(args, nt, t, bs, ok);
}

// --- the PGAS variants ---------------------------------------------------------------------

// Point (i, j) of `out` with every neighbour through the general path, G(i, j).
void general_point(const grid& in, const grid& out, std::size_t i, std::size_t j) {
  out(i, j) = point(in(i - 1, j), in(i, j - 1), in(i, j), in(i, j + 1), in(i + 1, j));
}

// naive: the paper's non-optimised form as UPC writes it — for each interior row,
// upc_forall (j = 1; j < n - 1; j++; &out[i][j]), every access through the general path.
void sweep_naive(const grid& in, const grid& out, std::size_t n) {
  for (std::size_t i = 1; i + 1 < n; ++i) {
    pgas::forall(
        std::size_t{1}, n - 1, [&](std::size_t j) { return out.ptr(i, j); },
        [&](std::size_t j) { general_point(in, out, i, j); });
  }
}

// The interior columns [c0, c1) of the calling thread's tile (ti, tj) and its interior rows
// [r0, r1), tile-relative: the grid's border (fixed) left out.
struct tile_box {
  std::size_t r0, r1, c0, c1;
};
tile_box box_of(std::size_t ti, std::size_t tj, std::size_t bs, std::size_t n) {
  const std::size_t last = n / bs - 1;
  const std::size_t one = 1, none = 0;
  return {ti == 0 ? one : none, ti == last ? bs - 1 : bs, tj == 0 ? one : none,
          tj == last ? bs - 1 : bs};
}

// privatized: the optimised form by hand. For each tile the thread owns (tile k = me, me +
// THREADS, …; a tile stored whole and row-major, b x b), every point through plain pointers
// into the tile, with the tile's index arithmetic written out, except the neighbours beyond its
// edge: the rows above and below it copied into `halo` through the general path (b reads each,
// once per tile and sweep), and the point left and right of each row read through it too.
void sweep_privatized(const grid& in, const grid& out, std::size_t n, std::size_t bs,
                      double* halo) {
  const std::size_t per_row = n / bs;
  const auto threads = static_cast<std::size_t>(pgas::threads());
  for (auto k = static_cast<std::size_t>(pgas::mythread()); k < per_row * per_row; k += threads) {
    const std::size_t ti = k / per_row, tj = k % per_row, i0 = ti * bs, j0 = tj * bs;
    const double* t_in = pgas::to_local(in.ptr(i0, j0));
    double* t_out = pgas::to_local(out.ptr(i0, j0));
    const tile_box box = box_of(ti, tj, bs, n);
    if (box.r0 >= box.r1 || box.c0 >= box.c1) continue;  // a tile of the border only
    if (ti > 0) {
      for (std::size_t c = box.c0; c < box.c1; ++c)
        halo[c] = in(i0 - 1, j0 + c);
    }
    if (ti + 1 < per_row) {
      for (std::size_t c = box.c0; c < box.c1; ++c)
        halo[bs + c] = in(i0 + bs, j0 + c);
    }
    for (std::size_t r = box.r0; r < box.r1; ++r) {
      const double* row = t_in + r * bs;
      const double* up = r == 0 ? halo : row - bs;
      const double* down = r + 1 == bs ? halo + bs : row + bs;
      double* o = t_out + r * bs;
      const std::size_t c0 = std::max<std::size_t>(box.c0, 1), c1 = std::min(box.c1, bs - 1);
      if (box.c0 < c0) {  // column 0 of a tile not on the border: its west neighbour's
        const double e = bs > 1 ? row[1] : in(i0 + r, j0 + 1);
        o[0] = point(up[0], in(i0 + r, j0 - 1), row[0], e, down[0]);
      }
      for (std::size_t c = c0; c < c1; ++c)
        o[c] = point(up[c], row[c - 1], row[c], row[c + 1], down[c]);
      if (c1 < box.c1 && (bs > 1 || box.c0 == c0)) {  // column b - 1: its east neighbour's
        const std::size_t c = bs - 1;
        const double w = bs > 1 ? row[c - 1] : in(i0 + r, j0 - 1);
        o[c] = point(up[c], w, row[c], in(i0 + r, j0 + bs), down[c]);
      }
    }
  }
}

// cut: the same sweep through the locality cuts — the interior as one box, the five accesses
// as offsets; each run of a tile reads one tile per access through plain pointers, the runs
// along a tile's edge the neighbouring tile (another thread's: plain memory too, reported to
// element tracing).
void sweep_cut(const grid& in, const grid& out, std::size_t n) {
  pgas::forall_cuts(
      in, pgas::box{{1, n - 1}, {1, n - 1}},
      pgas::offsets{{-1, 0}, {0, -1}, {0, 0}, {0, 1}, {1, 0}},
      [](auto e, std::size_t, std::size_t, double& o) { o = point(e[0], e[1], e[2], e[3], e[4]); },
      out);
}

int job_body(const kernel_args& args, std::size_t bs) {
  const std::size_t n = args.size;
  const pgas::block_spec spec = pgas::block_spec::tiles({bs, bs});  // shared [b][b] double
  const grid g0({n, n}, spec), g1({n, n}, spec);
  pgas::trace_name(g0.ptr(0, 0).get(), "grid 0");  // as pgas-trace names them
  pgas::trace_name(g1.ptr(0, 0).get(), "grid 1");
  const auto init = [n](double& x, const grid::index_type& ix) { x = initial(ix[0], ix[1], n); };
  g0.for_each_mine(init);
  g1.for_each_mine(init);
  pgas::barrier();

  const grid *in = &g0, *out = &g1;
  std::vector<double> halo(2 * bs);  // privatized's rows above and below a tile
  std::function<void(const grid&, const grid&)> sweep;
  if (args.variant == "naive") {
    sweep = [&](const grid& from, const grid& to) { sweep_naive(from, to, n); };
  } else if (args.variant == "cut") {
    sweep = [&](const grid& from, const grid& to) { sweep_cut(from, to, n); };
  } else {
    sweep = [&](const grid& from, const grid& to) {
      sweep_privatized(from, to, n, bs, halo.data());
    };
  }
  // `steps` sweeps, a barrier after each (the next reads the neighbours' edges); `in` ends on
  // the latest grid.
  const auto once = [&] {
    for (int s = 0; s < steps; ++s) {
      sweep(*in, *out);
      pgas::barrier();
      std::swap(in, out);
    }
  };
  once();
  bool ok = true;
  if (pgas::mythread() == 0)
    ok = verify(n, [&](std::size_t i, std::size_t j) { return (*in)(i, j); });
  pgas::barrier();
  const timing t = pk::time_reps(args.reps, once, [] { pgas::barrier(); });
  return pgas::mythread() == 0 ? report(args, pgas::threads(), t, bs, ok) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  pk::tile_option tile;
  const kernel_args args = pk::parse_kernel_args(
      argc, argv, "stencil5",
      "The 5-point stencil: 10 Jacobi sweeps over a size x size grid declared shared [b][b] "
      "double, each interior point the mean of itself and its 4 neighbours",
      2048, 3, pk::cut_variants, [&](CLI::App& app) { tile.add_to(app); });
  tile.check(args);
  if (args.variant == "seq" || args.variant == "openmp") return run_plain(args, tile.tile);
  return pgas::run(argc, argv, [&] { return job_body(args, tile.tile); });
}
