// tools/trace_file.cpp — reading pgas access traces (trace_file.hpp): read_trace() parses one
// file and checks it field by field, so that the reports never meet a value they cannot show;
// merge_traces() sums the runs of one program.
//
// A trace is an untrusted file: every number is checked for type, sign and range, every id
// against the tables it points into, and the totals against the rows, before it is used.

#include "trace_file.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "src/base/file.hpp"

namespace pgas::tools {

namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, trace_kind_count> kind_names = {
    "element", "bulk",    "nonblocking", "atomic", "collective",
    "lock",    "barrier", "fence",       "cache",  "schedule"};
constexpr std::array<std::string_view, trace_dir_count> dir_names = {"read", "write", "update",
                                                                     "sync"};
constexpr std::array<std::string_view, trace_class_count> class_names = {
    "same-thread", "same-l2", "same-l3", "same-numa", "other-numa", "other-package", "none"};

template <typename E, std::size_t N>
bool parse_name(const std::array<std::string_view, N>& names, std::string_view text, E& out) {
  const auto at = std::find(names.begin(), names.end(), text);
  if (at == names.end()) return false;
  out = static_cast<E>(at - names.begin());
  return true;
}

// How deep a trace's JSON may nest: it needs 3 (the object, a table, a row; "args" and
// "places" as deep). Deeper text is refused before the document is built: dumping a value into
// an error message recurses, and a file nested tens of thousands deep would exhaust the stack.
constexpr std::size_t max_json_depth = 16;

// A first pass over the text that builds nothing and stops at the first object or array
// nested deeper than max_json_depth. (nlohmann's parser callback could bound the depth while
// building, but its end_object walks the enclosing array each time: quadratic in the rows.)
// Syntax errors are left to the second pass, which reports them.
class depth_check : public nlohmann::json_sax<json> {
 public:
  bool too_deep = false;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool key(string_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool enter() {
    too_deep = ++depth_ > max_json_depth;
    return !too_deep;
  }
  bool leave() {
    --depth_;
    return true;
  }
  std::size_t depth_ = 0;
};

// (line, column) of byte `offset` of `text`, both from 1.
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  const std::size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t column = start == std::string::npos || offset == 0 ? offset : offset - start;
  return {line, std::max<std::size_t>(column, 1)};
}

json parse_json(const std::string& path, const std::string& text) {
  depth_check depth;
  json::sax_parse(text, &depth, nlohmann::detail::input_format_t::json, true, false);
  if (depth.too_deep) {
    throw trace_error(
        fmt::format("{}: JSON nested more than {} deep (a trace needs 3)", path, max_json_depth));
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann says "[json.exception.parse_error.101] parse error at line L, column C: WHY".
    std::string why = e.what();
    if (const auto at = why.find(": ", why.find("parse error")); at != std::string::npos)
      why = why.substr(at + 2);
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    const bool truncated = e.byte >= text.size();
    throw trace_error(fmt::format("{}:{}:{}: {}: {}", path, line, column,
                                  truncated ? "truncated JSON" : "invalid JSON", why));
  } catch (const json::exception& e) {
    // Well-formed but unreadable: a number beyond 64 bits.
    std::string why = e.what();
    if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    if (why.size() > 100) why = why.substr(0, 97) + "...";
    throw trace_error(fmt::format("{}: invalid JSON: {}", path, why));
  }
}

// What an error message quotes of a value: its JSON text, cut short.
std::string shown(const json& v) {
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

// Reads the fields of one JSON object; `where` is "FILE: accesses[3]" and every error names
// the field after it.
class fields {
 public:
  // `separator` goes between `where` and a field's name: "." after a row, ": " after a file.
  fields(const json& j, std::string where, const char* separator = ".")
      : j_(j), where_(std::move(where)), separator_(separator) {
    if (!j_.is_object()) fail("", fmt::format("expected an object, found {}", shown(j_)));
  }

  [[noreturn]] void fail(std::string_view key, const std::string& why) const {
    throw trace_error(fmt::format("{}{}{}: {}", where_, key.empty() ? "" : separator_, key, why));
  }

  const json& get(const char* key) const {
    const auto at = j_.find(key);
    if (at == j_.end()) fail(key, "missing");
    return *at;
  }

  std::string text(const char* key) const {
    const json& v = get(key);
    if (!v.is_string()) fail(key, fmt::format("expected a string, found {}", shown(v)));
    return v.get<std::string>();
  }

  // A count: a whole number from 0 to 2^64 - 1.
  std::uint64_t count(const char* key) const {
    const json& v = get(key);
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer()) fail(key, fmt::format("negative count {}", shown(v)));
    if (v.is_number_float()) fail(key, fmt::format("{} is not a whole number", shown(v)));
    fail(key, fmt::format("expected a count, found {}", shown(v)));
  }

  // A whole number from `low` to `high`; `range` says what the range is.
  std::int64_t integer(const char* key, std::int64_t low, std::int64_t high,
                       std::string_view range) const {
    const json& v = get(key);
    if (v.is_number_float()) fail(key, fmt::format("{} is not a whole number", shown(v)));
    if (!v.is_number()) fail(key, fmt::format("expected a number, found {}", shown(v)));
    const bool big =
        v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX);
    const std::int64_t n = big ? INT64_MAX : v.get<std::int64_t>();
    if (big || n < low || n > high)
      fail(key, fmt::format("{} is out of range ({})", shown(v), range));
    return n;
  }

  // An id into a table of `size` rows named `table`, or -1 when `none_ok`.
  int id(const char* key, std::size_t size, std::string_view table, bool none_ok = true) const {
    const auto n = integer(key, none_ok ? -1 : 0, static_cast<std::int64_t>(size) - 1,
                           fmt::format("the trace has {} {}", size, table));
    return static_cast<int>(n);
  }

  template <typename E, std::size_t N>
  E name(const char* key, const std::array<std::string_view, N>& names) const {
    const std::string t = text(key);
    E out{};
    if (!parse_name(names, t, out)) {
      fail(key, fmt::format("unknown {} '{}' (expected one of {})", key, t.substr(0, 40),
                            fmt::join(names, ", ")));
    }
    return out;
  }

 private:
  const json& j_;
  std::string where_;
  const char* separator_;
};

const json& table(const fields& top, const char* key) {
  const json& v = top.get(key);
  if (!v.is_array()) top.fail(key, fmt::format("expected an array, found {}", shown(v)));
  return v;
}

std::uint64_t add(std::uint64_t a, std::uint64_t b, const std::string& what) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw trace_error(what + ": overflows 64 bits");
  return r;
}

// The rows of `top[key]`, each read by `read(fields)`.
template <typename Row, typename Read>
std::vector<Row> rows(const fields& top, const std::string& path, const char* key, Read read) {
  std::vector<Row> out;
  const json& a = table(top, key);
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(read(fields(a[i], fmt::format("{}: {}[{}]", path, key, i))));
  return out;
}

// Each row of j[key] (already read) must have "id" equal to its index.
void check_ids(const json& j, const std::string& path, const char* key) {
  const json& a = j[key];
  for (std::size_t i = 0; i < a.size(); ++i) {
    const fields f(a[i], fmt::format("{}: {}[{}]", path, key, i));
    if (f.integer("id", 0, INT32_MAX, "0 to 2^31 - 1") != static_cast<std::int64_t>(i))
      f.fail("id", fmt::format("expected {} (ids number the {} in order)", i, key));
  }
}

void check_totals(const trace& t, const fields& totals_in, const std::string& path) {
  trace_totals sum;
  for (const trace_access& a : t.accesses) {
    sum.calls = add(sum.calls, a.calls, path + ": the sum of the accesses' calls");
    sum.bytes = add(sum.bytes, a.bytes, path + ": the sum of the accesses' bytes");
  }
  for (const trace_wait& w : t.waits) {
    sum.waits = add(sum.waits, w.calls, path + ": the sum of the waits' calls");
    sum.wait_ns = add(sum.wait_ns, w.ns, path + ": the sum of the waits' ns");
  }
  const std::pair<const char*, std::uint64_t> checks[] = {
      {"calls", sum.calls}, {"bytes", sum.bytes}, {"wait_ns", sum.wait_ns}, {"waits", sum.waits}};
  for (const auto& [key, expected] : checks) {
    const std::uint64_t given = totals_in.count(key);
    if (given != expected) {
      totals_in.fail(key,
                     fmt::format("{} disagrees with the rows, whose sum is {}", given, expected));
    }
  }
}

}  // namespace

std::string_view to_string(trace_kind k) {
  return kind_names[static_cast<std::size_t>(k)];
}
std::string_view to_string(trace_dir d) {
  return dir_names[static_cast<std::size_t>(d)];
}
std::string_view to_string(trace_class c) {
  return class_names[static_cast<std::size_t>(c)];
}

bool parse_trace_kind(std::string_view text, trace_kind& out) {
  return parse_name(kind_names, text, out);
}
bool parse_trace_class(std::string_view text, trace_class& out) {
  return parse_name(class_names, text, out);
}

trace read_trace(const std::string& path) {
  std::string text;
  try {
    text = pgas::detail::read_bounded_file(path, max_trace_bytes);
  } catch (const pgas::detail::file_error& e) {
    throw trace_error(e.what());
  }
  const json j = parse_json(path, text);
  if (!j.is_object() || !j.contains("format") || j["format"] != "pgas-trace") {
    throw trace_error(fmt::format(
        "{}: foreign JSON: not a pgas trace (no \"format\": \"pgas-trace\"; pgasrun --trace "
        "writes one)",
        path));
  }
  const fields top(j, path, ": ");
  const json& version = top.get("version");
  if (version != 1) {
    throw trace_error(fmt::format("{}: unknown trace version {} (this pgas-trace reads version 1)",
                                  path, shown(version)));
  }

  trace t;
  t.files = {path};
  t.program = top.text("program");
  for (const json& a : table(top, "args")) {
    if (!a.is_string()) top.fail("args", fmt::format("expected strings, found {}", shown(a)));
    t.args.push_back(a.get<std::string>());
  }
  t.threads = static_cast<int>(
      top.integer("threads", 1, max_trace_threads, fmt::format("1 to {}", max_trace_threads)));
  const auto threads = static_cast<std::size_t>(t.threads);
  t.machine = top.text("machine");
  t.memory_limit = top.count("memory_limit");
  t.detail_lost = top.count("detail_lost");

  const json& places = table(top, "places");
  if (places.size() != threads) {
    top.fail("places",
             fmt::format("{} places for {} threads (one per thread)", places.size(), t.threads));
  }
  for (std::size_t i = 0; i < places.size(); ++i) {
    const fields p(places[i], fmt::format("{}: places[{}]", path, i));
    if (p.integer("thread", 0, t.threads - 1, "the trace has that many threads") !=
        static_cast<std::int64_t>(i))
      p.fail("thread", fmt::format("expected {} (one place per thread, in order)", i));
  }

  auto site_row = [&](const fields& f) {
    trace_site s{f.text("file"), f.integer("line", 0, INT32_MAX, "0 to 2^31 - 1"),
                 f.text("function")};
    return s;
  };
  t.sites = rows<trace_site>(top, path, "sites", site_row);
  check_ids(j, path, "sites");
  t.arrays = rows<trace_array>(top, path, "arrays", [&](const fields& f) {
    return trace_array{f.text("name"), f.text("where"), f.count("bytes"),
                       f.id("thread", threads, "threads")};
  });
  check_ids(j, path, "arrays");

  const std::size_t sites = t.sites.size(), arrays = t.arrays.size();
  t.accesses = rows<trace_access>(top, path, "accesses", [&](const fields& f) {
    trace_access a;
    a.site = f.id("site", sites, "sites");
    a.array = f.id("array", arrays, "arrays");
    a.kind = f.name<trace_kind>("kind", kind_names);
    a.dir = f.name<trace_dir>("dir", dir_names);
    a.from = f.id("from", threads, "threads", false);
    a.to = f.id("to", threads, "threads");
    a.cls = f.name<trace_class>("class", class_names);
    if ((a.cls == trace_class::none) != (a.to == trace_none))
      f.fail("class", fmt::format("'{}' with owner {} (none goes with owner -1, and only it)",
                                  to_string(a.cls), a.to));
    if ((a.cls == trace_class::same_thread) != (a.to == a.from))
      f.fail("class",
             fmt::format("'{}' from thread {} to thread {}", to_string(a.cls), a.from, a.to));
    a.calls = f.count("calls");
    a.bytes = f.count("bytes");
    return a;
  });
  t.waits = rows<trace_wait>(top, path, "waits", [&](const fields& f) {
    trace_wait w;
    w.site = f.id("site", sites, "sites");
    w.kind = f.name<trace_kind>("kind", kind_names);
    w.thread = f.id("thread", threads, "threads", false);
    w.calls = f.count("calls");
    w.ns = f.count("ns");
    w.max_ns = f.count("max_ns");
    if (w.max_ns > w.ns) f.fail("max_ns", fmt::format("{} is above ns ({})", w.max_ns, w.ns));
    return w;
  });
  t.timeline = rows<trace_event>(top, path, "timeline", [&](const fields& f) {
    trace_event e;
    e.thread = f.id("thread", threads, "threads", false);
    e.site = f.id("site", sites, "sites");
    e.kind = f.name<trace_kind>("kind", kind_names);
    e.start_ns = f.count("start_ns");
    e.ns = f.count("ns");
    return e;
  });
  t.cache = rows<trace_cache>(top, path, "cache", [&](const fields& f) {
    trace_cache c;
    c.site = f.id("site", sites, "sites");
    c.array = f.id("array", arrays, "arrays");
    c.thread = f.id("thread", threads, "threads", false);
    c.hits = f.count("hits");
    c.misses = f.count("misses");
    c.written_back = f.count("written_back");
    return c;
  });

  const fields totals(top.get("totals"), path + ": totals");
  check_totals(t, totals, path);
  t.totals = {totals.count("calls"), totals.count("bytes"), totals.count("wait_ns"),
              totals.count("waits")};
  return t;
}

trace merge_traces(std::vector<trace> runs) {
  for (std::size_t r = 1; r < runs.size(); ++r) {
    const trace& t = runs[r];
    const std::string& a = runs.front().files.front();
    const std::string& b = t.files.front();
    if (t.program != runs.front().program) {
      throw trace_error(fmt::format("mismatched: {} and {}: program '{}' and '{}'", a, b,
                                    runs.front().program, t.program));
    }
    if (t.threads != runs.front().threads) {
      throw trace_error(fmt::format("mismatched: {} and {}: {} threads and {}", a, b,
                                    runs.front().threads, t.threads));
    }
  }
  if (runs.size() == 1) return std::move(runs.front());

  // The first run's description, every run's rows added to empty tables. Sites and arrays are
  // numbered per file: they are matched by what they name.
  trace out;
  out.program = runs.front().program;
  out.args = runs.front().args;
  out.threads = runs.front().threads;
  out.machine = runs.front().machine;
  out.memory_limit = runs.front().memory_limit;
  std::map<std::tuple<std::string, std::int64_t, std::string>, std::size_t> site_at;
  std::map<std::tuple<std::string, std::string, std::uint64_t, int>, std::size_t> array_at;
  std::map<std::tuple<int, int, trace_kind, trace_dir, int, int, trace_class>, std::size_t>
      access_at;
  std::map<std::tuple<int, trace_kind, int>, std::size_t> wait_at;
  std::map<std::tuple<int, int, int>, std::size_t> cache_at;
  const std::string sum = "the sum of " + runs.front().files.front() + " and the other files";
  auto add_to = [&sum](std::uint64_t& total, std::uint64_t v) { total = add(total, v, sum); };
  auto keep = [](auto& at, auto& rows, auto key, const auto& row) -> auto& {
    const auto [it, added] = at.emplace(std::move(key), rows.size());
    if (added) rows.push_back(row);
    return rows[it->second];
  };

  for (std::size_t r = 0; r < runs.size(); ++r) {
    const trace& t = runs[r];
    out.files.push_back(t.files.front());
    std::vector<int> site_map, array_map;
    for (const trace_site& s : t.sites) {
      keep(site_at, out.sites, std::tuple{s.file, s.line, s.function}, s);
      site_map.push_back(static_cast<int>(site_at[{s.file, s.line, s.function}]));
    }
    for (const trace_array& x : t.arrays) {
      const auto key = std::tuple{x.name, x.where, x.bytes, x.thread};
      keep(array_at, out.arrays, key, x);
      array_map.push_back(static_cast<int>(array_at[key]));
    }
    auto site = [&](int s) { return s < 0 ? s : site_map[static_cast<std::size_t>(s)]; };
    auto array = [&](int x) { return x < 0 ? x : array_map[static_cast<std::size_t>(x)]; };

    for (trace_access x : t.accesses) {
      x.site = site(x.site);
      x.array = array(x.array);
      trace_access zero = x;
      zero.calls = zero.bytes = 0;
      trace_access& y = keep(access_at, out.accesses,
                             std::tuple{x.site, x.array, x.kind, x.dir, x.from, x.to, x.cls}, zero);
      add_to(y.calls, x.calls);
      add_to(y.bytes, x.bytes);
    }
    for (trace_wait x : t.waits) {
      x.site = site(x.site);
      trace_wait zero = x;
      zero.calls = zero.ns = zero.max_ns = 0;
      trace_wait& y = keep(wait_at, out.waits, std::tuple{x.site, x.kind, x.thread}, zero);
      add_to(y.calls, x.calls);
      add_to(y.ns, x.ns);
      y.max_ns = std::max(y.max_ns, x.max_ns);
    }
    for (trace_event x : t.timeline) {
      x.site = site(x.site);
      x.run = static_cast<int>(r);
      out.timeline.push_back(x);
    }
    for (trace_cache x : t.cache) {
      x.site = site(x.site);
      x.array = array(x.array);
      trace_cache zero = x;
      zero.hits = zero.misses = zero.written_back = 0;
      trace_cache& y = keep(cache_at, out.cache, std::tuple{x.site, x.array, x.thread}, zero);
      add_to(y.hits, x.hits);
      add_to(y.misses, x.misses);
      add_to(y.written_back, x.written_back);
    }
    add_to(out.detail_lost, t.detail_lost);
    add_to(out.totals.calls, t.totals.calls);
    add_to(out.totals.bytes, t.totals.bytes);
    add_to(out.totals.wait_ns, t.totals.wait_ns);
    add_to(out.totals.waits, t.totals.waits);
  }
  return out;
}

}  // namespace pgas::tools
