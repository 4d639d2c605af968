// Runs a NAS kernel (kernels/npb_common.hpp) through pgasrun and checks what every NAS kernel's
// JSON line carries: kernel, variant, threads (1 for seq), class, size, verified and a positive
// mops. Meson passes PGASRUN and the kernel's path in an environment variable named by the test.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace npb_test {

// `pgasrun -n threads $program_env --variant V --class C --reps 1`: requires status 0 and the
// common fields, returns the JSON line for the kernel's own checks.
inline nlohmann::json run_class(const char* program_env, const std::string& kernel,
                                const std::string& variant, int threads, const std::string& cls,
                                std::size_t size) {
  INFO(kernel << ' ' << variant << " at " << threads << " threads, class " << cls);
  const app_test::app_output out = app_test::run_app(
      program_env, threads, "--variant " + variant + " --class " + cls + " --reps 1");
  INFO(out.text);
  REQUIRE(out.status == 0);
  const auto j = nlohmann::json::parse(app_test::json_line(out));
  CHECK(j["kernel"] == kernel);
  CHECK(j["variant"] == variant);
  CHECK(j["threads"] == (variant == "seq" ? 1 : threads));
  CHECK(j["class"] == cls);
  CHECK(j["size"] == size);
  CHECK(j["verified"] == true);
  CHECK(j["mops"].get<double>() > 0);
  return j;
}

}  // namespace npb_test
