// src/base/env.cpp — the PGAS_* variable table and its parsers (see env.hpp).
//
// Parsing is strict: a value that is not exactly a number, a known word or a boolean is an
// error naming the variable and what it accepts, never a silent default.

#include "src/base/env.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include <pgas/config.hpp>

namespace pgas::detail {

const std::vector<env_var>& env_table() {
  static const std::vector<env_var> table = {
      {"PGAS_THREADS", "1", "1..max_threads", "-n N",
       "Number of UPC threads (THREADS) the job starts."},
      {"PGAS_BIND_TO", "core", "core|numa|socket|none", "--bind-to",
       "What each thread is bound to: the PUs of its core, NUMA node or package, or nothing."},
      {"PGAS_MAP_BY", "core", "core|numa|socket", "--map-by",
       "How threads are dealt over the machine: PUs in order (core), or round-robin over NUMA "
       "nodes or packages."},
      {"PGAS_REPORT_BINDINGS", "0", "0|1", "--report-bindings",
       "Print the thread -> PU -> core -> L3 -> NUMA -> package table on stderr at start-up."},
      {"PGAS_TOPOLOGY", "", "synthetic:DESC|FILE.xml", "--topology",
       "Plan placement for a described machine instead of this one; the plan is only "
       "reported, never applied."},
      {"PGAS_VERBOSE", "0", "0|1", "-v",
       "Print every PGAS_* variable with its effective value at start-up."},
      {"PGAS_SPIN", "adaptive", "0..100000000|adaptive", "",
       "Pause-loop iterations a waiting thread spins before yielding (adaptive: 4000, or 50 "
       "when there are more threads than PUs)."},
      {"PGAS_STACK_SIZE", "8m", "bytes, with k/m/g suffix", "",
       "Stack size of each thread the runtime creates (thread 0 keeps the caller's stack)."},
      {"PGAS_SHARED_HEAP_SIZE", "unlimited", "bytes, with k/m/g/t suffix", "--shared-heap",
       "Most shared memory one thread may have allocated at once (its part of distributed "
       "allocations plus its local allocations); beyond it allocation throws "
       "pgas::bad_shared_alloc."},
      {"PGAS_REPORT", "", "memory,tables", "--report",
       "Reports printed on stderr when the job ends, comma-separated: memory (per-thread "
       "shared memory allocated and committed), tables (every privatization table built: "
       "replicas, bytes, overhead against its array)."},
      {"PGAS_TABLES", "auto", "auto|off", "",
       "auto: shared arrays index through a privatization table when one applies and costs at "
       "most 1/32 of the array's data; off: always by address arithmetic."},
  };
  return table;
}

const env_var& env_find(std::string_view name) {
  for (const env_var& v : env_table()) {
    if (v.name == name) return v;
  }
  // A programming error inside pgas, not a user error.
  std::fprintf(stderr, "pgas: internal error: undeclared variable %.*s\n",
               static_cast<int>(name.size()), name.data());
  std::abort();
}

std::optional<std::string> env_get(std::string_view name) {
  const env_var& v = env_find(name);
  const char* value = std::getenv(std::string(v.name).c_str());
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

long env_parse_int(std::string_view what, std::string_view text, long lo, long hi) {
  long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
    throw std::invalid_argument(
        fmt::format("{}='{}' is not a whole number between {} and {}", what, text, lo, hi));
  }
  return value;
}

std::size_t env_parse_size(std::string_view what, std::string_view text, std::size_t min) {
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
  unsigned long long v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  const bool whole = ec == std::errc() && end == digits.data() + digits.size() && !digits.empty();
  if (!whole || v > (~0ull >> shift)) {
    throw std::invalid_argument(fmt::format(
        "{}='{}' is not a size in bytes (a number with an optional k, m, g or t suffix)", what,
        text));
  }
  const std::size_t bytes = static_cast<std::size_t>(v) << shift;
  if (bytes < min) {
    throw std::invalid_argument(
        fmt::format("{}='{}' is below the minimum of {} bytes", what, text, min));
  }
  return bytes;
}

bool env_parse_bool(std::string_view what, std::string_view text) {
  for (std::string_view t : {"1", "true", "yes", "on"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "false", "no", "off"}) {
    if (text == f) return false;
  }
  throw std::invalid_argument(
      fmt::format("{}='{}' is not a boolean (use 1/0, true/false, yes/no, on/off)", what, text));
}

std::string env_help() {
  std::string out = "Environment variables read by pgas programs (pgasrun sets them):\n";
  for (const env_var& v : env_table()) {
    std::string accepted(v.accepted);
    if (v.name == "PGAS_THREADS") accepted = fmt::format("1..{}", config::max_threads);
    out += fmt::format(
        "\n  {}\n      {}\n      accepted: {}   default: {}{}\n", v.name, v.description, accepted,
        v.default_value.empty() ? "(unset)" : v.default_value,
        v.pgasrun_option.empty() ? std::string() : fmt::format("   pgasrun: {}", v.pgasrun_option));
  }
  return out;
}

std::string env_dump() {
  std::string out;
  for (const env_var& v : env_table()) {
    auto value = env_get(v.name);
    out += fmt::format("pgas: {}={}{}\n", v.name, value ? *value : std::string(v.default_value),
                       value ? "" : " (default)");
  }
  return out;
}

}  // namespace pgas::detail
