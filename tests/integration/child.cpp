// tests/integration/child.cpp — see child.hpp.
#include "child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <catch2/catch.hpp>

extern char** environ;

namespace pgas_test {

std::string env_or_fail(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') FAIL("environment variable " << name << " is not set");
  return v != nullptr ? v : "";
}

std::ostream& operator<<(std::ostream& os, const result& r) {
  os << (r.hung     ? "HUNG (killed)"
         : r.exited ? "exited " + std::to_string(r.status)
                    : "killed by signal " + std::to_string(r.signal))
     << " after " << r.seconds << " s\n--- stdout ---\n"
     << r.out << "--- stderr ---\n"
     << r.err << "--------------";
  return os;
}

namespace {

// The environment for children: ours without PGAS_* variables, so that only what pgasrun sets
// (and what a test adds) reaches the job.
std::vector<std::string> child_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "PGAS_", 5) != 0) env.emplace_back(*e);
  }
  return env;
}

}  // namespace

result run_command(const std::vector<std::string>& argv, std::chrono::seconds limit,
                   const std::vector<std::string>& extra_env, const signal_on& send) {
  int out_pipe[2];
  int err_pipe[2];
  REQUIRE(pipe2(out_pipe, O_CLOEXEC) == 0);
  REQUIRE(pipe2(err_pipe, O_CLOEXEC) == 0);

  std::vector<std::string> env_strings = child_environment();
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp;
  for (auto& s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& s : args)
    argp.push_back(s.data());
  argp.push_back(nullptr);

  const auto start = clock_type::now();
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    // No core files: a segv test must not spend seconds writing one.
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execve(argp[0], argp.data(), envp.data());
    const char msg[] = "pgasrun_test: execve failed\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(126);
  }
  setpgid(pid, pid);  // also from here, so the group exists before any kill
  close(out_pipe[1]);
  close(err_pipe[1]);

  result r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  int wstatus = 0;
  bool reaped = false;
  bool sent = send.signal == 0;
  while (!reaped || open_fds > 0) {
    if (!sent && !reaped && contains(r.err, send.marker)) {
      kill(pid, send.signal);
      sent = true;
    }
    const auto elapsed = clock_type::now() - start;
    if (!reaped && elapsed > limit) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      r.hung = true;
    }
    if (open_fds > 0) {
      // Once the child is reaped, anything still holding the pipes is a stray descendant:
      // give it a moment, then stop reading.
      const int timeout_ms = reaped ? 200 : 50;
      const int n = poll(fds, 2, timeout_ms);
      if (n == 0 && reaped) break;
      if (n < 0 && errno != EINTR) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        char buf[4096];
        const ssize_t got = read(fds[i].fd, buf, sizeof buf);
        if (got > 0) {
          sinks[i]->append(buf, static_cast<size_t>(got));
        } else if (got == 0 || errno != EINTR) {
          close(fds[i].fd);
          fds[i].fd = -1;
          --open_fds;
        }
      }
    } else {
      usleep(10000);
    }
    if (!reaped && waitpid(pid, &wstatus, WNOHANG) == pid) {
      reaped = true;
      r.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  if (WIFEXITED(wstatus)) {
    r.exited = true;
    r.status = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    r.signal = WTERMSIG(wstatus);
  }
  if (r.hung) r.exited = false;
  return r;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

int line_of(const std::string& program_name, const std::string& marker) {
  const std::string path = env_or_fail("PROGRAM_SOURCES") + "/" + program_name + ".cpp";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::string line;
  int number = 0;
  int found = 0;
  int count = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto at = line.find(marker);
    // The marker must end there (so "@x" does not match "@x:y").
    if (at != std::string::npos &&
        (at + marker.size() == line.size() || line[at + marker.size()] == ' ')) {
      found = number;
      ++count;
    }
  }
  INFO("marker " << marker << " in " << path);
  REQUIRE(count == 1);
  return found;
}

}  // namespace pgas_test
