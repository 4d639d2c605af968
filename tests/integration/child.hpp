// tests/integration/child.hpp — what the integration drivers (pgasrun_test.cpp,
// trace_test.cpp) share: running a program as a child with a deadline, capturing its output and
// status, and the source lines of a test program's @markers.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace pgas_test {

using clock_type = std::chrono::steady_clock;

// A child still running after this long is killed and the test fails with "hung".
constexpr auto kill_after = std::chrono::seconds(20);

/// The value of environment variable `name` (what Meson passes the drivers); fails the test
/// when it is not set.
std::string env_or_fail(const char* name);

// What a child did.
struct result {
  bool hung = false;
  bool exited = false;
  int status = -1;  // exit status when exited
  int signal = 0;   // terminating signal when !exited && !hung
  std::string out;
  std::string err;
  double seconds = 0;
};

std::ostream& operator<<(std::ostream& os, const result& r);

// A signal sent to the child once its stderr contains `marker` (once).
struct signal_on {
  std::string marker;
  int signal = 0;
};

// Runs argv[0] with argv, capturing stdout and stderr; kills the child's process group after
// `limit`. argv[0] is executed as given (a path), never searched in PATH.
result run_command(const std::vector<std::string>& argv, std::chrono::seconds limit = kill_after,
                   const std::vector<std::string>& extra_env = {}, const signal_on& send = {});

bool contains(const std::string& haystack, const std::string& needle);

// The 1-based line of the program source that carries `marker` (exactly once).
int line_of(const std::string& program_name, const std::string& marker);

}  // namespace pgas_test
