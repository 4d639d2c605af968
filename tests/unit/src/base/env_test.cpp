// Tests src/base/env.cpp: the PGAS_* declaration table, its strict parsers, the typed readers
// and the nearest-name lookup behind the unknown-variable warning.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <pgas/config.hpp>

#include "src/base/env.hpp"

using namespace pgas::detail;

namespace {

// Sets (or, given null, unsets) a variable for the scope, and unsets it after.
struct scoped_env {
  std::string name;
  scoped_env(std::string_view n, const char* value) : name(n) {
    if (value != nullptr) {
      ::setenv(name.c_str(), value, 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
  ~scoped_env() { ::unsetenv(name.c_str()); }
};

std::string message_of(env_id id, std::string_view text, std::string_view what = {}) {
  try {
    env_check(id, text, what);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("every variable is declared once, in env_id order, with a description", "[env]") {
  const auto table = env_table();
  REQUIRE(table.size() == 18);
  for (std::size_t i = 0; i < table.size(); ++i) {
    INFO(table[i].name);
    CHECK(static_cast<std::size_t>(table[i].id) == i);
    CHECK(&env_row(table[i].id) == &table[i]);
    CHECK(table[i].name.starts_with("PGAS_"));
    CHECK_FALSE(table[i].description.empty());
    CHECK_FALSE(env_accepted(table[i]).empty());
    for (std::size_t k = i + 1; k < table.size(); ++k)
      CHECK(table[i].name != table[k].name);
  }
  CHECK(env_row(env_id::threads).name == "PGAS_THREADS");
  CHECK(env_row(env_id::tables).name == "PGAS_TABLES");
  CHECK(env_row(env_id::timeout).name == "PGAS_TIMEOUT");
  CHECK(env_row(env_id::nb_threshold).name == "PGAS_NB_THRESHOLD");
  CHECK(env_row(env_id::reuse_mode).name == "PGAS_REUSE_MODE");
}

TEST_CASE("every row parses its default", "[env]") {
  for (const env_var& v : env_table()) {
    INFO(v.name << " default '" << v.default_value << "'");
    if (v.default_value.empty()) {
      // An empty default means unset: empty text is no value of the row.
      CHECK(message_of(v.id, "") != "(accepted)");
      continue;
    }
    CHECK(message_of(v.id, v.default_value) == "(accepted)");
  }
}

TEST_CASE("unset variables read as their parsed defaults", "[env]") {
  for (const env_var& v : env_table())
    ::unsetenv(std::string(v.name).c_str());
  CHECK(env_read<long>(env_id::threads) == 1);
  CHECK(env_read<std::string_view>(env_id::bind_to) == "core");
  CHECK(env_read<std::string_view>(env_id::map_by) == "core");
  CHECK(env_read<bool>(env_id::report_bindings) == false);
  CHECK_FALSE(env_read<std::string>(env_id::topology).has_value());
  CHECK(env_read<bool>(env_id::verbose) == false);
  CHECK_FALSE(env_read<long>(env_id::spin).has_value());  // adaptive
  CHECK(env_read<std::size_t>(env_id::stack_size) == std::size_t{8} << 20);
  CHECK_FALSE(env_read<std::size_t>(env_id::shared_heap_size).has_value());  // unlimited
  CHECK_FALSE(env_read<std::vector<std::string_view>>(env_id::report).has_value());
  CHECK(env_read<std::string_view>(env_id::tables) == "auto");
  CHECK(env_read<double>(env_id::timeout) == 0.0);
  CHECK(env_read<std::size_t>(env_id::nb_threshold) == std::size_t{1} << 20);
}

TEST_CASE("env_raw treats unset and empty alike", "[env]") {
  {
    scoped_env e("PGAS_TOPOLOGY", nullptr);
    CHECK_FALSE(env_raw(env_id::topology).has_value());
  }
  {
    scoped_env e("PGAS_TOPOLOGY", "");
    CHECK_FALSE(env_raw(env_id::topology).has_value());
    CHECK_FALSE(env_read<std::string>(env_id::topology).has_value());
  }
  scoped_env e("PGAS_TOPOLOGY", "synthetic:pu:2");
  CHECK(env_raw(env_id::topology) == "synthetic:pu:2");
  CHECK(env_read<std::string>(env_id::topology) == "synthetic:pu:2");
}

TEST_CASE("set variables are parsed by their row", "[env]") {
  scoped_env threads("PGAS_THREADS", "12");
  scoped_env spin("PGAS_SPIN", "0");
  scoped_env stack("PGAS_STACK_SIZE", "2M");
  scoped_env heap("PGAS_SHARED_HEAP_SIZE", "3g");
  scoped_env report("PGAS_REPORT", "tables,memory");
  scoped_env tables("PGAS_TABLES", "off");
  scoped_env verbose("PGAS_VERBOSE", "yes");
  scoped_env timeout("PGAS_TIMEOUT", "1.5");
  scoped_env nb("PGAS_NB_THRESHOLD", "64k");
  CHECK(env_read<long>(env_id::threads) == 12);
  CHECK(env_read<long>(env_id::spin) == 0);
  CHECK(env_read<std::size_t>(env_id::stack_size) == std::size_t{2} << 20);
  CHECK(env_read<std::size_t>(env_id::shared_heap_size) == std::size_t{3} << 30);
  CHECK(env_read<std::vector<std::string_view>>(env_id::report) ==
        std::vector<std::string_view>{"tables", "memory"});
  CHECK(env_read<std::string_view>(env_id::tables) == "off");
  CHECK(env_read<bool>(env_id::verbose) == true);
  CHECK(env_read<double>(env_id::timeout) == 1.5);
  CHECK(env_read<std::size_t>(env_id::nb_threshold) == std::size_t{64} << 10);
  scoped_env nb_off("PGAS_NB_THRESHOLD", "off");
  CHECK_FALSE(env_read<std::size_t>(env_id::nb_threshold).has_value());
}

TEST_CASE("malformed values are rejected naming the variable and what it accepts", "[env]") {
  struct bad_case {
    env_id id;
    const char* text;
    const char* accepted;  // a piece of the message saying what is accepted
  };
  const std::vector<bad_case> cases = {
      {env_id::threads, "0", "between 1 and"},
      {env_id::threads, "abc", "between 1 and"},
      {env_id::threads, "12abc", "between 1 and"},
      {env_id::threads, " 12", "between 1 and"},
      {env_id::threads, "1e3", "between 1 and"},
      {env_id::threads, "99999999999999999999", "between 1 and"},
      {env_id::bind_to, "banana", "core, numa, socket, none"},
      {env_id::bind_to, "Core", "core, numa, socket, none"},
      {env_id::map_by, "none", "core, numa, socket"},
      {env_id::report_bindings, "maybe", "true/false"},
      {env_id::verbose, "2", "true/false"},
      {env_id::spin, "-1", "or adaptive"},
      {env_id::spin, "fast", "or adaptive"},
      {env_id::stack_size, "1k", "minimum of 64k"},
      {env_id::stack_size, "8x", "k, m, g or t suffix"},
      {env_id::stack_size, "m", "k, m, g or t suffix"},
      {env_id::stack_size, "99999999999t", "is too large (a size must be below 2^64 bytes"},
      {env_id::stack_size, "99999999999999999999", "is too large"},
      {env_id::stack_size, "18446744073709551615k", "is too large"},
      {env_id::shared_heap_size, "0", "minimum of 1 byte"},
      {env_id::shared_heap_size, "lots", "or unlimited"},
      {env_id::report, "everything", "memory, tables"},
      {env_id::report, "memory,", "memory, tables"},
      {env_id::report, "memory,,tables", "memory, tables"},
      {env_id::report, ",memory", "memory, tables"},
      {env_id::timeout, "abc", "number of seconds between 0 and 31536000"},
      {env_id::timeout, "-1", "number of seconds"},
      {env_id::timeout, "+1", "number of seconds"},
      {env_id::timeout, "1e3", "number of seconds"},
      {env_id::timeout, "inf", "number of seconds"},
      {env_id::timeout, "nan", "number of seconds"},
      {env_id::timeout, "0x10", "number of seconds"},
      {env_id::timeout, "1s", "number of seconds"},
      {env_id::timeout, " 1", "number of seconds"},
      {env_id::timeout, "1.2.3", "number of seconds"},
      {env_id::timeout, ".", "number of seconds"},
      {env_id::timeout, "31536001", "number of seconds"},
  };
  for (const bad_case& c : cases) {
    const std::string name(env_row(c.id).name);
    INFO(name << "='" << c.text << "'");
    const std::string what = message_of(c.id, c.text);
    CHECK(what.starts_with(name + "='" + c.text + "'"));
    CHECK(what.find(c.accepted) != std::string::npos);
    // Read from the environment, the same text throws the same message.
    scoped_env e(name, c.text);
    if (c.text[0] != '\0') CHECK_THROWS_WITH(env_check(c.id, *env_raw(c.id)), what);
  }
  CHECK(message_of(env_id::threads, std::to_string(pgas::config::max_threads + 1))
            .find(std::to_string(pgas::config::max_threads)) != std::string::npos);
  CHECK(message_of(env_id::topology, "").starts_with("PGAS_TOPOLOGY='' is empty"));
}

TEST_CASE("PGAS_TABLES accepts only its documented words", "[env]") {
  CHECK(env_parse<std::string_view>(env_id::tables, "auto") == "auto");
  CHECK(env_parse<std::string_view>(env_id::tables, "off") == "off");
  for (const char* bad : {"0", "1", "false", "no", "abc", "OFF", "on", " off", "auto,off"}) {
    INFO(bad);
    const std::string what = message_of(env_id::tables, bad);
    CHECK(what == std::string("PGAS_TABLES='") + bad + "' is not one of auto, off");
    scoped_env e("PGAS_TABLES", bad);
    CHECK_THROWS_AS(env_read<std::string_view>(env_id::tables), std::invalid_argument);
  }
}

TEST_CASE("PGAS_TIMEOUT takes decimal seconds, 0 for none", "[env]") {
  CHECK(env_parse<double>(env_id::timeout, "0") == 0.0);
  CHECK(env_parse<double>(env_id::timeout, "90") == 90.0);
  CHECK(env_parse<double>(env_id::timeout, "0.25") == 0.25);
  CHECK(env_parse<double>(env_id::timeout, ".5") == 0.5);
  CHECK(env_parse<double>(env_id::timeout, "2.") == 2.0);
  CHECK(env_parse<double>(env_id::timeout, "31536000") == 31536000.0);
  CHECK(env_accepted(env_row(env_id::timeout)) == "seconds, 0..31536000 (decimals allowed)");
  CHECK(message_of(env_id::timeout, "soon", "--timeout") ==
        "--timeout='soon' is not a number of seconds between 0 and 31536000");
}

TEST_CASE("a pgasrun option can be named instead of the variable", "[env]") {
  CHECK(message_of(env_id::bind_to, "banana", "--bind-to") ==
        "--bind-to='banana' is not one of core, numa, socket, none");
  CHECK(message_of(env_id::shared_heap_size, "lots", "--shared-heap")
            .starts_with("--shared-heap='lots' is not a size"));
}

TEST_CASE("keywords stand for the default behaviour", "[env]") {
  CHECK_FALSE(env_parse<long>(env_id::spin, "adaptive").has_value());
  CHECK(env_parse<long>(env_id::spin, "100000000") == 100'000'000);
  CHECK_FALSE(env_parse<std::size_t>(env_id::shared_heap_size, "unlimited").has_value());
  CHECK(env_parse<std::size_t>(env_id::shared_heap_size, "1") == 1);
  // Only rows that declare a keyword accept one.
  CHECK(message_of(env_id::stack_size, "unlimited") != "(accepted)");
  CHECK(message_of(env_id::threads, "adaptive") != "(accepted)");
}

TEST_CASE("booleans accept the usual spellings only", "[env]") {
  for (const char* t : {"1", "true", "yes", "on"})
    CHECK(env_parse<bool>(env_id::verbose, t) == true);
  for (const char* f : {"0", "false", "no", "off"})
    CHECK(env_parse<bool>(env_id::verbose, f) == false);
  CHECK_THROWS_AS(env_parse<bool>(env_id::verbose, "maybe"), std::invalid_argument);
  CHECK_THROWS_AS(env_parse<bool>(env_id::verbose, ""), std::invalid_argument);
}

TEST_CASE("the nearest declared name of a misspelling", "[env]") {
  CHECK(env_nearest("PGAS_THREADZ") == "PGAS_THREADS");
  CHECK(env_nearest("PGAS_BIND") == "PGAS_BIND_TO");
  CHECK(env_nearest("PGAS_MAPBY") == "PGAS_MAP_BY");
  CHECK(env_nearest("PGAS_TABLE") == "PGAS_TABLES");
  CHECK(env_nearest("PGAS_REPORTS") == "PGAS_REPORT");
  CHECK(env_nearest("PGAS_SHARED_HEAP") == "PGAS_SHARED_HEAP_SIZE");
  for (const env_var& v : env_table())
    CHECK(env_nearest(v.name) == v.name);
}

TEST_CASE("undeclared PGAS_* variables are listed; declared, empty and PGAS_TEST_ ones are not",
          "[env]") {
  scoped_env typo("PGAS_THREADZ", "4");
  scoped_env empty("PGAS_EMPTY_UNKNOWN", "");
  scoped_env known("PGAS_THREADS", "2");
  scoped_env other("NOT_PGAS_THREADZ", "4");
  scoped_env test_script("PGAS_TEST_STRESS_ROUNDS", "9");
  const std::vector<std::string> names = env_undeclared();
  CHECK(std::count(names.begin(), names.end(), "PGAS_THREADZ") == 1);
  CHECK(std::count(names.begin(), names.end(), "PGAS_EMPTY_UNKNOWN") == 0);
  CHECK(std::count(names.begin(), names.end(), "PGAS_THREADS") == 0);
  CHECK(std::count(names.begin(), names.end(), "NOT_PGAS_THREADZ") == 0);
  CHECK(std::count(names.begin(), names.end(), "PGAS_TEST_STRESS_ROUNDS") == 0);
}

TEST_CASE("help and dump mention every variable", "[env]") {
  scoped_env threads("PGAS_THREADS", "3");
  const std::string help = env_help();
  const std::string dump = env_dump();
  for (const auto& v : env_table()) {
    CHECK(help.find("\n  " + std::string(v.name) + "\n") != std::string::npos);
    CHECK(dump.find("pgas: " + std::string(v.name) + "=") != std::string::npos);
    if (!v.pgasrun_option.empty())
      CHECK(help.find("pgasrun: " + std::string(v.pgasrun_option) + "\n") != std::string::npos);
  }
  CHECK(help.find("accepted: 1.." + std::to_string(pgas::config::max_threads)) !=
        std::string::npos);
  CHECK(dump.find("pgas: PGAS_THREADS=3\n") != std::string::npos);
  CHECK(dump.find("pgas: PGAS_BIND_TO=core (default)\n") != std::string::npos);
}
