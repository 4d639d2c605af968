// kernels/npb_cg.cpp — NAS CG (NPB report RNR-94-007, "conjugate gradient"): the inverse power
// method estimates the smallest eigenvalue of a sparse symmetric positive definite matrix A
// of order na. Each of niter outer iterations solves A z = x by 25 unpreconditioned conjugate
// gradient iterations, sets zeta = shift + 1 / (x · z) and x = z / ||z||; the run verifies when
// the last zeta is NAS's published value for the class within 1e-10. A is NAS's makea: the
// sum of na outer products of sparse random vectors (nonzer random entries and 0.5 at the
// row's own place) scaled by rcond^(i/na), plus (rcond - shift) on the diagonal.
// Variants (kernels/npb_common.hpp): seq and openmp on a plain CSR matrix; ndarray with the
// rows of A and the vectors' pieces by blocks of rows, each thread's in its own segment as
// pgas::ndarray, the other threads' pieces of r gathered with pgas::copy to update p whole
// before each product, and the dot products through pgas::allreduce. Entry point: main(); the
// ndarray variant runs in job().
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
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
namespace npb = pgas::kernels::npb;

// NAS's classes: order, random entries per generated vector, outer iterations, the shift and
// the published zeta.
struct cg_class {
  char name;
  int na, nonzer, niter;
  double shift, zeta;
};
constexpr cg_class classes[] = {
    {'S', 1400, 7, 15, 10.0, 8.5971775078648},
    {'W', 7000, 8, 15, 12.0, 10.362595087124},
    {'A', 14000, 11, 15, 20.0, 17.130235054029},
};
const cg_class& class_of(char c) {
  return *std::find_if(std::begin(classes), std::end(classes),
                       [&](const cg_class& k) { return k.name == c; });
}

constexpr double rcond = 0.1;  // the condition number's reciprocal NAS fixes
constexpr int cg_iterations = 25;
constexpr double zeta_tolerance = 1e-10;

// A in compressed sparse rows (columns sorted within a row).
struct csr {
  int n = 0;
  std::vector<int> rowstr;  // n + 1 offsets into colidx and a
  std::vector<int> colidx;
  std::vector<double> a;
};

// Rows of A where every variant reads them: the product loops of all variants.
struct rows_view {
  const int* rowstr;  // offsets of the rows, rowstr[0] not necessarily 0
  const int* colidx;
  const double* a;

  // Row j of A times p (p indexed by column).
  double times(const double* p, int j) const {
    double s = 0.0;
    for (int k = rowstr[j]; k < rowstr[j + 1]; ++k)
      s += a[k] * p[colidx[k]];
    return s;
  }
};

// NAS's sprnvc then vecset for vector `row`: `nonzer` distinct random places in [0, n) with
// random values (each a value then a place drawn from `tran`; places drawn as an integer below
// the power of two nn1 >= n, those past n or already drawn skipped), then 0.5 at `row`
// (replacing a random value drawn there).
void sparse_vector(int n, int nn1, int nonzer, int row, double& tran, std::vector<int>& place,
                   std::vector<double>& value) {
  place.clear();
  value.clear();
  while (static_cast<int>(place.size()) < nonzer) {
    const double v = npb::randlc(tran, npb::amult);
    const double where = npb::randlc(tran, npb::amult);
    const int i = static_cast<int>(nn1 * where);
    if (i >= n || std::find(place.begin(), place.end(), i) != place.end()) continue;
    place.push_back(i);
    value.push_back(v);
  }
  const auto self = std::find(place.begin(), place.end(), row);
  if (self != place.end()) {
    value[self - place.begin()] = 0.5;
  } else {
    place.push_back(row);
    value.push_back(0.5);
  }
}

// NAS's makea. Each element of A is the sum of its contributions in the order of the vectors
// that make them (NAS inserts into sorted rows and adds in that order): a stable sort of the
// contributions by place then a left sum gives the same bits.
csr make_matrix(const cg_class& c) {
  const int n = c.na;
  double tran = npb::seed;
  npb::randlc(tran, npb::amult);  // NAS draws one value (its first zeta) before the matrix
  int nn1 = 1;
  while (nn1 < n)
    nn1 *= 2;
  struct contribution {
    int row, col;
    double v;
  };
  std::vector<contribution> parts;
  parts.reserve(static_cast<std::size_t>(n) * (c.nonzer + 1) * (c.nonzer + 1));
  std::vector<int> place;
  std::vector<double> value;
  const double ratio = std::pow(rcond, 1.0 / n);
  double size = 1.0;
  for (int i = 0; i < n; ++i) {
    sparse_vector(n, nn1, c.nonzer, i, tran, place, value);
    for (std::size_t r = 0; r < place.size(); ++r) {
      const double scale = size * value[r];
      for (std::size_t k = 0; k < place.size(); ++k) {
        double v = value[k] * scale;
        if (place[k] == place[r] && place[r] == i) v = v + rcond - c.shift;
        parts.push_back({place[r], place[k], v});
      }
    }
    size *= ratio;
  }
  std::stable_sort(parts.begin(), parts.end(), [](const contribution& x, const contribution& y) {
    return x.row != y.row ? x.row < y.row : x.col < y.col;
  });
  csr m;
  m.n = n;
  m.rowstr.assign(n + 1, 0);
  for (std::size_t k = 0; k < parts.size();) {
    double sum = 0.0;
    std::size_t e = k;
    for (; e < parts.size() && parts[e].row == parts[k].row && parts[e].col == parts[k].col; ++e)
      sum += parts[e].v;
    m.colidx.push_back(parts[k].col);
    m.a.push_back(sum);
    ++m.rowstr[parts[k].row + 1];
    k = e;
  }
  for (int i = 0; i < n; ++i)
    m.rowstr[i + 1] += m.rowstr[i];
  return m;
}

// Mop/s as NAS counts them: per outer iteration, the 25 CG iterations and the products around
// them, in multiply-adds of the matrix's nominal density.
double operations(const cg_class& c) {
  const double nz = static_cast<double>(c.nonzer) * (c.nonzer + 1);
  return 2.0 * c.niter * c.na * (3.0 + nz + 25.0 * (5.0 + nz) + 3.0);
}

int report(const npb::npb_args& a, int threads, const pk::timing& t, double zeta) {
  const cg_class& c = class_of(a.cls);
  const bool ok = std::abs(zeta - c.zeta) <= zeta_tolerance;
  if (!ok)
    std::fprintf(stderr, "npb_cg: zeta = %.13f, NAS's class %c value %.13f\n", zeta, a.cls, c.zeta);
  nlohmann::ordered_json extra;
  extra["zeta"] = zeta;
  extra["niter"] = c.niter;
  return npb::print_npb_result(a, threads, t, ok, operations(c), extra);
}

// --- seq: plain arrays, one thread ---------------------------------------------------------

// The CG vectors of the plain variants.
struct plain_vectors {
  pk::plain_vector<double> x, z, p, q, r;
  explicit plain_vectors(int n) : x(n), z(n), p(n), q(n), r(n) {}
};

// One outer iteration's 25 CG iterations: z ≈ A^-1 x.
// Kept out of line: inlined into the benchmark loop, GCC spilled the product loop's pointers
// and reloaded one from the stack on every element.
[[gnu::noinline]] void conj_grad_seq(const csr& m, plain_vectors& v) {
  const int n = m.n;
  const rows_view rows{m.rowstr.data(), m.colidx.data(), m.a.data()};
  double *x = v.x.data(), *z = v.z.data(), *p = v.p.data(), *q = v.q.data(), *r = v.r.data();
  double rho = 0.0;
  for (int j = 0; j < n; ++j) {
    z[j] = 0.0;
    r[j] = p[j] = x[j];
    rho += r[j] * r[j];
  }
  for (int it = 0; it < cg_iterations; ++it) {
    double d = 0.0;
    for (int j = 0; j < n; ++j) {
      q[j] = rows.times(p, j);
      d += p[j] * q[j];
    }
    const double alpha = rho / d;
    const double rho0 = rho;
    rho = 0.0;
    for (int j = 0; j < n; ++j) {
      z[j] += alpha * p[j];
      r[j] -= alpha * q[j];
      rho += r[j] * r[j];
    }
    const double beta = rho / rho0;
    for (int j = 0; j < n; ++j)
      p[j] = r[j] + beta * p[j];
  }
}

// The whole benchmark from x = 1: niter outer iterations; returns the last zeta.
double benchmark_seq(const cg_class& c, const csr& m, plain_vectors& v) {
  const int n = m.n;
  std::fill(v.x.begin(), v.x.end(), 1.0);
  double zeta = 0.0;
  for (int it = 0; it < c.niter; ++it) {
    conj_grad_seq(m, v);
    double xz = 0.0, zz = 0.0;
    for (int j = 0; j < n; ++j) {
      xz += v.x[j] * v.z[j];
      zz += v.z[j] * v.z[j];
    }
    zeta = c.shift + 1.0 / xz;
    const double scale = 1.0 / std::sqrt(zz);
    for (int j = 0; j < n; ++j)
      v.x[j] = scale * v.z[j];
  }
  return zeta;
}

int run_seq(const npb::npb_args& a) {
  const cg_class& c = class_of(a.cls);
  const csr m = make_matrix(c);
  plain_vectors v(m.n);
  double zeta = 0.0;
  const pk::timing t = pk::time_reps(a.run.reps, [&] { zeta = benchmark_seq(c, m, v); });
  return report(a, 1, t, zeta);
}

// --- openmp: the same loops as an OpenMP user writes them --------------------------------

// The benchmark in one parallel region: every loop over rows shared statically, every dot
// product a reduction (NAS's own OpenMP version is shaped so): four barriers per CG iteration,
// the loops' own and the one after the reset of the reductions' targets.
double benchmark_openmp(const cg_class& c, const csr& m, plain_vectors& v, int threads) {
  const int n = m.n;
  const rows_view rows{m.rowstr.data(), m.colidx.data(), m.a.data()};
  double *x = v.x.data(), *z = v.z.data(), *p = v.p.data(), *q = v.q.data(), *r = v.r.data();
  double zeta = 0.0;
  double rho = 0.0, rho0 = 0.0, d = 0.0, xz = 0.0, zz = 0.0;  // shared: reductions' targets
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (int j = 0; j < n; ++j)
      x[j] = 1.0;
    for (int outer = 0; outer < c.niter; ++outer) {
#pragma omp single
      rho = 0.0;
#pragma omp for schedule(static) reduction(+ : rho)
      for (int j = 0; j < n; ++j) {
        z[j] = 0.0;
        r[j] = p[j] = x[j];
        rho += r[j] * r[j];
      }
      for (int it = 0; it < cg_iterations; ++it) {
#pragma omp single
        {
          rho0 = rho;  // every thread read rho before the last loop's barrier
          d = rho = 0.0;
        }
#pragma omp for schedule(static) reduction(+ : d)
        for (int j = 0; j < n; ++j) {
          q[j] = rows.times(p, j);
          d += p[j] * q[j];
        }
        const double alpha = rho0 / d;
#pragma omp for schedule(static) reduction(+ : rho)
        for (int j = 0; j < n; ++j) {
          z[j] += alpha * p[j];
          r[j] -= alpha * q[j];
          rho += r[j] * r[j];
        }
        const double beta = rho / rho0;
#pragma omp for schedule(static)
        for (int j = 0; j < n; ++j)
          p[j] = r[j] + beta * p[j];
      }
#pragma omp single
      xz = zz = 0.0;
#pragma omp for schedule(static) reduction(+ : xz, zz)
      for (int j = 0; j < n; ++j) {
        xz += x[j] * z[j];
        zz += z[j] * z[j];
      }
      const double scale = 1.0 / std::sqrt(zz);
#pragma omp for schedule(static)
      for (int j = 0; j < n; ++j)
        x[j] = scale * z[j];
#pragma omp single nowait
      zeta = c.shift + 1.0 / xz;
    }
  }
  return zeta;
}

int run_openmp(const npb::npb_args& a) {
  const cg_class& c = class_of(a.cls);
  const int threads = pk::openmp_threads();
  const csr m = make_matrix(c);
  plain_vectors v(m.n);
  double zeta = 0.0;
  const pk::timing t =
      pk::time_reps(a.run.reps, [&] { zeta = benchmark_openmp(c, m, v, threads); });
  return report(a, threads, t, zeta);
}

// --- ndarray: every thread's rows and vector pieces in its own segment --------------------

template <class T>
using piece = pgas::ndarray<T, 1, pgas::local, pgas::simple>;

pgas::rectdomain<1> span(pgas::nd_index lo, pgas::nd_index hi) {
  return {pgas::point<1>(lo), pgas::point<1>(hi)};
}

// The calling thread's rows [lo, hi) of A, copied into its segment: offsets from its first
// row's (indexed by row - lo), and its columns and values.
struct owned_rows {
  piece<int> rowstr, colidx;
  piece<double> a;

  owned_rows(const csr& m, int lo, int hi)
      : rowstr(span(0, hi - lo + 1)),
        colidx(span(0, m.rowstr[hi] - m.rowstr[lo])),
        a(span(0, m.rowstr[hi] - m.rowstr[lo])) {
    const int first = m.rowstr[lo];
    for (int j = lo; j <= hi; ++j)
      rowstr(j - lo) = m.rowstr[j] - first;
    for (int k = first; k < m.rowstr[hi]; ++k) {
      colidx(k - first) = m.colidx[k];
      a(k - first) = m.a[k];
    }
  }
  rows_view view() const { return {rowstr.base(), colidx.base(), a.base()}; }
};

// The job: rows [lo, hi) of A and of every vector are the thread's (n * t / THREADS onwards).
// p is kept whole on every thread (p_all, in its segment) and updated whole by each: p = r +
// beta p needs every row of r, so once r · r is summed each thread copies the others' pieces of
// r into r_all (its own rows are its piece) and updates all n rows of p itself (2 n flops, a
// fraction of the product's). A CG iteration then waits only in its two allreduces (p · q and
// r · r): the second orders every piece of r before the copies, the first (of the next
// iteration) keeps a piece from changing before every thread has copied it.
int job(const npb::npb_args& args, const csr& m) {
  const cg_class& c = class_of(args.cls);
  const int me = pgas::mythread(), threads = pgas::threads(), n = m.n;
  const int lo = static_cast<int>(static_cast<long>(n) * me / threads);
  const int hi = static_cast<int>(static_cast<long>(n) * (me + 1) / threads);
  const owned_rows mine(m, lo, hi);
  const rows_view rows = mine.view();
  const piece<double> x(span(lo, hi)), z(span(lo, hi)), q(span(lo, hi));
  const piece<double> p_all(span(0, n)), r_all(span(0, n));
  const piece<double> p = p_all.constrict(span(lo, hi)), r = r_all.constrict(span(lo, hi));
  const std::vector<pgas::ndarray<double, 1>> r_pieces = pgas::exchange(r);
  const double* p_whole = p_all.base();  // p_all's domain starts at 0: indexed by column

  // After the r · r that follows r's last change: r_all whole, then p = r + beta p on all rows.
  const auto update_p = [&](double beta) {
    for (int t = 0; t < threads; ++t) {
      if (t != me) pgas::copy(r_all, r_pieces[t]);
    }
    for (int j = 0; j < n; ++j)
      p_all(j) = r_all(j) + beta * p_all(j);
  };
  const auto sum = [](double v) { return pgas::allreduce(v, std::plus<>{}); };
  using pair = std::array<double, 2>;
  const auto sum_pair = [](const pair& u) {
    return pgas::allreduce(u, [](const pair& s, const pair& t) {
      return pair{s[0] + t[0], s[1] + t[1]};
    });
  };
  double zeta = 0.0;
  const auto run = [&] {
    for (int j = lo; j < hi; ++j)
      x(j) = 1.0;
    for (int outer = 0; outer < c.niter; ++outer) {
      double rho = 0.0;
      for (int j = lo; j < hi; ++j) {
        z(j) = 0.0;
        r(j) = x(j);
        rho += r(j) * r(j);
      }
      rho = sum(rho);
      update_p(0.0);  // p = r
      for (int it = 0; it < cg_iterations; ++it) {
        double d = 0.0;
        for (int j = lo; j < hi; ++j) {
          q(j) = rows.times(p_whole, j - lo);
          d += p(j) * q(j);
        }
        const double alpha = rho / sum(d);
        const double rho0 = rho;
        rho = 0.0;
        for (int j = lo; j < hi; ++j) {
          z(j) += alpha * p(j);
          r(j) -= alpha * q(j);
          rho += r(j) * r(j);
        }
        rho = sum(rho);
        update_p(rho / rho0);
      }
      pair xz_zz{0.0, 0.0};
      for (int j = lo; j < hi; ++j) {
        xz_zz[0] += x(j) * z(j);
        xz_zz[1] += z(j) * z(j);
      }
      xz_zz = sum_pair(xz_zz);
      zeta = c.shift + 1.0 / xz_zz[0];
      const double scale = 1.0 / std::sqrt(xz_zz[1]);
      for (int j = lo; j < hi; ++j)
        x(j) = scale * z(j);
    }
  };
  const pk::timing t = pk::time_reps(args.run.reps, run, [] { pgas::barrier(); });
  return me == 0 ? report(args, threads, t, zeta) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const npb::npb_args a = npb::parse_npb_args(
      argc, argv, "npb_cg",
      "NAS CG: the smallest eigenvalue of NAS's sparse symmetric matrix by the inverse power "
      "method, 25 conjugate gradient iterations per outer iteration (size: the order na).",
      "SWA", [](char c) { return static_cast<std::size_t>(class_of(c).na); });
  if (a.run.variant == "seq") return run_seq(a);
  if (a.run.variant == "openmp") return run_openmp(a);
  const csr m = make_matrix(class_of(a.cls));
  return pgas::run(argc, argv, [&] { return job(a, m); });
}
