// tools/globals_check.hpp — `pgasrun --check-globals PROGRAM`: which of a program's writable data
// objects are the program's own globals, and the report that lists them.
//
// UPC gives every thread its own copy of each file-scope variable and function `static`; in pgas
// the UPC threads are threads of one process, so each such variable is one object that all of them
// share. A port that leaves one as it was runs at 1 thread and fails at 2. The rule is to declare
// them `thread_local` (or make them shared data, <pgas/static_shared.hpp>); this check lists the
// ones left. It is a pure function of what tools/elf_data.hpp read from the file.
//
// Left out (global_owner): objects of the C and C++ runtime and of libraries (copies of a shared
// library's objects such as `stderr` or `std::cout`, filled by COPY relocations;
// crt start-up files' locals; names reserved to the implementation — a component starting with
// `__` or `_` and a capital — and everything in namespaces std, __gnu_cxx, __cxxabiv1 and pgas);
// the ABI's helper objects (guard variables, vtables, typeinfo, reference temporaries); empty
// markers (size 0); and the program's pgas static shared objects (types pgas::static_*), which
// are shared data on purpose: known by their DWARF type, or without debug information by the
// program's calls of their constructors (tools/static_ctor_scan.hpp, x86-64). Thread-local and
// read-only objects never reach this check.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "elf_data.hpp"

namespace pgas::tools {

/// pgasrun --check-globals exit status when the program has writable globals (0: none).
inline constexpr int exit_globals_found = 4;

/// Whose a writable data object is.
enum class global_owner {
  program,      ///< the program's own: listed
  runtime,      ///< the C/C++ runtime, a library, or pgas itself
  abi_helper,   ///< guard variable, vtable, typeinfo, reference temporary
  marker,       ///< size 0 (linker and crt markers)
  pgas_static,  ///< a pgas static shared object (pgas::static_array, …)
};

/// One global of the program, as listed.
struct program_global {
  std::string name;  ///< demangled
  std::uint64_t size = 0;
  std::string section;
  std::string
      file;  ///< for display (relative to the current directory when under it); may be empty
  unsigned line = 0;  ///< 0 when unknown
};

/// `name` demangled with the C++ ABI's demangler, or unchanged when it is not a mangled name; a
/// @VERSION suffix is kept.
[[nodiscard]] std::string demangle(const std::string& name);

/// Whose `s` is.
[[nodiscard]] global_owner owner_of(const data_symbol& s);

/// `file` as it is shown: relative to `cwd` when it lies under it, else as it is.
[[nodiscard]] std::string display_path(const std::string& file, const std::filesystem::path& cwd);

/// What the check found.
struct globals_found {
  std::vector<program_global> globals;  ///< listed, sorted by file, line and name
  /// Objects otherwise listed that DWARF does not declare although the file has debug
  /// information: code built without -g, such as the C library of a static link. Counted, not
  /// listed (a static link would list hundreds of the C library's objects).
  std::size_t undeclared = 0;
  bool has_debug_info = false;
  bool stripped = false;  ///< no .symtab: only exported objects could be seen
};

/// The program's own globals among what elf_data_symbols() read. Those without a declaration
/// sort last, by name (all of them, when the file has no debug information). File names are
/// shown by display_path() against `cwd`.
[[nodiscard]] globals_found program_globals(const elf_data& data, const std::filesystem::path& cwd);

/// The report printed on stdout: a table (declared at, bytes, section, name), one summary line
/// and a hint; or one line saying there are none; then a note when the file is stripped (the
/// list may be short), when locations are unknown (no debug information: static shared objects
/// cannot be recognised either) or when objects were left out as undeclared.
[[nodiscard]] std::string globals_report(const globals_found& found);

}  // namespace pgas::tools
