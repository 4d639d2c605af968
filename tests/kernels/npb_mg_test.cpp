// The NAS MG kernel (kernels/npb_mg.cpp) through pgasrun: the JSON line of every variant (class,
// size, V-cycles, the residual's L2 norm against NAS's published value for class S); the
// ndarray variant where threads own no plane of the coarse levels (3 and 5 threads: the
// slabs of 2 and 4 planes have fewer planes than threads) or uneven slabs of the finest one;
// and the usage errors (status 2). Every variant at 1-3 threads is also run by
// tests/kernels/meson.build's loop over the NAS kernels.
// Meson passes PGASRUN and NPB_MG.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {

// NAS's L2 norm of class S's final residual.
constexpr double class_s_norm = 0.5307707005734e-04;

void check_mg(const std::string& variant, int threads) {
  INFO(variant << " at " << threads << " threads");
  const app_test::app_output out =
      app_test::run_app("NPB_MG", threads, "--variant " + variant + " --class S --reps 2");
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto j = nlohmann::json::parse(app_test::json_line(out));
  CHECK(j["kernel"] == "npb_mg");
  CHECK(j["variant"] == variant);
  CHECK(j["threads"] == (variant == "seq" ? 1 : threads));
  CHECK(j["class"] == "S");
  CHECK(j["size"] == 32);
  CHECK(j["nit"] == 4);
  CHECK(j["reps"] == 2);
  CHECK(j["verified"] == true);
  CHECK(app_test::close(j["l2_norm"].get<double>(), class_s_norm, 1e-8));
  CHECK(j["mops"].get<double>() > 0);
}

}  // namespace

TEST_CASE("npb_mg: each variant's JSON line carries NAS's norm for class S", "[npb_mg]") {
  check_mg("seq", 1);
  check_mg("openmp", 2);
  check_mg("ndarray", 2);
}

TEST_CASE("npb_mg: ndarray with threads that own no plane of the coarse levels", "[npb_mg]") {
  // 32 planes over 3 threads: 10, 11 and 11; at level 1 (2 planes) thread 0 owns none. Over 5
  // threads, three own nothing at level 1 and one at level 2.
  check_mg("ndarray", 3);
  check_mg("ndarray", 5);
}

TEST_CASE("npb_mg refuses other classes and variants with status 2", "[npb_mg]") {
  for (const char* args : {"--variant seq --class B", "--variant seq --class w", "--variant seq",
                           "--variant naive --class S", "--class S",
                           "--variant ndarray --class S --reps 0", "--variant seq --size 32"}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("NPB_MG", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
  }
}
