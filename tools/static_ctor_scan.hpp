// tools/static_ctor_scan.hpp — which writable objects of a program are pgas static shared
// objects (pgas::static_array, static_scalar, static lock), read from its machine code when it
// has no debug information to name their types. Part of the elfutils door (tools/elf_data.hpp).
//
// A namespace-scope static shared object is constructed by the program's dynamic
// initialisation: its code loads the object's address and calls the constructor, either the
// object type's own (a pgas::static_array<…> constructor the program instantiated, when not
// inlined) or, once that is inlined, the library's pgas::detail::static_object constructor
// through the PLT or the GOT. So an object is one when the constructor's first argument (rdi,
// the object) holds exactly its first byte at such a call: the code before the call, back to
// the calling function's entry, is read for the load of rdi (`lea rdi, [rip + d]`, `mov edi,
// imm32`) or its copy from another register, followed to that register's load; a register that
// survives calls (rbx, rbp, r12-r15) is followed across them, as optimised code loads several
// objects' addresses into them at once (the nearest address loaded, __dso_handle or the next
// object, is not the one passed). x86-64 only; on other machines nothing is found and the check
// falls back to names alone.
#pragma once

#include <gelf.h>

#include <cstdint>
#include <set>

namespace pgas::tools {

/// The addresses among `objects` (start addresses of writable data objects) whose object the
/// program's code passes to a pgas static shared object's constructor. Reads only; never throws
/// for code it cannot follow (it finds less).
[[nodiscard]] std::set<std::uint64_t> static_object_addresses(
    Elf* elf, const GElf_Ehdr& ehdr, const std::set<std::uint64_t>& objects);

}  // namespace pgas::tools
