// tools/pgasrun.cpp — the job launcher: `pgasrun -n N [OPTIONS] [--] PROGRAM [ARGS...]`.
//
// pgasrun speaks like mpirun/upcrun but starts no thread itself: it validates its options, turns
// them into the PGAS_* environment variables declared in src/base/env.hpp, and execvp()s
// PROGRAM, so start-up costs one exec and the job's exit status is the program's own. Which
// option sets which variable, and how its value is checked, come from that table: every row
// with a pgasrun option is validated with the row's parser and exported under the row's name.
// pgas::run() inside the program reads the variables. `--dry-run` prints the placement the
// library would compute instead, and `--check-globals` lists the program's writable globals
// (tools/globals_check.hpp) without running it.

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <pgas/runtime.hpp>
#include <pgas/topology.hpp>

#include "cli.hpp"
#include "globals_check.hpp"
#include "src/base/env.hpp"
#include "src/base/file.hpp"

namespace {

// mpirun and upcrun conventions: 2 for a bad command line, 127 (the shell's) for a program that
// cannot be started. Anything else is the program's own status, since we exec it.
using pgas::tools::exit_usage;
constexpr int exit_cannot_run = 127;
using pgas::tools::exit_globals_found;

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
    "  pgasrun --check-globals ./stencil\n"
    "\n"
    "Exit status: the program's own; 2 for a usage error; 124 when the job ran past\n"
    "--timeout; 127 when PROGRAM cannot be started. SIGQUIT (Ctrl-\\) prints every\n"
    "thread's backtrace and ends the job. --check-globals: 0 when the program has no\n"
    "writable globals, 4 when it lists some, 2 when PROGRAM is missing or not ELF.\n"
    "Every PGAS_* variable: pgasrun --help-env. Manual: man pgasrun.";

// mpirun's single-dash "-np 4" reaches us as -n with the value "p…": say how to write it.
void check_not_np(const CLI::Option* n_opt) {
  if (n_opt->count() == 0) return;
  const std::string text = n_opt->as<std::string>();
  if (!text.empty() && text[0] == 'p') {
    throw usage_error("unknown option '-n" + text + "' (write -n N or --np N)");
  }
}

// What execvp() would run, found the way it searches: the path of the first executable file
// named `program`, or empty, with `exists` set when some file of that name was met.
std::string find_program(const std::string& program, bool& exists) {
  auto usable = [](const std::string& path, bool& exists) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return false;
    exists = true;
    return !S_ISDIR(st.st_mode) && access(path.c_str(), X_OK) == 0;
  };
  exists = false;
  if (program.find('/') != std::string::npos) {
    if (usable(program, exists)) return program;
  } else {
    // glibc's execvp searches confstr(_CS_PATH) when PATH is unset; an empty entry is ".".
    const char* env_path = std::getenv("PATH");
    std::string path = env_path != nullptr ? env_path : "/bin:/usr/bin";
    std::size_t start = 0;
    while (true) {
      std::size_t colon = path.find(':', start);
      std::string dir = path.substr(start, colon == std::string::npos ? colon : colon - start);
      std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
      if (usable(candidate, exists)) return candidate;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  return {};
}

// When exec fails with ENOENT on a program that exists, the missing file is the interpreter
// its #! line names (looked up as the exec found the program): say so, since the bare error
// reads as if the program were missing; a #! line ending in a carriage return (a script saved
// with DOS line endings) names an interpreter with a '\r' in it, which is said as such.
std::string missing_interpreter(const std::string& program, int error) {
  bool exists = false;
  const std::string path = find_program(program, exists);
  if (error != ENOENT || path.empty()) return "";
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return "";
  char line[256] = {};
  const bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  if (!read || line[0] != '#' || line[1] != '!') return "";
  std::string interpreter(line + 2);
  interpreter.erase(0, interpreter.find_first_not_of(" \t"));
  interpreter = interpreter.substr(0, interpreter.find_first_of(" \t\n"));
  if (!interpreter.empty() && interpreter.back() == '\r') {
    interpreter.pop_back();
    return " (its #! line ends in a carriage return, so the interpreter it names is '" +
           interpreter + "\\r', which does not exist: the script has DOS line endings)";
  }
  return " (the interpreter '" + interpreter + "' named by its #! line was not found)";
}

// Exits with the 127 message when execvp() could not run `program`, so that "not found" and
// "not executable" are told apart in one line before the exec replaces us.
void check_program(const std::string& program) {
  bool exists = false;
  if (!find_program(program, exists).empty()) return;
  fail(exit_cannot_run,
       "program '" + program + "' " + (exists ? "is not executable" : "not found"));
}

// --check-globals: lists the program's writable globals on stdout without running it. Returns
// 0 when there are none, exit_globals_found when there are; a file that cannot be read as ELF
// is a usage error. A name without '/' is looked up in PATH, as the exec would.
// What --trace (--reuse) without a value stands for, and the file it means: PROGRAM.trace
// (PROGRAM.reuse) here.
constexpr std::string_view default_file = "true";  // what CLI11 gives a bare flag
std::string recording_file(const std::string& given, const std::vector<std::string>& command,
                           const std::string& suffix) {
  if (given != default_file) return given;
  if (command.empty()) return "pgas" + suffix;
  return std::filesystem::path(command.front()).filename().string() + suffix;
}

int check_globals(const std::string& program) {
  bool exists = false;
  std::string path = find_program(program, exists);
  if (path.empty()) path = program;
  pgas::tools::elf_data data;
  try {
    data = pgas::tools::elf_data_symbols(path);
  } catch (const pgas::tools::elf_error& e) {
    throw usage_error("cannot check '" + program + "': " + e.what());
  }
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  const pgas::tools::globals_found found =
      pgas::tools::program_globals(data, ec ? std::filesystem::path() : cwd);
  const std::string report = pgas::tools::globals_report(found);
  std::fputs(report.c_str(), stdout);
  return found.globals.empty() ? 0 : exit_globals_found;
}

void set_env(const char* name, const std::string& value) {
  if (setenv(name, value.c_str(), 1) != 0) {
    fail(1, std::string("cannot set ") + name + ": " + std::strerror(errno));
  }
}

// The flags that are pgasrun's own; the options that set PGAS_* variables are read back from
// CLI11 by name (only those given are exported, so an inherited PGAS_* variable stays in force
// when its option is absent).
struct launch_options {
  bool dry_run = false;
  bool help_env = false;
  bool check_globals = false;
};

// --dry-run: the plan pgas::run() would make, from the library's own code and from the
// environment the program would see (what pgasrun exported, and inherited PGAS_* variables).
int dry_run() {
  pgas::run_options opts;
  try {
    opts = pgas::run_options{}.resolved();
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
                 "pgasrun: warning: %d threads on %d processing unit%s: threads will share PUs\n",
                 n, m.pu_count(), m.pu_count() == 1 ? "" : "s");
  }
  const auto plan = pgas::place(m, n, *opts.bind_to, *opts.map_by);
  const std::string report = pgas::bindings_report(m, plan, *opts.bind_to, *opts.map_by);
  std::fputs(report.c_str(), stdout);
  if (!report.empty() && report.back() != '\n') std::fputc('\n', stdout);
  return 0;  // main's finish_output flushes and reports a failed write
}

int launch(int argc, char** argv) {
  launch_options o;
  launcher_cli app(description, "pgasrun");
  pgas::tools::configure_app(app, "pgasrun",
                             "Usage: pgasrun [-n N] [OPTIONS] [--] PROGRAM [ARGS...]\n"
                             "       pgasrun --dry-run [-n N] [OPTIONS] [PROGRAM [ARGS...]]\n"
                             "       pgasrun --check-globals PROGRAM [ARGS...]\n",
                             footer, 34);
  // Stop at PROGRAM: its arguments, options included, are its own.
  app.prefix_command();

  // Descriptions are wrapped by hand: CLI11 indents after '\n' but does not wrap, and the
  // description column starts at 34, which leaves 45 characters in 80 columns. Each option
  // that sets a variable is named in the variable's row (src/base/env.cpp); its value is
  // checked and exported below from that row, read back from CLI11 by the option's name.
  auto* n_opt = app.add_option("-n,--np",
                               "Number of UPC threads (default: PGAS_THREADS,\n"
                               "else 1)")
                    ->type_name("N")
                    ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--bind-to",
                 "What each thread is bound to: the PUs of its\n"
                 "core (default, or PGAS_BIND_TO), NUMA node or\n"
                 "package, or none")
      ->type_name("core|numa|socket|none")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--map-by",
                 "How threads are dealt: over PUs in order\n"
                 "(core, default, or PGAS_MAP_BY) or round-robin\n"
                 "over NUMA nodes or packages (numa, socket)")
      ->type_name("core|numa|socket")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--report-bindings")
      ->description(
          "Print each thread's PU, core, L3, NUMA node\n"
          "and package on stderr at start-up");
  auto* topo_opt = app.add_option("--topology",
                                  "Plan for a described machine (an hwloc\n"
                                  "synthetic description or XML export)\n"
                                  "instead of this one: the plan is reported,\n"
                                  "never applied")
                       ->type_name("synthetic:DESC|FILE.xml")
                       ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--shared-heap",
                 "Most shared memory one thread may have\n"
                 "allocated (k/m/g/t suffixes; default\n"
                 "unlimited)")
      ->type_name("SIZE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--report",
                 "Reports printed on stderr when the job\n"
                 "ends, comma-separated: memory (shared\n"
                 "memory per thread), tables (privatization\n"
                 "tables, their replicas and bytes)")
      ->type_name("memory,tables")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--timeout",
                 "End the job after SECONDS (decimals allowed;\n"
                 "0, the default: never), printing where each\n"
                 "thread is and its backtrace; exit status 124")
      ->type_name("SECONDS")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--trace")
      ->description(
          "Trace every shared access into FILE (default\n"
          "PROGRAM.trace in the current directory):\n"
          "read it with pgas-trace FILE")
      ->type_name("[=FILE]")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--reuse")
      ->description(
          "Record the reuse distances of accesses to\n"
          "other threads' data into FILE (default\n"
          "PROGRAM.reuse in the current directory):\n"
          "read it with pgas-reuse show FILE")
      ->type_name("[=FILE]")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--reuse-grain",
                 "The unit whose reuse --reuse measures: the\n"
                 "element (default), its 64-byte line, or its\n"
                 "array's UPC block")
      ->type_name("element|line|block")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--reuse-mode",
                 "exact (default) or approximate reuse\n"
                 "distances (below 32 exact, longer ones from\n"
                 "one unit in 8, scaled: for long runs)")
      ->type_name("exact|approximate")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--dry-run", o.dry_run,
               "Print the placement on stdout and exit\n"
               "without running anything (PROGRAM is then\n"
               "optional)");
  app.add_flag("--check-globals", o.check_globals,
               "List PROGRAM's writable globals (one object\n"
               "for all UPC threads, where UPC has one per\n"
               "thread) and exit without running it");
  auto* verbose_opt = app.add_flag("-v,--verbose")
                          ->description(
                              "Print what pgasrun executes, and every\n"
                              "PGAS_* setting at start-up");
  app.add_flag("--help-env", o.help_env,
               "Print every PGAS_* environment variable and\n"
               "exit");

  if (!pgas::tools::parse_command_line(app, argc, argv, " (see pgasrun --help)", false, "--np",
                                       "-n"))
    return 0;
  // An unknown option is an error whatever else was asked for, --help-env included.
  const std::vector<std::string> command = app.command();
  if (o.help_env) {
    std::fputs(pgas::detail::env_help().c_str(), stdout);
    return 0;
  }

  // Validate everything given before anything runs, each value with its variable's parser: a
  // mistake is a usage error here, not a failed job later.
  check_not_np(n_opt);
  std::vector<std::pair<std::string, std::string>> exports;  // name, value
  for (const pgas::detail::env_var& v : pgas::detail::env_table()) {
    if (v.pgasrun_option.empty()) continue;
    const CLI::Option* opt = app.get_option(std::string(v.pgasrun_option));
    if (opt->count() == 0) continue;
    // A flag sets its boolean variable.
    std::string text = v.kind == pgas::detail::env_kind::boolean ? "1" : opt->as<std::string>();
    if (v.id == pgas::detail::env_id::trace) text = recording_file(text, command, ".trace");
    if (v.id == pgas::detail::env_id::reuse) text = recording_file(text, command, ".reuse");
    try {
      pgas::detail::env_check(v.id, text, v.pgasrun_option);
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
    exports.emplace_back(v.name, std::move(text));
  }
  // Only a described machine is loaded here; the real one costs the runtime a topology load
  // anyway, and pgasrun's start-up should stay one exec.
  if (topo_opt->count() > 0 && !o.dry_run) {
    (void)pgas::machine::from_spec(topo_opt->as<std::string>());
  }

  std::string exported;
  for (const auto& [name, text] : exports) {
    set_env(name.c_str(), text);
    exported += name + "=" + text + " ";
  }
  if (o.dry_run && o.check_globals) {
    throw usage_error("--dry-run and --check-globals exclude each other (see pgasrun --help)");
  }
  if (o.dry_run) return dry_run();
  if (o.check_globals) {
    if (command.empty()) throw usage_error("--check-globals needs a program (see pgasrun --help)");
    return check_globals(command.front());
  }
  if (command.empty()) throw usage_error("no program to run (see pgasrun --help)");
  check_program(command.front());
  // Two recordings into one file would leave only the one written last; the reuse options
  // without a reuse recording would be silently ignored.
  const auto env_text = [](const char* name) {
    const char* v = std::getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  const std::string trace_file = env_text("PGAS_TRACE"), reuse_file = env_text("PGAS_REUSE");
  if (!trace_file.empty() && std::filesystem::path(trace_file).lexically_normal() ==
                                 std::filesystem::path(reuse_file).lexically_normal()) {
    throw usage_error("--trace and --reuse (PGAS_TRACE and PGAS_REUSE) both name " + trace_file +
                      ": each recording needs its own file");
  }
  for (const char* option : {"--reuse-grain", "--reuse-mode"}) {
    if (app.count(option) > 0 && reuse_file.empty()) {
      throw usage_error(std::string(option) +
                        " applies to a reuse recording: give --reuse[=FILE] (or PGAS_REUSE) too");
    }
  }
  // A file that cannot be written is found now, not after a long run: the job would not start
  // anyway.
  for (const auto& [name, option] :
       {std::pair{"PGAS_TRACE", "--trace"}, {"PGAS_REUSE", "--reuse"}}) {
    if (const char* file = std::getenv(name); file != nullptr && *file != '\0') {
      try {
        pgas::detail::check_replaceable(file);
      } catch (const std::runtime_error& e) {
        fail(exit_usage, std::string(option) + ": " + e.what());
      }
    }
  }
  if (verbose_opt->count() > 0) {
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
  const int error = errno;
  fail(exit_cannot_run, "cannot run '" + command.front() + "': " + std::strerror(error) +
                            missing_interpreter(command.front(), error));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return pgas::tools::finish_output("pgasrun", launch(argc, argv));
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
