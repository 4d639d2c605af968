// kernels/matvec.cpp — dense matrix-vector multiply y = A·x (the paper behind the locality cuts,
// "Locality Analysis and Privatization"), on a size x size double matrix declared
// `shared [b][n] double A[n][n]`: tiles of b whole rows, tile k on thread k % THREADS (the
// paper's `shared [*]` is the case b = n / THREADS). x and y are `shared [b] double x[n], y[n]`:
// block k of each on thread k % THREADS, the thread that owns rows [k*b, (k+1)*b) of A, so that
// y[i] lives with row i and a thread computes its own y from its own rows and all of x.
// Variants (kernels/harness.hpp, cut_variants): seq, naive (A(i, j) and x(j) per element),
// privatized (own rows and y through plain pointers, x copied whole), cut (the same through the
// locality cuts' plans: pgas/cuts.hpp) and openmp. Entry point: main(); the PGAS variants run in
// job_body().
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "dense.hpp"
#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;
using pk::kernel_args;
using pk::timing;
using matrix = pgas::shared_array<double, 2>;
using vector = pgas::shared_array<double, 1>;

// Inputs: small integers, so that every product and every sum is exact in double (|a·x| <= 56,
// 56 x 2^20 < 2^53): every variant adds in its own order and still agrees exactly with seq.
double a_value(std::size_t i, std::size_t j) {
  return static_cast<double>(static_cast<int>((i * 31 + j * 17) % 17) - 8);
}
double x_value(std::size_t j) {
  return static_cast<double>(static_cast<int>((j * 13) % 15) - 7);
}

// Row `a` (n elements) times x: one dot product, vectorised (exact inputs: any order of the
// sum gives the same bits).
double dot(const double* a, const double* x, std::size_t n) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (std::size_t j = 0; j < n; ++j)
    s += a[j] * x[j];
  return s;
}

// The inputs as plain row-major arrays, and the product seq computes from them: every variant
// is checked against it.
struct plain_inputs {
  std::size_t n;
  pk::plain_vector<double> a, x, y;
  explicit plain_inputs(std::size_t size) : n(size), a(size * size), x(size), y(size) {
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = x_value(i);
      for (std::size_t j = 0; j < n; ++j)
        a[i * n + j] = a_value(i, j);
    }
  }
  void multiply(double* out) const {
    for (std::size_t i = 0; i < n; ++i)
      out[i] = dot(a.data() + i * n, x.data(), n);
  }
};

// The expected y, apart from every variant: a scalar sum along each row.
pk::plain_vector<double> reference(const plain_inputs& in) {
  pk::plain_vector<double> y(in.n);
  for (std::size_t i = 0; i < in.n; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < in.n; ++j)
      s += in.a[i * in.n + j] * in.x[j];
    y[i] = s;
  }
  return y;
}

// True when `y(i)` is the reference's product for every i; names the first that is not.
template <class Y>
bool verify(const plain_inputs& in, const pk::plain_vector<double>& want, Y&& y) {
  for (std::size_t i = 0; i < in.n; ++i) {
    if (y(i) != want[i]) {
      std::fprintf(stderr, "matvec: y[%zu] = %g, expected %g\n", i, y(i), want[i]);
      return false;
    }
  }
  return true;
}

int report(const kernel_args& a, int threads, const timing& t, std::size_t tile, bool ok) {
  const double n = static_cast<double>(a.size);
  nlohmann::ordered_json e = pk::gflops_fields(2 * n * n, t, threads);
  e["tile"] = tile;
  return pk::print_result(a, threads, t, ok, e);
}

// --- seq and openmp: plain arrays, no runtime ----------------------------------------------

int run_plain(const kernel_args& args, std::size_t bs, const plain_inputs& in,
              const pk::plain_vector<double>& want) {
  const std::size_t n = args.size;
  pk::plain_vector<double> y(n);
  const bool seq = args.variant == "seq";
  const int nt = seq ? 1 : pk::openmp_threads();
  const double *a = in.a.data(), *x = in.x.data();
  double* yp = y.data();
  std::function<void()> once;
  if (seq) {
    once = [&] { in.multiply(yp); };
  } else {
    // What an OpenMP user writes: the rows shared out statically.
    once = [&] {
#pragma omp parallel for schedule(static) num_threads(nt)
      for (std::size_t i = 0; i < n; ++i)
        yp[i] = dot(a + i * n, x, n);
    };
  }
  const timing t = pk::time_reps(args.reps, once);
  return report(args, nt, t, bs, verify(in, want, [&](std::size_t i) { return yp[i]; }));
}

// --- the PGAS variants ---------------------------------------------------------------------

// naive: the UPC source as written, upc_forall (i = 0; i < n; i++; &y[i]) with every element
// of A and x through the general path (owner, tile and offset computed at each access).
void multiply_naive(const matrix& A, const vector& x, const vector& y, std::size_t n) {
  pgas::forall(std::size_t{0}, n, y, [&](std::size_t i) {
    double s = 0;
    for (std::size_t j = 0; j < n; ++j)
      s += A(i, j) * x(j);
    y(i) = s;
  });
}

// privatized: what a UPC programmer writes by hand — x copied into private memory once per
// product, a block at a time (the thread's own blocks from its memory, the others' by one
// pgas::memget each), then each of the thread's tiles of A and blocks of y through plain
// pointers (a tile of b whole rows is b x n contiguous doubles, row-major).
void multiply_privatized(const matrix& A, const vector& x, const vector& y, std::size_t n,
                         std::size_t bs, double* xp) {
  for (std::size_t k = 0; k < n / bs; ++k) {
    const auto p = x.ptr(k * bs);
    if (pgas::is_local(p)) {
      std::memcpy(xp + k * bs, pgas::to_local(p), bs * sizeof(double));
    } else {
      pgas::memget(xp + k * bs, p, bs * sizeof(double));
    }
  }
  const auto me = static_cast<std::size_t>(pgas::mythread());
  const auto threads = static_cast<std::size_t>(pgas::threads());
  for (std::size_t k = me; k < n / bs; k += threads) {
    const double* a = pgas::to_local(A.ptr(k * bs, 0));
    double* yk = pgas::to_local(y.ptr(k * bs));
    for (std::size_t r = 0; r < bs; ++r)
      yk[r] = dot(a + r * n, xp, n);
  }
}

// cut: the same product through the locality cuts, their plans built once — x gathered from
// each owner's part by the runs of that owner's plan over x (one address space: another
// thread's part is plain memory), then for each of the calling thread's runs over A (one per
// tile of b whole rows) and the matching run over y (y's blocks come in the same storage
// order), the rows' dot products through plain pointers at the plan's offsets and strides.
class cut_product {
 public:
  cut_product(const matrix& A, const vector& x, const vector& y, std::size_t n)
      : A_(A),
        x_(x),
        y_(y),
        n_(n),
        rows_(A.layout(), pgas::box{{0, n}, {0, n}}, pgas::offsets{{0, 0}}, pgas::mythread()),
        y_runs_(y.layout(), pgas::box{{0, n}}, pgas::offsets{{0}}, pgas::mythread()),
        xp_(n) {
    for (int t = 0; t < pgas::threads(); ++t)
      x_runs_.emplace_back(x.layout(), pgas::box{{0, n}}, pgas::offsets{{0}}, t);
  }

  void operator()() {
    for (const pgas::cut_plan& plan : x_runs_) {
      const double* part = x_.local_part(plan.thread()).data();
      for (const pgas::cut_run& r : plan.runs())
        std::memcpy(xp_.data() + r.lo[0], part + r.offset, (r.hi[0] - r.lo[0]) * sizeof(double));
    }
    const double* a = A_.local_part().data();
    double* y = y_.local_part().data();
    const std::size_t row_stride = rows_.strides()[0];
    auto y_run = y_runs_.runs().begin();  // y's runs, one per run of A's rows
    for (const pgas::cut_run& r : rows_.runs()) {
      double* yk = y + (*y_run++).offset;
      for (std::size_t i = 0; i < r.hi[0] - r.lo[0]; ++i)
        yk[i] = dot(a + r.offset + i * row_stride, xp_.data(), n_);
    }
  }

 private:
  const matrix& A_;
  const vector &x_, &y_;
  std::size_t n_;
  pgas::cut_plan rows_, y_runs_;
  std::vector<pgas::cut_plan> x_runs_;
  pk::plain_vector<double> xp_;
};

int job_body(const kernel_args& args, std::size_t bs, const plain_inputs& in,
             const pk::plain_vector<double>& want) {
  const std::size_t n = args.size;
  const matrix A({n, n}, pgas::block_spec::tiles({bs, n}));  // shared [b][n] double
  const vector x({n}, pgas::block_spec::cyclic(bs));         // shared [b] double
  const vector y({n}, pgas::block_spec::cyclic(bs));
  A.for_each_mine([](double& v, const matrix::index_type& ix) { v = a_value(ix[0], ix[1]); });
  x.for_each_mine([](double& v, const vector::index_type& ix) { v = x_value(ix[0]); });
  pgas::barrier();

  pk::plain_vector<double> xp(n);  // privatized's copy of x
  std::function<void()> once;
  const std::string& v = args.variant;
  std::optional<cut_product> cut;
  if (v == "naive") {
    once = [&] { multiply_naive(A, x, y, n); };
  } else if (v == "cut") {
    cut.emplace(A, x, y, n);
    once = [&] { (*cut)(); };
  } else {
    once = [&] { multiply_privatized(A, x, y, n, bs, xp.data()); };
  }
  const timing t = pk::time_reps(args.reps, once, [] { pgas::barrier(); });
  if (pgas::mythread() != 0) return 0;
  const bool ok = verify(in, want, [&](std::size_t i) { return y(i); });
  return report(args, pgas::threads(), t, bs, ok);
}

}  // namespace

int main(int argc, char** argv) {
  pk::tile_option tile;
  const kernel_args args = pk::parse_kernel_args(
      argc, argv, "matvec",
      "Dense matrix-vector multiply y = A x on shared [b][n] double A[n][n] (tiles of b whole "
      "rows) and shared [b] double x[n], y[n]",
      4096, 1, pk::cut_variants, [&](CLI::App& app) { tile.add_to(app); });
  tile.check(args);
  const plain_inputs in(args.size);
  const pk::plain_vector<double> want = reference(in);
  const std::string& v = args.variant;
  if (v == "seq" || v == "openmp") return run_plain(args, tile.tile, in, want);
  return pgas::run(argc, argv, [&] { return job_body(args, tile.tile, in, want); });
}
