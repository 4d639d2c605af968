// The NAS FT kernel (kernels/npb_ft.cpp) through pgasrun: every variant at 1-3 threads prints
// the kernel contract's JSON line with class, grid and Mop/s, verified against NAS's published
// checksums of class S; class W where the ndarray variant's slabs are uneven (32 planes over 3
// threads); and its usage errors (status 2).
// Meson passes PGASRUN and NPB_FT.
#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {

// Runs npb_ft and checks its JSON line.
void check_ft(const std::string& variant, int threads, const std::string& cls) {
  INFO(variant << " at " << threads << " threads, class " << cls);
  const app_test::app_output out = app_test::run_app(
      "NPB_FT", threads, "--variant " + variant + " --class " + cls + " --reps 1");
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto j = nlohmann::json::parse(app_test::json_line(out));
  CHECK(j["kernel"] == "npb_ft");
  CHECK(j["variant"] == variant);
  CHECK(j["threads"] == (variant == "seq" ? 1 : threads));
  CHECK(j["class"] == cls);
  CHECK(j["verified"] == true);
  CHECK(j["iterations"] == 6);
  CHECK(j["mops"].get<double>() > 0);
  if (cls == "S") {
    CHECK(j["size"] == 64);
    CHECK(j["nz"] == 64);
  } else {
    CHECK(j["size"] == 128);
    CHECK(j["nz"] == 32);
  }
}

}  // namespace

TEST_CASE("npb_ft: every variant verifies class S at 1-3 threads", "[npb_ft]") {
  for (const char* variant : {"seq", "ndarray", "openmp"}) {
    for (int threads = 1; threads <= 3; ++threads)
      check_ft(variant, threads, "S");
  }
}

TEST_CASE("npb_ft: class W's 32 planes over 3 threads (uneven slabs)", "[npb_ft]") {
  check_ft("ndarray", 3, "W");
}

TEST_CASE("npb_ft refuses other classes and variants with status 2", "[npb_ft]") {
  for (const char* args :
       {"--variant seq --class B", "--variant seq --class s", "--variant seq",
        "--variant naive --class S", "--class S", "--variant ndarray --class S --reps 0"}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("NPB_FT", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
  }
}
