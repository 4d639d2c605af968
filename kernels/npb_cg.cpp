// kernels/npb_cg.cpp — NAS CG (NPB report RNR-94-007, "conjugate gradient"): the inverse power
// method estimates the smallest eigenvalue of a sparse symmetric positive definite matrix A
// of order na. Each of niter outer iterations solves A z = x by 25 unpreconditioned conjugate
// gradient iterations, sets zeta = shift + 1 / (x · z) and x = z / ||z||; the run verifies when
// the last zeta is NAS's published value for the class within 1e-10. A is NAS's makea: the
// sum of na outer products of sparse random vectors (nonzer random entries and 0.5 at the
// row's own place) scaled by rcond^(i/na), plus (rcond - shift) on the diagonal.
// Variants (kernels/npb_common.hpp): seq and openmp on a plain CSR matrix; ndarray with the
// rows of A and the vectors' pieces by blocks of rows, each thread's in its own segment as
// pgas::ndarray, p gathered from the other pieces with pgas::copy before each product and the
// dot products through pgas::allreduce. Entry point: main(); the ndarray variant runs in job().
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

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
void conj_grad_seq(const csr& m, plain_vectors& v) {
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
// product a reduction (NAS's own OpenMP version is shaped so).
double benchmark_openmp(const cg_class& c, const csr& m, plain_vectors& v, int threads) {
  const int n = m.n;
  const rows_view rows{m.rowstr.data(), m.colidx.data(), m.a.data()};
  double *x = v.x.data(), *z = v.z.data(), *p = v.p.data(), *q = v.q.data(), *r = v.r.data();
  double zeta = 0.0;
  double rho = 0.0, d = 0.0, xz = 0.0, zz = 0.0;  // shared: the reductions' targets
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
        d = 0.0;
#pragma omp for schedule(static) reduction(+ : d)
        for (int j = 0; j < n; ++j) {
          q[j] = rows.times(p, j);
          d += p[j] * q[j];
        }
        const double alpha = rho / d;
        const double rho0 = rho;
#pragma omp barrier
#pragma omp single
        rho = 0.0;
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

}  // namespace

int main(int argc, char** argv) {
  const npb::npb_args a = npb::parse_npb_args(
      argc, argv, "npb_cg",
      "NAS CG: the smallest eigenvalue of NAS's sparse symmetric matrix by the inverse power "
      "method, 25 conjugate gradient iterations per outer iteration (size: the order na).",
      "SWA", [](char c) { return static_cast<std::size_t>(class_of(c).na); });
  if (a.run.variant == "seq") return run_seq(a);
  if (a.run.variant == "openmp") return run_openmp(a);
  std::fprintf(stderr, "npb_cg: variant %s is not written yet\n", a.run.variant.c_str());
  return 2;
}
