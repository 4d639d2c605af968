// The conjugate gradient application (kernels/apps/cg.cpp) through pgasrun at 1-4 threads: its
// relative residual and error after a fixed number of iterations must agree with a sequential
// computation done here from the method's description. The two sum their dot products in
// different orders, so they agree to rounding amplified over the iterations, not bit for bit.
// Meson passes PGASRUN and CG.
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/app_run.hpp"

namespace {

constexpr int side = 128;  // the program's M
constexpr int n = side * side;

double exact(int i) {
  return std::sin(0.001 * i) + static_cast<double>(i % 7) / 7.0;
}

void laplacian(std::vector<double>& out, const std::vector<double>& in) {
  for (int i = 0; i < n; ++i) {
    const int row = i / side, col = i % side;
    double v = 4.0 * in[i];
    if (col > 0) v -= in[i - 1];
    if (col < side - 1) v -= in[i + 1];
    if (row > 0) v -= in[i - side];
    if (row < side - 1) v -= in[i + side];
    out[i] = v;
  }
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

struct cg_result {
  double residual = 0;
  double error = 0;
};

cg_result reference(int iterations) {
  std::vector<double> x(n, 0.0), r(n), p(n), q(n), b(n), xs(n);
  for (int i = 0; i < n; ++i)
    xs[i] = exact(i);
  laplacian(b, xs);
  r = b;
  p = b;
  double rho = dot(r, r);
  const double b_norm = std::sqrt(dot(b, b));
  for (int it = 0; it < iterations; ++it) {
    laplacian(q, p);
    const double alpha = rho / dot(p, q);
    for (int i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    const double rho_next = dot(r, r);
    const double beta = rho_next / rho;
    rho = rho_next;
    for (int i = 0; i < n; ++i)
      p[i] = r[i] + beta * p[i];
  }
  double e = 0;
  for (int i = 0; i < n; ++i)
    e += (x[i] - xs[i]) * (x[i] - xs[i]);
  return {std::sqrt(rho) / b_norm, std::sqrt(e)};
}

}  // namespace

TEST_CASE("CG agrees with the sequential computation at 1-4 threads", "[cg]") {
  constexpr int iterations = 150;
  const cg_result want = reference(iterations);
  const cg_result start = reference(0);
  // The method works on this problem: both norms fell by orders of magnitude.
  REQUIRE(want.residual < 1e-3 * start.residual);
  REQUIRE(want.error < 1e-2 * start.error);
  for (int threads = 1; threads <= 4; ++threads) {
    INFO("threads " << threads);
    const app_test::app_output got = app_test::run_app("CG", threads, std::to_string(iterations));
    INFO(got.text);
    REQUIRE(got.status == 0);
    CHECK(app_test::close(std::stod(got.at("residual")), want.residual, 1e-9));
    CHECK(app_test::close(std::stod(got.at("error")), want.error, 1e-9));
  }
}

TEST_CASE("CG refuses a bad iteration count with status 2", "[cg]") {
  const app_test::app_output got = app_test::run_app("CG", 1, "0");
  CHECK(got.status == 2);
  CHECK(got.text.find("cg: ITERATIONS must be in [1, 100000]") != std::string::npos);
}
