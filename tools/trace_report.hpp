// tools/trace_report.hpp — what pgas-trace shows of a trace (trace_file.hpp): the rows kept by
// the command line's filters, tabulated per source line (with each issuing thread under its
// line), per array, per locality class, per thread pair, per wait site and per software cache,
// and those tables as text or one JSON object. The views for other programs, a heat map and a
// Perfetto timeline, are in trace_views.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace_file.hpp"

namespace pgas::tools {

/// Which rows count. A row lacking a field that a filter names does not match it: a wait has
/// no owner, array or class other than none; a cache row has no owner, kind "cache", class none.
struct trace_filter {
  std::optional<int> thread;         // the issuing thread
  std::optional<int> owner;          // the owner of the data
  std::optional<std::string> array;  // an array's name, exactly
  std::optional<trace_kind> kind;
  std::optional<trace_class> cls;
  std::optional<std::string> file;  // a substring of the site's source file

  bool any() const { return thread || owner || array || kind || cls || file; }
  /// The filters as command-line options ("--thread 0 --kind element").
  std::string describe() const;
};

enum class trace_sort { bytes, calls, line };

struct report_options {
  trace_filter filter;
  trace_sort sort = trace_sort::bytes;
  std::size_t top = 0;  // the first N rows of each table; 0 for all
};

struct tally {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
  void add(std::uint64_t c, std::uint64_t b);  // throws trace_error when a sum overflows
};

/// One issuing thread under a source line: its calls and bytes, per owner and per class.
struct thread_row {
  int thread = 0;
  tally sum;
  std::map<int, std::pair<trace_class, tally>> owners;  // owner -1: none
};

/// One source line's accesses of one kind and direction.
struct line_row {
  int site = trace_none;
  trace_kind kind = trace_kind::element;
  trace_dir dir = trace_dir::read;
  tally sum;
  std::vector<thread_row> threads;  // by thread number
};

struct array_row {
  int array = trace_none;
  tally sum;
  std::uint64_t same_thread_bytes = 0;
};

struct class_row {
  trace_class cls = trace_class::none;
  tally sum;
};

struct pair_row {
  int from = 0;
  int to = trace_none;
  tally sum;
};

struct wait_row {
  int site = trace_none;
  trace_kind kind = trace_kind::barrier;
  std::uint64_t calls = 0;
  std::uint64_t ns = 0;
  std::uint64_t max_ns = 0;
};

struct cache_row {
  int site = trace_none;
  int array = trace_none;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t written_back = 0;
};

/// Every table of a report. Each table of accesses sums to `sum` (before --top cuts it).
struct trace_tables {
  tally sum;
  std::uint64_t waits = 0;
  std::uint64_t wait_ns = 0;
  std::vector<line_row> lines;
  std::vector<array_row> arrays;
  std::vector<class_row> classes;  // those with calls, in the order of trace_class
  std::vector<pair_row> pairs;     // by issuing thread, then owner
  std::vector<wait_row> waits_by_site;
  std::vector<cache_row> caches;
};

/// Whether each kind of row passes `f` (`t` gives the names of sites and arrays).
bool keeps(const trace& t, const trace_filter& f, const trace_access& a);
bool keeps(const trace& t, const trace_filter& f, const trace_wait& w);
bool keeps(const trace& t, const trace_filter& f, const trace_cache& c);
bool keeps(const trace& t, const trace_filter& f, const trace_event& e);

/// The tables of `t`'s rows that pass the filter, sorted and cut to --top.
trace_tables tabulate(const trace& t, const report_options& o);

/// The human report: header, per-line table, arrays, classes, waits, caches.
std::string report_text(const trace& t, const trace_tables& tables, const report_options& o);

/// The same tables as one JSON object (one line) for scripts.
std::string report_json(const trace& t, const trace_tables& tables, const report_options& o);

/// "app.cpp:12", the function when no line is known, "(unknown)" for site -1.
std::string site_name(const trace& t, int site);

/// "12.3 KiB" from 10 KiB up, the exact count below.
std::string human_bytes(std::uint64_t bytes);

}  // namespace pgas::tools
