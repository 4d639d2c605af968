// src/job/trace_file.cpp — the trace file's text (format 1, read by pgas-trace): sites
// attributed to source lines, locality classes from the job's placement, one row per
// (site, array, issuing thread, owning thread, kind, direction).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include <pgas/topology.hpp>

#include "src/base/backtrace.hpp"
#include "src/base/source_lines.hpp"
#include "src/job/job.hpp"
#include "src/job/trace.hpp"

namespace pgas::detail {

namespace {

constexpr const char* kind_names[trace_kinds] = {"element",    "bulk",    "nonblocking", "atomic",
                                                 "collective", "lock",    "barrier",     "fence",
                                                 "cache",      "schedule"};
constexpr const char* dir_names[trace_dirs] = {"read", "write", "update", "sync"};

// The sites of the job, numbered in order of first use.
class site_table {
 public:
  int id(const trace_site_text& s) {
    auto [it, added] = ids_.try_emplace({s.file, s.line}, static_cast<int>(sites_.size()));
    if (added) sites_.push_back(s);
    return it->second;
  }
  nlohmann::json json() const {
    nlohmann::json a = nlohmann::json::array();
    for (std::size_t i = 0; i < sites_.size(); ++i) {
      a.push_back({{"id", i},
                   {"file", sites_[i].file},
                   {"line", sites_[i].line},
                   {"function", sites_[i].function}});
    }
    return a;
  }

 private:
  std::map<std::pair<std::string, int>, int> ids_;
  std::vector<trace_site_text> sites_;
};

// The code addresses of the snapshot's element accesses.
std::vector<std::uintptr_t> element_pcs(const trace_snapshot& s) {
  std::vector<std::uintptr_t> pcs;
  for (const auto& entries : s.entries)
    for (const trace_entry& e : entries)
      if (e.site_line == trace_pc_site && e.site != 0) pcs.push_back(e.site);
  return pcs;
}

const char* class_of(const job& j, int from, int to) {
  if (to < 0 || from < 0) return "none";
  if (from == to) return "same-thread";
  const auto& pus = j.plan_machine.pus();
  const pu_info& a = pus[static_cast<std::size_t>(j.plan[static_cast<std::size_t>(from)].pu)];
  const pu_info& b = pus[static_cast<std::size_t>(j.plan[static_cast<std::size_t>(to)].pu)];
  if (a.package != b.package) return "other-package";
  if (a.numa != b.numa) return "other-numa";
  if (a.l2 >= 0 && a.l2 == b.l2) return "same-l2";
  if (a.l3 >= 0 && a.l3 == b.l3) return "same-l3";
  return "same-numa";
}

}  // namespace

bool trace_header_file(const std::string& file) noexcept {
  return file.find("include/pgas/") != std::string::npos;
}

const char* trace_kind_name(trace_kind k) noexcept {
  return kind_names[static_cast<int>(k)];
}

// Code addresses of element accesses → the user's line: the innermost call site outside the
// library's headers (accesses are inlined into the caller; its line is the access's).
std::unordered_map<std::uintptr_t, trace_site_text> trace_attribute(
    std::vector<std::uintptr_t> pcs) {
  std::sort(pcs.begin(), pcs.end());
  pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
  std::vector<std::uintptr_t> calls(pcs.size());
  for (std::size_t i = 0; i < pcs.size(); ++i)
    calls[i] = pcs[i] - 1;  // the call instruction, not the next statement
  std::unordered_map<std::uintptr_t, trace_site_text> out;
  std::vector<source_line> lines;
  try {
    lines = source_lines_of(calls);
  } catch (...) {
    lines.resize(pcs.size());
  }
  for (std::size_t i = 0; i < pcs.size(); ++i) {
    const source_line& l = lines[i];
    trace_site_text t;
    t.file = l.file;
    t.line = l.line;
    if (trace_header_file(t.file)) {
      for (const source_line_site& at : l.inlined_at) {
        if (!trace_header_file(at.file)) {
          t.file = at.file;
          t.line = at.line;
          break;
        }
      }
    }
    t.function = l.symbol.empty() ? std::string() : backtrace_demangle(l.symbol.c_str());
    if (t.file.empty()) {  // no line table: the function and the offset
      t.function =
          fmt::format("{}+{:#x}", t.function.empty() ? "?" : t.function, pcs[i] - l.symbol_start);
    }
    out.emplace(pcs[i], std::move(t));
  }
  return out;
}

std::string trace_program(const job& j) {
  // The program's absolute path, so that runs started as ./app and /path/app are one program
  // to the tools; argv[0] when the link cannot be read.
  std::string program = j.argc > 0 && j.argv != nullptr && j.argv[0] != nullptr ? j.argv[0] : "";
  std::error_code ec;
  if (auto exe = std::filesystem::read_symlink("/proc/self/exe", ec); !ec) program = exe.string();
  return program;
}

std::string trace_file_text(const job& j, const trace_snapshot& s, std::size_t memory) {
  nlohmann::json doc;
  doc["format"] = "pgas-trace";
  doc["version"] = 1;
  doc["program"] = trace_program(j);
  nlohmann::json args = nlohmann::json::array();
  for (int i = 1; i < j.argc; ++i)
    args.push_back(j.argv[i] != nullptr ? j.argv[i] : "");
  doc["args"] = std::move(args);
  doc["threads"] = j.threads;
  doc["machine"] = j.plan_machine.description();
  nlohmann::json places = nlohmann::json::array();
  for (int t = 0; t < j.threads; ++t) {
    const pu_info& p =
        j.plan_machine.pus()[static_cast<std::size_t>(j.plan[static_cast<std::size_t>(t)].pu)];
    places.push_back({{"thread", t},
                      {"pu", p.logical},
                      {"core", p.core},
                      {"l2", p.l2},
                      {"l3", p.l3},
                      {"numa", p.numa},
                      {"package", p.package}});
  }
  doc["places"] = std::move(places);
  doc["memory_limit"] = memory;
  doc["detail_lost"] = s.detail_lost;

  site_table sites;
  const auto pc_sites = trace_attribute(element_pcs(s));
  const auto site_of = [&](std::uintptr_t site, std::uint32_t line, const char* function) -> int {
    if (site == 0) return -1;
    if (line == trace_pc_site) return sites.id(pc_sites.at(site));
    return sites.id({reinterpret_cast<const char*>(site), static_cast<int>(line),
                     function != nullptr ? function : ""});
  };

  nlohmann::json accesses = nlohmann::json::array();
  std::uint64_t total_calls = 0, total_bytes = 0;
  for (int from = 0; from < j.threads; ++from) {
    // Several code addresses may be one source line (two accesses on a line, an unrolled
    // loop): their counts are summed into the line's one row per key.
    std::map<std::tuple<int, std::int32_t, std::int32_t, trace_kind>, trace_entry> rows;
    for (const trace_entry& e : s.entries[static_cast<std::size_t>(from)]) {
      trace_entry& row = rows[{site_of(e.site, e.site_line, e.function), e.array, e.to, e.kind}];
      for (int d = 0; d < trace_dirs; ++d) {
        row.calls[d] += e.calls[d];
        row.bytes[d] += e.bytes[d];
      }
    }
    for (const auto& [key, e] : rows) {
      const auto& [site, array, to, kind] = key;
      for (int d = 0; d < trace_dirs; ++d) {
        if (e.calls[d] == 0) continue;
        accesses.push_back({{"site", site},
                            {"array", array},
                            {"kind", kind_names[static_cast<int>(kind)]},
                            {"dir", dir_names[d]},
                            {"from", from},
                            {"to", to},
                            {"class", class_of(j, from, to)},
                            {"calls", e.calls[d]},
                            {"bytes", e.bytes[d]}});
        total_calls += e.calls[d];
        total_bytes += e.bytes[d];
      }
    }
  }
  nlohmann::json waits = nlohmann::json::array();
  nlohmann::json timeline = nlohmann::json::array();
  std::uint64_t wait_ns = 0, wait_calls = 0;
  for (int t = 0; t < j.threads; ++t) {
    const auto& ws = s.waits[static_cast<std::size_t>(t)];
    std::vector<int> ids;
    for (const trace_wait_entry& w : ws) {
      ids.push_back(site_of(reinterpret_cast<std::uintptr_t>(w.file), w.line, w.function));
      waits.push_back({{"site", ids.back()},
                       {"kind", kind_names[static_cast<int>(w.kind)]},
                       {"thread", t},
                       {"calls", w.calls},
                       {"ns", w.ns},
                       {"max_ns", w.max_ns}});
      wait_ns += w.ns;
      wait_calls += w.calls;
    }
    for (const trace_event& ev : s.timeline[static_cast<std::size_t>(t)]) {
      timeline.push_back({{"thread", t},
                          {"site", ids[ev.wait]},
                          {"kind", kind_names[static_cast<int>(ws[ev.wait].kind)]},
                          {"start_ns", ev.start_ns},
                          {"ns", ev.ns}});
    }
  }
  nlohmann::json caches = nlohmann::json::array();
  for (int t = 0; t < j.threads; ++t) {
    for (const trace_cache_entry& c : s.caches[static_cast<std::size_t>(t)]) {
      caches.push_back(
          {{"site", site_of(reinterpret_cast<std::uintptr_t>(c.file), c.line, c.function)},
           {"array", c.array},
           {"thread", t},
           {"hits", c.hits},
           {"misses", c.misses},
           {"written_back", c.written_back}});
    }
  }
  nlohmann::json arrays = nlohmann::json::array();
  for (std::size_t i = 0; i < s.allocations.size(); ++i) {
    const trace_allocation_record& a = s.allocations[i];
    arrays.push_back({{"id", i},
                      {"name", a.name},
                      {"where", a.where},
                      {"bytes", a.bytes},
                      {"thread", a.thread}});
  }
  doc["sites"] = sites.json();
  doc["arrays"] = std::move(arrays);
  doc["accesses"] = std::move(accesses);
  doc["waits"] = std::move(waits);
  doc["timeline"] = std::move(timeline);
  doc["cache"] = std::move(caches);
  doc["totals"] = {
      {"calls", total_calls}, {"bytes", total_bytes}, {"wait_ns", wait_ns}, {"waits", wait_calls}};
  // Invalid UTF-8 in a path or name is replaced, never a throw at the end of a long run.
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace pgas::detail
