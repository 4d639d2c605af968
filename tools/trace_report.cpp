// tools/trace_report.cpp — pgas-trace's tables (trace_report.hpp): tabulate() filters a trace's
// rows and sums them per source line and issuing thread, array, locality class, thread pair,
// wait site and cache; report_text() lays them out in the shape of Berkeley UPC's upc_trace
// (each line, then its issuing threads and where their accesses went), report_json() for
// scripts.

#include "trace_report.hpp"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace pgas::tools {

namespace {

using json = nlohmann::ordered_json;

const std::string& file_of(const trace& t, int site) {
  static const std::string none;
  return site < 0 ? none : t.sites[static_cast<std::size_t>(site)].file;
}

std::int64_t line_of(const trace& t, int site) {
  return site < 0 ? 0 : t.sites[static_cast<std::size_t>(site)].line;
}

bool file_matches(const trace& t, const trace_filter& f, int site) {
  return !f.file || (site >= 0 && file_of(t, site).find(*f.file) != std::string::npos);
}

bool array_matches(const trace& t, const trace_filter& f, int array) {
  return !f.array || (array >= 0 && t.arrays[static_cast<std::size_t>(array)].name == *f.array);
}

// The common part of every row's test: issuing thread, owner, kind, class, file, array.
bool keeps_row(const trace& t, const trace_filter& f, int thread, int owner, trace_kind kind,
               trace_class cls, int site, int array) {
  return (!f.thread || *f.thread == thread) && (!f.owner || *f.owner == owner) &&
         (!f.kind || *f.kind == kind) && (!f.cls || *f.cls == cls) && file_matches(t, f, site) &&
         array_matches(t, f, array);
}

// Orders rows by --sort: bytes or calls descending, or by source line; ties by line.
template <typename Row, typename Key>
void sort_rows(std::vector<Row>& rows, trace_sort by, Key key) {
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    const auto [a_bytes, a_calls, a_line] = key(a);
    const auto [b_bytes, b_calls, b_line] = key(b);
    if (by == trace_sort::bytes && a_bytes != b_bytes) return a_bytes > b_bytes;
    if (by != trace_sort::line && a_calls != b_calls) return a_calls > b_calls;
    return a_line < b_line;
  });
}

template <typename Row>
void cut(std::vector<Row>& rows, std::size_t top) {
  if (top != 0 && rows.size() > top) rows.resize(top);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  if (whole == 0) return "-";
  return fmt::format("{:.1f} %", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// A cache's hits in percent of its look-ups (in floating point: hits + misses may pass 2^64).
std::string hit_rate(const cache_row& c) {
  const double lookups = static_cast<double>(c.hits) + static_cast<double>(c.misses);
  if (lookups == 0) return "-";
  return fmt::format("{:.1f} %", 100.0 * static_cast<double>(c.hits) / lookups);
}

// Nanoseconds with three significant digits: "850 ns", "12.3 us", "4.56 ms", "1.23 s".
std::string human_ns(std::uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  const char* units[] = {"us", "ms", "s"};
  double v = static_cast<double>(ns) / 1000.0;
  int u = 0;
  while (v >= 999.5 && u < 2) {
    v /= 1000.0;
    ++u;
  }
  return fmt::format("{:.{}f} {}", v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0, units[u]);
}

// "680 bytes", "12.3 KiB".
std::string bytes_words(std::uint64_t bytes) {
  return bytes < 10 * 1024 ? fmt::format("{} bytes", bytes) : human_bytes(bytes);
}

// Thread numbers as ranges: "0-3,5".
std::string ranges(const std::vector<int>& threads) {
  std::string out;
  for (std::size_t i = 0; i < threads.size();) {
    std::size_t j = i;
    while (j + 1 < threads.size() && threads[j + 1] == threads[j] + 1)
      ++j;
    if (!out.empty()) out += ",";
    out += j == i ? fmt::format("{}", threads[i]) : fmt::format("{}-{}", threads[i], threads[j]);
    i = j + 1;
  }
  return out;
}

// Where one issuing thread's accesses went: "to 1 same-l2; 2-3 other-numa", or "no owner".
std::string where(const thread_row& r) {
  std::vector<std::string> parts;
  for (int c = 0; c < trace_class_count; ++c) {
    const auto cls = static_cast<trace_class>(c);
    std::vector<int> owners;
    for (const auto& [owner, entry] : r.owners) {
      if (owner >= 0 && entry.first == cls) owners.push_back(owner);
    }
    if (!owners.empty()) parts.push_back(fmt::format("{} {}", ranges(owners), to_string(cls)));
  }
  const bool none = r.owners.contains(trace_none);
  if (parts.empty()) return none ? "no owner" : "";
  return fmt::format("to {}{}", fmt::join(parts, "; "), none ? "; no owner" : "");
}

// A site as the per-line table shows it: file and line, or a function (cut to 60 characters,
// keeping its end, whose offset tells sites apart) when no line is known.
std::pair<std::string, std::string> file_line(const trace& t, int site) {
  if (site >= 0) {
    const trace_site& s = t.sites[static_cast<std::size_t>(site)];
    if (!s.file.empty() && s.line > 0) return {s.file, std::to_string(s.line)};
  }
  std::string name = site_name(t, site);
  if (name.size() > 60) name = name.substr(0, 28) + "..." + name.substr(name.size() - 29);
  return {name, ""};
}

std::string array_name(const trace& t, int array) {
  return array < 0 ? "(none)" : t.arrays[static_cast<std::size_t>(array)].name;
}

// Left-aligned text columns (the first `left`, `also_left`, the last when `last_left`),
// right-aligned numbers, two spaces apart, widths from content.
std::string aligned(const std::vector<std::vector<std::string>>& cells, std::size_t left,
                    bool last_left = false, std::size_t also_left = SIZE_MAX) {
  std::vector<std::size_t> w(cells.front().size(), 0);
  for (const auto& row : cells) {
    for (std::size_t c = 0; c < row.size(); ++c)
      w[c] = std::max(w[c], row[c].size());
  }
  std::string out;
  for (const auto& row : cells) {
    std::string s;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool text = c < left || c == also_left || (last_left && c + 1 == row.size());
      s += text ? fmt::format("  {:<{}}", row[c], w[c]) : fmt::format("  {:>{}}", row[c], w[c]);
    }
    while (!s.empty() && s.back() == ' ')
      s.pop_back();
    out += s + "\n";
  }
  return out;
}

// sum += v, or a trace_error when that overflows 64 bits.
void add_to(std::uint64_t& sum, std::uint64_t v) {
  if (__builtin_add_overflow(sum, v, &sum))
    throw trace_error("a sum of the trace's counts overflows 64 bits");
}

}  // namespace

void tally::add(std::uint64_t c, std::uint64_t b) {
  add_to(calls, c);
  add_to(bytes, b);
}

std::string trace_filter::describe() const {
  std::vector<std::string> words;
  if (thread) words.push_back(fmt::format("--thread {}", *thread));
  if (owner) words.push_back(fmt::format("--owner {}", *owner));
  if (array) words.push_back(fmt::format("--array {}", *array));
  if (kind) words.push_back(fmt::format("--kind {}", to_string(*kind)));
  if (cls) words.push_back(fmt::format("--class {}", to_string(*cls)));
  if (file) words.push_back(fmt::format("--file {}", *file));
  return fmt::format("{}", fmt::join(words, " "));
}

bool keeps(const trace& t, const trace_filter& f, const trace_access& a) {
  return keeps_row(t, f, a.from, a.to, a.kind, a.cls, a.site, a.array);
}
bool keeps(const trace& t, const trace_filter& f, const trace_wait& w) {
  return keeps_row(t, f, w.thread, trace_none, w.kind, trace_class::none, w.site, trace_none);
}
bool keeps(const trace& t, const trace_filter& f, const trace_cache& c) {
  return keeps_row(t, f, c.thread, trace_none, trace_kind::cache, trace_class::none, c.site,
                   c.array);
}
bool keeps(const trace& t, const trace_filter& f, const trace_event& e) {
  return keeps_row(t, f, e.thread, trace_none, e.kind, trace_class::none, e.site, trace_none);
}

std::string site_name(const trace& t, int site) {
  if (site < 0) return "(unknown)";
  const trace_site& s = t.sites[static_cast<std::size_t>(site)];
  if (!s.file.empty() && s.line > 0) return fmt::format("{}:{}", s.file, s.line);
  if (!s.file.empty()) return s.file;
  return s.function.empty() ? "(unknown)" : s.function;
}

std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 10 * 1024) return fmt::format("{}", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes) / 1024.0;
  int u = 0;
  while (v >= 1023.95 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  return fmt::format("{:.1f} {}", v, units[u]);
}

trace_tables tabulate(const trace& t, const report_options& o) {
  trace_tables out;
  std::map<std::tuple<int, trace_kind, trace_dir>, std::map<int, thread_row>> lines;
  std::map<int, array_row> arrays;
  std::map<trace_class, tally> classes;
  std::map<std::pair<int, int>, tally> pairs;
  for (const trace_access& a : t.accesses) {
    if (!keeps(t, o.filter, a)) continue;
    out.sum.add(a.calls, a.bytes);
    thread_row& r = lines[{a.site, a.kind, a.dir}][a.from];
    r.thread = a.from;
    r.sum.add(a.calls, a.bytes);
    auto& owner = r.owners[a.to];
    owner.first = a.cls;
    owner.second.add(a.calls, a.bytes);
    array_row& ar = arrays[a.array];
    ar.array = a.array;
    ar.sum.add(a.calls, a.bytes);
    if (a.cls == trace_class::same_thread) add_to(ar.same_thread_bytes, a.bytes);
    classes[a.cls].add(a.calls, a.bytes);
    pairs[{a.from, a.to}].add(a.calls, a.bytes);
  }
  for (auto& [key, threads] : lines) {
    line_row l{std::get<0>(key), std::get<1>(key), std::get<2>(key), {}, {}};
    for (auto& [thread, r] : threads) {
      l.sum.add(r.sum.calls, r.sum.bytes);
      l.threads.push_back(std::move(r));
    }
    out.lines.push_back(std::move(l));
  }
  auto by_line = [&](int site) { return std::tuple{file_of(t, site), line_of(t, site), site}; };
  sort_rows(out.lines, o.sort, [&](const line_row& l) {
    return std::tuple{l.sum.bytes, l.sum.calls, std::tuple{by_line(l.site), l.kind, l.dir}};
  });
  cut(out.lines, o.top);

  for (auto& [id, a] : arrays)
    out.arrays.push_back(a);
  sort_rows(out.arrays, o.sort, [&](const array_row& a) {
    return std::tuple{a.sum.bytes, a.sum.calls, std::pair{array_name(t, a.array), a.array}};
  });
  cut(out.arrays, o.top);
  for (const auto& [cls, sum] : classes)
    out.classes.push_back({cls, sum});
  for (const auto& [key, sum] : pairs)
    out.pairs.push_back({key.first, key.second, sum});

  std::map<std::pair<int, trace_kind>, wait_row> waits;
  for (const trace_wait& w : t.waits) {
    if (!keeps(t, o.filter, w)) continue;
    add_to(out.waits, w.calls);
    add_to(out.wait_ns, w.ns);
    wait_row& r = waits[{w.site, w.kind}];
    r.site = w.site;
    r.kind = w.kind;
    add_to(r.calls, w.calls);
    add_to(r.ns, w.ns);
    r.max_ns = std::max(r.max_ns, w.max_ns);
  }
  for (const auto& [key, r] : waits)
    out.waits_by_site.push_back(r);
  sort_rows(out.waits_by_site, o.sort, [&](const wait_row& w) {
    return std::tuple{w.ns, w.calls, std::pair{by_line(w.site), w.kind}};
  });
  cut(out.waits_by_site, o.top);

  std::map<std::pair<int, int>, cache_row> caches;
  for (const trace_cache& c : t.cache) {
    if (!keeps(t, o.filter, c)) continue;
    cache_row& r = caches[{c.site, c.array}];
    r.site = c.site;
    r.array = c.array;
    add_to(r.hits, c.hits);
    add_to(r.misses, c.misses);
    add_to(r.written_back, c.written_back);
  }
  for (const auto& [key, r] : caches)
    out.caches.push_back(r);
  sort_rows(out.caches, o.sort, [&](const cache_row& c) {
    return std::tuple{c.written_back, c.hits + c.misses, std::pair{by_line(c.site), c.array}};
  });
  cut(out.caches, o.top);
  return out;
}

std::string report_text(const trace& t, const trace_tables& tables, const report_options& o) {
  std::string out;
  auto put = [&out](fmt::format_string<const std::string&> f, const std::string& s) {
    fmt::format_to(std::back_inserter(out), f, s);
  };
  std::string command = t.program;
  for (const std::string& a : t.args)
    command += " " + a;
  out += fmt::format("Trace of {}\n", command);
  out += fmt::format("{} thread{} on {}\n", t.threads, t.threads == 1 ? "" : "s", t.machine);
  if (t.files.size() > 1)
    out += fmt::format("Sum of {} runs: {}\n", t.files.size(), fmt::join(t.files, ", "));
  out += fmt::format("Accesses: {} calls, {}; waits: {} calls, {}\n", t.totals.calls,
                     bytes_words(t.totals.bytes), t.totals.waits, human_ns(t.totals.wait_ns));
  if (o.filter.any()) {
    out += fmt::format(
        "Shown ({}): {} calls ({}), {} ({}); waits: {} calls, {}\n", o.filter.describe(),
        tables.sum.calls, percent(tables.sum.calls, t.totals.calls), bytes_words(tables.sum.bytes),
        percent(tables.sum.bytes, t.totals.bytes), tables.waits, human_ns(tables.wait_ns));
  }
  if (t.detail_lost > 0) {
    out += fmt::format(
        "Detail lost: {} accesses counted without their line, array and owner (the per-thread "
        "tables were full at {}: raise PGAS_TRACE_MEMORY)\n",
        t.detail_lost, bytes_words(t.memory_limit));
  }
  const char* order = o.sort == trace_sort::bytes   ? "bytes"
                      : o.sort == trace_sort::calls ? "calls"
                                                    : "source line";
  const std::string top = o.top != 0 ? fmt::format(", first {}", o.top) : "";

  put("\nAccesses by source line (by {}):\n", order + top);
  if (tables.lines.empty()) {
    out += "  none\n";
  } else {
    std::vector<std::vector<std::string>> cells{
        {"file", "line", "type", "thread", "calls", "bytes", "went"}};
    for (const line_row& l : tables.lines) {
      const auto [file, line] = file_line(t, l.site);
      cells.push_back({file, line, fmt::format("{} {}", to_string(l.kind), to_string(l.dir)), "",
                       std::to_string(l.sum.calls), human_bytes(l.sum.bytes), ""});
      for (const thread_row& r : l.threads) {
        cells.push_back({"", "", "", std::to_string(r.thread), std::to_string(r.sum.calls),
                         human_bytes(r.sum.bytes), where(r)});
      }
    }
    // Columns: file left, line right, type left, then numbers and "went" left.
    out += aligned(cells, 1, true, 2);
  }

  put("\nArrays (by {}):\n", order + top);
  if (tables.arrays.empty()) {
    out += "  none\n";
  } else {
    std::vector<std::vector<std::string>> cells{
        {"array", "declared", "size", "calls", "bytes", "of all", "same thread"}};
    for (const array_row& a : tables.arrays) {
      const bool known = a.array >= 0;
      const trace_array* x = known ? &t.arrays[static_cast<std::size_t>(a.array)] : nullptr;
      cells.push_back({array_name(t, a.array), known ? x->where : "",
                       known ? human_bytes(x->bytes) : "", std::to_string(a.sum.calls),
                       human_bytes(a.sum.bytes), percent(a.sum.bytes, tables.sum.bytes),
                       percent(a.same_thread_bytes, a.sum.bytes)});
    }
    out += aligned(cells, 2);
  }

  out += "\nLocality classes:\n";
  if (tables.classes.empty()) {
    out += "  none\n";
  } else {
    std::vector<std::vector<std::string>> cells{{"class", "calls", "of all", "bytes", "of all"}};
    for (const class_row& c : tables.classes) {
      cells.push_back({std::string(to_string(c.cls)), std::to_string(c.sum.calls),
                       percent(c.sum.calls, tables.sum.calls), human_bytes(c.sum.bytes),
                       percent(c.sum.bytes, tables.sum.bytes)});
    }
    cells.push_back(
        {"total", std::to_string(tables.sum.calls), "", human_bytes(tables.sum.bytes), ""});
    out += aligned(cells, 1);
  }

  put("\nWaits by site (by {}):\n", (o.sort == trace_sort::bytes ? "time" : order) + top);
  if (tables.waits_by_site.empty()) {
    out += "  none\n";
  } else {
    std::vector<std::vector<std::string>> cells{
        {"source", "kind", "calls", "total", "mean", "max"}};
    for (const wait_row& w : tables.waits_by_site) {
      cells.push_back({site_name(t, w.site), std::string(to_string(w.kind)),
                       std::to_string(w.calls), human_ns(w.ns),
                       w.calls == 0 ? "-" : human_ns(w.ns / w.calls), human_ns(w.max_ns)});
    }
    out += aligned(cells, 2);
  }

  put("\nSoftware caches{}:\n", tables.caches.empty() ? "" : " (by written-back bytes" + top + ")");
  if (tables.caches.empty()) {
    out += "  none\n";
  } else {
    std::vector<std::vector<std::string>> cells{
        {"source", "array", "hits", "misses", "hit rate", "written back"}};
    for (const cache_row& c : tables.caches) {
      cells.push_back({site_name(t, c.site), array_name(t, c.array), std::to_string(c.hits),
                       std::to_string(c.misses), hit_rate(c), human_bytes(c.written_back)});
    }
    out += aligned(cells, 2);
  }
  return out;
}

std::string report_json(const trace& t, const trace_tables& tables, const report_options& o) {
  auto site_json = [&](int site) -> json {
    if (site < 0) return {{"file", ""}, {"line", 0}, {"function", ""}};
    const trace_site& s = t.sites[static_cast<std::size_t>(site)];
    return {{"file", s.file}, {"line", s.line}, {"function", s.function}};
  };
  auto tally_json = [](json j, const tally& s) {
    j["calls"] = s.calls;
    j["bytes"] = s.bytes;
    return j;
  };
  json j;
  j["program"] = t.program;
  j["args"] = t.args;
  j["threads"] = t.threads;
  j["machine"] = t.machine;
  j["files"] = t.files;
  j["detail_lost"] = t.detail_lost;
  j["filter"] = o.filter.describe();
  j["sort"] = o.sort == trace_sort::bytes   ? "bytes"
              : o.sort == trace_sort::calls ? "calls"
                                            : "line";
  j["top"] = o.top;
  j["totals"] = {{"calls", t.totals.calls},
                 {"bytes", t.totals.bytes},
                 {"waits", t.totals.waits},
                 {"wait_ns", t.totals.wait_ns}};
  j["shown"] = {{"calls", tables.sum.calls},
                {"bytes", tables.sum.bytes},
                {"waits", tables.waits},
                {"wait_ns", tables.wait_ns}};
  json lines = json::array();
  for (const line_row& l : tables.lines) {
    json threads = json::array();
    for (const thread_row& r : l.threads) {
      json owners = json::array();
      for (const auto& [owner, entry] : r.owners)
        owners.push_back(
            tally_json({{"owner", owner}, {"class", to_string(entry.first)}}, entry.second));
      threads.push_back(tally_json({{"thread", r.thread}}, r.sum));
      threads.back()["owners"] = std::move(owners);
    }
    json row = site_json(l.site);
    row["site"] = site_name(t, l.site);
    row["kind"] = to_string(l.kind);
    row["dir"] = to_string(l.dir);
    row = tally_json(std::move(row), l.sum);
    row["threads"] = std::move(threads);
    lines.push_back(std::move(row));
  }
  j["lines"] = std::move(lines);
  json arrays = json::array();
  for (const array_row& a : tables.arrays) {
    json row = {{"array", array_name(t, a.array)}};
    if (a.array >= 0) {
      const trace_array& x = t.arrays[static_cast<std::size_t>(a.array)];
      row["where"] = x.where;
      row["size"] = x.bytes;
      row["thread"] = x.thread;
    }
    row = tally_json(std::move(row), a.sum);
    row["same_thread_bytes"] = a.same_thread_bytes;
    arrays.push_back(std::move(row));
  }
  j["arrays"] = std::move(arrays);
  json classes = json::array();
  for (const class_row& c : tables.classes)
    classes.push_back(tally_json({{"class", to_string(c.cls)}}, c.sum));
  j["classes"] = std::move(classes);
  json pairs = json::array();
  for (const pair_row& p : tables.pairs)
    pairs.push_back(tally_json({{"from", p.from}, {"to", p.to}}, p.sum));
  j["pairs"] = std::move(pairs);
  json waits = json::array();
  for (const wait_row& w : tables.waits_by_site) {
    waits.push_back({{"site", site_name(t, w.site)},
                     {"kind", to_string(w.kind)},
                     {"calls", w.calls},
                     {"ns", w.ns},
                     {"max_ns", w.max_ns}});
  }
  j["waits"] = std::move(waits);
  json caches = json::array();
  for (const cache_row& c : tables.caches) {
    caches.push_back({{"site", site_name(t, c.site)},
                      {"array", array_name(t, c.array)},
                      {"hits", c.hits},
                      {"misses", c.misses},
                      {"written_back", c.written_back}});
  }
  j["cache"] = std::move(caches);
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace pgas::tools
