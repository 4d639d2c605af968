// src/base/env.hpp — every PGAS_* environment variable, declared once.
//
// The table below is the single source for parsing (run_options::resolved), for
// `pgasrun --help-env`, for the verbose start-up dump (PGAS_VERBOSE=1) and for the README's
// list. To add a variable, add a row here and read it with env_get().
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pgas::detail {

struct env_var {
  std::string_view name;            // "PGAS_THREADS"
  std::string_view default_value;   // as the user would write it
  std::string_view accepted;        // "1..4096", "core|numa|socket|none", ...
  std::string_view pgasrun_option;  // the pgasrun option that sets it, or ""
  std::string_view description;     // one sentence
};

/// All variables, in the order `pgasrun --help-env` lists them.
const std::vector<env_var>& env_table();

/// The row for `name`; aborts (internal error) when the name is not declared.
const env_var& env_find(std::string_view name);

/// The variable's value from the environment, or nullopt when unset or empty. Only declared
/// names may be read.
std::optional<std::string> env_get(std::string_view name);

/// Parses a whole decimal integer in [lo, hi]. Throws std::invalid_argument with a message
/// "NAME='text' is not a whole number between lo and hi" (NAME is `what`).
long env_parse_int(std::string_view what, std::string_view text, long lo, long hi);

/// Parses a size in bytes with an optional k/m/g/t suffix (powers of 1024), at least `min`.
/// Throws std::invalid_argument naming `what`.
std::size_t env_parse_size(std::string_view what, std::string_view text, std::size_t min);

/// Parses 0/1/true/false/yes/no/on/off. Throws std::invalid_argument naming `what`.
bool env_parse_bool(std::string_view what, std::string_view text);

/// The text `pgasrun --help-env` prints: one block per variable.
std::string env_help();

/// The start-up dump PGAS_VERBOSE=1 prints: every variable with its effective value.
std::string env_dump();

}  // namespace pgas::detail
