// src/base/source_lines.cpp — source lines of code addresses by elfutils' libdwfl (see
// source_lines.hpp). Entry point: source_lines_of().

#include "src/base/source_lines.hpp"

#include <elfutils/libdwfl.h>
#include <unistd.h>

namespace pgas::detail {

namespace {

// Separate debug information only from this machine's debug directories, by build id
// (/usr/lib/debug/.build-id, where Debian's -dbg packages put it): never from a debuginfod
// server, which dwfl_standard_find_debuginfo asks when DEBUGINFOD_URLS is set, and a fault
// report must not wait for the network.
int local_debuginfo(Dwfl_Module* module, void** user, const char* name, Dwarf_Addr base,
                    const char* file, const char* debuglink, GElf_Word crc, char** found) {
  return dwfl_build_id_find_debuginfo(module, user, name, base, file, debuglink, crc, found);
}

// The images named by /proc/PID/maps, with their own debug information or that of the debug
// directories.
const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = local_debuginfo,
    .section_address = nullptr,
    .debuginfo_path = nullptr,
};

}  // namespace

std::vector<source_line> source_lines_of(const std::vector<std::uintptr_t>& addresses) {
  std::vector<source_line> out(addresses.size());
  Dwfl* session = dwfl_begin(&callbacks);
  if (session == nullptr) return out;
  if (dwfl_linux_proc_report(session, getpid()) == 0 &&
      dwfl_report_end(session, nullptr, nullptr) == 0) {
    for (std::size_t i = 0; i < addresses.size(); ++i) {
      const auto pc = static_cast<Dwarf_Addr>(addresses[i]);
      Dwfl_Module* module = dwfl_addrmodule(session, pc);
      if (module == nullptr) continue;
      Dwfl_Line* line = dwfl_module_getsrc(module, pc);
      if (line == nullptr) continue;
      int number = 0;
      const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr);
      if (file == nullptr || number <= 0) continue;
      out[i].file = file;
      out[i].line = number;
    }
  }
  dwfl_end(session);
  return out;
}

}  // namespace pgas::detail
