// tools/pgas-reuse.cpp — `pgas-reuse COMMAND ...`: reads the reuse-distance recordings that
// `pgasrun --reuse` writes. show prints (or draws) the histograms per site, predict predicts
// the histograms of a larger run from two smaller ones (by problem size, or by thread count
// with training threads chosen by behaviour), evaluate scores a prediction against a run,
// export writes PARDA's histogram text.
//
// Reading is reuse_file.hpp's, the analysis reuse_patterns.hpp's and reuse_threads.hpp's, the
// output reuse_report.hpp's; this file is the command line.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "reuse_file.hpp"
#include "reuse_patterns.hpp"
#include "reuse_report.hpp"
#include "reuse_threads.hpp"
#include "src/base/file.hpp"

namespace {

using pgas::tools::exit_usage;
using pgas::tools::one_line;
using pgas::tools::reuse_error;
using pgas::tools::usage_error;

constexpr const char* tool = "pgas-reuse";

constexpr const char* description =
    "Shows, predicts and evaluates the reuse distances of remote accesses recorded by\n"
    "pgasrun --reuse: per source site and thread, how many distinct units a thread\n"
    "touched between two accesses to the same unit of another thread's data.\n";

constexpr const char* footer =
    "Examples:\n"
    "  pgas-reuse show app.reuse\n"
    "  pgas-reuse predict --train s64.reuse s128.reuse --size 1024 -o s1024.reuse\n"
    "  pgas-reuse predict --train t16.reuse t25.reuse --threads 36 --pattern diagonal\n"
    "  pgas-reuse evaluate s1024.reuse observed1024.reuse\n"
    "  pgas-reuse export --parda app.reuse\n"
    "\n"
    "Exit status: 0 on success, 1 when an output file cannot be written, 2 for a\n"
    "usage error or a recording that cannot be read or used.\n"
    "Manual: man pgas-reuse.";

// Writes `text` to `path`, or exits 1 naming it. The file is replaced by a rename, which would
// put a regular file in place of a device or FIFO (/dev/null, /dev/stdout): those are refused.
void write_output(const std::string& option, const std::string& path, const std::string& text) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
    pgas::tools::fail(tool, 1,
                      fmt::format("{}: cannot write {}: not a regular file (pgas-reuse replaces "
                                  "its output by renaming a new file over it)",
                                  option, path));
  }
  try {
    pgas::detail::replace_file(path, text);
  } catch (const pgas::detail::file_error& e) {
    pgas::tools::fail(tool, 1, fmt::format("{}: {}", option, e.what()));
  }
}

// A whole number from `low` given to `name`.
std::int64_t number_option(const std::string& name, const std::string& text, std::int64_t low,
                           std::int64_t high) {
  const auto v = pgas::tools::parse_count(text);
  if (!v || *v < static_cast<std::size_t>(low) || *v > static_cast<std::size_t>(high)) {
    throw usage_error(
        fmt::format("{} '{}': expected a whole number from {} to {}", name, text, low, high));
  }
  return static_cast<std::int64_t>(*v);
}

std::optional<int> thread_option(const std::string& text, const pgas::tools::reuse_recording& r) {
  if (text.empty()) return std::nullopt;
  const auto v = pgas::tools::parse_count(text);
  if (!v || *v >= static_cast<std::size_t>(r.threads)) {
    throw usage_error(
        fmt::format("--thread '{}': expected a thread from 0 to {} (the recording "
                    "has {})",
                    text, r.threads - 1, r.threads));
  }
  return static_cast<int>(*v);
}

int run(int argc, char** argv) {
  bool as_json = false;
  std::string file, svg, thread_text, size_text, threads_text, output, pattern_text = "diagonal";
  std::string predicted, observed, parda;
  std::vector<std::string> training;

  CLI::App app(description, tool);
  pgas::tools::configure_app(app, tool,
                             "Usage: pgas-reuse show [--json] [--svg OUT.svg] [--thread T] FILE\n"
                             "       pgas-reuse predict --train A B [C...] --size N [-o OUT]\n"
                             "       pgas-reuse predict --train A B --threads N\n"
                             "                          [--pattern diagonal|grid|line] [-o OUT]\n"
                             "       pgas-reuse evaluate [--json] PREDICTED OBSERVED\n"
                             "       pgas-reuse export --parda FILE\n",
                             footer, 30);
  app.require_subcommand(1);
  const auto last = CLI::MultiOptionPolicy::TakeLast;

  CLI::App* show = app.add_subcommand("show", "Print a recording's histograms per site");
  show->add_flag("--json", as_json, "Print them as one JSON object");
  show->add_option("--svg", svg, "Also draw them as bar charts (SVG)")
      ->type_name("OUT.svg")
      ->multi_option_policy(last);
  show->add_option("--thread", thread_text, "Only thread T's histograms")
      ->type_name("T")
      ->multi_option_policy(last);
  show->add_option("FILE", file, "A recording (or a prediction)")->required()->type_name("");

  CLI::App* predict = app.add_subcommand("predict", "Predict the histograms of a larger run");
  predict->add_option("--train", training, "Training recordings (two or more)")
      ->type_name("A B")
      ->required()
      ->expected(1, 64);
  auto* size_opt = predict->add_option("--size", size_text, "Predict problem size N")
                       ->type_name("N")
                       ->multi_option_policy(last);
  auto* threads_opt = predict->add_option("--threads", threads_text, "Predict N threads")
                          ->type_name("N")
                          ->multi_option_policy(last);
  size_opt->excludes(threads_opt);
  auto* pattern_opt =
      predict
          ->add_option("--pattern", pattern_text,
                       "How threads lie (--threads): diagonal\n(default), grid or line")
          ->type_name("P")
          ->multi_option_policy(last);
  predict->add_option("-o,--output", output, "Write the prediction to OUT and\nsay how it was made")
      ->type_name("OUT")
      ->multi_option_policy(last);
  predict->add_flag("--json", as_json, "With -o: say it as JSON");

  CLI::App* eval = app.add_subcommand("evaluate", "Coverage and accuracy of a prediction");
  eval->add_flag("--json", as_json, "Print the tables as one JSON object");
  eval->add_option("PREDICTED", predicted, "Written by pgas-reuse predict")
      ->required()
      ->type_name("");
  eval->add_option("OBSERVED", observed, "Recorded by pgasrun --reuse")->required()->type_name("");

  CLI::App* exp = app.add_subcommand("export", "Write a recording in another tool's format");
  exp->add_option("--parda", parda, "PARDA's histogram text of FILE")
      ->type_name("FILE")
      ->required();

  // A first word that is no command: CLI11 would only say that a command is required.
  const auto is_command = [&](std::string_view word) {
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == word) return true;
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
    throw usage_error(fmt::format(
        "'{}' is not a command: show, predict, evaluate or export (see pgas-reuse --help)",
        argv[1]));
  }
  if (!pgas::tools::parse_command_line(app, argc, argv, " (see pgas-reuse --help)", true)) return 0;

  std::string text;
  if (show->parsed()) {
    const pgas::tools::reuse_recording r = pgas::tools::read_reuse(file);
    const std::optional<int> thread = thread_option(thread_text, r);
    if (!svg.empty()) write_output("--svg", svg, pgas::tools::show_svg(r, thread));
    text = as_json ? pgas::tools::show_json(r, thread) : pgas::tools::show_text(r, thread);
  } else if (predict->parsed()) {
    if (size_text.empty() && threads_text.empty())
      throw usage_error("predict needs --size N or --threads N (what to predict)");
    pgas::tools::thread_pattern pattern{};
    if (!pgas::tools::parse_thread_pattern(pattern_text, pattern))
      throw usage_error(
          fmt::format("--pattern '{}': expected diagonal, grid or line", pattern_text));
    if (!size_text.empty() && pattern_opt->count() > 0)
      throw usage_error("--pattern chooses training threads for --threads; --size does not use it");
    if (training.size() < 2) {
      throw usage_error(fmt::format("--train needs two training runs (--train A B), got one: {}",
                                    training.front()));
    }
    std::vector<pgas::tools::reuse_recording> runs;
    for (const std::string& path : training)
      runs.push_back(pgas::tools::read_reuse(path));
    pgas::tools::reuse_recording out;
    pgas::tools::prediction_summary summary;
    if (!size_text.empty()) {
      const std::int64_t size = number_option("--size", size_text, 1, INT64_MAX);
      out = pgas::tools::predict_size(runs, training, size, summary.notes);
    } else {
      if (training.size() != 2)
        throw usage_error("predict --threads takes exactly two training runs (--train A B)");
      const auto threads = static_cast<int>(
          number_option("--threads", threads_text, 1, pgas::tools::max_reuse_threads));
      out = pgas::tools::predict_threads(runs, training, threads, pattern, summary.from,
                                         summary.notes);
      summary.pattern = pattern;
    }
    if (out.histograms.empty()) {
      const auto why = std::find_if(summary.notes.begin(), summary.notes.end(),
                                    [](const auto& n) { return !n.left_out.empty(); });
      if (why != summary.notes.end()) {
        throw reuse_error(fmt::format(
            "nothing could be predicted: the {} operation{} of the training runs {} left out "
            "(thread {} site {}: {})",
            summary.notes.size(), summary.notes.size() == 1 ? "" : "s",
            summary.notes.size() == 1 ? "is" : "are", why->thread, why->site, why->left_out));
      }
    }
    const std::string recording = pgas::tools::write_reuse(out);
    if (output.empty()) {
      text = recording;
    } else {
      write_output("--output", output, recording);
      summary.output = output;
      summary.training = training;
      summary.predicted = &out;
      text =
          as_json ? pgas::tools::prediction_json(summary) : pgas::tools::prediction_text(summary);
    }
  } else if (eval->parsed()) {
    const auto p = pgas::tools::read_reuse(predicted);
    const auto o = pgas::tools::read_reuse(observed);
    const pgas::tools::evaluation e = pgas::tools::evaluate(p, predicted, o, observed);
    text = as_json ? pgas::tools::evaluation_json(e, predicted, observed)
                   : pgas::tools::evaluation_text(e, predicted, observed);
  } else {
    text = pgas::tools::parda_text(pgas::tools::read_reuse(parda));
  }
  std::fputs(text.c_str(), stdout);
  return 0;  // main's finish_output flushes and reports a failed write
}

}  // namespace

int main(int argc, char** argv) {
  return pgas::tools::tool_main<reuse_error>(tool, [&] { return run(argc, argv); });
}
