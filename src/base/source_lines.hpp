// src/base/source_lines.hpp — the function symbol and the source file and line of code
// addresses in this process, from the symbol tables and DWARF line tables of the images that
// hold them (elfutils libdwfl), for the backtraces of fault and timeout reports
// (src/base/backtrace.hpp).
//
// Symbols come from an image's .symtab, or its .dynsym when stripped (then only exported
// functions have names). Only images built with debug information (-g) have line tables; an
// address in one without gets no line. The first call opens the process's images
// (/proc/self/maps, their ELF and DWARF: tens of milliseconds each) and keeps them for later
// calls, so it is for reports, never for hot paths, and never for a signal handler (it allocates
// and takes a lock). Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pgas::detail {

struct source_line_site {
  std::string file;
  int line = 0;
};

struct source_line {
  std::string file;                 // as the compiler recorded it; empty when unknown
  int line = 0;                     // 0 when unknown
  std::string symbol;               // the function's symbol (mangled); empty when unknown
  std::uintptr_t symbol_start = 0;  // the symbol's address; 0 when unknown
  // Where the address lies in code inlined into the symbol's function: the call site of each
  // inlined function around it, innermost first ("sptr.hpp:384" inlined at "app.cpp:8": the
  // last is in the function itself, the user's line under optimisation).
  std::vector<source_line_site> inlined_at;
};

/// The symbol and source line of each address (in order). For a return address, pass the
/// address of the call instruction's last byte (return address - 1): the line of the call, not
/// of the next statement (the symbol is the same).
std::vector<source_line> source_lines_of(const std::vector<std::uintptr_t>& addresses);

}  // namespace pgas::detail
