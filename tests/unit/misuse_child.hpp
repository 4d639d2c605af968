// tests/unit/misuse_child.hpp — running a job that must end in misuse, in a child process.
// Misuse inside a job ends the process, so a test runs its case in a copy of its own program
// (posix_spawn of /proc/self/exe, not fork: a fork of a threaded process under the thread
// sanitizer stops in the allocator's fork handlers) that runs one hidden Catch2 test case, which
// picks the job by an environment variable; the child's stderr comes back to the test:
//   misuse_child_main(cases, "X_TEST_CASE")  in the hidden test case (the child's side),
//   misuse_child_check(...)                   in the test (the parent's side).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <pgas/runtime.hpp>

#include "test_job.hpp"

extern char** environ;

// How the child ended: its exit status (-1 when killed) and everything it wrote to stderr.
struct misuse_child_result {
  int status = -1;
  std::string err;
  // The line the child named with misuse_announce() before its misuse ("" when none).
  std::string line() const {
    const auto at = err.find("LINE ");
    return at == std::string::npos ? "" : err.substr(at + 5, err.find('\n', at) - at - 5);
  }
};

// In the child, just before the misuse: names the line whose call must be reported.
inline void misuse_announce(int line) {
  std::fprintf(stderr, "LINE %d\n", line);
  std::fflush(stderr);
}

// Runs this program again as `program` with only the Catch2 test case `test_case`, with
// `variable`=`value` added to the environment; waits (60 s at most: a child that hangs is
// killed and the test fails on its status) and returns how it ended.
inline misuse_child_result misuse_child_run(const char* program, const char* test_case,
                                            const std::string& variable, const std::string& value) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<std::string> env{variable + "=" + value};
  for (char** e = environ; *e != nullptr; ++e)
    env.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = program, test = test_case;
  char* argv[] = {exe.data(), test.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  REQUIRE(rc == 0);
  misuse_child_result r;
  char buf[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, 1000) > 0) {
      const ssize_t got = read(fds[0], buf, sizeof buf);
      if (got <= 0) break;
      r.err.append(buf, static_cast<std::size_t>(got));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// One job that must end in misuse: its name, its thread count and its body.
struct misuse_child_case {
  const char* name;
  int threads;
  void (*body)();
};

// The child's side: runs the case named by the environment variable `variable` and exits
// with its status (100 + the job's status when it failed without ending the process).
template <std::size_t N>
void misuse_child_main(const misuse_child_case (&cases)[N], const char* variable) {
  const char* name = std::getenv(variable);
  REQUIRE(name != nullptr);
  for (const misuse_child_case& c : cases) {
    if (std::string_view(name) == c.name) {
      const int rc = pgas::run(test_job(c.threads), 0, nullptr, c.body);
      std::fflush(stderr);
      _exit(rc == 0 ? 0 : 100 + rc);
    }
  }
  FAIL("no case " << name);
}

// The parent's side: runs case `name` in a child and checks that it ended with status 1 and a
// message naming `thread`, containing `what` and pointing at `file`:LINE, the line the child
// announced.
inline void misuse_child_check(const char* program, const char* test_case,
                               const std::string& variable, const std::string& name,
                               const std::string& thread, const std::string& what,
                               const std::string& file) {
  const misuse_child_result r = misuse_child_run(program, test_case, variable, name);
  INFO(name << ":\n" << r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Matchers::Contains(thread));
  CHECK_THAT(r.err, Catch::Matchers::Contains(what));
  CHECK(!r.line().empty());
  CHECK_THAT(r.err, Catch::Matchers::Contains(file + ":" + r.line()));
}
