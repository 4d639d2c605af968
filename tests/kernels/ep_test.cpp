// The EP application (kernels/apps/ep.cpp) through pgasrun at 1-4 threads: its annulus counts
// must equal, exactly, and its sums agree to 1e-12 relative with a sequential computation done
// here from the algorithm's description (one generator stream from the seed, no jump-ahead,
// so the program's per-batch jumps are checked too); and at M = 24 its sums must be the values
// NAS publishes for EP class S, which uses the same generator, seed and method.
//
// Meson passes PGASRUN (the launcher) and EP (the program).
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

namespace {

constexpr int annuli = 10;

struct ep_result {
  std::array<long, annuli> q{};
  long gaussians = 0;
  double sx = 0;
  double sy = 0;
};

// 2^m pairs from x' = 5^13 x mod 2^46 starting at 271828183, each number x / 2^46 taken after
// the step; the Marsaglia polar method keeps pairs with 0 < t <= 1.
ep_result reference(int m) {
  constexpr std::uint64_t a = 1220703125;  // 5^13
  constexpr std::uint64_t mask = (std::uint64_t{1} << 46) - 1;
  constexpr double scale = 1.0 / static_cast<double>(std::uint64_t{1} << 46);
  std::uint64_t x = 271828183;
  auto next = [&] {
    // a x mod 2^46 in halves of 23 bits, no product above 2^54.
    constexpr std::uint64_t low = (std::uint64_t{1} << 23) - 1;
    x = ((((a * (x >> 23)) & low) << 23) + a * (x & low)) & mask;
    return 2.0 * (static_cast<double>(x) * scale) - 1.0;
  };
  ep_result r;
  for (std::uint64_t k = 0; k < (std::uint64_t{1} << m); ++k) {
    const double u = next();
    const double v = next();
    const double t = u * u + v * v;
    if (t > 1.0 || t == 0.0) continue;
    const double f = std::sqrt(-2.0 * std::log(t) / t);
    const auto l = static_cast<int>(std::max(std::fabs(u * f), std::fabs(v * f)));
    if (l < annuli) {
      ++r.q[static_cast<std::size_t>(l)];
      ++r.gaussians;
    }
    r.sx += u * f;
    r.sy += v * f;
  }
  return r;
}

std::string env_or_fail(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') FAIL("environment variable " << name << " is not set");
  return v != nullptr ? v : "";
}

// Runs the program and parses its "key value" lines.
ep_result run_ep(int threads, int m) {
  std::ostringstream command;
  command << env_or_fail("PGASRUN") << " -n " << threads << ' ' << env_or_fail("EP") << ' ' << m
          << " 2>&1";
  const std::string cmd = command.str();
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr)
    out += buf;
  const int status = pclose(p);
  INFO(cmd << "\n" << out);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::map<std::string, std::string> kv;
  std::istringstream lines(out);
  for (std::string key, value; lines >> key && std::getline(lines, value);)
    kv[key] = value;
  ep_result r;
  for (int l = 0; l < annuli; ++l) {
    char key[8];
    std::snprintf(key, sizeof key, "q%d", l);
    REQUIRE(kv.count(key) == 1);
    r.q[static_cast<std::size_t>(l)] = std::stol(kv[key]);
  }
  REQUIRE(kv.count("gaussians") == 1);
  REQUIRE(kv.count("sx") == 1);
  REQUIRE(kv.count("sy") == 1);
  r.gaussians = std::stol(kv["gaussians"]);
  r.sx = std::stod(kv["sx"]);
  r.sy = std::stod(kv["sy"]);
  return r;
}

bool close(double got, double want, double rel) {
  return std::fabs(got - want) <= rel * std::fabs(want);
}

}  // namespace

TEST_CASE("EP agrees with the sequential computation at 1-4 threads", "[ep]") {
  constexpr int m = 20;
  const ep_result want = reference(m);
  REQUIRE(want.gaussians > 800000);  // about pi/4 of the 2^20 pairs
  for (int threads = 1; threads <= 4; ++threads) {
    INFO("threads " << threads);
    const ep_result got = run_ep(threads, m);
    CHECK(got.q == want.q);
    CHECK(got.gaussians == want.gaussians);
    CHECK(close(got.sx, want.sx, 1e-12));
    CHECK(close(got.sy, want.sy, 1e-12));
  }
}

TEST_CASE("EP at M = 24 gives the published class S sums", "[ep]") {
  const ep_result got = run_ep(3, 24);
  CHECK(close(got.sx, -3.247834652034740e3, 1e-12));
  CHECK(close(got.sy, -6.958407078382297e3, 1e-12));
}
