// src/base/env.hpp — every PGAS_* environment variable, declared once.
//
// The table (env.cpp) gives each variable its name, the kind of value it holds with the bounds
// that make up its parser, its default, the pgasrun option that sets it and a description. From
// it come the job's reading of the environment (src/job/run_options.cpp, its only reader),
// pgasrun's validation and exports, `pgasrun --help-env`, the verbose start-up dump
// (PGAS_VERBOSE=1) and, checked by tests/tools/readme_env.py, the README's list. To add a
// variable: a name in env_id, a row in the table, and the field run_options.cpp reads into.
//
// Parsing is strict: a value that is not exactly what the row accepts is an error naming the
// variable and what it accepts, never a silent default. An empty variable counts as unset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pgas::detail {

/// Every variable, in the order `pgasrun --help-env` lists them.
enum class env_id : std::uint8_t {
  threads,
  bind_to,
  map_by,
  report_bindings,
  topology,
  verbose,
  spin,
  stack_size,
  shared_heap_size,
  report,
  tables,
  timeout,
  nb_threshold,
  trace,
  trace_memory,
  reuse,
  reuse_grain,
  reuse_mode,
};

/// What a variable holds; with the row's bounds, its parser. The C++ type each kind parses to
/// is the `T` of env_parse<T> and env_read<T>.
enum class env_kind : std::uint8_t {
  integer,    // long: a whole number in [lo, hi], or the row's keyword
  size,       // std::size_t: bytes, optional k/m/g/t suffix (powers of 1024), at least lo,
              // or the row's keyword
  boolean,    // bool: 1/0, true/false, yes/no, on/off
  word,       // std::string_view: one of the row's words
  word_list,  // std::vector<std::string_view>: comma-separated words of the row's list
  text,       // std::string: any non-empty text (checked by the layer that uses it)
  seconds,    // double: a decimal number of seconds ("1", "0.25") in [lo, hi]
};

struct env_var {
  env_id id;
  std::string_view name;  // "PGAS_THREADS"
  env_kind kind;
  std::string_view default_value;        // as the user would write it; "" when unset means nothing
  std::string_view pgasrun_option = {};  // the pgasrun option that sets it ("-n"), or ""
  std::string_view description;          // one sentence
  long long lo = 0;                      // integer, seconds: the least value; size: the least bytes
  long long hi = 0;                      // integer, seconds: the greatest value
  std::span<const std::string_view> words = {};  // word, word_list: the accepted words
  std::string_view keyword = {};   // integer, size: a word that stands for no number, meaning
                                   // the default behaviour ("adaptive", "unlimited")
  std::string_view accepted = {};  // text: what it accepts; other kinds derive it (env_accepted)
};

/// All variables, in env_id order.
std::span<const env_var> env_table() noexcept;

/// The row of `id`.
const env_var& env_row(env_id id) noexcept;

/// What the row accepts, as `pgasrun --help-env` and error messages say it: "1..4096",
/// "core|numa|socket|none", "0..100000000|adaptive", "seconds, 0..31536000", …
std::string env_accepted(const env_var& v);

/// The variable's text in the environment, or nullopt when it is unset or empty.
std::optional<std::string> env_raw(env_id id);

/// Parses `text` as `id`'s value: nullopt when it is the row's keyword. `T` must be the type of
/// the row's kind (see env_kind; a mismatch is an internal error and aborts). Throws
/// std::invalid_argument "WHAT='text' is not …", naming what the row accepts; WHAT is `what`,
/// or the variable's name when `what` is empty (pgasrun names its option instead).
template <class T>
std::optional<T> env_parse(env_id id, std::string_view text, std::string_view what = {});

/// Checks `text` against `id`'s parser whatever its kind; throws as env_parse does.
void env_check(env_id id, std::string_view text, std::string_view what = {});

/// The variable's value: its text in the environment parsed, or its default when it is unset
/// or empty. nullopt when that is the row's keyword or an empty default. Throws as env_parse.
template <class T>
std::optional<T> env_read(env_id id);

/// Names of PGAS_* variables in the environment that no row declares, in environment order.
/// Names starting with PGAS_TEST_ are reserved for the project's own test scripts and skipped.
std::vector<std::string> env_undeclared();

/// The declared name nearest to `name` by edit distance (the first in table order on a tie).
std::string_view env_nearest(std::string_view name);

/// The text `pgasrun --help-env` prints: one block per variable.
std::string env_help();

/// The start-up dump PGAS_VERBOSE=1 prints: every variable with its effective value.
std::string env_dump();

}  // namespace pgas::detail
