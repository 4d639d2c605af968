// Tests src/base/env.cpp: the PGAS_* declaration table and its strict parsers.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <stdexcept>

#include "src/base/env.hpp"

using namespace pgas::detail;

TEST_CASE("every variable is declared once with a description", "[env]") {
  const auto& table = env_table();
  REQUIRE(table.size() >= 6);
  for (std::size_t i = 0; i < table.size(); ++i) {
    CHECK(table[i].name.starts_with("PGAS_"));
    CHECK_FALSE(table[i].description.empty());
    for (std::size_t k = i + 1; k < table.size(); ++k)
      CHECK(table[i].name != table[k].name);
  }
  for (const char* name : {"PGAS_THREADS", "PGAS_BIND_TO", "PGAS_MAP_BY", "PGAS_REPORT_BINDINGS",
                           "PGAS_TOPOLOGY", "PGAS_VERBOSE", "PGAS_SPIN", "PGAS_STACK_SIZE"}) {
    CHECK(env_find(name).name == name);
  }
}

TEST_CASE("help and dump mention every variable", "[env]") {
  const std::string help = env_help();
  const std::string dump = env_dump();
  for (const auto& v : env_table()) {
    CHECK(help.find(v.name) != std::string::npos);
    CHECK(dump.find(v.name) != std::string::npos);
  }
}

TEST_CASE("env_get treats unset and empty alike", "[env]") {
  ::unsetenv("PGAS_TOPOLOGY");
  CHECK_FALSE(env_get("PGAS_TOPOLOGY").has_value());
  ::setenv("PGAS_TOPOLOGY", "", 1);
  CHECK_FALSE(env_get("PGAS_TOPOLOGY").has_value());
  ::setenv("PGAS_TOPOLOGY", "synthetic:pu:2", 1);
  CHECK(env_get("PGAS_TOPOLOGY") == "synthetic:pu:2");
  ::unsetenv("PGAS_TOPOLOGY");
}

TEST_CASE("integers are parsed whole and in range", "[env]") {
  CHECK(env_parse_int("X", "12", 1, 100) == 12);
  CHECK(env_parse_int("X", "1", 1, 100) == 1);
  CHECK(env_parse_int("X", "100", 1, 100) == 100);
  for (const char* bad :
       {"0", "101", "-3", "abc", "12abc", " 12", "", "1e3", "99999999999999999999"}) {
    INFO(bad);
    CHECK_THROWS_AS(env_parse_int("PGAS_THREADS", bad, 1, 100), std::invalid_argument);
  }
  try {
    env_parse_int("PGAS_THREADS", "abc", 1, 4096);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("PGAS_THREADS='abc'") != std::string::npos);
    CHECK(what.find("4096") != std::string::npos);
  }
}

TEST_CASE("booleans accept the usual spellings only", "[env]") {
  for (const char* t : {"1", "true", "yes", "on"})
    CHECK(env_parse_bool("X", t));
  for (const char* f : {"0", "false", "no", "off"})
    CHECK_FALSE(env_parse_bool("X", f));
  CHECK_THROWS_AS(env_parse_bool("X", "maybe"), std::invalid_argument);
  CHECK_THROWS_AS(env_parse_bool("X", ""), std::invalid_argument);
}
