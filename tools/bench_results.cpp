// tools/bench_results.cpp — pgas-bench's records: runs.json and runs.csv written and read back
// (read_runs checks every field, so `pgas-bench --from` fails on a bad file with one line that
// names it), and the summary: medians over passes, Table I ratios and speedups.

#include "bench_results.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "src/base/file.hpp"

namespace pgas::tools::bench {

namespace {

// The fields every run has; anything else in a run object is the kernel's own.
const std::set<std::string> fixed_fields = {"pass",    "kernel",   "variant",     "threads", "size",
                                            "seconds", "verified", "exit_status", "error"};

// An object with each top-level value on its own line, and each element of an array value on
// its own line: small enough to read, one line per record to diff.
std::string dump_lines(const json& top) {
  std::string out = "{\n";
  std::size_t i = 0;
  for (auto it = top.begin(); it != top.end(); ++it, ++i) {
    out += fmt::format("  {}: ", json(it.key()).dump());
    const json& v = it.value();
    if (v.is_array() && !v.empty() && v.front().is_object()) {
      out += "[\n";
      for (std::size_t k = 0; k < v.size(); ++k)
        out += "    " + v[k].dump() + (k + 1 < v.size() ? ",\n" : "\n");
      out += "  ]";
    } else {
      out += v.dump();
    }
    out += i + 1 < top.size() ? ",\n" : "\n";
  }
  return out + "}\n";
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_value(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  // Shortest round-trip form, the same for the driver's numbers and the kernel's: "8", not
  // "8.0" beside "8".
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  return csv_field(v.dump());
}

// "line L, column C" of the byte nlohmann stopped at (1-based, the last one it read).
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t byte) {
  const std::size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// The line on which element `index` of the top-level "runs" array starts (of the top-level
// array when the file is one), or 0 when the text does not have it. nlohmann keeps no
// positions of parsed values, so this re-reads the text, tracking only strings and nesting.
std::size_t element_line(const std::string& text, std::size_t index) {
  std::size_t line = 1, depth = 0, element = 0;
  std::size_t array_depth = 0;  // the depth inside the runs array, once found
  std::string last_string;      // the last string read at depth 1 (a key, if ':' follows)
  bool expect_value = true;     // at array_depth: the next token starts an element
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    if (array_depth != 0 && depth == array_depth && expect_value && c != ']') {
      if (element == index) return line;
      ++element;
      expect_value = false;
    }
    if (c == '"') {
      std::string str;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
        if (i < text.size()) str += text[i];
      }
      if (depth == 1) last_string = std::move(str);
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      if (array_depth == 0 && c == '[' && (depth == 1 || (depth == 2 && last_string == "runs"))) {
        array_depth = depth;
        expect_value = true;
      }
    } else if (c == '}' || c == ']') {
      if (depth == array_depth) return 0;
      --depth;
    } else if (c == ',' && depth == array_depth) {
      expect_value = true;
    } else if (c == ',' && depth == 1) {
      last_string.clear();
    }
  }
  return 0;
}

// How deep a runs file's JSON may nest: a file is at most an object holding the runs array of
// flat objects (4 levels). Deeper text is refused before it is parsed: nlohmann's dump and
// comparison recurse, and a file nested tens of thousands deep would exhaust the stack.
constexpr std::size_t max_json_depth = 64;

// Where `text` first nests deeper than max_json_depth ("line L, column C"), or nothing. Strings
// (with their escapes) are skipped; whether the text is otherwise valid JSON is the parser's
// business.
std::optional<std::pair<std::size_t, std::size_t>> too_deep(const std::string& text) {
  std::size_t depth = 0, line = 1, column = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    } else if (in_string) {
      if (c == '\\') {
        ++i;
        ++column;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_json_depth) return std::pair{line, column};
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// What an error message quotes of a value: its JSON text, cut short.
std::string shown(const json& v) {
  std::string text = v.dump();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

// Reads one run object; `where` is "PATH:LINE: runs[I]".
class run_reader {
 public:
  run_reader(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  [[noreturn]] void bad(const std::string& field, const std::string& what) const {
    throw results_error(fmt::format("{}.{}: {}", where_, field, what));
  }

  const json* get(const std::string& field, bool required) const {
    const auto it = j_.find(field);
    if (it == j_.end()) {
      if (required) bad(field, "missing");
      return nullptr;
    }
    return &*it;
  }

  long long integer(const std::string& field, long long lo, long long hi) const {
    const json* v = get(field, true);
    // nlohmann keeps a non-negative whole number as unsigned: compare it as one.
    bool in_range = false;
    if (v->is_number_unsigned()) {
      const auto u = v->get<unsigned long long>();
      in_range = u <= static_cast<unsigned long long>(hi) && static_cast<long long>(u) >= lo;
    } else if (v->is_number_integer()) {
      in_range = v->get<long long>() >= lo && v->get<long long>() <= hi;
    }
    if (!in_range)
      bad(field, fmt::format("expected a whole number from {} to {}, not {}", lo, hi, shown(*v)));
    return v->get<long long>();
  }

  std::string string(const std::string& field, bool required) const {
    const json* v = get(field, required);
    if (v == nullptr) return {};
    if (!v->is_string()) bad(field, fmt::format("expected a string, not {}", shown(*v)));
    return v->get<std::string>();
  }

 private:
  const json& j_;
  std::string where_;
};

run_record read_run(const json& j, const std::string& where) {
  if (!j.is_object())
    throw results_error(fmt::format("{}: expected an object, not {}", where, shown(j)));
  const run_reader in(j, where);
  run_record r;
  r.pass = static_cast<int>(in.integer("pass", 1, 1'000'000));
  r.kernel = in.string("kernel", true);
  if (r.kernel.empty()) in.bad("kernel", "empty name");
  r.variant = in.string("variant", true);
  if (std::find(known_variants.begin(), known_variants.end(), r.variant) == known_variants.end()) {
    in.bad("variant", fmt::format("unknown variant '{}' (expected {})", r.variant,
                                  fmt::join(known_variants, ", ")));
  }
  r.threads = static_cast<int>(in.integer("threads", 1, 1'000'000));
  if (sequential_variant(r.variant) && r.threads != 1)
    in.bad("threads", fmt::format("{} runs at 1 thread, not {}", r.variant, r.threads));
  if (const json* v = in.get("size", false); v != nullptr && !v->is_null()) {
    if (!v->is_number_unsigned()) in.bad("size", fmt::format("expected a size, not {}", shown(*v)));
    r.size = v->get<std::size_t>();
  }
  if (const json* v = in.get("seconds", false); v != nullptr && !v->is_null()) {
    if (!v->is_number() || v->get<double>() < 0) {
      in.bad("seconds", fmt::format("expected a number of seconds or null, not {}", shown(*v)));
    }
    r.seconds = v->get<double>();
  }
  const json* verified = in.get("verified", true);
  if (!verified->is_boolean())
    in.bad("verified", fmt::format("expected true or false, not {}", shown(*verified)));
  r.verified = verified->get<bool>();
  r.exit_status = static_cast<int>(in.integer("exit_status", 0, 255));
  r.error = in.string("error", false);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!fixed_fields.contains(it.key())) r.extra[it.key()] = it.value();
  }
  return r;
}

std::optional<double> ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return *a / *b;
}

json or_null(std::optional<double> v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

std::string run_record::why() const {
  if (!error.empty()) return error;
  if (exit_status != 0) return fmt::format("exit {}", exit_status);
  if (!verified) return "not verified";
  if (!seconds) return "no time";
  return "ok";
}

json run_to_json(const run_record& r) {
  json j;
  j["pass"] = r.pass;
  j["kernel"] = r.kernel;
  j["variant"] = r.variant;
  j["threads"] = r.threads;
  j["size"] = r.size ? json(*r.size) : json(nullptr);
  j["seconds"] = or_null(r.seconds);
  j["verified"] = r.verified;
  j["exit_status"] = r.exit_status;
  if (!r.error.empty()) j["error"] = r.error;
  for (auto it = r.extra.begin(); it != r.extra.end(); ++it) {
    if (!fixed_fields.contains(it.key())) j[it.key()] = it.value();
  }
  return j;
}

std::string runs_json(const std::vector<run_record>& runs, const json& meta) {
  json top = meta.is_object() ? meta : json::object();
  json list = json::array();
  for (const run_record& r : runs)
    list.push_back(run_to_json(r));
  top["runs"] = std::move(list);
  return dump_lines(top);
}

std::string runs_csv(const std::vector<run_record>& runs) {
  const std::vector<std::string> fixed = {"pass",    "kernel",   "variant",     "threads", "size",
                                          "seconds", "verified", "exit_status", "error"};
  std::vector<std::string> extra;
  for (const run_record& r : runs) {
    for (auto it = r.extra.begin(); it != r.extra.end(); ++it) {
      if (!fixed_fields.contains(it.key()) &&
          std::find(extra.begin(), extra.end(), it.key()) == extra.end())
        extra.push_back(it.key());
    }
  }
  std::string out;
  std::vector<std::string> header = fixed;
  header.insert(header.end(), extra.begin(), extra.end());
  for (std::string& h : header)
    h = csv_field(h);
  out += fmt::format("{}\n", fmt::join(header, ","));
  for (const run_record& r : runs) {
    const json j = run_to_json(r);
    std::vector<std::string> row;
    for (const std::string& f : fixed)
      row.push_back(j.contains(f) ? csv_value(j[f]) : std::string());
    for (const std::string& f : extra)
      row.push_back(r.extra.contains(f) ? csv_value(r.extra[f]) : std::string());
    out += fmt::format("{}\n", fmt::join(row, ","));
  }
  return out;
}

std::vector<run_record> read_runs(const std::string& path, json& meta) {
  std::string text;
  try {
    text = pgas::detail::read_bounded_file(path, max_runs_bytes);
  } catch (const pgas::detail::file_error& e) {
    throw results_error(e.what());
  }

  if (const auto at = too_deep(text)) {
    throw results_error(fmt::format("{}:{}:{}: JSON nested more than {} deep (a runs file needs 4)",
                                    path, at->first, at->second, max_json_depth));
  }
  json top;
  try {
    top = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann says "[json.exception.parse_error.101] parse error at line L, column C: WHY";
    // keep WHY and put the place first, as compilers do.
    std::string why = e.what();
    if (const auto at = why.find(": ", why.find("parse error")); at != std::string::npos)
      why = why.substr(at + 2);
    const auto [line, column] = line_column(text, e.byte);
    throw results_error(fmt::format("{}:{}:{}: malformed JSON: {}", path, line, column, why));
  } catch (const json::exception& e) {
    // Well-formed but unreadable, e.g. a number beyond 64 bits ("number overflow parsing '…'");
    // nlohmann quotes the whole number, so keep the message short.
    std::string why = e.what();
    if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    if (why.size() > 120) why = why.substr(0, 117) + "...";
    throw results_error(fmt::format("{}: unreadable JSON: {}", path, why));
  }

  const json* list = &top;
  meta = json::object();
  if (top.is_object()) {
    const auto it = top.find("runs");
    if (it == top.end() || !it->is_array())
      throw results_error(fmt::format("{}: expected an object with a \"runs\" array", path));
    list = &*it;
    for (auto m = top.begin(); m != top.end(); ++m) {
      if (m.key() != "runs") meta[m.key()] = m.value();
    }
  } else if (!top.is_array()) {
    throw results_error(fmt::format("{}: expected an object with a \"runs\" array", path));
  }
  if (list->empty()) throw results_error(fmt::format("{}: no runs", path));

  std::vector<run_record> runs;
  std::set<std::tuple<int, std::string, std::string, int>> seen;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::size_t line = element_line(text, i);
    const std::string where = line > 0 ? fmt::format("{}:{}: runs[{}]", path, line, i)
                                       : fmt::format("{}: runs[{}]", path, i);
    run_record r = read_run((*list)[i], where);
    if (!seen.insert({r.pass, r.kernel, r.variant, r.threads}).second) {
      throw results_error(fmt::format("{}: a second run of {} {} -n {} in pass {}", where, r.kernel,
                                      r.variant, r.threads, r.pass));
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 != 0 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

summary::summary(const std::vector<run_record>& runs) {
  std::vector<std::string> other_kernels;
  std::set<int> threads;
  for (const run_record& r : runs) {
    passes_ = std::max(passes_, r.pass);
    if (std::find(known_kernels.begin(), known_kernels.end(), r.kernel) == known_kernels.end() &&
        std::find(other_kernels.begin(), other_kernels.end(), r.kernel) == other_kernels.end())
      other_kernels.push_back(r.kernel);
    if (!sequential_variant(r.variant)) threads.insert(r.threads);
  }
  for (const std::string& k : known_kernels) {
    if (std::any_of(runs.begin(), runs.end(), [&](const run_record& r) { return r.kernel == k; }))
      kernels_.push_back(k);
  }
  kernels_.insert(kernels_.end(), other_kernels.begin(), other_kernels.end());
  for (const std::string& v : known_variants) {
    if (std::any_of(runs.begin(), runs.end(), [&](const run_record& r) { return r.variant == v; }))
      variants_.push_back(v);
  }
  threads_.assign(threads.begin(), threads.end());
  if (threads_.empty()) threads_.push_back(1);

  for (const run_record& r : runs) {
    ++runs_;
    cell& c = cells_[{r.kernel, r.variant, r.threads}];
    c.seconds.resize(static_cast<std::size_t>(passes_));
    ++c.runs;
    if (r.ok()) {
      c.seconds[static_cast<std::size_t>(r.pass - 1)] = r.seconds;
    } else {
      ++c.failed;
      ++failed_runs_;
    }
    if (r.size) {
      auto& s = sizes_[r.kernel];
      if (s && *s != *r.size) {
        throw results_error(
            fmt::format("{} ran at sizes {} and {}: the tables compare runs of one size", r.kernel,
                        std::min(*s, *r.size), std::max(*s, *r.size)));
      }
      s = r.size;
    }
  }
  for (auto& [key, c] : cells_) {
    if (c.failed > 0) continue;
    std::vector<double> s;
    for (const auto& v : c.seconds) {
      if (v) s.push_back(*v);
    }
    c.median = median(s);
  }
}

std::vector<std::string> summary::parallel_variants() const {
  std::vector<std::string> v;
  std::copy_if(variants_.begin(), variants_.end(), std::back_inserter(v),
               [](const std::string& name) { return !sequential_variant(name); });
  return v;
}

std::optional<std::size_t> summary::size(const std::string& kernel) const {
  const auto it = sizes_.find(kernel);
  return it == sizes_.end() ? std::nullopt : it->second;
}

const cell* summary::find(const std::string& kernel, const std::string& variant,
                          int threads) const {
  const auto it = cells_.find({kernel, variant, threads});
  return it == cells_.end() ? nullptr : &it->second;
}

std::optional<double> summary::seq_seconds(const std::string& kernel) const {
  const cell* c = find(kernel, "seq", 1);
  return c != nullptr ? c->median : std::nullopt;
}

std::optional<double> summary::c_seconds(const std::string& kernel) const {
  const cell* c = find(kernel, "c", 1);
  return c != nullptr ? c->median : std::nullopt;
}

std::optional<double> summary::seq_over_c(const std::string& kernel) const {
  const cell* seq = find(kernel, "seq", 1);
  const cell* c = find(kernel, "c", 1);
  if (seq == nullptr || c == nullptr || !seq->median || !c->median) return std::nullopt;
  // Pass by pass: the two run one after the other, so a pass that the machine slowed down
  // slows both.
  std::vector<double> r;
  for (std::size_t p = 0; p < std::min(seq->seconds.size(), c->seconds.size()); ++p) {
    if (seq->seconds[p] && c->seconds[p] && *c->seconds[p] > 0)
      r.push_back(*seq->seconds[p] / *c->seconds[p]);
  }
  return r.empty() ? ratio(seq->median, c->median) : median(r);
}

std::optional<double> summary::overhead(const std::string& kernel,
                                        const std::string& variant) const {
  const cell* c = find(kernel, variant, 1);
  return ratio(c != nullptr ? c->median : std::nullopt, seq_seconds(kernel));
}

std::optional<double> summary::speedup(const std::string& kernel, const std::string& variant,
                                       int threads) const {
  const cell* c = find(kernel, variant, threads);
  return ratio(seq_seconds(kernel), c != nullptr ? c->median : std::nullopt);
}

std::string summary::to_json() const {
  json top;
  top["passes"] = passes_;
  top["runs"] = runs_;
  top["failed_runs"] = failed_runs_;
  top["kernels"] = kernels_;
  top["variants"] = variants_;
  top["threads"] = threads_;
  json sizes = json::object();
  for (const std::string& k : kernels_)
    sizes[k] = size(k) ? json(*size(k)) : json(nullptr);
  top["sizes"] = sizes;

  json cells = json::array();
  for (const std::string& k : kernels_) {
    for (const std::string& v : variants_) {
      for (int t : sequential_variant(v) ? std::vector<int>{1} : threads_) {
        const cell* c = find(k, v, t);
        if (c == nullptr) continue;
        json s = json::array();
        for (const auto& x : c->seconds)
          s.push_back(or_null(x));
        cells.push_back({{"kernel", k},
                         {"variant", v},
                         {"threads", t},
                         {"runs", c->runs},
                         {"failed", c->failed},
                         {"seconds", s},
                         {"median_seconds", or_null(c->median)}});
      }
    }
  }
  top["cells"] = cells;

  // Table I: each variant at 1 thread over seq; scaling: seq over each variant, aligned with
  // "threads".
  json table1 = json::object();
  json scaling = json::object();
  for (const std::string& k : kernels_) {
    json over = json::object();
    json speed = json::object();
    for (const std::string& v : parallel_variants()) {
      over[v] = or_null(overhead(k, v));
      json row = json::array();
      for (int t : threads_)
        row.push_back(or_null(speedup(k, v, t)));
      speed[v] = row;
    }
    table1[k] = {{"seq_seconds", or_null(seq_seconds(k))},
                 {"c_seconds", or_null(c_seconds(k))},
                 {"seq_over_c", or_null(seq_over_c(k))},
                 {"overhead", over}};
    scaling[k] = {{"seq_seconds", or_null(seq_seconds(k))}, {"speedup", speed}};
  }
  top["table1"] = table1;
  top["scaling"] = scaling;
  return dump_lines(top);
}

}  // namespace pgas::tools::bench
