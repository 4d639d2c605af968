// tools/static_ctor_scan.cpp — pgas static shared objects found from the program's calls of
// their constructors (tools/static_ctor_scan.hpp). Entry point: static_object_addresses().

#include "static_ctor_scan.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pgas::tools {

namespace {

// A constructor of a pgas static shared object, by its demangled name: the library's base
// (pgas::detail::static_object) or one the program instantiated.
bool static_constructor(const char* mangled) {
  if (mangled == nullptr || std::strncmp(mangled, "_ZN4pgas", 8) != 0) return false;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), &std::free);
  if (status != 0 || !text) return false;
  const std::string_view name(text.get());
  for (const std::string_view type : {"pgas::detail::static_object", "pgas::static_array<",
                                      "pgas::static_scalar<", "pgas::static_lock"}) {
    if (!name.starts_with(type)) continue;
    // The constructor: "TYPE::NAME(" where NAME is the class name without its arguments.
    std::string_view cls = type.substr(type.rfind(':') + 1);
    if (cls.ends_with("<")) cls.remove_suffix(1);
    const std::string ctor = "::" + std::string(cls) + "(";
    return name.find(ctor) != std::string_view::npos;
  }
  return false;
}

struct code {
  std::uint64_t address;
  const unsigned char* bytes;
  std::size_t size;
};

std::int32_t disp32(const unsigned char* p) {
  std::int32_t d;
  std::memcpy(&d, p, sizeof d);
  return d;
}

}  // namespace

std::set<std::uint64_t> static_object_addresses(Elf* elf, const GElf_Ehdr& ehdr,
                                                const std::set<std::uint64_t>& objects) {
  std::set<std::uint64_t> found;
  if (ehdr.e_machine != EM_X86_64 || objects.empty()) return found;

  std::vector<code> sections;
  std::set<std::uint64_t> targets;    // constructors' entry points (functions, PLT stubs)
  std::set<std::uint64_t> got_slots;  // GOT slots that hold the library's constructor
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr h;
    if (gelf_getshdr(scn, &h) == nullptr) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    if ((h.sh_flags & SHF_EXECINSTR) != 0 && h.sh_type == SHT_PROGBITS) {
      sections.push_back({h.sh_addr, static_cast<const unsigned char*>(data->d_buf), data->d_size});
    } else if ((h.sh_type == SHT_SYMTAB || h.sh_type == SHT_DYNSYM) && h.sh_entsize != 0) {
      for (std::size_t i = 0; i < h.sh_size / h.sh_entsize; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0) continue;
        if (static_constructor(elf_strptr(elf, h.sh_link, sym.st_name)))
          targets.insert(sym.st_value);
      }
    } else if (h.sh_type == SHT_RELA && h.sh_entsize != 0) {
      GElf_Shdr symtab;
      Elf_Scn* link = elf_getscn(elf, h.sh_link);
      if (link == nullptr || gelf_getshdr(link, &symtab) == nullptr) continue;
      Elf_Data* syms = elf_getdata(link, nullptr);
      if (syms == nullptr) continue;
      for (std::size_t i = 0; i < h.sh_size / h.sh_entsize; ++i) {
        GElf_Rela r;
        GElf_Sym sym;
        if (gelf_getrela(data, static_cast<int>(i), &r) == nullptr) continue;
        const auto type = GELF_R_TYPE(r.r_info);
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
        if (gelf_getsym(syms, static_cast<int>(GELF_R_SYM(r.r_info)), &sym) == nullptr) continue;
        if (static_constructor(elf_strptr(elf, symtab.sh_link, sym.st_name)))
          got_slots.insert(r.r_offset);
      }
    }
  }
  // PLT stubs: `jmp [rip + d]` (ff 25) through one of those slots; an entry is 16 bytes.
  for (const code& c : sections) {
    for (std::size_t i = 0; i + 6 <= c.size; ++i) {
      if (c.bytes[i] != 0xff || c.bytes[i + 1] != 0x25) continue;
      const std::uint64_t slot =
          c.address + i + 6 + static_cast<std::int64_t>(disp32(&c.bytes[i + 2]));
      if (got_slots.contains(slot)) targets.insert((c.address + i) & ~std::uint64_t{15});
    }
  }
  if (targets.empty() && got_slots.empty()) return found;

  // Calls: `call rel32` (e8) to a target, `call [rip + d]` (ff 15) through a slot. Before each,
  // the nearest load of an object's address: `lea r64, [rip + d]` (REX.W 8d /r, mod 00, r/m
  // 101) or `mov edi, imm32` (bf) for code that is not position-independent.
  // At -O2 a constructor's arguments (extents, the block, the source location) are built on the
  // stack between the address load and the call: 160 bytes and more. The search never goes back
  // past the previous constructor call, whose object came before.
  constexpr std::size_t look_back = 320;
  for (const code& c : sections) {
    std::size_t previous_call_end = 0;
    for (std::size_t i = 0; i + 6 <= c.size; ++i) {
      bool call = false;
      if (c.bytes[i] == 0xe8) {
        call = targets.contains(c.address + i + 5 +
                                static_cast<std::int64_t>(disp32(&c.bytes[i + 1])));
      } else if (c.bytes[i] == 0xff && c.bytes[i + 1] == 0x15) {
        call = got_slots.contains(c.address + i + 6 +
                                  static_cast<std::int64_t>(disp32(&c.bytes[i + 2])));
      }
      if (!call) continue;
      const std::size_t reach = i > previous_call_end ? i - previous_call_end : 0;
      previous_call_end = i + 5;
      for (std::size_t back = 5; back <= look_back && back <= reach; ++back) {
        const std::size_t j = i - back;
        const unsigned char* p = &c.bytes[j];
        std::uint64_t address = 0;
        if (back >= 7 && (p[0] == 0x48 || p[0] == 0x4c) && p[1] == 0x8d && (p[2] & 0xc7) == 0x05) {
          address = c.address + j + 7 + static_cast<std::int64_t>(disp32(&p[3]));
        } else if (p[0] == 0xbf) {
          std::uint32_t imm;
          std::memcpy(&imm, &p[1], sizeof imm);
          address = imm;
        } else {
          continue;
        }
        if (objects.contains(address)) {
          found.insert(address);
          break;
        }
      }
    }
  }
  return found;
}

}  // namespace pgas::tools
