// tests/unit/tools/globals_check_test.cpp — which writable objects `pgasrun --check-globals`
// lists (tools/globals_check.hpp): the owner of each kind of symbol, demangling, paths shown
// relative to the current directory, the order, and the report's exact text.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "globals_check.hpp"

using pgas::tools::data_symbol;
using pgas::tools::elf_data;
using pgas::tools::global_owner;
using pgas::tools::owner_of;

namespace {

data_symbol object(std::string name, std::uint64_t size = 8, std::string file = "",
                   unsigned line = 0) {
  data_symbol s;
  s.name = std::move(name);
  s.size = size;
  s.section = ".bss";
  s.decl_file = std::move(file);
  s.decl_line = line;
  return s;
}

}  // namespace

TEST_CASE("demangle reads C++ names and keeps C names and versions", "[tools][globals]") {
  using pgas::tools::demangle;
  CHECK(demangle("counter") == "counter");
  CHECK(demangle("_ZN3app9histogramE") == "app::histogram");
  CHECK(demangle("_ZZ7next_idvE2id") == "next_id()::id");
  CHECK(demangle("_ZSt4cout@GLIBCXX_3.4") == "std::cout@GLIBCXX_3.4");
  CHECK(demangle("_Znot_a_name") == "_Znot_a_name");
  CHECK(demangle("counter.0") == "counter.0");
}

TEST_CASE("the program's own objects are listed", "[tools][globals]") {
  CHECK(owner_of(object("counter")) == global_owner::program);
  CHECK(owner_of(object("_ZN3app9histogramE")) == global_owner::program);
  CHECK(owner_of(object("_ZZ7next_idvE2id")) == global_owner::program);
  CHECK(owner_of(object("_ZN12_GLOBAL__N_15cacheE")) == global_owner::program);  // anonymous ns
  CHECK(owner_of(object("state.1")) == global_owner::program);  // a C function's static
  data_symbol local = object("_ZL11file_static");
  local.local = true;
  local.object_file = "globals_prog.cpp";
  CHECK(owner_of(local) == global_owner::program);
  // A mangled name the demangler does not take is listed as it is, not taken for a name
  // reserved to the implementation (_Z… starts with an underscore and a capital).
  CHECK(owner_of(object("_Znot_a_name")) == global_owner::program);
  CHECK(owner_of(object("_ZN3app5tableE_corrupt")) == global_owner::program);
  // A user type whose name merely contains "static_", or in another namespace.
  data_symbol typed = object("holder");
  typed.type = "app::static_table";
  CHECK(owner_of(typed) == global_owner::program);
}

TEST_CASE("the runtime's and the ABI's objects are left out", "[tools][globals]") {
  CHECK(owner_of(object("__TMC_END__", 0)) == global_owner::marker);
  CHECK(owner_of(object("stderr@GLIBC_2.2.5")) == global_owner::runtime);
  data_symbol copied = object("_ZN4pgas6detail11job_threadsE", 4);
  copied.copied = true;
  CHECK(owner_of(copied) == global_owner::runtime);
  data_symbol library = object("environ");
  library.copied = true;
  CHECK(owner_of(library) == global_owner::runtime);
  CHECK(owner_of(object("DW.ref.__gxx_personality_v0")) == global_owner::runtime);
  data_symbol crt = object("completed.0", 1);
  crt.local = true;
  crt.object_file = "crtstuff.c";
  CHECK(owner_of(crt) == global_owner::runtime);
  CHECK(owner_of(object("__dso_handle")) == global_owner::runtime);
  CHECK(owner_of(object("_IO_stdin_used")) == global_owner::runtime);
  CHECK(owner_of(object("_ZStL8__ioinit")) == global_owner::runtime);             // std::
  CHECK(owner_of(object("_ZN9__gnu_cxx9__freeresE")) == global_owner::runtime);   // __gnu_cxx
  CHECK(owner_of(object("_ZN4pgas6detail8geometryE")) == global_owner::runtime);  // pgas::
  CHECK(owner_of(object("_ZN3app7__cacheE")) == global_owner::runtime);           // reserved
  CHECK(owner_of(object("_ZGVZ7next_idvE2id")) == global_owner::abi_helper);      // guard
  CHECK(owner_of(object("_ZTV5shape")) == global_owner::abi_helper);              // vtable
  CHECK(owner_of(object("_ZGR1r_")) == global_owner::abi_helper);  // reference temporary
}

TEST_CASE("pgas static shared objects are recognised by their type", "[tools][globals]") {
  data_symbol a = object("A");
  a.type = "pgas::static_array<int, 1, 4>";
  CHECK(owner_of(a) == global_owner::pgas_static);
  data_symbol lk = object("_ZN3app2lkE");
  lk.type = "pgas::static_lock";
  CHECK(owner_of(lk) == global_owner::pgas_static);
  lk.type = "";  // no debug information: listed
  CHECK(owner_of(lk) == global_owner::program);
}

TEST_CASE("paths are shown relative to the current directory when under it", "[tools][globals]") {
  using pgas::tools::display_path;
  CHECK(display_path("/src/pgas/tests/a.cpp", "/src/pgas") == "tests/a.cpp");
  CHECK(display_path("/src/pgas/tests/a.cpp", "/src/pgas/") == "tests/a.cpp");
  CHECK(display_path("/src/other/a.cpp", "/src/pgas") == "/src/other/a.cpp");
  CHECK(display_path("/src/pgasx/a.cpp", "/src/pgas") == "/src/pgasx/a.cpp");
  CHECK(display_path("a.cpp", "/src/pgas") == "a.cpp");
  CHECK(display_path("/src/a.cpp", "") == "/src/a.cpp");
}

TEST_CASE("globals are sorted by file, line and name; undeclared ones last", "[tools][globals]") {
  elf_data data;
  data.has_debug_info = false;
  data.symbols = {object("zeta", 4, "/w/b.cpp", 3),
                  object("alpha", 4, "/w/b.cpp", 10),
                  object("beta", 4, "/w/a.cpp", 7),
                  object("gamma", 4, "/w/b.cpp", 3),
                  object("delta"),
                  object("__dso_handle"),
                  object("_ZStL8__ioinit", 1)};
  const auto found = pgas::tools::program_globals(data, "/w");
  std::vector<std::string> order;
  for (const auto& g : found.globals)
    order.push_back(g.name + "@" + g.file + ":" + std::to_string(g.line));
  CHECK(order == std::vector<std::string>{"beta@a.cpp:7", "gamma@b.cpp:3", "zeta@b.cpp:3",
                                          "alpha@b.cpp:10", "delta@:0"});
  CHECK(found.undeclared == 0);
}

TEST_CASE("with debug information, undeclared objects are counted, not listed",
          "[tools][globals]") {
  elf_data data;
  data.has_debug_info = true;
  data.symbols = {object("mine", 4, "/w/a.cpp", 1), object("timezone"), object("tzname", 16)};
  const auto found = pgas::tools::program_globals(data, "/w");
  REQUIRE(found.globals.size() == 1);
  CHECK(found.globals[0].name == "mine");
  CHECK(found.undeclared == 2);
  CHECK(pgas::tools::globals_report(found) ==
        "declared at  bytes  section  name\n"
        "a.cpp:1          4  .bss     mine\n"
        "1 writable global: one object shared by all UPC threads, where UPC gives each thread "
        "its own\n"
        "hint: make these thread_local (one per thread, as in UPC) or shared data\n"
        "      (<pgas/static_shared.hpp>); keep one only if all threads are meant to share it\n"
        "note: 2 more writable objects have no debug information (code built without -g,\n"
        "      such as the C library of a static link) and are not listed\n");
}

TEST_CASE("the report's columns fit the widest entry", "[tools][globals]") {
  pgas::tools::globals_found found;
  found.has_debug_info = false;
  found.globals = {{"x", 4, ".data", "", 0}, {"a_long_name", 1234567, ".bss", "", 0}};
  CHECK(pgas::tools::globals_report(found) ==
        "declared at    bytes  section  name\n"
        "?                  4  .data    x\n"
        "?            1234567  .bss     a_long_name\n"
        "2 writable globals: one object shared by all UPC threads, where UPC gives each thread "
        "its own\n"
        "hint: make these thread_local (one per thread, as in UPC) or shared data\n"
        "      (<pgas/static_shared.hpp>); keep one only if all threads are meant to share it\n"
        "note: no debug information: build with -g to see where each is declared\n");
  found.globals.clear();
  found.has_debug_info = true;
  CHECK(pgas::tools::globals_report(found) ==
        "no writable globals (the C and C++ runtime's own are not counted)\n");
  found.stripped = true;
  found.has_debug_info = false;
  CHECK(pgas::tools::globals_report(found) ==
        "no writable globals (the C and C++ runtime's own are not counted)\n"
        "note: the program is stripped (no symbol table): only the objects it exports can be\n"
        "      seen; check a build that is not stripped\n"
        "note: no debug information: build with -g to see where each is declared\n");
}
