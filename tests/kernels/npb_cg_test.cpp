// The NAS CG kernel (kernels/npb_cg.cpp) through pgasrun: every variant prints the kernel
// contract's JSON line with class, order, Mop/s and zeta, verified against NAS's published zeta
// of class S (tests/kernels/meson.build runs each at 1-3 threads: 1400 rows over 3 threads are
// uneven blocks); and its usage errors (status 2).
// Meson passes PGASRUN and NPB_CG.
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"
#include "tests/kernels/npb_run.hpp"

namespace {

// Runs npb_cg and checks its JSON line against the class's order and NAS's zeta.
void check_cg(const std::string& variant, int threads, const std::string& cls, std::size_t na,
              double zeta) {
  const auto j = npb_test::run_class("NPB_CG", "npb_cg", variant, threads, cls, na);
  CHECK(j["niter"] == 15);
  CHECK(std::abs(j["zeta"].get<double>() - zeta) <= 1e-10);
}

}  // namespace

TEST_CASE("npb_cg: every variant reports NAS's zeta of class S", "[npb_cg]") {
  for (const char* variant : {"seq", "ndarray", "openmp"})
    check_cg(variant, 2, "S", 1400, 8.5971775078648);
}

TEST_CASE("npb_cg refuses other classes and variants with status 2", "[npb_cg]") {
  for (const char* args :
       {"--variant seq --class B", "--variant seq --class s", "--variant seq",
        "--variant naive --class S", "--class S", "--variant ndarray --class S --reps 0",
        "--variant seq --class S --size 100"}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("NPB_CG", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
  }
}
