// tools/pgasrun.cpp — the job launcher: `pgasrun -n N [OPTIONS] [--] PROGRAM [ARGS...]`.
//
// pgasrun speaks like mpirun/upcrun but starts no thread itself: it validates its options, turns
// them into the PGAS_* environment variables declared in src/env.hpp, and execvp()s PROGRAM, so
// start-up costs one exec and the job's exit status is the program's own. pgas::run() inside the
// program reads the variables. `--dry-run` prints the placement the library would compute instead.

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <pgas/config.hpp>
#include <pgas/runtime.hpp>
#include <pgas/topology.hpp>

#include "cli.hpp"
#include "src/base/env.hpp"

namespace {

// mpirun and upcrun conventions: 2 for a bad command line, 127 (the shell's) for a program that
// cannot be started. Anything else is the program's own status, since we exec it.
using pgas::tools::exit_usage;
constexpr int exit_cannot_run = 127;

using pgas::tools::one_line;
using pgas::tools::usage_error;

[[noreturn]] void fail(int status, const std::string& message) {
  pgas::tools::fail("pgasrun", status, message);
}

// With prefix_command(), CLI11 stops at the first positional (PROGRAM) and keeps it and all that
// follows in a protected list, together with any unknown option met before it, each tagged with
// how it was classified. Reading the tags is how `--bogus prog` (an error) is told apart from
// `-- -prog` (a program whose name starts with '-'); remaining() has lost them.
class launcher_cli : public CLI::App {
 public:
  using CLI::App::App;

  // PROGRAM and its arguments: what CLI11 left over, less the `--` that may precede PROGRAM.
  // Throws usage_error naming the first unknown option before PROGRAM.
  std::vector<std::string> command() const {
    using CLI::detail::Classifier;
    std::vector<std::string> out;
    for (const auto& [kind, text] : missing_) {
      if (out.empty() && kind == Classifier::POSITIONAL_MARK) continue;
      if (out.empty() && kind != Classifier::NONE) {
        throw usage_error("unknown option '" + text + "' (see pgasrun --help)");
      }
      out.push_back(text);
    }
    return out;
  }
};

constexpr const char* description =
    "Runs PROGRAM, a program built with pgas, as a job of N UPC threads: pinned\n"
    "threads in one process on this node. pgasrun sets PGAS_* environment\n"
    "variables and replaces itself with PROGRAM, so the exit status is the\n"
    "program's. Everything after PROGRAM is passed to it untouched.\n";

constexpr const char* footer =
    "Examples:\n"
    "  pgasrun -n 8 ./stencil --size 4096\n"
    "  pgasrun -n 16 --map-by numa --report-bindings ./stencil\n"
    "  pgasrun --dry-run --topology synthetic:\"package:2 numa:2 core:4 pu:2\" \\\n"
    "          -n 8 --map-by numa\n"
    "\n"
    "Exit status: the program's own; 2 for a usage error; 127 when PROGRAM cannot\n"
    "be started. Every PGAS_* variable: pgasrun --help-env. Manual: man pgasrun.";

// The thread count as typed: the messages say what was wrong with the text itself, which a
// CLI11 integer option would not ("-n -3" must read as a value, and name the limit).
int parse_threads(const std::string& text) {
  const int max = pgas::config::max_threads;
  long value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && text[0] == 'p') {
    // mpirun's single-dash "-np 4" reaches us as -n with the value "p".
    throw usage_error("unknown option '-n" + text + "' (write -n N or --np N)");
  }
  auto [end, ec] = std::from_chars(first, last, value);
  if (text.empty() || end != last || (ec != std::errc{} && ec != std::errc::result_out_of_range)) {
    throw usage_error("-n '" + text + "' is not a whole number of threads (1 to " +
                      std::to_string(max) + ")");
  }
  if (ec == std::errc::result_out_of_range) value = text[0] == '-' ? -1 : max + 1L;
  if (value < 1) {
    throw usage_error("-n " + text + ": a job needs at least 1 thread");
  }
  if (value > max) {
    throw usage_error("-n " + text + ": more than the maximum of " + std::to_string(max) +
                      " threads (pgas was configured with -Dmax_threads=" + std::to_string(max) +
                      ")");
  }
  return static_cast<int>(value);
}

// What execvp() would run, found the way it searches, so that "not found" and "not executable"
// can be told apart in one line before the exec replaces us. Throws the 127 message.
void check_program(const std::string& program) {
  auto usable = [](const std::string& path, bool& exists) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return false;
    exists = true;
    return !S_ISDIR(st.st_mode) && access(path.c_str(), X_OK) == 0;
  };
  bool exists = false;
  if (program.find('/') != std::string::npos) {
    if (usable(program, exists)) return;
  } else {
    // glibc's execvp searches confstr(_CS_PATH) when PATH is unset; an empty entry is ".".
    const char* env_path = std::getenv("PATH");
    std::string path = env_path != nullptr ? env_path : "/bin:/usr/bin";
    std::size_t start = 0;
    while (true) {
      std::size_t colon = path.find(':', start);
      std::string dir = path.substr(start, colon == std::string::npos ? colon : colon - start);
      if (usable((dir.empty() ? std::string(".") : dir) + "/" + program, exists)) return;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  fail(exit_cannot_run,
       "program '" + program + "' " + (exists ? "is not executable" : "not found"));
}

void set_env(const char* name, const std::string& value) {
  if (setenv(name, value.c_str(), 1) != 0) {
    fail(1, std::string("cannot set ") + name + ": " + std::strerror(errno));
  }
}

// The options as typed; which ones were given is read from CLI11 (only those are exported, so
// an inherited PGAS_* variable stays in force when its option is absent).
struct launch_options {
  std::string threads = "1";
  std::string bind_to;
  std::string map_by;
  std::string topology;
  std::string shared_heap;
  std::string report;
  bool report_bindings = false;
  bool dry_run = false;
  bool verbose = false;
  bool help_env = false;
};

// --dry-run: the plan pgas::run() would make, from the library's own code and from the same
// environment the program would see (so inherited PGAS_* variables count too).
int dry_run(const pgas::run_options& given) {
  pgas::run_options opts;
  try {
    opts = given.resolved();
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  const std::string spec = opts.topology.value_or("");
  pgas::machine m;
  try {
    m = pgas::machine::from_spec(spec);
  } catch (const pgas::topology_error& e) {
    // A bad description is the user's mistake; failing to read this machine is not.
    if (spec.empty()) throw std::runtime_error(e.what());
    throw;
  }
  const int n = *opts.threads;
  if (pgas::oversubscribed(m, n)) {
    std::fprintf(stderr,
                 "pgasrun: warning: %d threads on %d processing units: threads will share PUs\n", n,
                 m.pu_count());
  }
  const auto plan = pgas::place(m, n, *opts.bind_to, *opts.map_by);
  const std::string report = pgas::bindings_report(m, plan, *opts.bind_to, *opts.map_by);
  std::fputs(report.c_str(), stdout);
  if (!report.empty() && report.back() != '\n') std::fputc('\n', stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

int launch(int argc, char** argv) {
  launch_options o;
  launcher_cli app(description, "pgasrun");
  pgas::tools::configure_app(app, "pgasrun",
                             "Usage: pgasrun [-n N] [OPTIONS] [--] PROGRAM [ARGS...]\n"
                             "       pgasrun --dry-run [-n N] [OPTIONS] [PROGRAM [ARGS...]]\n",
                             footer, 34);
  // Stop at PROGRAM: its arguments, options included, are its own.
  app.prefix_command();

  // Descriptions are wrapped by hand: CLI11 indents after '\n' but does not wrap, and the
  // description column starts at 34, which leaves 45 characters in 80 columns.
  auto* n_opt = app.add_option("-n,--np", o.threads, "Number of UPC threads (default 1)")
                    ->type_name("N")
                    ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto* bind_opt = app.add_option("--bind-to", o.bind_to,
                                  "What each thread is bound to: the PUs of its\n"
                                  "core (default), NUMA node or package, or none")
                       ->type_name("core|numa|socket|none")
                       ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto* map_opt = app.add_option("--map-by", o.map_by,
                                 "How threads are dealt: over PUs in order\n"
                                 "(core, default) or round-robin over NUMA\n"
                                 "nodes or packages (numa, socket)")
                      ->type_name("core|numa|socket")
                      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--report-bindings", o.report_bindings,
               "Print each thread's PU, core, L3, NUMA node\n"
               "and package on stderr at start-up");
  auto* topo_opt = app.add_option("--topology", o.topology,
                                  "Plan for a described machine (an hwloc\n"
                                  "synthetic description or XML export)\n"
                                  "instead of this one: the plan is reported,\n"
                                  "never applied")
                       ->type_name("synthetic:DESC|FILE.xml")
                       ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto* heap_opt = app.add_option("--shared-heap", o.shared_heap,
                                  "Most shared memory one thread may have\n"
                                  "allocated (k/m/g/t suffixes; default\n"
                                  "unlimited)")
                       ->type_name("SIZE")
                       ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto* report_opt = app.add_option("--report", o.report,
                                    "Reports printed on stderr when the job\n"
                                    "ends, comma-separated: memory (shared\n"
                                    "memory per thread), tables (privatization\n"
                                    "tables, their replicas and bytes)")
                         ->type_name("memory,tables")
                         ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--dry-run", o.dry_run,
               "Print the placement on stdout and exit\n"
               "without running anything (PROGRAM is then\n"
               "optional)");
  app.add_flag("-v,--verbose", o.verbose,
               "Print what pgasrun executes, and every\n"
               "PGAS_* setting at start-up");
  app.add_flag("--help-env", o.help_env,
               "Print every PGAS_* environment variable and\n"
               "exit");

  if (!pgas::tools::parse_command_line(app, argc, argv, " (see pgasrun --help)", false, "--np",
                                       "-n"))
    return 0;
  if (o.help_env) {
    std::fputs(pgas::detail::env_help().c_str(), stdout);
    return 0;
  }
  const std::vector<std::string> command = app.command();

  // Validate everything given before anything runs: a mistake is a usage error here, not a
  // failed job later.
  pgas::run_options given;
  if (n_opt->count() > 0) given.threads = parse_threads(o.threads);
  try {
    if (bind_opt->count() > 0) given.bind_to = pgas::parse_bind_policy(o.bind_to);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--bind-to: ") + e.what());
  }
  try {
    if (map_opt->count() > 0) given.map_by = pgas::parse_map_policy(o.map_by);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--map-by: ") + e.what());
  }
  if (topo_opt->count() > 0) {
    if (o.topology.empty()) throw usage_error("--topology needs a synthetic:DESC or an XML file");
    given.topology = o.topology;
    // Only a described machine is loaded here; the real one costs the runtime a topology load
    // anyway, and pgasrun's start-up should stay one exec.
    if (!o.dry_run) (void)pgas::machine::from_spec(o.topology);
  }
  if (o.report_bindings) given.report_bindings = true;
  if (heap_opt->count() > 0 && o.shared_heap != "unlimited") {
    try {
      (void)pgas::detail::env_parse_size("--shared-heap", o.shared_heap, 1);
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
  }
  if (report_opt->count() > 0) {
    std::string_view rest = o.report;
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string_view word = rest.substr(0, comma);
      if (word != "memory" && word != "tables") {
        throw usage_error("--report: unknown report '" + std::string(word) +
                          "' (expected memory, tables or both, comma-separated)");
      }
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  }

  if (o.dry_run) return dry_run(given);
  if (command.empty()) throw usage_error("no program to run (see pgasrun --help)");
  check_program(command.front());

  std::string exported;
  auto export_var = [&](const char* name, const std::string& value) {
    set_env(name, value);
    exported += std::string(name) + "=" + value + " ";
  };
  if (given.threads) export_var("PGAS_THREADS", std::to_string(*given.threads));
  if (given.bind_to) export_var("PGAS_BIND_TO", std::string(pgas::to_string(*given.bind_to)));
  if (given.map_by) export_var("PGAS_MAP_BY", std::string(pgas::to_string(*given.map_by)));
  if (o.report_bindings) export_var("PGAS_REPORT_BINDINGS", "1");
  if (given.topology) export_var("PGAS_TOPOLOGY", *given.topology);
  if (heap_opt->count() > 0) export_var("PGAS_SHARED_HEAP_SIZE", o.shared_heap);
  if (report_opt->count() > 0) export_var("PGAS_REPORT", o.report);
  if (o.verbose) {
    export_var("PGAS_VERBOSE", "1");
    std::string line = "pgasrun: " + exported + "exec";
    for (const auto& arg : command)
      line += " " + arg;
    std::fprintf(stderr, "%s\n", line.c_str());
  }

  std::vector<char*> args;
  for (const auto& arg : command)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  execvp(args[0], args.data());
  fail(exit_cannot_run, "cannot run '" + command.front() + "': " + std::strerror(errno));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return launch(argc, argv);
  } catch (const usage_error& e) {
    fail(exit_usage, e.what());
  } catch (const pgas::topology_error& e) {
    fail(exit_usage, one_line(e.what()));
  } catch (const std::exception& e) {
    // A library failure (hwloc cannot read this machine, out of memory) is not the user's
    // mistake; 1 is what the runtime returns for a job that failed.
    fail(1, one_line(e.what()));
  }
}
