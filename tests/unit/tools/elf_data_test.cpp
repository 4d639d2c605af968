// tests/unit/tools/elf_data_test.cpp — reading a program's writable objects with libelf and
// libdw (tools/elf_data.hpp), on tests/tools/data/globals_prog.cpp built with and without -g
// (paths in GLOBALS_PROG_DEBUG, GLOBALS_PROG_NODEBUG and GLOBALS_PROG_SOURCE): which sections
// count, DWARF declarations and types, copy relocations, crt files, and the errors.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>

#include <elf.h>
#include <unistd.h>

#include "elf_data.hpp"

using pgas::tools::data_symbol;
using pgas::tools::elf_data_symbols;
using pgas::tools::elf_error;

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  REQUIRE(value != nullptr);
  return value;
}

std::map<std::string, data_symbol> by_name(const pgas::tools::elf_data& data) {
  std::map<std::string, data_symbol> out;
  for (const data_symbol& s : data.symbols)
    out.emplace(s.name, s);
  return out;
}

// Writes `program` to `copy` with the header of its section `name` and the file's bytes passed
// to edit(bytes, header) first (ELF64, as the test programs are).
template <class Edit>
void copy_editing_section(const std::string& program, const std::string& copy,
                          std::string_view name, Edit edit) {
  std::ifstream in(program, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  REQUIRE(bytes.size() >= sizeof eh);
  std::memcpy(&eh, bytes.data(), sizeof eh);
  const auto header_at = [&](unsigned i) { return eh.e_shoff + i * sizeof(Elf64_Shdr); };
  Elf64_Shdr names;
  std::memcpy(&names, bytes.data() + header_at(eh.e_shstrndx), sizeof names);
  bool found = false;
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr h;
    std::memcpy(&h, bytes.data() + header_at(i), sizeof h);
    if (name != bytes.c_str() + names.sh_offset + h.sh_name) continue;
    edit(bytes, h);
    std::memcpy(bytes.data() + header_at(i), &h, sizeof h);
    found = true;
  }
  REQUIRE(found);
  std::ofstream(copy, std::ios::binary) << bytes;
}

// Writes `program` to `copy` with its PT_GNU_RELRO program header widened to `size` bytes.
void copy_widening_relro(const std::string& program, const std::string& copy, std::uint64_t size) {
  std::ifstream in(program, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  REQUIRE(bytes.size() >= sizeof eh);
  std::memcpy(&eh, bytes.data(), sizeof eh);
  bool found = false;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    const std::size_t at = eh.e_phoff + i * sizeof ph;
    std::memcpy(&ph, bytes.data() + at, sizeof ph);
    if (ph.p_type != PT_GNU_RELRO) continue;
    ph.p_memsz = size;
    std::memcpy(bytes.data() + at, &ph, sizeof ph);
    found = true;
  }
  REQUIRE(found);
  std::ofstream(copy, std::ios::binary) << bytes;
}

void zero_section(std::string& bytes, Elf64_Shdr& h) {
  std::memset(bytes.data() + h.sh_offset, 0, h.sh_size);
}

std::string error_of(const std::string& path) {
  try {
    (void)elf_data_symbols(path);
  } catch (const elf_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("writable objects with their DWARF declarations", "[tools][elf]") {
  const auto data = elf_data_symbols(env("GLOBALS_PROG_DEBUG"));
  CHECK(data.has_debug_info);
  CHECK_FALSE(data.stripped);
  const auto symbols = by_name(data);
  const std::string source =
      std::filesystem::path(env("GLOBALS_PROG_SOURCE")).lexically_normal().string();

  REQUIRE(symbols.contains("counter"));
  const data_symbol& counter = symbols.at("counter");
  CHECK(counter.size == 4);
  CHECK(counter.section == ".bss");
  CHECK_FALSE(counter.local);
  CHECK_FALSE(counter.copied);
  CHECK(counter.decl_file == source);
  CHECK(counter.decl_line == 22);
  CHECK(counter.type == "int");

  REQUIRE(symbols.contains("seeded"));
  CHECK(symbols.at("seeded").section == ".data");
  REQUIRE(symbols.contains("grid"));
  CHECK(symbols.at("grid").size == 64 * 64 * sizeof(double));
  REQUIRE(symbols.contains("totals"));
  CHECK(symbols.at("totals").type == "stats");
  CHECK(symbols.at("totals").decl_line == 29);

  REQUIRE(symbols.contains("_ZL11file_static"));
  CHECK(symbols.at("_ZL11file_static").local);
  REQUIRE(symbols.contains("_ZZ7next_idvE2id"));
  CHECK(symbols.at("_ZZ7next_idvE2id").decl_line == 43);
  REQUIRE(symbols.contains("_ZN3app5labelB5cxx11E"));
  CHECK(symbols.at("_ZN3app5labelB5cxx11E").type.starts_with("std::__cxx11::basic_string<char"));

  // The stand-in static shared object's type, qualified with its namespace.
  REQUIRE(symbols.contains("shared_counter"));
  CHECK(symbols.at("shared_counter").type == "pgas::static_scalar<long int>");

  // Thread-local, constant and relocated-then-read-only objects are not writable data.
  CHECK_FALSE(symbols.contains("per_thread_seed"));
  CHECK_FALSE(symbols.contains("per_thread_sum"));
  CHECK_FALSE(symbols.contains("_ZL5table"));
  CHECK_FALSE(symbols.contains("_ZL5names"));

  // The C library's stderr is copied into the program by a COPY relocation.
  bool found_stderr = false;
  for (const auto& [name, s] : symbols) {
    if (name.starts_with("stderr")) {
      found_stderr = true;
      CHECK(s.copied);
    }
  }
  CHECK(found_stderr);
  // crtstuff.c's local flag, tagged with its file.
  if (symbols.contains("completed.0")) CHECK(symbols.at("completed.0").object_file == "crtstuff.c");
}

TEST_CASE("without debug information, objects have no declaration", "[tools][elf]") {
  const auto data = elf_data_symbols(env("GLOBALS_PROG_NODEBUG"));
  CHECK_FALSE(data.has_debug_info);
  CHECK_FALSE(data.stripped);
  const auto symbols = by_name(data);
  REQUIRE(symbols.contains("counter"));
  CHECK(symbols.at("counter").decl_file.empty());
  CHECK(symbols.at("counter").decl_line == 0);
  CHECK(symbols.at("counter").type.empty());
  CHECK_FALSE(symbols.contains("per_thread_seed"));
}

TEST_CASE("with split DWARF, declarations come from the .dwo files", "[tools][elf]") {
  // -g -gsplit-dwarf: the program holds skeleton units; the variables are in the .dwo files
  // the build left beside its objects.
  const auto data = elf_data_symbols(env("GLOBALS_PROG_SPLIT"));
  CHECK(data.has_debug_info);
  const auto symbols = by_name(data);
  REQUIRE(symbols.contains("counter"));
  CHECK(symbols.at("counter").decl_file.ends_with("globals_prog.cpp"));
  CHECK(symbols.at("counter").decl_line == 22);
  CHECK(symbols.at("counter").type == "int");
}

TEST_CASE("pgas static shared objects are known without debug information", "[tools][elf]") {
  // Built with -g0 at -O0 (the objects' own constructors called) and -O2 (inlined into the
  // library's base constructor, or called with the arguments built in between; in the second
  // file, static_globals_more.cpp, with the objects' addresses kept in registers across calls
  // and __dso_handle loaded after them).
  for (const char* program : {"STATIC_PROG_O0", "STATIC_PROG_O2"}) {
    INFO(program);
    // (A sanitizer build links its runtime's debug information in: has_debug_info may be true,
    // but these objects have none, so only their code can tell.)
    const auto data = elf_data_symbols(env(program));
    const auto symbols = by_name(data);
    for (const char* name :
         {"hist", "grid", "total", "head", "other_total", "odd", "_ZN6holder6memberE"}) {
      INFO(name);
      REQUIRE(symbols.contains(name));
      CHECK(symbols.at(name).pgas_static);
    }
    for (const char* name : {"plain_counter", "other_plain", "__dso_handle"}) {
      INFO(name);
      REQUIRE(symbols.contains(name));
      CHECK_FALSE(symbols.at(name).pgas_static);
    }
  }
}

TEST_CASE("a truncated or corrupt program is refused, never read as having no globals",
          "[tools][elf]") {
  namespace fs = std::filesystem;
  const std::string whole = env("GLOBALS_PROG_DEBUG");
  const fs::path cut = fs::temp_directory_path() / ("pgas_elf_cut_" + std::to_string(::getpid()));
  for (const double keep : {0.25, 0.5, 0.9}) {
    fs::copy_file(whole, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut,
                    static_cast<std::uintmax_t>(static_cast<double>(fs::file_size(whole)) * keep));
    INFO("kept " << keep << " of the file");
    const std::string e = error_of(cut.string());
    CHECK(e.starts_with("truncated or corrupt: "));
    CHECK(e.find("past the end of the file (") != std::string::npos);
  }
  fs::remove(cut);
}

TEST_CASE("a damaged symbol table, debug information or read-only range is refused",
          "[tools][elf]") {
  // Each of these read as a program without globals (status 0) or hid the globals after the
  // damage as if built without -g.
  namespace fs = std::filesystem;
  const std::string whole = env("GLOBALS_PROG_DEBUG");
  const std::string copy =
      (fs::temp_directory_path() / ("pgas_elf_edit_" + std::to_string(::getpid()))).string();
  SECTION("symbol table entries of the wrong size") {
    copy_editing_section(whole, copy, ".symtab",
                         [](std::string&, Elf64_Shdr& h) { h.sh_entsize = 0xa618; });
    const std::string e = error_of(copy);
    CHECK(e.starts_with("truncated or corrupt: the symbol table has "));
    CHECK(e.ends_with(" bytes of entries of 42520 bytes (symbols are 24 bytes)"));
  }
  SECTION("no abbreviation for the DIEs") {
    copy_editing_section(whole, copy, ".debug_abbrev", zero_section);
    CHECK(error_of(copy).starts_with("corrupt debug information: "));
  }
  SECTION("a line table that names no file") {
    copy_editing_section(whole, copy, ".debug_line", zero_section);
    CHECK(error_of(copy).starts_with("corrupt debug information: "));
  }
  SECTION("a range read-only after relocation that covers .data and .bss") {
    copy_widening_relro(whole, copy, std::uint64_t{1} << 30);
    const std::string e = error_of(copy);
    CHECK(e.starts_with("truncated or corrupt: section "));
    CHECK(e.ends_with(" lies in the range made read-only after relocation (PT_GNU_RELRO)"));
  }
  fs::remove(copy);
}

TEST_CASE("files that are not programs are refused with one line", "[tools][elf]") {
  const std::string source = env("GLOBALS_PROG_SOURCE");
  CHECK(error_of(source + ".missing") == "no such file");
  CHECK(error_of(source) == "not an ELF file");
  CHECK(error_of(std::filesystem::path(source).parent_path().string()) == "is a directory");
  CHECK(error_of("/dev/null") == "not a regular file");
}
