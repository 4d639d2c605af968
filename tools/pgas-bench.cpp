// tools/pgas-bench.cpp — `pgas-bench [--kernels …] [--variants …] [--threads …] [--repeat M] …`:
// the benchmark driver. It runs every kernel × variant × thread count through pgasrun (the
// kernel contract of kernels/harness.hpp: one JSON line per run), M interleaved passes so that the
// machine's noise falls on every variant alike, and prints Serres et al.'s Table I and speedup
// tables from the medians over passes; `--from runs.json` renders a saved set of runs again without
// running.
//
// Records and medians are in bench_results.hpp, tables and the plot in bench_report.hpp.

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <pgas/config.hpp>

#include "bench_report.hpp"
#include "bench_results.hpp"
#include "cli.hpp"
#include "src/base/file.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace pgas::tools::bench;
using pgas::tools::exit_usage;
using pgas::tools::one_line;
using pgas::tools::usage_error;

[[noreturn]] void fail(int status, const std::string& message) {
  pgas::tools::fail("pgas-bench", status, message);
}

// --quick: a demonstration in a few minutes on two cores (sizes chosen by timing the
// kernels: each run takes a few hundredths of a second to a few tenths).
const std::map<std::string, std::size_t> quick_sizes = {
    {"matmul", 512},   {"sobel", 4096},     {"randomaccess", 1024},
    {"cc", 262144},    {"stencil2d", 1024}, {"matmul_tiled", 512},
    {"cholesky", 512}, {"matvec", 1024},    {"stencil5", 512},
    {"jacobi", 2048},  {"lu", 512},         {"stencil7", 128}};
// The NAS kernels' classes (class_kernels): W unless --size says otherwise, S with --quick.
constexpr char default_class = 'W', quick_class = 'S';
constexpr int quick_reps = 3, quick_repeat = 3;

struct options {
  std::vector<std::string> kernels = known_kernels;
  std::vector<std::string> variants = known_variants;
  std::vector<int> threads;
  std::map<std::string, std::size_t> sizes;
  std::map<std::string, char> classes;  // class_kernels only
  int reps = 5;
  int repeat = 3;
  double timeout = 600;
  std::string pgasrun;
  std::string kernel_dir;
  std::string out = "pgas-bench-results";
  bool svg = true;
};

// ---------------------------------------------------------------------------------------------
// The command line.

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    items.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return items;
    start = end + 1;
  }
}

bool is_one_of(const std::string& name, const std::vector<std::string>& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// "a,b,c" of known names, each once, in the order given.
std::vector<std::string> parse_names(const char* option, const std::string& text,
                                     const std::vector<std::string>& known, const char* what) {
  std::vector<std::string> names;
  for (const std::string& name : split(text, ',')) {
    if (!is_one_of(name, known)) {
      throw usage_error(fmt::format("{} '{}': unknown {} '{}' (expected {})", option, text, what,
                                    name, fmt::join(known, ", ")));
    }
    if (!is_one_of(name, names)) names.push_back(name);
  }
  return names;
}

// "1,2,4", "1..4" or both ("1..4,8"): ascending, each once.
std::vector<int> parse_threads(const std::string& text) {
  const auto bad = [&] {
    return usage_error(fmt::format(
        "--threads '{}': expected thread counts such as 1,2,4 or a range 1..4, each from 1 to {}",
        text, pgas::config::max_threads));
  };
  std::set<int> counts;
  for (const std::string& item : split(text, ',')) {
    const std::size_t dots = item.find("..");
    const auto a = pgas::tools::parse_count(item.substr(0, dots));
    const auto b = dots == std::string::npos ? a : pgas::tools::parse_count(item.substr(dots + 2));
    for (const auto& v : {a, b}) {
      if (!v || *v < 1 || *v > static_cast<std::size_t>(pgas::config::max_threads)) throw bad();
    }
    if (*a > *b) {
      throw usage_error(
          fmt::format("--threads '{}': the range {} starts above its end", text, item));
    }
    for (std::size_t t = *a; t <= *b; ++t)
      counts.insert(static_cast<int>(t));
  }
  return {counts.begin(), counts.end()};
}

// "matmul=1024,sobel=4096,npb_cg=A": sizes, and classes for the NAS kernels.
void parse_sizes(const std::string& text, options& o) {
  for (const std::string& item : split(text, ',')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) {
      throw usage_error(fmt::format(
          "--size '{}': expected KERNEL=SIZE,..., such as matmul=1024 or npb_cg=A", text));
    }
    const std::string kernel = item.substr(0, eq);
    if (!is_one_of(kernel, known_kernels)) {
      throw usage_error(fmt::format("--size '{}': unknown kernel '{}' (expected {})", text, kernel,
                                    fmt::join(known_kernels, ", ")));
    }
    const std::string value = item.substr(eq + 1);
    if (class_kernel(kernel)) {
      if (value.size() != 1 || nas_classes.find(value[0]) == std::string_view::npos) {
        throw usage_error(fmt::format("--size '{}': {} takes a NAS class, one of {}, not '{}'",
                                      text, kernel, fmt::join(nas_classes, ", "), value));
      }
      o.classes[kernel] = value[0];
      continue;
    }
    const auto size = pgas::tools::parse_count(value);
    if (!size || *size < 1) {
      throw usage_error(
          fmt::format("--size '{}': the size of {} must be a whole number from 1", text, kernel));
    }
    o.sizes[kernel] = *size;
  }
}

int parse_int(const char* option, const std::string& text, int lo, int hi) {
  const auto v = pgas::tools::parse_count(text);
  if (!v || *v < static_cast<std::size_t>(lo) || *v > static_cast<std::size_t>(hi)) {
    throw usage_error(
        fmt::format("{} '{}': expected a whole number from {} to {}", option, text, lo, hi));
  }
  return static_cast<int>(*v);
}

// 1, 2, 4, … up to the CPUs this process may use, and that count itself.
std::vector<int> default_threads() {
  cpu_set_t set;
  int cpus = 1;
  if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = std::max(1, CPU_COUNT(&set));
  cpus = std::min(cpus, pgas::config::max_threads);
  std::vector<int> t;
  for (int n = 1; n < cpus; n *= 2)
    t.push_back(n);
  t.push_back(cpus);
  return t;
}

// ---------------------------------------------------------------------------------------------
// Running one kernel.

struct child_result {
  int status = 0;  // exit status, 128 + N for signal N
  int signal = 0;
  bool timed_out = false;
  std::string out, err;
  std::string spawn_error;
};

// Runs argv[0] (a path) with `argv`, stdin from /dev/null, stdout and stderr captured, the
// environment inherited; kills it after `timeout` seconds.
child_result run_child(const std::vector<std::string>& argv, double timeout) {
  child_result r;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return r;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    close(out_pipe[0]);
    close(out_pipe[1]);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    r.spawn_error = fmt::format("cannot run {}: {}", argv[0], std::strerror(rc));
    return r;
  }

  using clock = std::chrono::steady_clock;
  auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                     std::chrono::duration<double>(timeout));
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    // After the kill, output still buffered is read for a second; a grandchild that kept the
    // pipes open is not waited for.
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    const int n = poll(fds, 2, static_cast<int>(std::clamp<long long>(left, 0, INT_MAX)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (n == 0) {
      if (r.timed_out) break;
      r.timed_out = true;
      kill(pid, SIGKILL);
      deadline = clock::now() + std::chrono::seconds(1);
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    r.status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
    r.status = 128 + r.signal;
  }
  return r;
}

std::string trim(std::string s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.back()))
    s.pop_back();
  const auto first = std::find_if_not(s.begin(), s.end(), blank);
  return {first, s.end()};
}

// The last non-blank line of a program's output, cut to a sensible length.
std::string last_line(const std::string& text) {
  std::string line;
  for (const std::string& l : split(text, '\n')) {
    if (!trim(l).empty()) line = trim(l);
  }
  return line.size() > 240 ? line.substr(0, 237) + "..." : line;
}

std::optional<json> result_line(const std::string& out) {
  const std::vector<std::string> lines = split(out, '\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    const std::string line = trim(*it);
    if (line.empty() || line.front() != '{') continue;
    json j = json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object()) return j;
  }
  return std::nullopt;
}

// A kernel's program; the plain C baseline (variant c) is plain/KERNEL beside the kernels.
std::string kernel_path(const options& o, const std::string& kernel, const std::string& variant) {
  const fs::path dir = variant == "c" ? fs::path(o.kernel_dir) / "plain" : fs::path(o.kernel_dir);
  return (dir / kernel).string();
}

run_record run_kernel(const options& o, int pass, const std::string& kernel,
                      const std::string& variant, int threads) {
  run_record r;
  r.pass = pass;
  r.kernel = kernel;
  r.variant = variant;
  r.threads = threads;
  std::vector<std::string> argv = {
      o.pgasrun,   "-n",   std::to_string(threads), kernel_path(o, kernel, variant),
      "--variant", variant};
  if (class_kernel(kernel)) {
    const auto it = o.classes.find(kernel);
    argv.insert(argv.end(),
                {"--class", std::string(1, it == o.classes.end() ? default_class : it->second)});
  } else if (const auto it = o.sizes.find(kernel); it != o.sizes.end()) {
    r.size = it->second;
    argv.insert(argv.end(), {"--size", std::to_string(it->second)});
  }
  argv.insert(argv.end(), {"--reps", std::to_string(o.reps), "--json"});

  const child_result c = run_child(argv, o.timeout);
  if (!c.spawn_error.empty()) {
    r.exit_status = 127;
    r.error = c.spawn_error;
    return r;
  }
  r.exit_status = c.status;
  const std::optional<json> result = result_line(c.out);
  if (result) {
    for (auto it = result->begin(); it != result->end(); ++it) {
      const json& v = it.value();
      if (it.key() == "seconds" && v.is_number()) {
        r.seconds = v.get<double>();
      } else if (it.key() == "verified" && v.is_boolean()) {
        r.verified = v.get<bool>();
      } else if (it.key() == "size" && v.is_number_unsigned()) {
        r.size = v.get<std::size_t>();
      } else if (it.key() != "kernel" && it.key() != "variant" && it.key() != "threads") {
        r.extra[it.key()] = v;
      }
    }
  }
  const std::string why = last_line(c.err);
  const std::string tail = why.empty() ? "" : ": " + why;
  const int reported = result && result->value("threads", json()).is_number_integer()
                           ? result->value("threads", 0)
                           : -1;
  const int expected = sequential_variant(variant) ? 1 : threads;
  if (c.timed_out) {
    r.error = fmt::format("timed out after {} s", o.timeout);
  } else if (c.signal != 0) {
    r.error = fmt::format("killed by signal {} ({}){}", c.signal, strsignal(c.signal), tail);
  } else if (c.status != 0) {
    r.error = fmt::format("exit {}{}", c.status, tail);
  } else if (!result) {
    r.error = "no JSON result line on stdout" + tail;
  } else if (result->value("kernel", "") != kernel || result->value("variant", "") != variant) {
    r.error = fmt::format("the result is for {} {}", result->value("kernel", "?"),
                          result->value("variant", "?"));
  } else if (reported != expected) {
    r.error = fmt::format("ran on {} threads, not {}", reported, expected);
  } else if (!r.seconds) {
    r.error = "no \"seconds\" in the result";
  } else if (!r.verified) {
    r.error = "not verified";
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Files.

// A symbolic link planted in --out is replaced, never written through (pgas::detail::replace_file).
void write_file(const fs::path& path, const std::string& text) {
  try {
    pgas::detail::replace_file(path.string(), text);
  } catch (const pgas::detail::file_error& e) {
    fail(1, e.what());
  }
}

void make_out_dir(const std::string& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out)) {
    throw usage_error(fmt::format("--out {}: cannot create the directory: {}", out,
                                  ec ? ec.message() : "a file is in the way"));
  }
}

void write_runs(const std::string& out, const std::vector<run_record>& runs, const json& meta) {
  write_file(fs::path(out) / "runs.json", runs_json(runs, meta));
  write_file(fs::path(out) / "runs.csv", runs_csv(runs));
}

std::string duration(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const auto s = static_cast<long long>(seconds + 0.5);
  return fmt::format("{} min {} s", s / 60, s % 60);
}

// Checks pgasrun and the kernels before spending any time, and fills in the default paths:
// the build tree puts this program in build/tools/, pgasrun beside it, kernels in
// build/kernels/.
void find_programs(options& o) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path dir = ec ? fs::path(".") : self.parent_path();
  const bool default_pgasrun = o.pgasrun.empty(), default_dir = o.kernel_dir.empty();
  if (default_pgasrun) o.pgasrun = (dir / "pgasrun").string();
  if (default_dir) o.kernel_dir = (dir / ".." / "kernels").lexically_normal().string();
  if (access(o.pgasrun.c_str(), X_OK) != 0) {
    throw usage_error(fmt::format("pgasrun {}: {}{}", o.pgasrun, std::strerror(errno),
                                  default_pgasrun ? " (give its path with --pgasrun PATH)" : ""));
  }
  for (const std::string& k : o.kernels) {
    for (const std::string variant : {"seq", "c"}) {
      if (variant == "c" && (!is_one_of("c", o.variants) || !kernel_has_variant(k, "c"))) continue;
      const std::string path = kernel_path(o, k, variant);
      if (access(path.c_str(), X_OK) != 0) {
        throw usage_error(
            fmt::format("kernel {}: {}: {} (build it with ninja -C BUILD kernels/{}{}{})", k, path,
                        std::strerror(errno), variant == "c" ? "plain/" : "", k,
                        default_dir ? ", or give --kernel-dir DIR" : ""));
      }
    }
  }
}

std::vector<run_record> run_all(const options& o, const json& meta) {
  struct planned {
    std::string kernel, variant;
    int threads;
  };
  std::vector<planned> pass_plan;
  for (const std::string& k : o.kernels) {
    for (const std::string& v : o.variants) {
      if (!kernel_has_variant(k, v)) continue;
      for (int t : sequential_variant(v) ? std::vector<int>{1} : o.threads)
        pass_plan.push_back({k, v, t});
    }
  }
  const std::size_t total = pass_plan.size() * static_cast<std::size_t>(o.repeat);
  std::size_t kw = 0, vw = 0, tw = 0;
  for (const planned& p : pass_plan) {
    kw = std::max(kw, p.kernel.size());
    vw = std::max(vw, p.variant.size());
    tw = std::max(tw, std::to_string(p.threads).size());
  }
  const std::size_t nw = std::to_string(total).size();

  fmt::print(stderr, "pgas-bench: {} runs: {} passes of {} (kernels {}; variants {}; threads {})\n",
             total, o.repeat, pass_plan.size(), fmt::join(o.kernels, ","),
             fmt::join(o.variants, ","), fmt::join(o.threads, ","));
  const auto start = std::chrono::steady_clock::now();
  std::vector<run_record> runs;
  std::size_t failed = 0;
  for (int pass = 1; pass <= o.repeat; ++pass) {
    for (const planned& p : pass_plan) {
      run_record r = run_kernel(o, pass, p.kernel, p.variant, p.threads);
      const std::string head = fmt::format("[{:>{}}/{}] {:<{}} {:<{}} -n {:<{}}  ", runs.size() + 1,
                                           nw, total, p.kernel, kw, p.variant, vw, p.threads, tw);
      if (r.ok()) {
        fmt::print(stderr, "{}{:>8} s  ok\n", head, format_seconds(*r.seconds));
      } else {
        ++failed;
        fmt::print(stderr, "{}FAILED: {}\n", head, r.error);
      }
      std::fflush(stderr);
      runs.push_back(std::move(r));
    }
    // Each pass is saved as it ends, so an interrupted benchmark keeps what it measured.
    write_runs(o.out, runs, meta);
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(stderr, "pgas-bench: {} runs in {}: {}\n", runs.size(), duration(elapsed),
             failed == 0 ? std::string("all verified") : fmt::format("{} FAILED", failed));
  return runs;
}

constexpr const char* description =
    "Runs the benchmark kernels (matmul, sobel, randomaccess, cc, stencil2d,\n"
    "matmul_tiled, cholesky, matvec, stencil5, jacobi, lu, stencil7, npb_cg, npb_ft,\n"
    "npb_mg) in each of their variants (c, seq, naive, privatized, tables, auto,\n"
    "cached, coalesced, cut, ndarray, openmp, blas, library: cc and stencil2d\n"
    "have cached and coalesced instead of privatized, tables and auto, matmul_tiled\n"
    "and cholesky cut, blas and library, matvec and stencil5 privatized and cut,\n"
    "jacobi and lu seq, naive and openmp, stencil7 and the NAS kernels seq, ndarray\n"
    "and openmp, with seq as their baseline)\n"
    "at each thread count through pgasrun, in M\n"
    "interleaved passes, and prints each variant's overhead over\n"
    "sequential C at 1 thread (Serres et al., Table I) and its speedup over seq at\n"
    "every thread count, from the medians over passes. Variant c, a plain C loop\n"
    "beside each kernel, checks seq: the run fails when seq is more than 5 % slower.\n"
    "Every run is saved in DIR/runs.json and runs.csv, the medians in summary.json,\n"
    "a plot in scaling.svg.\n";

constexpr const char* footer =
    "Examples:\n"
    "  pgas-bench --quick\n"
    "  pgas-bench --kernels matmul --threads 1..8 --size matmul=1024\n"
    "  pgas-bench --from pgas-bench-results/runs.json --out report\n"
    "\n"
    "Exit status: 0 when every run verified, 1 when one failed (after printing\n"
    "everything), 2 for a usage error or an unreadable --from file, 3 when every\n"
    "run verified but the baseline check failed (a kernel's seq more than 1.05x\n"
    "its plain C loop).\n"
    "Manual: man pgas-bench.";

std::string command_text(int argc, char** argv) {
  std::vector<std::string> words = {"pgas-bench"};
  for (int i = 1; i < argc; ++i)
    words.emplace_back(argv[i]);
  return fmt::format("{}", fmt::join(words, " "));
}

int run(int argc, char** argv) {
  options o;
  std::string kernels_text, variants_text, threads_text, sizes_text, reps_text, repeat_text,
      timeout_text, from;
  bool quick = false, no_svg = false;

  CLI::App app(description, "pgas-bench");
  pgas::tools::configure_app(
      app, "pgas-bench",
      "Usage: pgas-bench [--kernels K,...] [--variants V,...] [--threads T,...|A..B]\n"
      "                  [--size KERNEL=S,...] [--reps R] [--repeat M] [--out DIR]\n"
      "                  [--quick] [--pgasrun PATH] [--kernel-dir DIR] [--timeout S]\n"
      "                  [--no-svg]\n"
      "       pgas-bench --from runs.json [--out DIR] [--no-svg]\n",
      footer, 30);
  const auto last = CLI::MultiOptionPolicy::TakeLast;
  std::vector<CLI::Option*> running;
  running.push_back(app.add_option("--kernels", kernels_text, "Kernels to run (default all)")
                        ->type_name("K,...")
                        ->multi_option_policy(last));
  running.push_back(app.add_option("--variants", variants_text, "Variants to run (default all)")
                        ->type_name("V,...")
                        ->multi_option_policy(last));
  running.push_back(app.add_option("--threads", threads_text,
                                   "Thread counts, such as 1,2,4 or 1..4\n"
                                   "(default 1, 2, 4, ... up to the CPUs);\n"
                                   "seq runs at 1 thread only")
                        ->type_name("LIST")
                        ->multi_option_policy(last));
  running.push_back(app.add_option("--size", sizes_text,
                                   "Problem sizes, such as matmul=1024, and the NAS\n"
                                   "kernels' classes, such as npb_cg=A (default: each\n"
                                   "kernel's own size; class W)")
                        ->type_name("KERNEL=S,...")
                        ->multi_option_policy(last));
  running.push_back(app.add_option("--reps", reps_text,
                                   "Timed repetitions in each run; a run's\n"
                                   "seconds is their median (default 5)")
                        ->type_name("R")
                        ->multi_option_policy(last));
  running.push_back(app.add_option("--repeat", repeat_text,
                                   "Passes over all runs, interleaved; a\n"
                                   "figure is the median over passes (default 3)")
                        ->type_name("M")
                        ->multi_option_policy(last));
  running.push_back(app.add_flag("--quick", quick,
                                 "Small sizes, --reps 3 --repeat 3 --threads\n"
                                 "1,2: a demonstration in a few minutes"));
  running.push_back(
      app.add_option("--pgasrun", o.pgasrun, "The launcher (default: pgasrun beside\nthis program)")
          ->type_name("PATH")
          ->multi_option_policy(last));
  running.push_back(app.add_option("--kernel-dir", o.kernel_dir,
                                   "Where the kernels are (default: ../kernels\n"
                                   "from this program, as in a build tree)")
                        ->type_name("DIR")
                        ->multi_option_policy(last));
  running.push_back(
      app.add_option("--timeout", timeout_text,
                     "Seconds before a run is killed and counted\nfailed (default 600)")
          ->type_name("S")
          ->multi_option_policy(last));
  app.add_option("--out", o.out,
                 "Where runs.csv, runs.json, summary.json and\n"
                 "scaling.svg go (default pgas-bench-results)")
      ->type_name("DIR")
      ->multi_option_policy(last);
  auto* from_opt = app.add_option("--from", from,
                                  "Run nothing: show the runs of a runs.json\n"
                                  "written earlier")
                       ->type_name("FILE")
                       ->multi_option_policy(last);
  app.add_flag("--no-svg", no_svg, "Do not write scaling.svg");
  app.allow_extras();

  if (!pgas::tools::parse_command_line(app, argc, argv, " (see pgas-bench --help)", true)) return 0;
  for (const auto& word : app.remaining()) {
    if (word != "--")
      throw usage_error(fmt::format("unknown argument '{}' (see pgas-bench --help)", word));
  }
  o.svg = !no_svg;
  if (o.out.empty()) throw usage_error("--out needs a directory");

  std::vector<run_record> runs;
  json meta;
  if (from_opt->count() > 0) {
    for (const CLI::Option* opt : running) {
      if (opt->count() > 0) {
        throw usage_error(fmt::format("--from shows saved runs and runs nothing: {} does not apply",
                                      opt->get_name()));
      }
    }
    runs = read_runs(from, meta);
  } else {
    if (quick) {
      o.sizes = quick_sizes;
      for (const std::string& k : class_kernels)
        o.classes[k] = quick_class;
      o.reps = quick_reps;
      o.repeat = quick_repeat;
      o.threads = {1, 2};
    }
    if (app.count("--kernels") > 0)
      o.kernels = parse_names("--kernels", kernels_text, known_kernels, "kernel");
    if (app.count("--variants") > 0)
      o.variants = parse_names("--variants", variants_text, known_variants, "variant");
    if (app.count("--threads") > 0) o.threads = parse_threads(threads_text);
    if (o.threads.empty()) o.threads = default_threads();
    if (app.count("--size") > 0) {
      parse_sizes(sizes_text, o);
    }
    if (app.count("--reps") > 0) o.reps = parse_int("--reps", reps_text, 1, 100000);
    if (app.count("--repeat") > 0) o.repeat = parse_int("--repeat", repeat_text, 1, 1000);
    if (app.count("--timeout") > 0) o.timeout = parse_int("--timeout", timeout_text, 1, 86400);
    const bool any = std::any_of(o.kernels.begin(), o.kernels.end(), [&](const std::string& k) {
      return std::any_of(o.variants.begin(), o.variants.end(),
                         [&](const std::string& v) { return kernel_has_variant(k, v); });
    });
    if (!any) {
      std::vector<std::string> offered;
      for (const std::string& k : o.kernels)
        offered.push_back(fmt::format("{} has {}", k, fmt::join(kernel_variants.at(k), ",")));
      throw usage_error(fmt::format("--kernels {} and --variants {} select no run ({})",
                                    fmt::join(o.kernels, ","), fmt::join(o.variants, ","),
                                    fmt::join(offered, "; ")));
    }
    find_programs(o);
    make_out_dir(o.out);
    json sizes = json::object();
    for (const auto& [k, s] : o.sizes) {
      if (is_one_of(k, o.kernels)) sizes[k] = s;
    }
    for (const std::string& k : class_kernels) {
      const auto it = o.classes.find(k);
      if (is_one_of(k, o.kernels))
        sizes[k] = std::string(1, it == o.classes.end() ? default_class : it->second);
    }
    meta = {{"tool", "pgas-bench"},
            {"version", pgas::config::version},
            {"command", command_text(argc, argv)},
            {"config",
             {{"kernels", o.kernels},
              {"variants", o.variants},
              {"threads", o.threads},
              {"sizes", sizes},
              {"reps", o.reps},
              {"repeat", o.repeat},
              {"pgasrun", o.pgasrun},
              {"kernel_dir", o.kernel_dir}}}};
    runs = run_all(o, meta);
  }

  std::optional<summary> s;
  try {
    s.emplace(runs);
  } catch (const results_error& e) {
    throw results_error(from.empty() ? e.what() : from + ": " + e.what());
  }
  make_out_dir(o.out);
  std::vector<std::string> written = {"runs.csv", "runs.json", "summary.json"};
  write_runs(o.out, runs, meta);
  write_file(fs::path(o.out) / "summary.json", s->to_json());
  if (o.svg) {
    write_file(fs::path(o.out) / "scaling.svg", scaling_svg(*s));
    written.push_back("scaling.svg");
  }

  std::string text = table_one(*s) + "\n";
  if (const std::string check = baseline_check(*s); !check.empty()) text += check + "\n";
  text += scaling_tables(*s) + "\n";
  if (const std::string failed = failed_runs(runs); !failed.empty()) text += failed + "\n";
  text += "Files:\n";
  for (const std::string& name : written)
    text += fmt::format("  {}\n", (fs::path(o.out) / name).string());
  std::fputs(text.c_str(), stdout);
  if (std::fflush(stdout) != 0) return 1;
  if (s->failed_runs() > 0) return 1;
  if (baseline_failed(*s)) {
    std::fprintf(stderr,
                 "pgas-bench: the baseline check failed: seq is more than %s the plain C "
                 "loop for some kernel (see \"Baseline check\")\n",
                 format_ratio(baseline_limit).c_str());
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return pgas::tools::tool_main<results_error>("pgas-bench", [&] { return run(argc, argv); });
}
