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
  const nlohmann::json j =
      app_test::run_kernel(program_env, kernel, variant, threads, "--class " + cls + " --reps 1");
  CHECK(j["class"] == cls);
  CHECK(j["size"] == size);
  CHECK(j["mops"].get<double>() > 0);
  return j;
}

}  // namespace npb_test
