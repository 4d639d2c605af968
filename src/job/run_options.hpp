// src/job/run_options.hpp — the one reader of the PGAS_* environment.
//
// Every variable declared in src/base/env.hpp is read here and nowhere else: the public
// run_options (pgas::run_options::resolved) and the settings only the environment gives (spin,
// stack size, shared heap limit, reports, tables mode, timeout, non-blocking threshold,
// verbose dump), resolved together
// into a run_settings that pgas::run configures the job from.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <pgas/runtime.hpp>

namespace pgas::detail {

/// What a job starts with, every value resolved.
struct run_settings {
  run_options options;                // every field set
  std::optional<int> spin;            // PGAS_SPIN; nullopt: adaptive
  std::size_t stack_bytes = 0;        // PGAS_STACK_SIZE
  std::size_t shared_heap_limit = 0;  // PGAS_SHARED_HEAP_SIZE; 0: unlimited
  bool report_memory = false;         // PGAS_REPORT has memory
  bool report_tables = false;         // PGAS_REPORT has tables
  bool tables_auto = true;            // PGAS_TABLES=auto
  double timeout_seconds = 0;         // PGAS_TIMEOUT; 0: none
  std::size_t nb_threshold = 0;       // PGAS_NB_THRESHOLD; SIZE_MAX: off
  std::string trace_file;             // PGAS_TRACE; empty: no tracing
  std::size_t trace_memory = 0;       // PGAS_TRACE_MEMORY
  std::string reuse_file;             // PGAS_REUSE; empty: no reuse recording
  std::string reuse_grain;            // PGAS_REUSE_GRAIN
  std::string reuse_mode;             // PGAS_REUSE_MODE
  std::string verbose_dump;           // PGAS_VERBOSE: every variable with its value; else empty
  std::string warnings;               // one line per PGAS_* variable no row declares
};

/// `given` with every empty field filled from the environment and the table's defaults (the
/// contract of run_options::resolved). Throws std::invalid_argument naming the variable and
/// what it accepts when one of the five is malformed, or when `given.threads` is out of range.
run_options run_options_resolve(const run_options& given);

/// Everything a job reads from the environment, once. Throws std::invalid_argument as above
/// for any malformed PGAS_* variable. An undeclared PGAS_* variable (a misspelling) is not an
/// error: it gets a warning line in `warnings` naming the nearest declared one.
run_settings run_settings_read(const run_options& given);

}  // namespace pgas::detail
