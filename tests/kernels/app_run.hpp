// Runs an application program (kernels/apps/) through pgasrun and reads the "key value" lines it
// prints. Meson passes PGASRUN (the launcher) and the program's path in an environment variable
// named by the test.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace app_test {

inline std::string env_or_fail(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') FAIL("environment variable " << name << " is not set");
  return v != nullptr ? v : "";
}

struct app_output {
  int status = -1;  // exit status, or -1 when the program did not exit normally
  std::string text;
  std::map<std::string, std::string> values;  // first word of each line -> the rest

  const std::string& at(const std::string& key) const {
    INFO(text);
    REQUIRE(values.count(key) == 1);
    return values.at(key);
  }
};

// `pgasrun -n threads $program args`, stdout and stderr together.
inline app_output run_app(const char* program_env, int threads, const std::string& args) {
  std::ostringstream command;
  command << env_or_fail("PGASRUN") << " -n " << threads << ' ' << env_or_fail(program_env) << ' '
          << args << " 2>&1";
  const std::string cmd = command.str();
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  app_output r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr)
    r.text += buf;
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(r.text);
  for (std::string key, value; lines >> key && std::getline(lines, value);)
    r.values[key] = value.empty() ? value : value.substr(1);
  return r;
}

// A kernel's result: the kernel contract's JSON line (kernels/harness.hpp) in its output.
inline std::string json_line(const app_output& out) {
  const std::size_t at = out.text.find("{\"kernel\"");
  REQUIRE(at != std::string::npos);
  return out.text.substr(at, out.text.find('\n', at) - at);
}

// `pgasrun -n threads $program --variant V args`: requires status 0 and returns the kernel
// contract's JSON line, checked for what every kernel's carries: kernel, variant, threads (1
// for seq) and verified.
inline nlohmann::json run_kernel(const char* program_env, const std::string& kernel,
                                 const std::string& variant, int threads, const std::string& args) {
  const app_output out = run_app(program_env, threads, "--variant " + variant + " " + args);
  INFO(out.text);
  REQUIRE(out.status == 0);
  nlohmann::json j = nlohmann::json::parse(json_line(out));
  CHECK(j["kernel"] == kernel);
  CHECK(j["variant"] == variant);
  CHECK(j["threads"] == (variant == "seq" ? 1 : threads));
  CHECK(j["verified"] == true);
  return j;
}

inline bool close(double got, double want, double rel) {
  return std::abs(got - want) <= rel * std::abs(want);
}

}  // namespace app_test
