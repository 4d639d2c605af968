// src/base/env.cpp — the PGAS_* variable table and its parsers (see env.hpp).
//
// A row's kind and bounds are its parser: env_parse<T> dispatches on them, env_accepted says
// in words what they accept, and every error message quotes the text as given and names the
// variable (or the pgasrun option) and what it accepts.

#include "src/base/env.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>

#include <pgas/config.hpp>

namespace pgas::detail {

namespace {

constexpr std::string_view bind_words[] = {"core", "numa", "socket", "none"};
constexpr std::string_view map_words[] = {"core", "numa", "socket"};
constexpr std::string_view report_words[] = {"memory", "tables"};
constexpr std::string_view tables_words[] = {"auto", "off"};
constexpr std::string_view reuse_grain_words[] = {"element", "line", "block"};
constexpr std::string_view reuse_mode_words[] = {"exact", "approximate"};

// In env_id order (checked by env_row).
constexpr std::array<env_var, 18> table = {{
    {.id = env_id::threads,
     .name = "PGAS_THREADS",
     .kind = env_kind::integer,
     .default_value = "1",
     .pgasrun_option = "-n",
     .description = "Number of UPC threads (THREADS) the job starts.",
     .lo = 1,
     .hi = config::max_threads},
    {.id = env_id::bind_to,
     .name = "PGAS_BIND_TO",
     .kind = env_kind::word,
     .default_value = "core",
     .pgasrun_option = "--bind-to",
     .description = "What each thread is bound to: the PUs of its core, NUMA node or package, "
                    "or nothing.",
     .words = bind_words},
    {.id = env_id::map_by,
     .name = "PGAS_MAP_BY",
     .kind = env_kind::word,
     .default_value = "core",
     .pgasrun_option = "--map-by",
     .description = "How threads are dealt over the machine: PUs in order (core), or "
                    "round-robin over NUMA nodes or packages.",
     .words = map_words},
    {.id = env_id::report_bindings,
     .name = "PGAS_REPORT_BINDINGS",
     .kind = env_kind::boolean,
     .default_value = "0",
     .pgasrun_option = "--report-bindings",
     .description = "Print the thread -> PU -> core -> L3 -> NUMA -> package table on stderr at "
                    "start-up."},
    {.id = env_id::topology,
     .name = "PGAS_TOPOLOGY",
     .kind = env_kind::text,
     .default_value = "",
     .pgasrun_option = "--topology",
     .description = "Plan placement for a described machine instead of this one; the plan is "
                    "only reported, never applied.",
     .accepted = "synthetic:DESC|FILE.xml"},
    {.id = env_id::verbose,
     .name = "PGAS_VERBOSE",
     .kind = env_kind::boolean,
     .default_value = "0",
     .pgasrun_option = "-v",
     .description = "Print every PGAS_* variable with its effective value at start-up."},
    {.id = env_id::spin,
     .name = "PGAS_SPIN",
     .kind = env_kind::integer,
     .default_value = "adaptive",
     .description = "Pause-loop iterations a waiting thread spins before yielding (adaptive: "
                    "as many as take about 1 ms on this core, 4000 to 200000, or 0 when there "
                    "are more threads than PUs).",
     .lo = 0,
     .hi = 100'000'000,
     .keyword = "adaptive"},
    {.id = env_id::stack_size,
     .name = "PGAS_STACK_SIZE",
     .kind = env_kind::size,
     .default_value = "8m",
     .description = "Stack size of each thread the runtime creates (thread 0 keeps the caller's "
                    "stack).",
     .lo = 64 * 1024},
    {.id = env_id::shared_heap_size,
     .name = "PGAS_SHARED_HEAP_SIZE",
     .kind = env_kind::size,
     .default_value = "unlimited",
     .pgasrun_option = "--shared-heap",
     .description = "Most shared memory one thread may have allocated at once (its part of "
                    "distributed allocations plus its local allocations); beyond it allocation "
                    "throws pgas::bad_shared_alloc.",
     .lo = 1,
     .keyword = "unlimited"},
    {.id = env_id::report,
     .name = "PGAS_REPORT",
     .kind = env_kind::word_list,
     .default_value = "",
     .pgasrun_option = "--report",
     .description = "Reports printed on stderr when the job ends, comma-separated: memory "
                    "(per-thread shared memory allocated and committed), tables (every "
                    "privatization table built: replicas, bytes, overhead against its array).",
     .words = report_words},
    {.id = env_id::tables,
     .name = "PGAS_TABLES",
     .kind = env_kind::word,
     .default_value = "auto",
     .description = "auto: shared arrays index through a privatization table when one applies "
                    "and costs at most 1/32 of the array's data; off: always by address "
                    "arithmetic.",
     .words = tables_words},
    {.id = env_id::timeout,
     .name = "PGAS_TIMEOUT",
     .kind = env_kind::seconds,
     .default_value = "0",
     .pgasrun_option = "--timeout",
     .description = "End a job still running after this many seconds (0: never), printing a "
                    "backtrace of every thread; the program then exits with status 124.",
     .lo = 0,
     .hi = 365 * 24 * 3600},
    {.id = env_id::nb_threshold,
     .name = "PGAS_NB_THRESHOLD",
     .kind = env_kind::size,
     .default_value = "1m",
     .description = "Non-blocking transfers (pgas/nb.hpp) of at least this many bytes go to a "
                    "copy engine thread and overlap the caller's work; smaller ones complete in "
                    "the initiating call (off: all of them do).",
     .lo = 1,
     .keyword = "off"},
    {.id = env_id::trace,
     .name = "PGAS_TRACE",
     .kind = env_kind::text,
     .default_value = "",
     .pgasrun_option = "--trace",
     .description = "Trace every shared access into this file (pgas-trace(1) reads it): calls and "
                    "bytes per source line, array, issuing and owning thread and locality "
                    "class, and the barrier, lock and collective waits. The file is checked "
                    "before the job starts and written when it ends.",
     .accepted = "a file name"},
    {.id = env_id::trace_memory,
     .name = "PGAS_TRACE_MEMORY",
     .kind = env_kind::size,
     .default_value = "16m",
     .description = "Most memory one thread's trace tables may use; past it, accesses are "
                    "counted without their site, array and owner, and the job says how many.",
     .lo = 64 * 1024},
    {.id = env_id::reuse,
     .name = "PGAS_REUSE",
     .kind = env_kind::text,
     .default_value = "",
     .pgasrun_option = "--reuse",
     .description = "Record into this file, per thread and source line, the histogram of reuse "
                    "distances of accesses to other threads' data (pgas-reuse(1) reads it). The "
                    "file is checked before the job starts and written when it ends.",
     .accepted = "a file name"},
    {.id = env_id::reuse_grain,
     .name = "PGAS_REUSE_GRAIN",
     .kind = env_kind::word,
     .default_value = "element",
     .pgasrun_option = "--reuse-grain",
     .description = "The unit whose reuse PGAS_REUSE measures: the element, its 64-byte line, or "
                    "its array's UPC block.",
     .words = reuse_grain_words},
    {.id = env_id::reuse_mode,
     .name = "PGAS_REUSE_MODE",
     .kind = env_kind::word,
     .default_value = "exact",
     .pgasrun_option = "--reuse-mode",
     .description = "Exact reuse distances, or approximate ones for long runs (distances below "
                    "32 exact, longer ones from one unit in 8, scaled).",
     .words = reuse_mode_words},
}};

[[noreturn]] void internal_error(std::string_view what) {
  // A programming error inside pgas, not a user error.
  std::fprintf(stderr, "pgas: internal error: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

template <class T>
constexpr env_kind kind_of() {
  if constexpr (std::is_same_v<T, long>) return env_kind::integer;
  if constexpr (std::is_same_v<T, std::size_t>) return env_kind::size;
  if constexpr (std::is_same_v<T, bool>) return env_kind::boolean;
  if constexpr (std::is_same_v<T, std::string_view>) return env_kind::word;
  if constexpr (std::is_same_v<T, std::vector<std::string_view>>) return env_kind::word_list;
  if constexpr (std::is_same_v<T, std::string>) return env_kind::text;
  if constexpr (std::is_same_v<T, double>) return env_kind::seconds;
}

std::string join(std::span<const std::string_view> words, std::string_view separator) {
  std::string out;
  for (std::string_view w : words) {
    if (!out.empty()) out += separator;
    out += w;
  }
  return out;
}

// 65536 -> "64k": the largest suffix that divides the count exactly.
std::string bytes_text(unsigned long long bytes) {
  static constexpr std::string_view suffixes = "kmgt";
  std::size_t i = 0;
  while (i < suffixes.size() && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++i;
  }
  return i == 0 ? std::to_string(bytes) : fmt::format("{}{}", bytes, suffixes[i - 1]);
}

std::string_view label(const env_var& v, std::string_view what) {
  return what.empty() ? v.name : what;
}

std::optional<long> parse_integer(const env_var& v, std::string_view text, std::string_view what) {
  if (!v.keyword.empty() && text == v.keyword) return std::nullopt;
  long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < v.lo || value > v.hi) {
    throw std::invalid_argument(
        fmt::format("{}='{}' is not a whole number between {} and {}{}", label(v, what), text, v.lo,
                    v.hi, v.keyword.empty() ? "" : fmt::format(", or {}", v.keyword)));
  }
  return value;
}

std::optional<std::size_t> parse_size(const env_var& v, std::string_view text,
                                      std::string_view what) {
  if (!v.keyword.empty() && text == v.keyword) return std::nullopt;
  std::size_t shift = 0;
  std::string_view digits = text;
  if (!text.empty()) {
    switch (text.back()) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      case 't':
      case 'T':
        shift = 40;
        break;
      default:
        break;
    }
    if (shift != 0) digits = text.substr(0, text.size() - 1);
  }
  unsigned long long n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  const bool digits_only = end == digits.data() + digits.size() && !digits.empty();
  if (digits_only && (ec == std::errc::result_out_of_range || n > (~0ull >> shift))) {
    throw std::invalid_argument(fmt::format(
        "{}='{}' is too large (a size must be below 2^64 bytes, 16777216t)", label(v, what), text));
  }
  const bool whole = ec == std::errc() && digits_only;
  if (!whole) {
    throw std::invalid_argument(fmt::format(
        "{}='{}' is not a size in bytes (a number with an optional k, m, g or t suffix){}",
        label(v, what), text, v.keyword.empty() ? "" : fmt::format(", or {}", v.keyword)));
  }
  const std::size_t bytes = static_cast<std::size_t>(n) << shift;
  if (bytes < static_cast<std::size_t>(v.lo)) {
    throw std::invalid_argument(fmt::format("{}='{}' is below the minimum of {} byte{}",
                                            label(v, what), text, bytes_text(v.lo),
                                            v.lo == 1 ? "" : "s"));
  }
  return bytes;
}

std::optional<bool> parse_bool(const env_var& v, std::string_view text, std::string_view what) {
  for (std::string_view t : {"1", "true", "yes", "on"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "false", "no", "off"}) {
    if (text == f) return false;
  }
  throw std::invalid_argument(fmt::format(
      "{}='{}' is not a boolean (use 1/0, true/false, yes/no, on/off)", label(v, what), text));
}

std::optional<std::string_view> parse_word(const env_var& v, std::string_view text,
                                           std::string_view what) {
  // The table's own copy, so the view outlives `text`.
  for (std::string_view w : v.words) {
    if (text == w) return w;
  }
  throw std::invalid_argument(
      fmt::format("{}='{}' is not one of {}", label(v, what), text, join(v.words, ", ")));
}

std::optional<std::vector<std::string_view>> parse_word_list(const env_var& v,
                                                             std::string_view text,
                                                             std::string_view what) {
  std::vector<std::string_view> out;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view word = rest.substr(0, comma);
    const auto known = std::find(v.words.begin(), v.words.end(), word);
    if (known == v.words.end()) {
      throw std::invalid_argument(
          fmt::format("{}='{}': '{}' is not one of {} (a comma-separated list)", label(v, what),
                      text, word, join(v.words, ", ")));
    }
    out.push_back(*known);
    if (comma == std::string_view::npos) return out;
    rest = rest.substr(comma + 1);
  }
}

std::optional<std::string> parse_text(const env_var& v, std::string_view text,
                                      std::string_view what) {
  if (text.empty()) {
    throw std::invalid_argument(
        fmt::format("{}='' is empty (expected {})", label(v, what), v.accepted));
  }
  return std::string(text);
}

// Plain decimal notation only: no sign, exponent, hexadecimal, "inf" or "nan", so that what
// the user wrote is what the job waits.
std::optional<double> parse_seconds(const env_var& v, std::string_view text,
                                    std::string_view what) {
  double value = 0;
  const bool plain =
      !text.empty() && text.find_first_not_of("0123456789.") == std::string_view::npos;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (!plain || ec != std::errc() || end != text.data() + text.size() ||
      value < static_cast<double>(v.lo) || value > static_cast<double>(v.hi)) {
    throw std::invalid_argument(fmt::format("{}='{}' is not a number of seconds between {} and {}",
                                            label(v, what), text, v.lo, v.hi));
  }
  return value;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Levenshtein, one row at a time.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::span<const env_var> env_table() noexcept {
  return table;
}

const env_var& env_row(env_id id) noexcept {
  const auto i = static_cast<std::size_t>(id);
  if (i >= table.size() || table[i].id != id)
    internal_error("the env table is out of env_id order");
  return table[i];
}

std::string env_accepted(const env_var& v) {
  const std::string keyword = v.keyword.empty() ? "" : fmt::format("|{}", v.keyword);
  switch (v.kind) {
    case env_kind::integer:
      return fmt::format("{}..{}{}", v.lo, v.hi, keyword);
    case env_kind::size:
      return fmt::format("bytes with an optional k/m/g/t suffix{}{}",
                         v.lo > 1 ? fmt::format(", at least {}", bytes_text(v.lo)) : "",
                         v.keyword.empty() ? "" : fmt::format(", or {}", v.keyword));
    case env_kind::boolean:
      return "1|0|true|false|yes|no|on|off";
    case env_kind::word:
      return join(v.words, "|");
    case env_kind::word_list:
      return join(v.words, ",") + " (any, comma-separated)";
    case env_kind::text:
      return std::string(v.accepted);
    case env_kind::seconds:
      return fmt::format("seconds, {}..{} (decimals allowed)", v.lo, v.hi);
  }
  return {};
}

std::optional<std::string> env_raw(env_id id) {
  const char* value = std::getenv(std::string(env_row(id).name).c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

template <class T>
std::optional<T> env_parse(env_id id, std::string_view text, std::string_view what) {
  const env_var& v = env_row(id);
  if (v.kind != kind_of<T>()) internal_error(fmt::format("{} read as the wrong type", v.name));
  if constexpr (std::is_same_v<T, long>) return parse_integer(v, text, what);
  if constexpr (std::is_same_v<T, std::size_t>) return parse_size(v, text, what);
  if constexpr (std::is_same_v<T, bool>) return parse_bool(v, text, what);
  if constexpr (std::is_same_v<T, std::string_view>) return parse_word(v, text, what);
  if constexpr (std::is_same_v<T, std::vector<std::string_view>>)
    return parse_word_list(v, text, what);
  if constexpr (std::is_same_v<T, std::string>) return parse_text(v, text, what);
  if constexpr (std::is_same_v<T, double>) return parse_seconds(v, text, what);
}

void env_check(env_id id, std::string_view text, std::string_view what) {
  switch (env_row(id).kind) {
    case env_kind::integer:
      (void)env_parse<long>(id, text, what);
      break;
    case env_kind::size:
      (void)env_parse<std::size_t>(id, text, what);
      break;
    case env_kind::boolean:
      (void)env_parse<bool>(id, text, what);
      break;
    case env_kind::word:
      (void)env_parse<std::string_view>(id, text, what);
      break;
    case env_kind::word_list:
      (void)env_parse<std::vector<std::string_view>>(id, text, what);
      break;
    case env_kind::text:
      (void)env_parse<std::string>(id, text, what);
      break;
    case env_kind::seconds:
      (void)env_parse<double>(id, text, what);
      break;
  }
}

template <class T>
std::optional<T> env_read(env_id id) {
  if (auto text = env_raw(id)) return env_parse<T>(id, *text);
  const env_var& v = env_row(id);
  if (v.default_value.empty()) return std::nullopt;
  return env_parse<T>(id, v.default_value);
}

template std::optional<long> env_parse<long>(env_id, std::string_view, std::string_view);
template std::optional<std::size_t> env_parse<std::size_t>(env_id, std::string_view,
                                                           std::string_view);
template std::optional<bool> env_parse<bool>(env_id, std::string_view, std::string_view);
template std::optional<std::string_view> env_parse<std::string_view>(env_id, std::string_view,
                                                                     std::string_view);
template std::optional<std::vector<std::string_view>> env_parse<std::vector<std::string_view>>(
    env_id, std::string_view, std::string_view);
template std::optional<std::string> env_parse<std::string>(env_id, std::string_view,
                                                           std::string_view);
template std::optional<double> env_parse<double>(env_id, std::string_view, std::string_view);
template std::optional<long> env_read<long>(env_id);
template std::optional<std::size_t> env_read<std::size_t>(env_id);
template std::optional<bool> env_read<bool>(env_id);
template std::optional<std::string_view> env_read<std::string_view>(env_id);
template std::optional<std::vector<std::string_view>> env_read<std::vector<std::string_view>>(
    env_id);
template std::optional<std::string> env_read<std::string>(env_id);
template std::optional<double> env_read<double>(env_id);

std::vector<std::string> env_undeclared() {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry = *e;
    const std::size_t eq = entry.find('=');
    if (!entry.starts_with("PGAS_") || entry.starts_with("PGAS_TEST_") ||
        eq == std::string_view::npos || eq + 1 == entry.size())
      continue;
    const std::string_view name = entry.substr(0, eq);
    const bool declared =
        std::any_of(table.begin(), table.end(), [&](const env_var& v) { return v.name == name; });
    if (!declared) out.emplace_back(name);
  }
  return out;
}

std::string_view env_nearest(std::string_view name) {
  std::string_view best = table.front().name;
  std::size_t best_distance = edit_distance(name, best);
  for (const env_var& v : table) {
    const std::size_t d = edit_distance(name, v.name);
    if (d < best_distance) {
      best = v.name;
      best_distance = d;
    }
  }
  return best;
}

std::string env_help() {
  std::string out = "Environment variables read by pgas programs (pgasrun sets them):\n";
  for (const env_var& v : table) {
    out += fmt::format(
        "\n  {}\n      {}\n      accepted: {}   default: {}{}\n", v.name, v.description,
        env_accepted(v), v.default_value.empty() ? "(unset)" : v.default_value,
        v.pgasrun_option.empty() ? std::string() : fmt::format("   pgasrun: {}", v.pgasrun_option));
  }
  return out;
}

std::string env_dump() {
  std::string out;
  for (const env_var& v : table) {
    const auto value = env_raw(v.id);
    out += fmt::format("pgas: {}={}{}\n", v.name, value ? *value : std::string(v.default_value),
                       value ? "" : " (default)");
  }
  return out;
}

}  // namespace pgas::detail
