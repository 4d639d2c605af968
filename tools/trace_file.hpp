// tools/trace_file.hpp — a pgas access trace (the JSON file pgasrun --trace writes, version 1)
// as pgas-trace reads it: read_trace() parses one file and checks every field, merge_traces()
// sums the traces of one program's runs. The tool's reports (trace_report.hpp) start from here.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pgas::tools {

/// A trace file that cannot be used: the message names the file and what is wrong with it
/// ("run.trace: accesses[3].site: 9 is out of range (the trace has 4 sites)"). pgas-trace
/// reports it with exit status 2.
struct trace_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The largest trace file read: 1 GiB (a trace holds at most PGAS_TRACE_MEMORY per thread).
inline constexpr std::size_t max_trace_bytes = std::size_t{1} << 30;

/// The largest thread count a trace may declare (the runtime's own limit is lower).
inline constexpr int max_trace_threads = 1 << 16;

/// What an access or a wait was (the runtime's trace_kind).
enum class trace_kind : std::uint8_t {
  element,
  bulk,
  nonblocking,
  atomic,
  collective,
  lock,
  barrier,
  fence,
  cache,
  schedule
};
inline constexpr int trace_kind_count = 10;

/// Which way the data went; sync for a barrier, fence or lock.
enum class trace_dir : std::uint8_t { read, write, update, sync };
inline constexpr int trace_dir_count = 4;

/// Where the owner sat from the issuing thread; none when there is no owner (a barrier).
enum class trace_class : std::uint8_t {
  same_thread,
  same_l2,
  same_l3,
  same_numa,
  other_numa,
  other_package,
  none
};
inline constexpr int trace_class_count = 7;

/// The names the file uses ("element", "read", "same-l2").
std::string_view to_string(trace_kind k);
std::string_view to_string(trace_dir d);
std::string_view to_string(trace_class c);

/// The value named `text`, or false when there is none.
bool parse_trace_kind(std::string_view text, trace_kind& out);
bool parse_trace_class(std::string_view text, trace_class& out);

/// -1 in a site, array or owner field: unknown (detail lost) or none.
inline constexpr int trace_none = -1;

struct trace_site {
  std::string file;  // "" when unknown
  std::int64_t line = 0;
  std::string function;
};

struct trace_array {
  std::string name;
  std::string where;
  std::uint64_t bytes = 0;
  int thread = -1;  // -1: distributed over all threads
};

struct trace_access {
  int site = trace_none;
  int array = trace_none;
  trace_kind kind = trace_kind::element;
  trace_dir dir = trace_dir::read;
  int from = 0;
  int to = trace_none;
  trace_class cls = trace_class::none;
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
};

struct trace_wait {
  int site = trace_none;
  trace_kind kind = trace_kind::barrier;
  int thread = 0;
  std::uint64_t calls = 0;
  std::uint64_t ns = 0;
  std::uint64_t max_ns = 0;
};

struct trace_event {
  int thread = 0;
  int site = trace_none;
  trace_kind kind = trace_kind::barrier;
  std::uint64_t start_ns = 0;
  std::uint64_t ns = 0;
  int run = 0;  // which file of several it came from (0 for the first)
};

struct trace_cache {
  int site = trace_none;
  int array = trace_none;
  int thread = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t written_back = 0;
};

struct trace_totals {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
  std::uint64_t wait_ns = 0;
  std::uint64_t waits = 0;
};

/// One trace, or the sum of several runs' (`files` then names them all).
struct trace {
  std::vector<std::string> files;
  std::string program;
  std::vector<std::string> args;
  int threads = 0;
  std::string machine;
  std::uint64_t memory_limit = 0;
  std::uint64_t detail_lost = 0;
  std::vector<trace_site> sites;
  std::vector<trace_array> arrays;
  std::vector<trace_access> accesses;
  std::vector<trace_wait> waits;
  std::vector<trace_event> timeline;
  std::vector<trace_cache> cache;
  trace_totals totals;
};

/// Reads and checks the trace file at `path`. Throws trace_error when it cannot be read (a
/// missing or unreadable path, not a regular file, above max_trace_bytes), is not JSON (with
/// the line and column), nests deeper than a trace does, is not a pgas trace ("foreign"), has
/// another version, or holds a field of the wrong type, an unknown kind, direction or class, an
/// id or thread out of range, a negative or fractional count, or totals other than its rows'
/// sums.
trace read_trace(const std::string& path);

/// The sum of `runs` (at least one), which must be traces of one program at one thread count:
/// sites and arrays are matched by what they name, rows with one key are summed, the timelines
/// kept apart by trace_event::run. Throws trace_error ("mismatched: A and B: ...") naming the
/// first two files that differ in program or thread count, and when a sum overflows 64 bits.
trace merge_traces(std::vector<trace> runs);

}  // namespace pgas::tools
