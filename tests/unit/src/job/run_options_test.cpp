// Tests src/job/run_options.cpp: the one reader of the PGAS_* environment. Public options are
// resolved from the environment and the table's defaults, the internal settings (spin, stack,
// heap limit, reports, tables mode, verbose dump) are read strictly, undeclared PGAS_* names
// draw one warning naming the nearest declared one, and pgas::run configures the job from it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <pgas/pgas.hpp>

#include "../../test_job.hpp"
#include "src/base/env.hpp"
#include "src/job/job.hpp"
#include "src/job/run_options.hpp"

using namespace pgas::detail;

namespace {

// Every declared variable unset (and the misspellings these tests set), at the start and end
// of a test, so that tests see only what they set.
struct clean_env {
  clean_env() { clear(); }
  ~clean_env() { clear(); }
  static void clear() {
    for (const env_var& v : env_table())
      ::unsetenv(std::string(v.name).c_str());
    for (const char* typo : {"PGAS_THREADZ", "PGAS_TABLE", "PGAS_NOT_A_THING"})
      ::unsetenv(typo);
  }
};

}  // namespace

TEST_CASE("options come from the environment when not given", "[run_options]") {
  clean_env clean;
  ::setenv("PGAS_THREADS", "3", 1);
  ::setenv("PGAS_BIND_TO", "numa", 1);
  ::setenv("PGAS_MAP_BY", "socket", 1);
  ::setenv("PGAS_REPORT_BINDINGS", "on", 1);
  ::setenv("PGAS_TOPOLOGY", "synthetic:core:2 pu:1", 1);
  pgas::run_options r = pgas::run_options{}.resolved();
  CHECK(*r.threads == 3);
  CHECK(*r.bind_to == pgas::bind_policy::numa);
  CHECK(*r.map_by == pgas::map_policy::socket);
  CHECK(*r.report_bindings);
  CHECK(*r.topology == "synthetic:core:2 pu:1");

  pgas::run_options explicit_opts;
  explicit_opts.threads = 2;
  explicit_opts.bind_to = pgas::bind_policy::none;
  explicit_opts.topology = "";
  r = explicit_opts.resolved();
  CHECK(*r.threads == 2);
  CHECK(*r.bind_to == pgas::bind_policy::none);
  CHECK(r.topology->empty());

  ::setenv("PGAS_THREADS", "abc", 1);
  CHECK_THROWS_WITH(pgas::run_options{}.resolved(), Catch::Contains("PGAS_THREADS='abc'"));
  ::setenv("PGAS_THREADS", "0", 1);
  CHECK_THROWS_AS(pgas::run_options{}.resolved(), std::invalid_argument);
  ::setenv("PGAS_THREADS", "2", 1);
  ::setenv("PGAS_BIND_TO", "banana", 1);
  CHECK_THROWS_WITH(pgas::run_options{}.resolved(), Catch::Contains("PGAS_BIND_TO='banana'"));

  pgas::run_options too_many;
  too_many.threads = pgas::config::max_threads + 1;
  CHECK_THROWS_AS(too_many.resolved(), std::invalid_argument);
}

TEST_CASE("unset options take the table's defaults", "[run_options]") {
  clean_env clean;
  const pgas::run_options r = pgas::run_options{}.resolved();
  CHECK(*r.threads == 1);
  CHECK(*r.bind_to == pgas::bind_policy::core);
  CHECK(*r.map_by == pgas::map_policy::core);
  CHECK_FALSE(*r.report_bindings);
  CHECK(r.topology->empty());

  const run_settings s = run_settings_read({});
  CHECK_FALSE(s.spin.has_value());
  CHECK(s.stack_bytes == std::size_t{8} << 20);
  CHECK(s.shared_heap_limit == 0);
  CHECK_FALSE(s.report_memory);
  CHECK_FALSE(s.report_tables);
  CHECK(s.tables_auto);
  CHECK(s.verbose_dump.empty());
  CHECK(s.warnings.empty());
}

TEST_CASE("every word of the placement rows names a policy", "[run_options]") {
  // The table (base) and the models' parsers are two lists of the same words.
  for (std::string_view w : env_row(env_id::bind_to).words)
    CHECK(pgas::to_string(pgas::parse_bind_policy(w)) == w);
  for (std::string_view w : env_row(env_id::map_by).words)
    CHECK(pgas::to_string(pgas::parse_map_policy(w)) == w);
  for (auto p : {pgas::bind_policy::core, pgas::bind_policy::numa, pgas::bind_policy::socket,
                 pgas::bind_policy::none})
    CHECK_NOTHROW(env_parse<std::string_view>(env_id::bind_to, pgas::to_string(p)));
  for (auto p : {pgas::map_policy::core, pgas::map_policy::numa, pgas::map_policy::socket})
    CHECK_NOTHROW(env_parse<std::string_view>(env_id::map_by, pgas::to_string(p)));
}

TEST_CASE("the settings only the environment gives are read strictly", "[run_options]") {
  clean_env clean;
  ::setenv("PGAS_SPIN", "123", 1);
  ::setenv("PGAS_STACK_SIZE", "256k", 1);
  ::setenv("PGAS_SHARED_HEAP_SIZE", "1m", 1);
  ::setenv("PGAS_REPORT", "memory,tables", 1);
  ::setenv("PGAS_TABLES", "off", 1);
  ::setenv("PGAS_VERBOSE", "1", 1);
  ::setenv("PGAS_TIMEOUT", "2.5", 1);
  ::setenv("PGAS_NB_THRESHOLD", "8k", 1);
  run_settings s = run_settings_read({});
  CHECK(s.timeout_seconds == 2.5);
  CHECK(s.nb_threshold == 8192);
  CHECK(s.spin == 123);
  CHECK(s.stack_bytes == 256 * 1024);
  CHECK(s.shared_heap_limit == 1024 * 1024);
  CHECK(s.report_memory);
  CHECK(s.report_tables);
  CHECK_FALSE(s.tables_auto);
  CHECK(s.verbose_dump.find("pgas: PGAS_SPIN=123\n") != std::string::npos);
  CHECK(s.verbose_dump.find("pgas: PGAS_THREADS=1 (default)\n") != std::string::npos);

  ::setenv("PGAS_SPIN", "adaptive", 1);
  ::setenv("PGAS_SHARED_HEAP_SIZE", "unlimited", 1);
  ::setenv("PGAS_REPORT", "tables", 1);
  ::unsetenv("PGAS_TIMEOUT");
  ::setenv("PGAS_NB_THRESHOLD", "off", 1);
  s = run_settings_read({});
  CHECK(s.timeout_seconds == 0);
  CHECK(s.nb_threshold == SIZE_MAX);
  CHECK_FALSE(s.spin.has_value());
  CHECK(s.shared_heap_limit == 0);
  CHECK_FALSE(s.report_memory);
  CHECK(s.report_tables);

  for (auto [name, bad] :
       {std::pair{"PGAS_SPIN", "lots"}, std::pair{"PGAS_STACK_SIZE", "1k"},
        std::pair{"PGAS_SHARED_HEAP_SIZE", "-1"}, std::pair{"PGAS_REPORT", "memory,"},
        std::pair{"PGAS_VERBOSE", "2"}, std::pair{"PGAS_TIMEOUT", "abc"}}) {
    clean_env::clear();
    ::setenv(name, bad, 1);
    INFO(name << "=" << bad);
    CHECK_THROWS_WITH(run_settings_read({}),
                      Catch::StartsWith(std::string(name) + "='" + bad + "'"));
    // The public options do not read the internal settings.
    CHECK_NOTHROW(pgas::run_options{}.resolved());
  }
}

TEST_CASE("PGAS_TABLES: only auto and off", "[run_options]") {
  clean_env clean;
  ::setenv("PGAS_TABLES", "auto", 1);
  CHECK(run_settings_read({}).tables_auto);
  ::setenv("PGAS_TABLES", "off", 1);
  CHECK_FALSE(run_settings_read({}).tables_auto);
  // These used to mean "auto" in silence.
  for (const char* bad : {"0", "false", "abc", "no", "Off", "1"}) {
    INFO(bad);
    ::setenv("PGAS_TABLES", bad, 1);
    CHECK_THROWS_WITH(run_settings_read({}),
                      std::string("PGAS_TABLES='") + bad + "' is not one of auto, off");
  }
}

TEST_CASE("an undeclared PGAS_* variable draws one warning naming the nearest", "[run_options]") {
  clean_env clean;
  ::setenv("PGAS_THREADZ", "4", 1);
  run_settings s = run_settings_read({});
  CHECK(s.warnings ==
        "pgas: warning: PGAS_THREADZ is not a pgas variable and is ignored; did you mean "
        "PGAS_THREADS?\n");
  CHECK(*s.options.threads == 1);

  ::setenv("PGAS_TABLE", "off", 1);
  s = run_settings_read({});
  CHECK(s.warnings.find("PGAS_THREADZ is not a pgas variable") != std::string::npos);
  CHECK(s.warnings.find("PGAS_TABLE is not a pgas variable and is ignored; did you mean "
                        "PGAS_TABLES?\n") != std::string::npos);
  CHECK(std::count(s.warnings.begin(), s.warnings.end(), '\n') == 2);
  CHECK(s.tables_auto);
}

TEST_CASE("pgas::run configures the job from the settings", "[run_options]") {
  clean_env clean;
  ::setenv("PGAS_SPIN", "77", 1);
  ::setenv("PGAS_STACK_SIZE", "1m", 1);
  ::setenv("PGAS_SHARED_HEAP_SIZE", "64m", 1);
  ::setenv("PGAS_TABLES", "off", 1);
  int spin = -1;
  std::size_t stack = 0;
  std::size_t heap = 0;
  bool tables_auto = true;
  const int status = pgas::run(test_job(2), 0, nullptr, [&] {
    const job& j = *job_current();
    if (pgas::mythread() == 0) {
      spin = j.wait.spin;
      stack = j.stack_bytes;
      heap = j.shared_heap_limit;
      tables_auto = j.tables_auto;
    }
  });
  CHECK(status == 0);
  CHECK(spin == 77);
  CHECK(stack == 1024 * 1024);
  CHECK(heap == std::size_t{64} << 20);
  CHECK_FALSE(tables_auto);

  clean_env::clear();
  pgas::run(test_job(1), 0, nullptr, [&] { tables_auto = job_current()->tables_auto; });
  CHECK(tables_auto);
}
