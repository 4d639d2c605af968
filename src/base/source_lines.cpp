// src/base/source_lines.cpp — symbols and source lines of code addresses by elfutils' libdwfl
// (see source_lines.hpp). Entry point: source_lines_of().
//
// Opening the images' DWARF is what costs (tens of milliseconds per image); a report that
// symbolises every thread's backtrace would pay it per thread. So one session serves every
// lookup of the process, opened at the first and opened again when an address lies in no image
// it knows (a library loaded since).

#include "src/base/source_lines.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <cstdlib>

#include <mutex>
#include <new>

#include "src/base/os.hpp"

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

std::mutex session_mutex;
Dwfl* session = nullptr;  // under session_mutex; kept for the life of the process

// A child of fork() may inherit the mutex held by a thread it does not have: it starts afresh
// (the parent's session is left to it, unused).
void forget_session() {
  new (&session_mutex) std::mutex;
  session = nullptr;
}

Dwfl* open_session() {
  Dwfl* s = dwfl_begin(&callbacks);
  if (s == nullptr) return nullptr;
  if (dwfl_linux_proc_report(s, getpid()) != 0 || dwfl_report_end(s, nullptr, nullptr) != 0) {
    dwfl_end(s);
    return nullptr;
  }
  return s;
}

// The innermost DW_TAG_inlined_subroutine under `parent` whose code holds `pc`, into `out`;
// false when there is none. Every child is searched, not only the scopes holding pc: a
// function may be nested in one whose range it is outside of.
bool innermost_inlined(Dwarf_Die* parent, Dwarf_Addr pc, Dwarf_Die* out) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return false;
  do {
    if (dwarf_tag(&child) == DW_TAG_inlined_subroutine) {
      if (dwarf_haspc(&child, pc) != 1) continue;
      *out = child;
      innermost_inlined(&child, pc, out);
      return true;
    }
    if (dwarf_haschildren(&child) == 1 && innermost_inlined(&child, pc, out)) return true;
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

// The call sites of the inlined functions whose code holds `pc` (module address), innermost
// first: each DW_TAG_inlined_subroutine scope's DW_AT_call_file and DW_AT_call_line. The
// innermost scope comes from dwarf_getscopes; its concrete chain of containing scopes (every
// inlined level up to the function) from dwarf_getscopes_die, as eu-addr2line -i finds it.
// (dwarf_getscopes alone stops at the first inlined level's abstract origin.)
std::vector<source_line_site> inline_sites(Dwfl_Module* module, Dwarf_Addr pc) {
  std::vector<source_line_site> sites;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(module, pc, &bias);
  if (cu == nullptr) return sites;
  Dwarf_Die* scopes = nullptr;
  int n = dwarf_getscopes(cu, pc - bias, &scopes);
  Dwarf_Die innermost;
  if (n <= 0) {
    // dwarf_getscopes descends only into scopes whose range holds pc, and without
    // optimisation GCC nests a lambda's operator() inside the enclosing function's
    // DW_TAG_subprogram, outside that function's range: search the whole unit then.
    std::free(scopes);
    if (!innermost_inlined(cu, pc - bias, &innermost)) return sites;
  } else {
    // dwarf_getscopes_die walks the unit from its start (milliseconds in a large one): only
    // for an address in inlined code.
    bool inlined = false;
    for (int i = 0; i < n && !inlined; ++i)
      inlined = dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine;
    innermost = scopes[0];
    std::free(scopes);
    if (!inlined) return sites;
  }
  scopes = nullptr;
  n = dwarf_getscopes_die(&innermost, &scopes);
  Dwarf_Files* files = nullptr;
  std::size_t nfiles = 0;
  const bool have_files = dwarf_getsrcfiles(cu, &files, &nfiles) == 0;
  for (int i = 0; i < n && have_files; ++i) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
    Dwarf_Attribute attr;
    Dwarf_Word file = 0, line = 0;
    if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &file) != 0 ||
        dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &line) != 0 ||
        file >= nfiles || line == 0) {
      continue;
    }
    const char* name = dwarf_filesrc(files, file, nullptr, nullptr);
    if (name != nullptr) sites.push_back({name, static_cast<int>(line)});
  }
  std::free(scopes);
  return sites;
}

}  // namespace

std::vector<source_line> source_lines_of(const std::vector<std::uintptr_t>& addresses) {
  std::vector<source_line> out(addresses.size());
  static const int at_fork = os_at_fork_child(forget_session);
  (void)at_fork;
  const std::lock_guard<std::mutex> hold(session_mutex);
  if (session == nullptr) session = open_session();
  bool reopened = false;
  for (std::size_t i = 0; i < addresses.size() && session != nullptr; ++i) {
    const auto pc = static_cast<Dwarf_Addr>(addresses[i]);
    Dwfl_Module* module = dwfl_addrmodule(session, pc);
    // Reopened only for an address in a mapped image (not 0, not generated code): opening is
    // what costs, and a fatal report has a second for everything.
    if (module == nullptr && !reopened && os_module_of(reinterpret_cast<const void*>(pc))) {
      dwfl_end(session);
      session = open_session();
      reopened = true;
      if (session != nullptr) module = dwfl_addrmodule(session, pc);
    }
    if (module == nullptr) continue;
    GElf_Off offset = 0;
    GElf_Sym sym;
    if (const char* name =
            dwfl_module_addrinfo(module, pc, &offset, &sym, nullptr, nullptr, nullptr);
        name != nullptr && name[0] != '\0') {
      out[i].symbol = name;
      // A versioned symbol ("__libc_start_main@@GLIBC_2.34", as symbol tables spell the
      // default version): the name.
      if (const auto at = out[i].symbol.find('@'); at != std::string::npos) {
        out[i].symbol.resize(at);
      }
      out[i].symbol_start = static_cast<std::uintptr_t>(pc - offset);
    }
    Dwfl_Line* line = dwfl_module_getsrc(module, pc);
    if (line == nullptr) continue;
    int number = 0;
    const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr);
    if (file == nullptr || number <= 0) continue;
    out[i].file = file;
    out[i].line = number;
    out[i].inlined_at = inline_sites(module, pc);
  }
  return out;
}

}  // namespace pgas::detail
