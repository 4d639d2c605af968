// tools/globals_check.cpp — which writable data objects are a program's own globals, and the
// report of `pgasrun --check-globals` (tools/globals_check.hpp). Entry points: program_globals(),
// globals_report().

#include "globals_check.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <tuple>

namespace pgas::tools {

namespace {

// The components of a demangled qualified name, split at the "::" that are outside brackets
// ("f(a::b)::x" is "f(a::b)" and "x").
std::vector<std::string_view> components(std::string_view name) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (depth == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':') {
      out.push_back(name.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  out.push_back(name.substr(start));
  return out;
}

bool identifier_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The identifier a component starts with ("f" of "f(int)", "label" of "label[abi:cxx11]").
std::string_view identifier(std::string_view component) {
  std::size_t n = 0;
  while (n < component.size() && identifier_char(component[n]))
    ++n;
  return component.substr(0, n);
}

// C and C++ reserve these identifiers to the implementation ([lex.name], C11 7.1.3).
bool reserved(std::string_view id) {
  return id.size() >= 2 && id[0] == '_' && (id[1] == '_' || (id[1] >= 'A' && id[1] <= 'Z'));
}

}  // namespace

std::string demangle(const std::string& name) {
  const std::size_t at = name.find('@');
  const std::string base = name.substr(0, at);
  if (!base.starts_with("_Z")) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(base.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !text) return name;
  return std::string(text.get()) + (at == std::string::npos ? "" : name.substr(at));
}

global_owner owner_of(const data_symbol& s) {
  if (s.size == 0) return global_owner::marker;
  // A shared library's object copied into the program by a copy relocation (stderr,
  // std::cout); the linker also names such an entry with the version it binds to.
  if (s.copied || s.name.find('@') != std::string::npos) return global_owner::runtime;
  // DWARF 2's personality pointers (DW.ref.__gxx_personality_v0), crt files' locals.
  if (s.name.starts_with("DW.ref.")) return global_owner::runtime;
  if (s.local && s.object_file.starts_with("crt")) return global_owner::runtime;
  // The Itanium ABI's special names: _ZGV guard variables, _ZGR reference temporaries,
  // _ZTV/_ZTI/_ZTS vtables and typeinfo, _ZTH/_ZTW thread-local init functions.
  if (s.name.starts_with("_ZG") || s.name.starts_with("_ZT")) return global_owner::abi_helper;
  const std::string name = demangle(s.name);
  // A mangled name the demangler does not take (a newer ABI's, a corrupt one) is still a C++
  // object of the program: listed as it is, never mistaken for a reserved name (_Z…).
  if (name == s.name && name.starts_with("_Z")) return global_owner::program;
  const auto parts = components(name);
  const std::string_view first = identifier(parts.front());
  if (first == "std" || first == "__gnu_cxx" || first == "__cxxabiv1" || first == "pgas" ||
      reserved(first) || reserved(identifier(parts.back())))
    return global_owner::runtime;
  if (s.type.starts_with("pgas::static_") || s.pgas_static) return global_owner::pgas_static;
  return global_owner::program;
}

std::string display_path(const std::string& file, const std::filesystem::path& cwd) {
  const std::filesystem::path p(file);
  if (p.is_relative() || cwd.empty()) return file;
  const std::filesystem::path rel = p.lexically_relative(cwd);
  if (rel.empty() || *rel.begin() == "..") return file;
  return rel.string();
}

globals_found program_globals(const elf_data& data, const std::filesystem::path& cwd) {
  globals_found found;
  found.has_debug_info = data.has_debug_info;
  found.stripped = data.stripped;
  std::vector<program_global>& out = found.globals;
  for (const data_symbol& s : data.symbols) {
    if (owner_of(s) != global_owner::program) continue;
    if (data.has_debug_info && s.decl_file.empty()) {
      ++found.undeclared;
      continue;
    }
    program_global g;
    g.name = demangle(s.name);
    g.size = s.size;
    g.section = s.section;
    if (!s.decl_file.empty()) g.file = display_path(s.decl_file, cwd);
    g.line = s.decl_line;
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const program_global& a, const program_global& b) {
    return std::tuple(a.file.empty(), a.file, a.line, a.name) <
           std::tuple(b.file.empty(), b.file, b.line, b.name);
  });
  return found;
}

namespace {

std::string report_notes(const globals_found& found) {
  std::string stripped;
  if (found.stripped) {
    stripped =
        "note: the program is stripped (no symbol table): only the objects it exports can be\n"
        "      seen; check a build that is not stripped\n";
  }
  if (!found.has_debug_info) {
    return stripped + "note: no debug information: build with -g to see where each is declared\n";
  }
  if (found.undeclared == 0) return stripped;
  return stripped + "note: " + std::to_string(found.undeclared) +
         " more writable objects have no debug information (code built without -g,\n"
         "      such as the C library of a static link) and are not listed\n";
}

}  // namespace

std::string globals_report(const globals_found& found) {
  const std::vector<program_global>& globals = found.globals;
  std::string out;
  if (globals.empty()) {
    return "no writable globals (the C and C++ runtime's own are not counted)\n" +
           report_notes(found);
  }
  std::vector<std::string> where;
  std::size_t where_width = std::string_view("declared at").size();
  std::size_t section_width = std::string_view("section").size();
  std::size_t size_width = std::string_view("bytes").size();
  for (const program_global& g : globals) {
    std::string w = g.file.empty() ? "?" : g.file;
    if (!g.file.empty() && g.line > 0) {
      w += ':';
      w += std::to_string(g.line);
    }
    where_width = std::max(where_width, w.size());
    section_width = std::max(section_width, g.section.size());
    size_width = std::max(size_width, std::to_string(g.size).size());
    where.push_back(std::move(w));
  }
  auto row = [&](std::string_view w, std::string_view size, std::string_view section,
                 std::string_view name) {
    std::string line(w);
    line.append(where_width - w.size() + 2, ' ');
    line.append(size_width - size.size(), ' ');
    line += size;
    line += "  ";
    line += section;
    line.append(section_width - section.size() + 2, ' ');
    line += name;
    return line + "\n";
  };
  out += row("declared at", "bytes", "section", "name");
  for (std::size_t i = 0; i < globals.size(); ++i) {
    out += row(where[i], std::to_string(globals[i].size), globals[i].section, globals[i].name);
  }
  out += std::to_string(globals.size()) +
         (globals.size() == 1 ? " writable global" : " writable globals") +
         ": one object shared by all UPC threads, where UPC gives each thread its own\n";
  out +=
      "hint: make these thread_local (one per thread, as in UPC) or shared data\n"
      "      (<pgas/static_shared.hpp>); keep one only if all threads are meant to share it\n";
  return out + report_notes(found);
}

}  // namespace pgas::tools
