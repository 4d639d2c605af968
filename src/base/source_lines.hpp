// src/base/source_lines.hpp — the source file and line of code addresses in this process, from
// the DWARF line tables of the images that hold them (elfutils libdw), for the backtraces of
// fault and timeout reports (src/base/backtrace.hpp).
//
// Only images built with debug information (-g) have line tables; an address in one without
// gets no line. The first call opens the process's images (/proc/self/maps, their ELF and DWARF:
// tens of milliseconds each) and keeps them for later calls, so it is for reports, never for hot
// paths, and never for a signal handler (it allocates and takes a lock). Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pgas::detail {

struct source_line {
  std::string file;  // as the compiler recorded it; empty when unknown
  int line = 0;      // 0 when unknown
};

/// The source line of each address (in order). For a return address, pass the address of the
/// call instruction's last byte (return address - 1): the line of the call, not of the next
/// statement.
std::vector<source_line> source_lines_of(const std::vector<std::uintptr_t>& addresses);

}  // namespace pgas::detail
