// src/job/run_options.cpp — reading the PGAS_* environment into run options and settings (see
// run_options.hpp): run_options_resolve, run_settings_read and run_options::resolved.
//
// The table's words map onto the models' policies through parse_bind_policy/parse_map_policy;
// tests/unit/src/job/run_options_test.cpp checks that every word of the table has one.

#include "src/job/run_options.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <pgas/config.hpp>

#include "src/base/env.hpp"

namespace pgas {

namespace detail {

run_options run_options_resolve(const run_options& given) {
  run_options r = given;
  if (!r.threads) {
    r.threads = static_cast<int>(*env_read<long>(env_id::threads));
  } else if (*r.threads < 1 || *r.threads > config::max_threads) {
    throw std::invalid_argument(fmt::format("the thread count {} is not between 1 and {}",
                                            *r.threads, config::max_threads));
  }
  if (!r.bind_to) r.bind_to = parse_bind_policy(*env_read<std::string_view>(env_id::bind_to));
  if (!r.map_by) r.map_by = parse_map_policy(*env_read<std::string_view>(env_id::map_by));
  if (!r.report_bindings) r.report_bindings = *env_read<bool>(env_id::report_bindings);
  if (!r.topology) r.topology = env_read<std::string>(env_id::topology).value_or("");
  return r;
}

run_settings run_settings_read(const run_options& given) {
  run_settings s;
  s.options = run_options_resolve(given);
  if (auto spin = env_read<long>(env_id::spin)) s.spin = static_cast<int>(*spin);
  s.stack_bytes = *env_read<std::size_t>(env_id::stack_size);
  s.shared_heap_limit = env_read<std::size_t>(env_id::shared_heap_size).value_or(0);
  for (std::string_view report : env_read<std::vector<std::string_view>>(env_id::report)
                                     .value_or(std::vector<std::string_view>{})) {
    if (report == "memory") s.report_memory = true;
    if (report == "tables") s.report_tables = true;
  }
  s.tables_auto = *env_read<std::string_view>(env_id::tables) == "auto";
  s.timeout_seconds = *env_read<double>(env_id::timeout);
  s.nb_threshold =
      env_read<std::size_t>(env_id::nb_threshold).value_or(std::numeric_limits<std::size_t>::max());
  s.trace_file = env_read<std::string>(env_id::trace).value_or("");
  s.trace_memory = *env_read<std::size_t>(env_id::trace_memory);
  s.reuse_file = env_read<std::string>(env_id::reuse).value_or("");
  s.reuse_grain = std::string(*env_read<std::string_view>(env_id::reuse_grain));
  s.reuse_mode = std::string(*env_read<std::string_view>(env_id::reuse_mode));
  if (*env_read<bool>(env_id::verbose)) s.verbose_dump = env_dump();
  for (const std::string& name : env_undeclared()) {
    s.warnings +=
        fmt::format("pgas: warning: {} is not a pgas variable and is ignored; did you mean {}?\n",
                    name, env_nearest(name));
  }
  return s;
}

}  // namespace detail

run_options run_options::resolved() const {
  return detail::run_options_resolve(*this);
}

}  // namespace pgas
