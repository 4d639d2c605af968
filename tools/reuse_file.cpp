// tools/reuse_file.cpp — reading and writing reuse-distance recordings (reuse_file.hpp).
// parse_reuse() treats the file as untrusted: every value is checked for type and range and
// every histogram against the bins' definition before the analysis sees it, so the patterns
// and fits never meet a count that does not add up.

#include "reuse_file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "src/base/file.hpp"
#include "src/models/reuse_distance.hpp"

namespace pgas::tools {

namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, 6> kind_names = {"element", "bulk",  "nonblocking",
                                                        "atomic",  "cache", "schedule"};
constexpr std::array<std::string_view, 3> grain_names = {"element", "line", "block"};
constexpr std::array<std::string_view, 2> mode_names = {"exact", "approximate"};

// A recording nests 4 deep (the object, histograms, a histogram's bins, a bin). Text nested
// deeper is refused before nlohmann builds it: its recursive parser and dump would exhaust
// the stack on a file nested tens of thousands deep. Brackets inside strings do not count.
constexpr int max_depth = 8;

static_assert(max_reuse_bin == pgas::detail::reuse_bins - 1);

bool nested_too_deep(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

std::string quoted(const json& v) {
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// One JSON object of the file; `where` ("a.reuse: histograms[2]") prefixes every error.
class object {
 public:
  object(const json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) throw reuse_error(fmt::format("{}: expected an object", where_));
  }

  [[noreturn]] void fail(std::string_view key, const std::string& why) const {
    throw reuse_error(
        fmt::format("{}{}{}: {}", where_, where_.ends_with(']') ? "." : ": ", key, why));
  }

  const json& at(const char* key) const {
    const auto it = j_.find(key);
    if (it == j_.end()) fail(key, "missing");
    return *it;
  }

  std::string text(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) fail(key, fmt::format("expected a string, found {}", quoted(v)));
    return v.get<std::string>();
  }

  template <std::size_t N>
  std::string one_of(const char* key, const std::array<std::string_view, N>& names) const {
    std::string t = text(key);
    if (std::find(names.begin(), names.end(), t) == names.end()) {
      fail(key, fmt::format("unknown {} '{}' (expected one of {})", key, t.substr(0, 40),
                            fmt::join(names, ", ")));
    }
    return t;
  }

  // A whole number from `low` to `high`.
  std::uint64_t whole(const char* key, std::uint64_t low, std::uint64_t high) const {
    const json& v = at(key);
    if (v.is_number_float()) fail(key, fmt::format("{} is not a whole number", quoted(v)));
    if (v.is_number_integer() && !v.is_number_unsigned())
      fail(key, fmt::format("{} is negative", quoted(v)));
    if (!v.is_number_unsigned()) fail(key, fmt::format("expected a number, found {}", quoted(v)));
    const std::uint64_t n = v.get<std::uint64_t>();
    if (n < low || n > high) fail(key, fmt::format("{} is out of range ({} to {})", n, low, high));
    return n;
  }

  double real(const char* key) const {
    const json& v = at(key);
    if (!v.is_number()) fail(key, fmt::format("expected a number, found {}", quoted(v)));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) fail(key, fmt::format("{} is not a number >= 0", quoted(v)));
    return d;
  }

  const json& array(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) fail(key, fmt::format("expected an array, found {}", quoted(v)));
    return v;
  }

  const std::string& where() const { return where_; }

 private:
  const json& j_;
  std::string where_;
};

json parse_text(const std::string& path, const std::string& text) {
  if (nested_too_deep(text))
    throw reuse_error(fmt::format("{}: JSON nested deeper than a recording ({})", path, max_depth));
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    std::string why = e.what();
    if (const auto at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    if (why.size() > 160) why = why.substr(0, 157) + "...";
    const bool truncated = e.id == 101 && why.find("unexpected end of input") != std::string::npos;
    throw reuse_error(
        fmt::format("{}: {}: {}", path, truncated ? "truncated JSON" : "invalid JSON", why));
  }
}

reuse_bin read_bin(const object& o) {
  reuse_bin b;
  b.bin = static_cast<int>(o.whole("bin", 0, max_reuse_bin));
  b.count = o.whole("count", 1, UINT64_MAX);
  const std::uint64_t low = reuse_bin_low(b.bin);
  const std::uint64_t high = reuse_bin_high(b.bin);
  const std::string inside = fmt::format("outside bin {} (distances {} to {})", b.bin, low, high);
  b.min = o.whole("min", 0, UINT64_MAX);
  b.max = o.whole("max", 0, UINT64_MAX);
  if (b.min < low || b.min > high) o.fail("min", fmt::format("{} is {}", b.min, inside));
  if (b.max < b.min || b.max > high)
    o.fail("max", fmt::format("{} is below min {} or {}", b.max, b.min, inside));
  b.mean = o.real("mean");
  // A mean rounded when written may sit a hair outside [min, max].
  const double slack = 1e-6 * static_cast<double>(b.max) + 1e-9;
  if (b.mean < static_cast<double>(b.min) - slack || b.mean > static_cast<double>(b.max) + slack)
    o.fail("mean", fmt::format("{} is not between min {} and max {}", b.mean, b.min, b.max));
  return b;
}

reuse_histogram read_histogram(const object& o, int threads, std::size_t sites) {
  reuse_histogram h;
  h.thread = static_cast<int>(o.whole("thread", 0, static_cast<std::uint64_t>(threads - 1)));
  if (sites == 0) o.fail("site", "the recording has no sites");
  h.site = static_cast<int>(o.whole("site", 0, sites - 1));
  h.accesses = o.whole("accesses", 1, UINT64_MAX);
  h.infinite = o.whole("infinite", 0, UINT64_MAX);
  const json& bins = o.array("bins");
  std::uint64_t sum = h.infinite;
  for (std::size_t i = 0; i < bins.size(); ++i) {
    const object bo(bins[i], fmt::format("{}.bins[{}]", o.where(), i));
    h.bins.push_back(read_bin(bo));
    if (i > 0 && h.bins[i].bin <= h.bins[i - 1].bin)
      bo.fail("bin", fmt::format("{} does not follow bin {} (bins ascend)", h.bins[i].bin,
                                 h.bins[i - 1].bin));
    if (__builtin_add_overflow(sum, h.bins[i].count, &sum))
      bo.fail("count", "the counts overflow 64 bits");
  }
  if (sum != h.accesses) {
    o.fail("accesses", fmt::format("{} is not infinite + the bins' counts ({})", h.accesses, sum));
  }
  return h;
}

}  // namespace

int reuse_bin_of(std::uint64_t d) {
  return pgas::detail::reuse_bin(d);
}

std::uint64_t reuse_bin_low(int k) {
  return k == 0 ? 0 : std::uint64_t{1} << (k - 1);
}

std::uint64_t reuse_bin_high(int k) {
  return k == 0 ? 0 : k == 64 ? UINT64_MAX : (std::uint64_t{1} << k) - 1;
}

reuse_recording parse_reuse(const std::string& path, const std::string& text) {
  const json j = parse_text(path, text);
  if (!j.is_object() || !j.contains("format"))
    throw reuse_error(fmt::format("{}: not a reuse recording (no \"format\" field)", path));
  const object top(j, path);
  if (top.text("format") != "pgas-reuse") {
    top.fail("format", fmt::format("'{}' is not a reuse recording (expected 'pgas-reuse')",
                                   top.text("format").substr(0, 40)));
  }
  if (const json& v = top.at("version"); v != 1)
    top.fail("version", fmt::format("{} is not supported (this pgas-reuse reads 1)", quoted(v)));
  reuse_recording r;
  r.program = top.text("program");
  const json& args = top.array("arguments");
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_string())
      top.fail(fmt::format("arguments[{}]", i).c_str(), "expected a string");
    r.arguments.push_back(args[i].get<std::string>());
  }
  r.threads = static_cast<int>(top.whole("threads", 1, max_reuse_threads));
  if (!top.at("size").is_null())
    r.size = static_cast<std::int64_t>(top.whole("size", 1, INT64_MAX));
  r.grain = top.one_of("grain", grain_names);
  // 0 when nothing was accessed (no element size seen); checked against the histograms below.
  r.grain_bytes = top.whole("grain_bytes", 0, UINT32_MAX);
  r.mode = top.one_of("mode", mode_names);
  r.error_bound = top.real("error_bound");
  const json& sites = top.array("sites");
  for (std::size_t i = 0; i < sites.size(); ++i) {
    const object so(sites[i], fmt::format("{}: sites[{}]", path, i));
    if (so.whole("id", 0, UINT32_MAX) != i)
      so.fail("id", fmt::format("expected {} (ids number the sites in order)", i));
    reuse_site s{so.text("file"), static_cast<std::int64_t>(so.whole("line", 0, INT32_MAX)),
                 so.text("function"), so.one_of("kind", kind_names)};
    for (std::size_t k = 0; k < r.sites.size(); ++k) {
      if (r.sites[k] == s) so.fail("kind", fmt::format("the same site as sites[{}]", k));
    }
    r.sites.push_back(std::move(s));
  }
  const json& hists = top.array("histograms");
  for (std::size_t i = 0; i < hists.size(); ++i) {
    const object ho(hists[i], fmt::format("{}: histograms[{}]", path, i));
    reuse_histogram h = read_histogram(ho, r.threads, r.sites.size());
    if (!r.histograms.empty()) {
      const reuse_histogram& p = r.histograms.back();
      if (std::pair(h.thread, h.site) <= std::pair(p.thread, p.site)) {
        ho.fail("site", fmt::format("thread {} site {} comes after thread {} site {} (histograms "
                                    "are sorted by thread, then site, one per pair)",
                                    h.thread, h.site, p.thread, p.site));
      }
    }
    r.histograms.push_back(std::move(h));
  }
  if (r.grain_bytes == 0 && !r.histograms.empty())
    top.fail("grain_bytes", "0, but the recording has histograms (a unit has at least 1 byte)");
  return r;
}

reuse_recording read_reuse(const std::string& path) {
  std::string text;
  try {
    text = pgas::detail::read_bounded_file(path, max_reuse_bytes);
  } catch (const pgas::detail::file_error& e) {
    throw reuse_error(e.what());
  }
  if (text.empty()) throw reuse_error(fmt::format("{}: empty file (not a reuse recording)", path));
  return parse_reuse(path, text);
}

std::string write_reuse(const reuse_recording& r) {
  using ojson = nlohmann::ordered_json;
  ojson sites = ojson::array();
  for (std::size_t i = 0; i < r.sites.size(); ++i) {
    const reuse_site& s = r.sites[i];
    sites.push_back({{"id", i},
                     {"file", s.file},
                     {"line", s.line},
                     {"function", s.function},
                     {"kind", s.kind}});
  }
  ojson hists = ojson::array();
  for (const reuse_histogram& h : r.histograms) {
    ojson bins = ojson::array();
    for (const reuse_bin& b : h.bins)
      bins.push_back(
          {{"bin", b.bin}, {"count", b.count}, {"min", b.min}, {"max", b.max}, {"mean", b.mean}});
    hists.push_back({{"thread", h.thread},
                     {"site", h.site},
                     {"accesses", h.accesses},
                     {"infinite", h.infinite},
                     {"bins", std::move(bins)}});
  }
  // Keys in the order the format lists them.
  const nlohmann::ordered_json j = {{"format", "pgas-reuse"},
                                    {"version", 1},
                                    {"program", r.program},
                                    {"arguments", r.arguments},
                                    {"threads", r.threads},
                                    {"size", r.size ? ojson(*r.size) : ojson(nullptr)},
                                    {"grain", r.grain},
                                    {"grain_bytes", r.grain_bytes},
                                    {"mode", r.mode},
                                    {"error_bound", r.error_bound},
                                    {"sites", std::move(sites)},
                                    {"histograms", std::move(hists)}};
  return j.dump(1) + "\n";
}

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

std::string describe_site(const reuse_site& s) {
  return fmt::format("{}:{} {} ({})", s.file.empty() ? "?" : printable(s.file), s.line,
                     s.function.empty() ? "?" : printable(s.function), s.kind);
}

}  // namespace pgas::tools
