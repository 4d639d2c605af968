// tools/static_ctor_scan.cpp — pgas static shared objects found from the program's calls of
// their constructors (tools/static_ctor_scan.hpp). Entry point: static_object_addresses().

#include "static_ctor_scan.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
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

// Registers as x86-64 numbers them: rax 0, rcx 1, rdx 2, rbx 3, rsp 4, rbp 5, rsi 6, rdi 7,
// r8-r15 8-15. A constructor's object (`this`) is its first argument, rdi. rbx, rbp and r12-r15
// survive calls (the System V ABI's callee-saved registers): -O2 code loads several objects'
// addresses into them at once and copies each into rdi before its constructor call, with other
// loads (__dso_handle, the next object) in between, so the scan follows the register rdi is
// copied from instead of taking the nearest address.
constexpr int rdi = 7;

bool callee_saved(int reg) {
  return reg == 3 || reg == 5 || reg >= 12;
}

// What one instruction does to a register `reg`, as far as the scan needs to know.
struct register_write {
  enum kind { none, address, copy, other } what = none;
  std::uint64_t value = 0;  // address: the address loaded
  int from = 0;             // copy: the register copied
};

// The instruction that starts at byte j of c and ends at most at `end`, read as a write of
// `reg`: `lea reg, [rip + d]` and `mov reg32, imm32` (non-PIE code) load an address; `mov reg,
// src` copies; other 64-bit lea and mov loads overwrite it. Anything else is none: one-byte forms
// such as pop are not read, as the scan reads backwards byte by byte and displacement bytes
// (0x58 is pop rax) would end it falsely.
register_write write_of(const code& c, std::size_t j, std::size_t end, int reg) {
  const unsigned char* p = &c.bytes[j];
  const std::size_t room = end - j;
  const int low = reg & 7;
  const bool high = reg >= 8;
  // mov reg32, imm32: [41] b8+r
  const std::size_t mov_imm = high ? 1 : 0;
  if (room >= 5 + mov_imm && (!high || p[0] == 0x41) && p[mov_imm] == 0xb8 + low) {
    std::uint32_t imm;
    std::memcpy(&imm, &p[mov_imm + 1], sizeof imm);
    return {register_write::address, imm, 0};
  }
  // REX.W forms: 48 | R (reg field high) | B (r/m field high), then the opcode and ModRM.
  if (room < 3 || (p[0] & 0xf8) != 0x48) return {};
  const unsigned char op = p[1];
  const unsigned char modrm = p[2];
  const int mod = modrm >> 6;
  const int reg_field = ((modrm >> 3) & 7) | ((p[0] & 4) != 0 ? 8 : 0);
  const int rm_field = (modrm & 7) | ((p[0] & 1) != 0 ? 8 : 0);
  if (op == 0x8d && reg_field == reg) {
    if (mod == 0 && (modrm & 7) == 5 && room >= 7)
      return {register_write::address, c.address + j + 7 + static_cast<std::int64_t>(disp32(&p[3])),
              0};
    return {register_write::other, 0, 0};
  }
  if (op == 0x8b && reg_field == reg)
    return mod == 3 ? register_write{register_write::copy, 0, rm_field}
                    : register_write{register_write::other, 0, 0};
  if (op == 0x89 && mod == 3 && rm_field == reg) return {register_write::copy, 0, reg_field};
  return {};
}

// A call at byte j, ending at most at `end`: `call rel32` to a function's entry or a PLT stub
// (`entries`), or `call [rip + d]`. It ends what a caller-saved register held.
bool call_at(const code& c, std::size_t j, std::size_t end,
             const std::set<std::uint64_t>& entries) {
  const unsigned char* p = &c.bytes[j];
  if (p[0] == 0xe8 && end - j >= 5)
    return entries.contains(c.address + j + 5 + static_cast<std::int64_t>(disp32(&p[1])));
  return p[0] == 0xff && end - j >= 6 && p[1] == 0x15;
}

// The object whose address register `reg` holds just before byte `at` of c: the code is read
// backwards from there to `floor` (the function's entry) for the instruction that wrote the
// register, following copies; 0 when that is not an object's address the scan can see. A load
// of an address that is no object's start is passed over: a displacement or immediate misread as
// an instruction, since a constructor's object is never one.
std::uint64_t object_in(const code& c, std::size_t floor, std::size_t at, int reg,
                        const std::set<std::uint64_t>& entries,
                        const std::set<std::uint64_t>& objects, int copies) {
  for (std::size_t j = at; j-- > floor;) {
    if (!callee_saved(reg) && call_at(c, j, at, entries)) return 0;
    const register_write w = write_of(c, j, at, reg);
    switch (w.what) {
      case register_write::none:
        break;
      case register_write::address:
        if (objects.contains(w.value)) return w.value;
        break;
      case register_write::copy:
        return copies < 4 ? object_in(c, floor, j, w.from, entries, objects, copies + 1) : 0;
      case register_write::other:
        return 0;
    }
  }
  return 0;
}

}  // namespace

std::set<std::uint64_t> static_object_addresses(Elf* elf, const GElf_Ehdr& ehdr,
                                                const std::set<std::uint64_t>& objects) {
  std::set<std::uint64_t> found;
  if (ehdr.e_machine != EM_X86_64 || objects.empty()) return found;

  std::vector<code> sections;
  std::set<std::uint64_t> targets;    // constructors' entry points (functions, PLT stubs)
  std::set<std::uint64_t> got_slots;  // GOT slots that hold the library's constructor
  std::set<std::uint64_t> entries;    // every function's entry and PLT stub: calls end there
  std::size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) names = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr h;
    if (gelf_getshdr(scn, &h) == nullptr) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    if ((h.sh_flags & SHF_EXECINSTR) != 0 && h.sh_type == SHT_PROGBITS) {
      sections.push_back({h.sh_addr, static_cast<const unsigned char*>(data->d_buf), data->d_size});
      const char* name = names != 0 ? elf_strptr(elf, names, h.sh_name) : nullptr;
      if (name != nullptr && std::string_view(name).starts_with(".plt"))
        for (std::uint64_t a = h.sh_addr; a < h.sh_addr + h.sh_size; a += 8)
          entries.insert(a);
    } else if ((h.sh_type == SHT_SYMTAB || h.sh_type == SHT_DYNSYM) && h.sh_entsize != 0) {
      for (std::size_t i = 0; i < h.sh_size / h.sh_entsize; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0) continue;
        entries.insert(sym.st_value);
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

  // Calls: `call rel32` (e8) to a target, `call [rip + d]` (ff 15) through a slot. The object
  // is what rdi holds there, read back to the calling function's entry (at most 64 KiB: a
  // program's dynamic initialisation of many objects is one function).
  constexpr std::size_t look_back = 64 * 1024;
  for (const code& c : sections) {
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
      std::size_t floor = i > look_back ? i - look_back : 0;
      if (auto e = entries.upper_bound(c.address + i); e != entries.begin()) {
        const std::uint64_t entry = *std::prev(e);
        if (entry >= c.address + floor) floor = static_cast<std::size_t>(entry - c.address);
      }
      if (const std::uint64_t object = object_in(c, floor, i, rdi, entries, objects, 0))
        found.insert(object);
    }
  }
  return found;
}

}  // namespace pgas::tools
