// tools/pgas-trace.cpp — `pgas-trace [options] FILE...`: reports the access traces that
// `pgasrun --trace` writes: per source line (with each issuing thread and where its accesses
// went), per array, per locality class, the waits and the software caches; --json for scripts,
// --heatmap for a thread x thread SVG, --timeline for Perfetto. Several files of one program
// are summed.
//
// Reading and checking a trace is trace_file.hpp's, the tables trace_report.hpp's, the SVG and
// the timeline trace_views.hpp's; this file is the command line.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "src/base/file.hpp"
#include "trace_file.hpp"
#include "trace_report.hpp"
#include "trace_views.hpp"

namespace {

using pgas::tools::exit_usage;
using pgas::tools::one_line;
using pgas::tools::trace_error;
using pgas::tools::usage_error;

constexpr const char* tool = "pgas-trace";

constexpr const char* description =
    "Reports an access trace written by pgasrun --trace: every shared access per\n"
    "source line, with each issuing thread and where its accesses went, then per\n"
    "array, per locality class, the waits per site and the software caches.\n"
    "Several FILEs of one program and thread count (repeated runs) are summed.\n";

constexpr const char* footer =
    "Examples:\n"
    "  pgasrun -n 4 --trace=app.trace ./app && pgas-trace app.trace\n"
    "  pgas-trace --thread 0 --class other-numa --top 10 app.trace\n"
    "  pgas-trace --heatmap pairs.svg --timeline waits.json app.trace\n"
    "\n"
    "Exit status: 0 on success, 1 when an output file cannot be written, 2 for a\n"
    "usage error or a trace file that cannot be read or is not a valid trace.\n"
    "Manual: man pgas-trace.";

// A thread number given to --thread or --owner, checked against the trace.
int thread_option(const std::string& name, const std::string& text, int threads) {
  const auto v = pgas::tools::parse_count(text);
  if (!v || *v >= static_cast<std::size_t>(threads)) {
    throw usage_error(fmt::format("{} '{}': expected a thread from 0 to {} (the trace has {})",
                                  name, text, threads - 1, threads));
  }
  return static_cast<int>(*v);
}

// A usage error unless the trace has an array named `name` (the message lists the first ten).
void check_array(const pgas::tools::trace& t, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& a : t.arrays) {
    if (a.name == name) return;
    if (std::find(names.begin(), names.end(), a.name) == names.end()) names.push_back(a.name);
  }
  std::string known = names.empty() ? "it names none" : "it has ";
  if (names.size() > 10) {
    known = fmt::format("it has {} names: ", names.size());
    names.resize(10);
    names.emplace_back("...");
  }
  throw usage_error(fmt::format("--array '{}': the trace has no array of that name ({}{})", name,
                                known, fmt::join(names, ", ")));
}

// Writes `text` to `path`, or exits 1 naming it.
void write_output(const std::string& option, const std::string& path, const std::string& text) {
  try {
    pgas::detail::replace_file(path, text);
  } catch (const pgas::detail::file_error& e) {
    pgas::tools::fail(tool, 1, fmt::format("{}: {}", option, e.what()));
  }
}

int run(int argc, char** argv) {
  std::vector<std::string> files;
  std::string thread_text, owner_text, array, kind_text, class_text, file, sort_text = "bytes";
  std::string top_text, heatmap, timeline, by_text = "bytes";
  bool as_json = false;

  CLI::App app(description, tool);
  pgas::tools::configure_app(
      app, tool,
      "Usage: pgas-trace [--json] [--heatmap FILE.svg [--by bytes|calls]]\n"
      "                  [--timeline FILE.json] [--thread T] [--owner T] [--array NAME]\n"
      "                  [--kind KIND] [--class CLASS] [--file TEXT]\n"
      "                  [--sort bytes|calls|line] [--top N] FILE...\n",
      footer, 30);
  const auto last = CLI::MultiOptionPolicy::TakeLast;
  app.add_flag("--json", as_json, "Print the tables as one JSON object");
  auto* heatmap_opt = app.add_option("--heatmap", heatmap, "Write a thread x thread heat map (SVG)")
                          ->type_name("FILE.svg")
                          ->multi_option_policy(last);
  app.add_option("--by", by_text, "Colour the heat map by bytes (default)\nor calls")
      ->type_name("bytes|calls")
      ->multi_option_policy(last);
  auto* timeline_opt =
      app.add_option("--timeline", timeline, "Write the waits for Perfetto\n(Trace Event Format)")
          ->type_name("FILE.json")
          ->multi_option_policy(last);
  app.add_option("--thread", thread_text, "Only accesses issued by thread T")
      ->type_name("T")
      ->multi_option_policy(last);
  app.add_option("--owner", owner_text, "Only accesses to data thread T owns")
      ->type_name("T")
      ->multi_option_policy(last);
  app.add_option("--array", array, "Only accesses to the array NAME")
      ->type_name("NAME")
      ->multi_option_policy(last);
  app.add_option("--kind", kind_text,
                 "Only one kind: element, bulk, nonblocking,\natomic, "
                 "collective, lock, barrier,\nfence, cache or schedule")
      ->type_name("KIND")
      ->multi_option_policy(last);
  app.add_option("--class", class_text,
                 "Only one locality class: same-thread,\nsame-l2, "
                 "same-l3, same-numa, other-numa,\nother-package or none")
      ->type_name("CLASS")
      ->multi_option_policy(last);
  app.add_option("--file", file, "Only sites whose source file contains TEXT")
      ->type_name("TEXT")
      ->multi_option_policy(last);
  app.add_option("--sort", sort_text, "Order rows by bytes (default), calls or\nsource line")
      ->type_name("KEY")
      ->multi_option_policy(last);
  app.add_option("--top", top_text, "Only the first N rows of each table")
      ->type_name("N")
      ->multi_option_policy(last);
  app.add_option("FILE", files, "Trace files written by pgasrun --trace")->type_name("");
  app.allow_extras();

  if (!pgas::tools::parse_command_line(app, argc, argv, " (see pgas-trace --help)", true)) return 0;
  for (const auto& word : app.remaining()) {
    if (word != "--")
      throw usage_error(fmt::format("unknown option '{}' (see pgas-trace --help)", word));
  }

  // Options that do not depend on the trace are checked before any file is read.
  pgas::tools::report_options o;
  if (sort_text == "bytes") {
    o.sort = pgas::tools::trace_sort::bytes;
  } else if (sort_text == "calls") {
    o.sort = pgas::tools::trace_sort::calls;
  } else if (sort_text == "line") {
    o.sort = pgas::tools::trace_sort::line;
  } else {
    throw usage_error(fmt::format("--sort '{}': expected bytes, calls or line", sort_text));
  }
  if (!top_text.empty()) {
    const auto n = pgas::tools::parse_count(top_text);
    if (!n || *n == 0)
      throw usage_error(fmt::format("--top '{}': expected a number of rows from 1", top_text));
    o.top = *n;
  }
  if (by_text != "bytes" && by_text != "calls")
    throw usage_error(fmt::format("--by '{}': expected bytes or calls", by_text));
  if (!kind_text.empty()) {
    pgas::tools::trace_kind k{};
    if (!pgas::tools::parse_trace_kind(kind_text, k)) {
      throw usage_error(
          fmt::format("--kind '{}': expected element, bulk, nonblocking, atomic, collective, lock, "
                      "barrier, fence, cache or schedule",
                      kind_text));
    }
    o.filter.kind = k;
  }
  if (!class_text.empty()) {
    pgas::tools::trace_class c{};
    if (!pgas::tools::parse_trace_class(class_text, c)) {
      throw usage_error(fmt::format(
          "--class '{}': expected same-thread, same-l2, same-l3, same-numa, other-numa, "
          "other-package or none",
          class_text));
    }
    o.filter.cls = c;
  }
  if (!file.empty()) o.filter.file = file;
  if (heatmap_opt->count() > 0 && heatmap.empty()) throw usage_error("--heatmap needs a file name");
  if (timeline_opt->count() > 0 && timeline.empty())
    throw usage_error("--timeline needs a file name");
  if (files.empty()) throw usage_error("no trace file given (for example: pgas-trace app.trace)");

  std::vector<pgas::tools::trace> runs;
  for (const std::string& path : files)
    runs.push_back(pgas::tools::read_trace(path));
  const pgas::tools::trace t = pgas::tools::merge_traces(std::move(runs));

  if (!thread_text.empty()) o.filter.thread = thread_option("--thread", thread_text, t.threads);
  if (!owner_text.empty()) o.filter.owner = thread_option("--owner", owner_text, t.threads);
  if (!array.empty()) {
    check_array(t, array);
    o.filter.array = array;
  }

  const pgas::tools::trace_tables tables = pgas::tools::tabulate(t, o);
  if (!heatmap.empty())
    write_output("--heatmap", heatmap, pgas::tools::heatmap_svg(t, o.filter, by_text == "calls"));
  if (!timeline.empty())
    write_output("--timeline", timeline, pgas::tools::timeline_json(t, o.filter));
  const std::string text =
      as_json ? pgas::tools::report_json(t, tables, o) : pgas::tools::report_text(t, tables, o);
  std::fputs(text.c_str(), stdout);
  return 0;  // main's finish_output flushes and reports a failed write
}

}  // namespace

int main(int argc, char** argv) {
  return pgas::tools::tool_main<trace_error>(tool, [&] { return run(argc, argv); });
}
