// tools/elf_data.hpp — the writable data objects an ELF file defines, read with libelf and libdw
// (elfutils): the one door to those libraries, used by `pgasrun --check-globals`.
//
// elf_data_symbols() lists every object symbol (STT_OBJECT) of the file's symbol table (.symtab,
// or .dynsym when the file is stripped) defined in a section that the program may write while it
// runs: allocated, writable, not executable, not thread-local (.tdata, .tbss), of type PROGBITS or
// NOBITS (.data, .bss and their variants), and not made read-only after relocation (the
// PT_GNU_RELRO segment, .data.rel.ro). Where the file holds DWARF debug information, each object
// whose DW_TAG_variable has a fixed address (DW_OP_addr) gets its declaration's file and line and
// its type's qualified name. Objects that a copy relocation fills from a shared library (`stderr`,
// `std::cout`, a library's exported variable the program uses) are marked. Nothing here decides
// which objects matter: the symbols of the C and C++ runtime are listed too
// (tools/globals_check.hpp judges).
//
// The file is only read, never run or mapped executable. Errors: elf_error, whose message says
// what is wrong with the file in one line ("no such file", "not an ELF file", …). A file that
// cannot be read whole is refused, never answered in part: tables or sections past its end, a
// symbol table whose entries are not symbols, DWARF that libdw cannot read to its end (a unit,
// a DIE, a variable's file in the line table), a PT_GNU_RELRO range over .data or .bss.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace pgas::tools {

/// The file cannot be read as ELF; what() is one line without the file's name.
struct elf_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One writable data object of an ELF file.
struct data_symbol {
  std::string name;         ///< as in the symbol table: mangled, with @VERSION for copies
  std::uint64_t size = 0;   ///< st_size, in bytes
  std::string section;      ///< the section's name (".data", ".bss", …)
  bool local = false;       ///< STB_LOCAL: a file-scope `static` or a function-local one
  bool copied = false;      ///< a shared library's object copied here (a COPY relocation)
  std::string object_file;  ///< a local symbol's source (the STT_FILE before it), else empty
  std::string decl_file;    ///< DWARF: the declaration's file as recorded, else empty
  unsigned decl_line = 0;   ///< DWARF: its line, 0 when unknown
  std::string type;         ///< DWARF: the type's qualified name, typedefs and cv peeled
  /// The program's code constructs a pgas static shared object here (tools/static_ctor_scan.hpp):
  /// known without debug information.
  bool pgas_static = false;
};

/// What elf_data_symbols() found: the objects in symbol table order, whether the file has
/// DWARF debug information at all, and whether it is stripped (no .symtab: only the objects the
/// dynamic symbol table exports can be seen).
struct elf_data {
  std::vector<data_symbol> symbols;
  bool has_debug_info = false;
  bool stripped = false;
};

/// Reads `path` (a regular ELF file: executable, shared library or object). Throws elf_error.
[[nodiscard]] elf_data elf_data_symbols(const std::string& path);

}  // namespace pgas::tools
