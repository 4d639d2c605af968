// Integration tests of access tracing: programs run through `pgasrun --trace` (or PGAS_TRACE),
// whose trace files (the format of pgas-trace(1)) must hold exactly the accesses the programs
// make — calls and bytes per source line, array, issuing and owning thread, kind and direction —
// with the locality class of each thread pair computed here from the placement, totals that are
// the sums of the rows, the waits of every barrier and collective, and what a trace_scope
// pauses left out; plus the bad trace paths that must stop a job before it starts, the memory
// bound, and trace_name's misuse.
//
// Meson passes PGASRUN, PGASTRACE (the report tool, which must read every file written here),
// PROGRAMS (the built programs) and PROGRAM_SOURCES (their sources, whose @markers give the
// lines).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "child.hpp"

namespace {

using namespace pgas_test;
using json = nlohmann::json;

std::string pgasrun() {
  return env_or_fail("PGASRUN");
}
std::string program(const std::string& name) {
  return env_or_fail("PROGRAMS") + "/" + name;
}

// A fresh directory for one test's files, removed with everything in it at the test's end.
struct temp_dir {
  std::string path;
  temp_dir() {
    char name[] = "/tmp/pgas_trace_test_XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The file at `path`, which pgas-trace must read (status 0, nothing on stderr) with the same
// totals.
json read_trace(const std::string& path) {
  INFO("trace file " << path);
  std::ifstream in(path);
  REQUIRE(in.good());
  const json trace = json::parse(in);
  const result r = run_command({env_or_fail("PGASTRACE"), "--json", path});
  INFO(r);
  REQUIRE(r.exited);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  const json report = json::parse(r.out);
  CHECK(report.at("totals") == trace.at("totals"));
  CHECK(report.at("detail_lost") == trace.at("detail_lost"));
  return trace;
}

struct run_spec {
  int threads = 2;
  std::string program;
  std::vector<std::string> options;  // pgasrun's, before --trace
  std::vector<std::string> args;     // the program's
  std::vector<std::string> env;
};

// pgasrun -n THREADS OPTIONS... --trace=FILE PROGRAM ARGS..., which must exit 0.
result run_traced(const run_spec& s, const std::string& file) {
  std::vector<std::string> argv{pgasrun(), "-n", std::to_string(s.threads)};
  argv.insert(argv.end(), s.options.begin(), s.options.end());
  argv.push_back("--trace=" + file);
  argv.push_back(program(s.program));
  argv.insert(argv.end(), s.args.begin(), s.args.end());
  const result r = run_command(argv, kill_after, s.env);
  INFO(r);
  REQUIRE_FALSE(r.hung);
  REQUIRE(r.exited);
  REQUIRE(r.status == 0);
  return r;
}

// ---- the accesses of a trace, keyed as the tests compare them ----------------------------

struct row_key {
  int line = 0;       // -1: detail lost
  std::string array;  // the array's name, "-" for none
  int from = 0;
  int to = 0;
  std::string kind;
  std::string dir;
  auto operator<=>(const row_key&) const = default;
};
struct counts {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
  bool operator==(const counts&) const = default;
};
using access_table = std::map<row_key, counts>;

std::string describe(const row_key& k) {
  std::ostringstream s;
  s << "line " << k.line << " " << k.kind << "/" << k.dir << " " << k.from << "->" << k.to
    << " array " << k.array;
  return s.str();
}

// What differs between two tables, one line per key; empty when they are equal.
std::string table_diff(const access_table& expected, const access_table& actual) {
  std::ostringstream s;
  for (const auto& [k, c] : expected) {
    const auto it = actual.find(k);
    if (it == actual.end()) {
      s << "missing: " << describe(k) << " calls " << c.calls << " bytes " << c.bytes << "\n";
    } else if (!(it->second == c)) {
      s << "differs: " << describe(k) << " expected calls " << c.calls << " bytes " << c.bytes
        << ", traced calls " << it->second.calls << " bytes " << it->second.bytes << "\n";
    }
  }
  for (const auto& [k, c] : actual) {
    if (expected.find(k) == expected.end())
      s << "unexpected: " << describe(k) << " calls " << c.calls << " bytes " << c.bytes << "\n";
  }
  return s.str();
}

// The rows of `trace`, every site of which must lie in `source` (a file name) or be -1. Each
// (site, array, from, to, kind, dir) must be one row.
access_table accesses_of(const json& trace, const std::string& source) {
  const json& sites = trace.at("sites");
  const json& arrays = trace.at("arrays");
  access_table t;
  std::set<std::tuple<int, int, int, int, std::string, std::string>> seen;
  for (const json& a : trace.at("accesses")) {
    INFO("row " << a.dump());
    const int site = a.at("site").get<int>();
    const int array = a.at("array").get<int>();
    row_key k;
    k.line = -1;
    if (site >= 0) {
      REQUIRE(site < static_cast<int>(sites.size()));
      const json& s = sites[static_cast<std::size_t>(site)];
      REQUIRE(s.at("id").get<int>() == site);
      const auto file = s.at("file").get<std::string>();
      INFO("site " << s.dump());
      REQUIRE(file.size() >= source.size());
      REQUIRE(file.compare(file.size() - source.size(), source.size(), source) == 0);
      k.line = s.at("line").get<int>();
    }
    k.array = "-";
    if (array >= 0) {
      REQUIRE(array < static_cast<int>(arrays.size()));
      k.array = arrays[static_cast<std::size_t>(array)].at("name").get<std::string>();
    }
    k.from = a.at("from").get<int>();
    k.to = a.at("to").get<int>();
    k.kind = a.at("kind").get<std::string>();
    k.dir = a.at("dir").get<std::string>();
    CHECK(seen.insert({site, array, k.from, k.to, k.kind, k.dir}).second);
    counts& c = t[k];
    c.calls += a.at("calls").get<std::uint64_t>();
    c.bytes += a.at("bytes").get<std::uint64_t>();
  }
  return t;
}

// The file's totals are the sums of its rows.
void check_totals(const json& trace) {
  std::uint64_t calls = 0, bytes = 0, waits = 0, wait_ns = 0;
  for (const json& a : trace.at("accesses")) {
    calls += a.at("calls").get<std::uint64_t>();
    bytes += a.at("bytes").get<std::uint64_t>();
  }
  for (const json& w : trace.at("waits")) {
    waits += w.at("calls").get<std::uint64_t>();
    wait_ns += w.at("ns").get<std::uint64_t>();
    CHECK(w.at("max_ns").get<std::uint64_t>() <= w.at("ns").get<std::uint64_t>());
  }
  const json& t = trace.at("totals");
  CHECK(t.at("calls").get<std::uint64_t>() == calls);
  CHECK(t.at("bytes").get<std::uint64_t>() == bytes);
  CHECK(t.at("waits").get<std::uint64_t>() == waits);
  CHECK(t.at("wait_ns").get<std::uint64_t>() == wait_ns);
}

// ---- locality classes ----------------------------------------------------------------------

struct place {
  int package = -1, numa = -1, l3 = -1, l2 = -1;
};

// The class of an access from a thread at `a` to memory of a thread at `b` (a != b).
std::string class_between(const place& a, const place& b) {
  if (a.package != b.package) return "other-package";
  if (a.numa != b.numa) return "other-numa";
  if (a.l2 >= 0 && a.l2 == b.l2) return "same-l2";
  if (a.l3 >= 0 && a.l3 == b.l3) return "same-l3";
  return "same-numa";
}

// Every row's class is the one of its thread pair under `places` (per thread).
void check_classes(const json& trace, const std::vector<place>& places) {
  for (const json& a : trace.at("accesses")) {
    INFO("row " << a.dump());
    const int from = a.at("from").get<int>();
    const int to = a.at("to").get<int>();
    REQUIRE(from >= 0);
    REQUIRE(from < static_cast<int>(places.size()));
    REQUIRE(to < static_cast<int>(places.size()));
    const std::string expected = to < 0 ? "none"
                                 : from == to
                                     ? "same-thread"
                                     : class_between(places[static_cast<std::size_t>(from)],
                                                     places[static_cast<std::size_t>(to)]);
    CHECK(a.at("class").get<std::string>() == expected);
  }
}

// The places the file reports, one per thread.
std::vector<place> reported_places(const json& trace) {
  std::vector<place> out;
  for (const json& p : trace.at("places")) {
    REQUIRE(p.at("thread").get<int>() == static_cast<int>(out.size()));
    out.push_back({p.at("package").get<int>(), p.at("numa").get<int>(), p.at("l3").get<int>(),
                   p.at("l2").get<int>()});
  }
  REQUIRE(static_cast<int>(out.size()) == trace.at("threads").get<int>());
  return out;
}

// ---- trace_counts: what it does, per thread ------------------------------------------------

enum class paused_mode { traced, paused, elements_only };

int counts_line(const std::string& marker) {
  return line_of("trace_counts", "@trace_counts:" + marker);
}
std::string declared_name(const std::string& marker) {
  return "trace_counts.cpp:" + std::to_string(counts_line(marker));
}

// The markers of lines that run inside the program's optional trace_scope.
const std::vector<std::string> paused_markers = {"paused_read", "paused_write", "paused_get",
                                                 "paused_barrier"};

// Who owns what a thread of trace_counts accesses.
enum class owner { self, next, prev, thread0, none };

// One row a thread of trace_counts makes: at the line of `marker`, on the array declared at the
// line of marker `array` ("vec": the one named so; "-": none).
struct expected_row {
  const char* marker;
  const char* array;
  owner to;
  const char* kind;
  const char* dir;
  std::uint64_t calls;
  std::uint64_t bytes;
};

// Every thread's, whatever the mode (thread 0 also writes `hits` at "sw").
constexpr expected_row every_thread[] = {
    {"b0", "-", owner::none, "barrier", "sync", 1, 0},
    {"aw", "vec", owner::next, "element", "write", 4, 32},
    {"mw", "M", owner::next, "element", "write", 8, 32},
    {"Sw", "S", owner::next, "element", "write", 1, 4},
    {"b1", "-", owner::none, "barrier", "sync", 1, 0},
    {"ar", "vec", owner::prev, "element", "read", 3, 24},
    {"mr", "M", owner::self, "element", "read", 8, 32},
    {"two", "M", owner::self, "element", "read", 2, 8},
    {"pw", "vec", owner::self, "element", "write", 1, 8},
    {"pr", "vec", owner::next, "element", "read", 1, 8},
    {"tr", "M", owner::prev, "element", "read", 4, 16},
    {"sr", "hits", owner::thread0, "element", "read", 1, 8},
    {"conv", "hits", owner::thread0, "element", "read", 1, 8},
    {"Sr", "S", owner::self, "element", "read", 1, 4},
    {"b2", "-", owner::none, "barrier", "sync", 1, 0},
    {"get", "vec", owner::next, "bulk", "read", 1, 16},
    {"put", "B", owner::next, "bulk", "write", 1, 16},
    {"copy", "vec", owner::prev, "bulk", "read", 1, 8},
    {"copy", "B", owner::next, "bulk", "write", 1, 8},
    {"nb", "vec", owner::prev, "nonblocking", "read", 1, 8},
    {"aget", "C", owner::next, "atomic", "read", 1, 8},
    {"aset", "C", owner::self, "atomic", "write", 1, 8},
    {"aadd", "C", owner::thread0, "atomic", "update", 1, 8},
    {"strict_w", "B", owner::next, "element", "write", 1, 8},
    {"strict_r", "S", owner::self, "element", "read", 1, 4},
    {"fence", "-", owner::none, "fence", "sync", 1, 0},
    {"b3", "-", owner::none, "barrier", "sync", 1, 0},
    {"lock", "-", owner::none, "lock", "sync", 1, 0},
    {"locked", "hits", owner::thread0, "element", "write", 1, 8},
    {"compound", "hits", owner::thread0, "element", "write", 1, 8},
    {"incr", "hits", owner::thread0, "element", "write", 1, 8},
    {"unlock", "-", owner::none, "lock", "sync", 1, 0},
    {"allreduce", "-", owner::none, "collective", "sync", 1, sizeof(long)},
    {"b4", "-", owner::none, "barrier", "sync", 1, 0},
};
// Inside the trace_scope: element accesses (kept by a scope of trace_mask::element)...
constexpr expected_row paused_elements[] = {
    {"paused_read", "vec", owner::prev, "element", "read", 1, 8},
    {"paused_write", "B", owner::next, "element", "write", 1, 8},
};
// ... and the others.
constexpr expected_row paused_others[] = {
    {"paused_get", "B", owner::prev, "bulk", "read", 1, 16},
    {"paused_barrier", "-", owner::none, "barrier", "sync", 1, 0},
};

access_table expected_counts(int n, paused_mode mode) {
  access_table t;
  const auto add = [&](const expected_row& r, int me) {
    const std::string array = std::string_view(r.array) == "vec" || std::string_view(r.array) == "-"
                                  ? r.array
                                  : declared_name(r.array);
    const int to = r.to == owner::self      ? me
                   : r.to == owner::next    ? (me + 1) % n
                   : r.to == owner::prev    ? (me + n - 1) % n
                   : r.to == owner::thread0 ? 0
                                            : -1;
    counts& c = t[{counts_line(r.marker), array, me, to, r.kind, r.dir}];
    c.calls += r.calls;
    c.bytes += r.bytes;
  };
  for (int me = 0; me < n; ++me) {
    for (const expected_row& r : every_thread)
      add(r, me);
    if (mode != paused_mode::paused) {
      for (const expected_row& r : paused_elements)
        add(r, me);
    }
    if (mode == paused_mode::traced) {
      for (const expected_row& r : paused_others)
        add(r, me);
    }
  }
  add({"sw", "hits", owner::self, "element", "write", 1, 8}, 0);
  return t;
}

// The waits of trace_counts: one per thread at every barrier and at the allreduce, and at
// most one at the lock (only when it had to wait).
void check_counts_waits(const json& trace, int n, paused_mode mode) {
  const json& sites = trace.at("sites");
  std::map<std::tuple<int, int, std::string>, std::uint64_t> waits;  // (thread, line, kind)
  for (const json& w : trace.at("waits")) {
    const int site = w.at("site").get<int>();
    REQUIRE(site >= 0);
    waits[{w.at("thread").get<int>(), sites[static_cast<std::size_t>(site)].at("line").get<int>(),
           w.at("kind").get<std::string>()}] += w.at("calls").get<std::uint64_t>();
  }
  std::uint64_t timeline_expected = 0;
  for (int me = 0; me < n; ++me) {
    std::vector<std::string> barriers = {"b0", "b1", "b2", "b3", "b4"};
    if (mode == paused_mode::traced) barriers.push_back("paused_barrier");
    for (const auto& b : barriers) {
      INFO("thread " << me << " barrier " << b);
      CHECK(waits[{me, counts_line(b), "barrier"}] == 1);
    }
    CHECK(waits[{me, counts_line("allreduce"), "collective"}] == 1);
    const std::uint64_t lock_waits = waits[{me, counts_line("lock"), "lock"}];
    CHECK(lock_waits <= 1);
    timeline_expected += barriers.size() + 1 + lock_waits;
  }
  std::uint64_t total = 0;
  for (const auto& [k, calls] : waits)
    total += calls;
  CHECK(total == timeline_expected);
  // The default memory bound keeps every wait in the timeline.
  CHECK(trace.at("timeline").size() == timeline_expected);
  for (const json& e : trace.at("timeline")) {
    const int site = e.at("site").get<int>();
    REQUIRE(site >= 0);
    const auto k = std::make_tuple(e.at("thread").get<int>(),
                                   sites[static_cast<std::size_t>(site)].at("line").get<int>(),
                                   e.at("kind").get<std::string>());
    CHECK(waits.count(k) == 1);
  }
}

// The arrays trace_counts allocates: named by trace_name or after their declaration.
void check_counts_arrays(const json& trace) {
  std::map<std::string, std::string> where;  // name → where
  for (const json& a : trace.at("arrays")) {
    INFO("array " << a.dump());
    CHECK(a.at("thread").get<int>() == -1);
    const auto name = a.at("name").get<std::string>();
    CHECK(where.count(name) == 0);
    where[name] = a.at("where").get<std::string>();
  }
  const auto where_ends = [&](const std::string& name, const std::string& marker) {
    INFO("array " << name);
    REQUIRE(where.count(name) == 1);
    const std::string tail = "programs/trace_counts.cpp:" + std::to_string(counts_line(marker));
    const std::string& w = where[name];
    REQUIRE(w.size() >= tail.size());
    CHECK(w.compare(w.size() - tail.size(), tail.size(), tail) == 0);
  };
  where_ends("vec", "A");
  for (const char* m : {"M", "B", "C", "hits", "S"})
    where_ends(declared_name(m), m);
  CHECK(where.size() == 6);
}

// Runs trace_counts and checks its file exactly; returns it.
json check_trace_counts(const std::string& binary, int n, paused_mode mode,
                        const std::vector<std::string>& options = {}) {
  temp_dir dir;
  const std::string file = dir / "counts.trace";
  run_spec s;
  s.threads = n;
  s.program = binary;
  s.options = options;
  if (mode == paused_mode::paused) s.args = {"pause"};
  if (mode == paused_mode::elements_only) s.args = {"elements-only"};
  run_traced(s, file);
  const json trace = read_trace(file);
  CHECK(trace.at("format") == "pgas-trace");
  CHECK(trace.at("version") == 1);
  CHECK(trace.at("threads") == n);
  CHECK(trace.at("args") == json(s.args));
  const auto prog = trace.at("program").get<std::string>();
  CHECK(prog.size() >= binary.size());
  CHECK(prog.compare(prog.size() - binary.size(), binary.size(), binary) == 0);
  CHECK(trace.at("detail_lost") == 0);
  CHECK(trace.at("memory_limit") == 16 * 1024 * 1024);
  CHECK(trace.at("cache").empty());
  const std::string diff =
      table_diff(expected_counts(n, mode), accesses_of(trace, "programs/trace_counts.cpp"));
  INFO(diff);
  CHECK(diff.empty());
  check_totals(trace);
  check_counts_arrays(trace);
  check_counts_waits(trace, n, mode);
  return trace;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Exact counts.

TEST_CASE(
    "trace: every access of trace_counts is in the file, per line, array, thread pair, "
    "kind and direction, with totals that are the rows' sums",
    "[trace]") {
  for (int n : {2, 4}) {
    INFO(n << " threads");
    const json trace = check_trace_counts("trace_counts", n, paused_mode::traced);
    check_classes(trace, reported_places(trace));
  }
}

TEST_CASE("trace: built without optimisation, element accesses are still on the user's lines",
          "[trace]") {
  check_trace_counts("trace_counts_O0", 2, paused_mode::traced);
}

TEST_CASE("trace: a trace_scope pauses exactly the accesses inside it", "[trace]") {
  const json traced = check_trace_counts("trace_counts", 2, paused_mode::traced);
  const json paused = check_trace_counts("trace_counts", 2, paused_mode::paused);
  const json elements = check_trace_counts("trace_counts", 2, paused_mode::elements_only);
  // The difference is the paused lines' rows, and nothing else.
  std::set<int> paused_lines;
  for (const auto& m : paused_markers)
    paused_lines.insert(counts_line(m));
  access_table outside = accesses_of(traced, "programs/trace_counts.cpp");
  std::erase_if(outside, [&](const auto& kv) { return paused_lines.count(kv.first.line) != 0; });
  const std::string diff = table_diff(outside, accesses_of(paused, "programs/trace_counts.cpp"));
  INFO(diff);
  CHECK(diff.empty());
  // A narrowing scope keeps what it names (element accesses) only.
  access_table narrowed = accesses_of(elements, "programs/trace_counts.cpp");
  std::erase_if(narrowed, [&](const auto& kv) { return paused_lines.count(kv.first.line) == 0; });
  for (const auto& [k, c] : narrowed)
    CHECK(k.kind == "element");
  CHECK(narrowed.size() == 4);  // a read and a write on each of 2 threads
}

// ---------------------------------------------------------------------------------------------
// Locality classes on described machines (binding is only reported there).

namespace {

// Runs trace_counts on 8 threads of the synthetic machine `description`, whose PU p lies at
// place_of(p); checks the places the file reports against it, every row's class, and that
// the rows cover `classes`.
void check_described_machine(const std::string& description,
                             const std::function<place(int)>& place_of,
                             const std::set<std::string>& classes) {
  INFO("topology " << description);
  const json trace = check_trace_counts("trace_counts", 8, paused_mode::traced,
                                        {"--topology", "synthetic:" + description});
  std::vector<place> places;
  std::set<int> pus;
  for (const json& p : trace.at("places")) {
    INFO("place " << p.dump());
    const int pu = p.at("pu").get<int>();
    REQUIRE(pu >= 0);
    REQUIRE(pu < 8);
    CHECK(pus.insert(pu).second);
    const place expected = place_of(pu);
    CHECK(p.at("package").get<int>() == expected.package);
    CHECK(p.at("numa").get<int>() == expected.numa);
    CHECK(p.at("l3").get<int>() == expected.l3);
    CHECK(p.at("l2").get<int>() == expected.l2);
    places.push_back(expected);
  }
  REQUIRE(places.size() == 8);
  check_classes(trace, places);
  std::set<std::string> seen;
  for (const json& a : trace.at("accesses"))
    seen.insert(a.at("class").get<std::string>());
  CHECK(seen == classes);
}

}  // namespace

TEST_CASE(
    "trace: locality classes follow the described machine's packages, NUMA nodes and "
    "caches",
    "[trace]") {
  // 2 packages × 2 NUMA nodes, one L3 per node, 2 single-PU cores per L3; no L2 described.
  check_described_machine("package:2 numa:2 l3:1 core:2 pu:1",
                          [](int pu) {
                            return place{pu / 4, pu / 2, pu / 2, -1};
                          },
                          {"none", "same-thread", "same-l3", "other-numa", "other-package"});
  // 1 package × 2 NUMA nodes, 2 L3 per node, one L2 per L3 shared by 2 single-PU cores.
  check_described_machine("package:1 numa:2 l3:2 l2:1 core:2 pu:1",
                          [](int pu) {
                            return place{0, pu / 4, pu / 2, pu / 2};
                          },
                          {"none", "same-thread", "same-l2", "same-numa", "other-numa"});
}

// ---------------------------------------------------------------------------------------------
// Trace files that cannot be written: found before the job starts.

namespace {

// The names in `dir`.
std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.insert(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("trace: pgasrun refuses a trace file it cannot write before it runs the program",
          "[trace]") {
  temp_dir dir;
  std::filesystem::create_directory(dir / "a-directory");
  const std::string marker = dir / "marker";
  for (const std::string& path : {std::string("/nonexistent-dir/x.trace"), dir / "a-directory"}) {
    for (const bool by_env : {false, true}) {
      INFO("trace file " << path << (by_env ? " (PGAS_TRACE)" : " (--trace)"));
      std::vector<std::string> argv{pgasrun(), "-n", "2"};
      std::vector<std::string> env{"TRACE_MARKER=" + marker};
      if (by_env) {
        env.push_back("PGAS_TRACE=" + path);
      } else {
        argv.push_back("--trace=" + path);
      }
      argv.push_back(program("trace_start"));
      const result r = run_command(argv, kill_after, env);
      INFO(r);
      REQUIRE(r.exited);
      CHECK(r.status == 2);
      CHECK(r.err.rfind("pgasrun: error: --trace: cannot write " + path + ": ", 0) == 0);
      CHECK(contains(
          r.err, path == dir / "a-directory" ? "it is a directory" : "No such file or directory"));
      CHECK_FALSE(exists(marker + ".main"));
      CHECK_FALSE(exists(marker + ".body"));
    }
  }
  CHECK(files_in(dir.path) == std::set<std::string>{"a-directory"});
}

TEST_CASE(
    "trace: PGAS_TRACE naming a file that cannot be written stops the job before any "
    "thread runs",
    "[trace]") {
  temp_dir dir;
  std::filesystem::create_directory(dir / "a-directory");
  const std::string marker = dir / "marker";
  for (const std::string& path : {std::string("/nonexistent-dir/x.trace"), dir / "a-directory"}) {
    INFO("PGAS_TRACE=" << path);
    std::filesystem::remove(marker + ".main");
    const result r =
        run_command({program("trace_start")}, kill_after,
                    {"TRACE_MARKER=" + marker, "PGAS_THREADS=2", "PGAS_TRACE=" + path});
    INFO(r);
    REQUIRE(r.exited);
    CHECK(r.status == 2);
    CHECK(contains(r.err, "PGAS_TRACE: cannot write " + path + ": "));
    CHECK(exists(marker + ".main"));
    CHECK_FALSE(exists(marker + ".body"));
  }
}

TEST_CASE(
    "trace: --trace without a file writes PROGRAM.trace in the current directory, and "
    "nothing else",
    "[trace]") {
  temp_dir dir;
  const std::string marker = dir / "marker";
  // pgasrun runs in `dir`: sh -c 'cd DIR && exec pgasrun …'.
  const result r = run_command({"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", dir.path, pgasrun(),
                                "-n", "2", "--trace", program("trace_start")},
                               kill_after, {"TRACE_MARKER=" + marker});
  INFO(r);
  REQUIRE(r.exited);
  REQUIRE(r.status == 0);
  CHECK(files_in(dir.path) ==
        std::set<std::string>{"trace_start.trace", "marker.main", "marker.body"});
  const json trace = read_trace(dir / "trace_start.trace");
  CHECK(trace.at("threads") == 2);
  CHECK(trace.at("totals").at("calls") == 2);  // one barrier per thread
  check_totals(trace);
}

// ---------------------------------------------------------------------------------------------
// The memory bound.

TEST_CASE(
    "trace: past PGAS_TRACE_MEMORY accesses are counted without their detail, and the "
    "file and the warning say exactly how many",
    "[trace]") {
  const int allocs = 1000;
  const int barriers = 1000;
  const int n = 2;
  temp_dir dir;
  const std::string file = dir / "many.trace";
  run_spec s;
  s.threads = n;
  s.program = "trace_many";
  s.args = {std::to_string(allocs), std::to_string(barriers)};
  s.env = {"PGAS_TRACE_MEMORY=64k"};
  const result r = run_traced(s, file);
  const json trace = read_trace(file);
  CHECK(trace.at("memory_limit") == 64 * 1024);
  check_totals(trace);
  const auto lost = trace.at("detail_lost").get<std::uint64_t>();
  INFO(r);
  CHECK(lost > 0);
  CHECK(contains(r.err,
                 "pgas: warning: the trace tables were full (PGAS_TRACE_MEMORY 64 KiB per "
                 "thread): " +
                     std::to_string(lost) + " accesses were counted without"));
  const int write_line = line_of("trace_many", "@trace_many:write");
  const int barrier_line = line_of("trace_many", "@trace_many:barrier");
  std::uint64_t without_detail = 0;
  std::map<std::pair<int, std::string>, std::uint64_t> calls;  // (thread, kind)
  std::uint64_t element_bytes = 0;
  for (const json& a : trace.at("accesses")) {
    INFO("row " << a.dump());
    const int site = a.at("site").get<int>();
    const int from = a.at("from").get<int>();
    const auto kind = a.at("kind").get<std::string>();
    const auto c = a.at("calls").get<std::uint64_t>();
    calls[{from, kind}] += c;
    if (kind == "element") {
      CHECK(a.at("dir") == "write");
      element_bytes += a.at("bytes").get<std::uint64_t>();
    }
    if (site < 0) {
      without_detail += c;
      CHECK(a.at("array") == -1);
      CHECK(a.at("to") == -1);
      CHECK(a.at("class") == "none");
    } else {
      const int line = trace.at("sites")[static_cast<std::size_t>(site)].at("line").get<int>();
      CHECK(line == (kind == "element" ? write_line : barrier_line));
      if (kind == "element") CHECK(a.at("to") == from);
    }
  }
  CHECK(without_detail == lost);
  for (int t = 0; t < n; ++t) {
    CHECK(calls[{t, "element"}] == static_cast<std::uint64_t>(allocs));
    CHECK(calls[{t, "barrier"}] == static_cast<std::uint64_t>(barriers));
  }
  CHECK(element_bytes == static_cast<std::uint64_t>(n * allocs) * sizeof(long));
  // Every wait is counted; the timeline keeps the first ones of each thread, and says so.
  std::map<int, std::uint64_t> waits, events;
  for (const json& w : trace.at("waits"))
    waits[w.at("thread").get<int>()] += w.at("calls").get<std::uint64_t>();
  for (const json& e : trace.at("timeline"))
    ++events[e.at("thread").get<int>()];
  std::uint64_t not_in_timeline = 0;
  for (int t = 0; t < n; ++t) {
    CHECK(waits[t] == static_cast<std::uint64_t>(barriers));
    CHECK(events[t] > 0);
    CHECK(events[t] < waits[t]);
    not_in_timeline += waits[t] - events[t];
  }
  CHECK(contains(r.err,
                 "the trace's timeline kept the first waits of each thread only "
                 "(PGAS_TRACE_MEMORY 64 KiB per thread): " +
                     std::to_string(not_in_timeline) + " waits are counted but not"));
}

// ---------------------------------------------------------------------------------------------
// trace_name misuse.

TEST_CASE(
    "trace: trace_name of an address no live allocation holds is misuse in a traced job, "
    "named at its call",
    "[trace]") {
  struct misuse_case {
    std::string what, name, message;
  };
  for (const misuse_case& c :
       {misuse_case{"private", "mine", "is not an address in the shared space"},
        misuse_case{"freed", "gone", "no live shared allocation holds"}}) {
    const std::string& what = c.what;
    INFO(what);
    temp_dir dir;
    const std::string line =
        std::to_string(line_of("trace_name_misuse", "@trace_name_misuse:" + what));
    const result r = run_command(
        {pgasrun(), "-n", "2", "--trace=" + (dir / "x.trace"), program("trace_name_misuse"), what});
    INFO(r);
    REQUIRE(r.exited);
    CHECK(r.status == 1);
    CHECK(contains(r.err, "pgas: thread 1 of 2: pgas::trace_name(\"" + c.name + "\"): "));
    CHECK(contains(r.err, c.message));
    CHECK(contains(r.err, "programs/trace_name_misuse.cpp:" + line));
    // Nothing half-written is left behind.
    for (const auto& name : files_in(dir.path))
      CHECK(name == "x.trace");
    // Untraced, trace_name does nothing.
    const result untraced = run_command({pgasrun(), "-n", "2", program("trace_name_misuse"), what});
    INFO(untraced);
    REQUIRE(untraced.exited);
    CHECK(untraced.status == 0);
  }
}
