// tools/elf_data.cpp — the writable data objects of an ELF file (tools/elf_data.hpp): the symbol
// table read with libelf, declarations and types from DWARF with libdw. The only file that calls
// elfutils. Entry point: elf_data_symbols().

#include "elf_data.hpp"
#include "static_ctor_scan.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace pgas::tools {

namespace {

// Owners of what the C libraries hand out, so that every path releases them.
struct fd_closer {
  int fd;
  ~fd_closer() { ::close(fd); }
};
struct elf_closer {
  void operator()(Elf* e) const { elf_end(e); }
};
struct dwarf_closer {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};

// What DWARF says about the variable at one address.
struct declaration {
  std::string file;
  unsigned line = 0;
  std::string type;
};

// The name of a DIE qualified with its enclosing namespaces and classes ("pgas::static_array<int,
// 1, 4>"). dwarf_getscopes_die lists the DIE and its parents, innermost first, up to the CU.
std::string qualified_name(Dwarf_Die* die) {
  const char* own = dwarf_diename(die);
  std::string name = own != nullptr ? own : "";
  Dwarf_Die* scopes = nullptr;
  const int n = dwarf_getscopes_die(die, &scopes);
  for (int i = 1; i < n; ++i) {
    const int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
        tag != DW_TAG_union_type)
      continue;
    const char* outer = dwarf_diename(&scopes[i]);
    name = std::string(outer != nullptr ? outer : "(anonymous namespace)") + "::" + name;
  }
  std::free(scopes);
  return name;
}

// The variable's type with typedefs and qualifiers peeled, by name; empty when it has none
// (arrays, pointers and base types are unnamed or need no qualification to be recognised).
std::string type_name(Dwarf_Die* var) {
  Dwarf_Attribute attr;
  Dwarf_Die type;
  if (dwarf_attr_integrate(var, DW_AT_type, &attr) == nullptr ||
      dwarf_formref_die(&attr, &type) == nullptr)
    return {};
  Dwarf_Die peeled;
  if (dwarf_peel_type(&type, &peeled) != 0) return {};
  const int tag = dwarf_tag(&peeled);
  if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
      tag == DW_TAG_enumeration_type)
    return qualified_name(&peeled);
  const char* name = dwarf_diename(&peeled);
  return name != nullptr ? name : "";
}

// The fixed address of a variable whose location is one DW_OP_addr (or DW_OP_addrx, DWARF 5's
// index into .debug_addr); false for thread-local, register and stack variables.
bool static_address(Dwarf_Die* var, Dwarf_Addr& address) {
  Dwarf_Attribute attr;
  if (dwarf_attr(var, DW_AT_location, &attr) == nullptr) return false;
  Dwarf_Op* ops = nullptr;
  std::size_t count = 0;
  if (dwarf_getlocation(&attr, &ops, &count) != 0 || count != 1) return false;
  if (ops[0].atom == DW_OP_addr) {
    address = ops[0].number;
    return true;
  }
  if (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) {
    Dwarf_Attribute addr_attr;
    return dwarf_getlocation_attr(&attr, &ops[0], &addr_attr) == 0 &&
           dwarf_formaddr(&addr_attr, &address) == 0;
  }
  return false;
}

// Debug information that libdw cannot read to its end would leave the variables after the
// damage without declarations, and so unlisted (as if built without -g): the file is refused.
[[noreturn]] void throw_corrupt_dwarf() {
  throw elf_error(std::string("corrupt debug information: ") + dwarf_errmsg(-1));
}

// Whether a variable names its file: DW_AT_decl_file other than 0 (DWARF 4's "no file").
bool names_a_file(Dwarf_Die* var) {
  Dwarf_Attribute attr;
  Dwarf_Word number = 0;
  return dwarf_formudata(dwarf_attr_integrate(var, DW_AT_decl_file, &attr), &number) == 0 &&
         number != 0;
}

// Every variable with a fixed address under `die`, at any depth (namespaces, functions, blocks).
void collect_variables(Dwarf_Die* die, const std::string& comp_dir,
                       std::map<Dwarf_Addr, declaration>& out) {
  Dwarf_Die child;
  if (const int first = dwarf_child(die, &child); first != 0) {
    if (first < 0) throw_corrupt_dwarf();
    return;
  }
  int next = 0;
  do {
    if (dwarf_tag(&child) == DW_TAG_variable) {
      Dwarf_Addr address = 0;
      if (static_address(&child, address) && !out.contains(address)) {
        declaration d;
        if (const char* file = dwarf_decl_file(&child); file != nullptr) {
          std::filesystem::path p(file);
          if (p.is_relative() && !comp_dir.empty()) p = std::filesystem::path(comp_dir) / p;
          d.file = p.lexically_normal().string();
        } else if (names_a_file(&child)) {
          throw_corrupt_dwarf();  // a file number the unit's line table cannot name
        }
        int line = 0;
        if (dwarf_decl_line(&child, &line) == 0 && line > 0) d.line = static_cast<unsigned>(line);
        d.type = type_name(&child);
        out.emplace(address, std::move(d));
      }
    }
    collect_variables(&child, comp_dir, out);
  } while ((next = dwarf_siblingof(&child, &child)) == 0);
  if (next < 0) throw_corrupt_dwarf();
}

// The declarations of all compilation units, by address; empty without DWARF. A unit built
// with -gsplit-dwarf is a skeleton whose variables live in its .dwo file (libdw looks for it
// beside the compilation directory it records): read from there, or, when that file cannot be
// found, an elf_error naming it (without it the program's globals would look undeclared).
std::map<Dwarf_Addr, declaration> read_declarations(Elf* elf, bool& has_debug_info) {
  std::map<Dwarf_Addr, declaration> out;
  std::unique_ptr<Dwarf, dwarf_closer> dw(dwarf_begin_elf(elf, DWARF_C_READ, nullptr));
  has_debug_info = dw != nullptr;
  if (!dw) return out;
  Dwarf_CU* cu = nullptr;
  Dwarf_CU* next = nullptr;
  Dwarf_Half version = 0;
  std::uint8_t unit_type = 0;
  Dwarf_Die cudie;
  Dwarf_Die subdie;
  int more = 0;
  while ((more = dwarf_get_units(dw.get(), cu, &next, &version, &unit_type, &cudie, &subdie)) ==
         0) {
    cu = next;
    Dwarf_Attribute attr;
    const char* dir = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &attr));
    if (unit_type == DW_UT_skeleton) {
      if (dwarf_tag(&subdie) != DW_TAG_compile_unit) {
        const char* dwo = dwarf_formstring(dwarf_attr(&cudie, DW_AT_dwo_name, &attr));
        throw elf_error(fmt::format(
            "built with -gsplit-dwarf, and the debug information of {} is in {}, which was not "
            "found{}: keep the .dwo files where the build left them, or build with plain -g",
            dwarf_diename(&cudie) != nullptr ? dwarf_diename(&cudie) : "a compilation unit",
            dwo != nullptr ? dwo : "a .dwo file",
            dir != nullptr ? fmt::format(" (looked for in {})", dir) : std::string()));
      }
      // The split unit's file names must be read before dwarf_decl_file asks for them (libdw
      // asserts otherwise); a unit whose line table cannot be read gives no file names.
      Dwarf_Files* files = nullptr;
      std::size_t nfiles = 0;
      if (dwarf_getsrcfiles(&subdie, &files, &nfiles) != 0) {
        throw elf_error(fmt::format(
            "cannot read the file names of the split unit {}: {}",
            dwarf_diename(&subdie) != nullptr ? dwarf_diename(&subdie) : "?", dwarf_errmsg(-1)));
      }
      collect_variables(&subdie, dir != nullptr ? dir : "", out);
    } else {
      collect_variables(&cudie, dir != nullptr ? dir : "", out);
    }
  }
  if (more < 0) throw_corrupt_dwarf();
  return out;
}

std::string elf_message() {
  return elf_errmsg(-1);
}

// The relocation type that copies a shared library's object into the executable, for the
// machines pgas is built on; 0 (no relocation has it) for others.
unsigned copy_relocation(unsigned machine) {
  switch (machine) {
    case EM_X86_64:
      return R_X86_64_COPY;
    case EM_386:
      return R_386_COPY;
    case EM_AARCH64:
      return R_AARCH64_COPY;
    case EM_RISCV:
      return R_RISCV_COPY;
    case EM_PPC64:
      return R_PPC64_COPY;
    default:
      return 0;
  }
}

// The addresses that COPY relocations fill.
std::set<GElf_Addr> copied_addresses(Elf* elf, unsigned machine) {
  std::set<GElf_Addr> out;
  const unsigned copy = copy_relocation(machine);
  if (copy == 0) return out;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr h;
    if (gelf_getshdr(scn, &h) == nullptr || (h.sh_type != SHT_RELA && h.sh_type != SHT_REL) ||
        h.sh_entsize == 0)
      continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    for (std::size_t i = 0; i < h.sh_size / h.sh_entsize; ++i) {
      if (h.sh_type == SHT_RELA) {
        GElf_Rela r;
        if (gelf_getrela(data, static_cast<int>(i), &r) != nullptr && GELF_R_TYPE(r.r_info) == copy)
          out.insert(r.r_offset);
      } else {
        GElf_Rel r;
        if (gelf_getrel(data, static_cast<int>(i), &r) != nullptr && GELF_R_TYPE(r.r_info) == copy)
          out.insert(r.r_offset);
      }
    }
  }
  return out;
}

// The symbol table to read: .symtab, or .dynsym in a stripped file (`stripped` is then set).
Elf_Scn* symbol_table(Elf* elf, GElf_Shdr& header, bool& stripped) {
  Elf_Scn* dynsym = nullptr;
  GElf_Shdr dynsym_header{};
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr h;
    if (gelf_getshdr(scn, &h) == nullptr) continue;
    if (h.sh_type == SHT_SYMTAB) {
      header = h;
      return scn;
    }
    if (h.sh_type == SHT_DYNSYM) {
      dynsym = scn;
      dynsym_header = h;
    }
  }
  header = dynsym_header;
  stripped = true;
  return dynsym;
}

}  // namespace

elf_data elf_data_symbols(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw elf_error(errno == ENOENT ? "no such file" : std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throw elf_error("is a directory");
  if (!S_ISREG(st.st_mode)) throw elf_error("not a regular file");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw elf_error(std::strerror(errno));
  fd_closer closer{fd};

  if (elf_version(EV_CURRENT) == EV_NONE) throw elf_error("libelf: " + elf_message());
  std::unique_ptr<Elf, elf_closer> elf(elf_begin(fd, ELF_C_READ_MMAP, nullptr));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) throw elf_error("not an ELF file");
  GElf_Ehdr ehdr;
  if (gelf_getehdr(elf.get(), &ehdr) == nullptr)
    throw elf_error("bad ELF header: " + elf_message());
  if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
    throw elf_error("not an executable or shared library (link it first)");
  }
  // The tables the headers describe must lie inside the file: a truncated copy keeps its
  // header but loses the section table at its end, and libelf then shows no sections at all.
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  std::size_t shnum = 0;
  if (elf_getshdrnum(elf.get(), &shnum) != 0) {
    throw elf_error("bad section table: " + elf_message());
  }
  const auto table_end = [](std::uint64_t offset, std::uint64_t count, std::uint64_t size) {
    return count == 0 ? 0 : offset + count * size;
  };
  if (const std::uint64_t end =
          table_end(ehdr.e_shoff, std::max<std::uint64_t>(shnum, ehdr.e_shnum), ehdr.e_shentsize);
      end > file_size || ehdr.e_shoff > file_size) {
    throw elf_error(
        fmt::format("truncated or corrupt: the section table ends at byte {}, past "
                    "the end of the file ({} bytes)",
                    end, file_size));
  }
  if (ehdr.e_shoff == 0 || shnum == 0) {
    throw elf_error("no section table: its objects cannot be told apart");
  }
  if (const std::uint64_t end = table_end(ehdr.e_phoff, ehdr.e_phnum, ehdr.e_phentsize);
      end > file_size || ehdr.e_phoff > file_size) {
    throw elf_error(
        fmt::format("truncated or corrupt: the program headers end at byte {}, past "
                    "the end of the file ({} bytes)",
                    end, file_size));
  }
  std::size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf.get(), &shstrndx) != 0) {
    throw elf_error("bad section table: " + elf_message());
  }

  // The ranges made read-only after relocation.
  std::vector<std::pair<GElf_Addr, GElf_Addr>> relro;
  std::size_t phnum = 0;
  if (elf_getphdrnum(elf.get(), &phnum) == 0) {
    for (std::size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf.get(), static_cast<int>(i), &ph) != nullptr && ph.p_type == PT_GNU_RELRO)
        relro.emplace_back(ph.p_vaddr, ph.p_vaddr + ph.p_memsz);
    }
  }
  auto in_relro = [&](GElf_Addr a) {
    for (const auto& [lo, hi] : relro) {
      if (a >= lo && a < hi) return true;
    }
    return false;
  };

  // Which sections hold writable data, by index, with their names. A section whose header
  // cannot be read or whose bytes lie past the end of the file (a truncated copy, a corrupt
  // header) refuses the file: what it would hide cannot be told from what is not there.
  std::map<std::size_t, std::string> writable;
  for (Elf_Scn* scn = elf_nextscn(elf.get(), nullptr); scn != nullptr;
       scn = elf_nextscn(elf.get(), scn)) {
    GElf_Shdr h;
    if (gelf_getshdr(scn, &h) == nullptr) {
      throw elf_error(fmt::format("bad header of section {}: {}", elf_ndxscn(scn), elf_message()));
    }
    const char* name = elf_strptr(elf.get(), shstrndx, h.sh_name);
    if (h.sh_type != SHT_NOBITS &&
        (h.sh_offset > file_size || h.sh_size > file_size - h.sh_offset)) {
      throw elf_error(fmt::format(
          "truncated or corrupt: section {} ({}) ends at byte {}, past the end of the file ({} "
          "bytes)",
          elf_ndxscn(scn), name != nullptr ? name : "unnamed", h.sh_offset + h.sh_size, file_size));
    }
    const std::string section = name != nullptr ? name : "";
    const bool data_type = h.sh_type == SHT_PROGBITS || h.sh_type == SHT_NOBITS;
    const bool flags = (h.sh_flags & SHF_ALLOC) != 0 && (h.sh_flags & SHF_WRITE) != 0 &&
                       (h.sh_flags & (SHF_TLS | SHF_EXECINSTR)) == 0;
    if (data_type && flags && !section.starts_with(".data.rel.ro")) {
      // A linker never makes .data or .bss read-only after relocation: a range that covers
      // them would hide every global in them.
      if ((section == ".data" || section == ".bss") && in_relro(h.sh_addr)) {
        throw elf_error(fmt::format(
            "truncated or corrupt: section {} ({}) lies in the range made read-only after "
            "relocation (PT_GNU_RELRO)",
            elf_ndxscn(scn), section));
      }
      writable.emplace(elf_ndxscn(scn), section);
    }
  }

  elf_data out;
  const std::set<GElf_Addr> copied = copied_addresses(elf.get(), ehdr.e_machine);
  const auto declarations = read_declarations(elf.get(), out.has_debug_info);

  GElf_Shdr symtab_header{};
  Elf_Scn* symtab = symbol_table(elf.get(), symtab_header, out.stripped);
  if (symtab == nullptr) return out;
  Elf_Data* data = elf_getdata(symtab, nullptr);
  if (data == nullptr) throw elf_error("cannot read the symbol table: " + elf_message());
  // A wrong entry size would make the table look empty or garbled: no objects is not an answer.
  if (const std::size_t entry = gelf_fsize(elf.get(), ELF_T_SYM, 1, EV_CURRENT);
      symtab_header.sh_entsize != entry || symtab_header.sh_size % entry != 0) {
    throw elf_error(fmt::format(
        "truncated or corrupt: the symbol table has {} bytes of entries of {} bytes (symbols "
        "are {} bytes)",
        symtab_header.sh_size, symtab_header.sh_entsize, entry));
  }
  const std::size_t count = symtab_header.sh_size / symtab_header.sh_entsize;
  std::string object_file;
  std::vector<std::uint64_t> addresses;  // of out.symbols
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) {
      throw elf_error(fmt::format("cannot read symbol {}: {}", i, elf_message()));
    }
    const char* raw = elf_strptr(elf.get(), symtab_header.sh_link, sym.st_name);
    if (raw == nullptr && sym.st_name != 0) {
      throw elf_error(
          fmt::format("corrupt symbol table: symbol {}'s name lies outside its string "
                      "table",
                      i));
    }
    const std::string name = raw != nullptr ? raw : "";
    const int type = GELF_ST_TYPE(sym.st_info);
    const bool local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
    if (type == STT_FILE) {
      object_file = name;
      continue;
    }
    if (!local) object_file.clear();
    if (type != STT_OBJECT || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE) continue;
    const auto section = writable.find(sym.st_shndx);
    if (section == writable.end() || in_relro(sym.st_value)) continue;
    data_symbol s;
    s.name = name;
    s.size = sym.st_size;
    s.section = section->second;
    s.local = local;
    s.copied = copied.contains(sym.st_value);
    if (local) s.object_file = object_file;
    if (const auto d = declarations.find(sym.st_value); d != declarations.end()) {
      s.decl_file = d->second.file;
      s.decl_line = d->second.line;
      s.type = d->second.type;
    }
    out.symbols.push_back(std::move(s));
    addresses.push_back(sym.st_value);
  }
  std::set<std::uint64_t> starts(addresses.begin(), addresses.end());
  const std::set<std::uint64_t> statics = static_object_addresses(elf.get(), ehdr, starts);
  for (std::size_t i = 0; i < out.symbols.size(); ++i)
    out.symbols[i].pgas_static = statics.contains(addresses[i]);
  return out;
}

}  // namespace pgas::tools
