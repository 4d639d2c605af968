// Integration tests of reuse distance recording: reuse_known (programs/reuse_known.cpp) run
// through `pgasrun --reuse`, whose file (format "pgas-reuse" 1) must hold the histograms worked
// out by hand in the program's comment, per grain, mode and what lies between its two passes;
// the fields of the format; --reuse and --trace together; a bare --reuse naming PROGRAM.reuse;
// and a file that cannot be written stopping the job before anything runs (status 2).
//
// Meson passes PGASRUN, PROGRAMS (the built programs) and PROGRAM_SOURCES (their sources,
// whose @markers give the lines).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "child.hpp"

namespace {

using namespace pgas_test;
using json = nlohmann::json;
namespace fs = std::filesystem;

std::string program(const std::string& name) {
  return env_or_fail("PROGRAMS") + "/" + name;
}

// A directory of its own under the system's temporary one, gone after the test.
class scratch {
 public:
  scratch() : path_(fs::temp_directory_path() / ("pgas_reuse_test_" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directory(path_);
  }
  ~scratch() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

json read_json(const std::string& path) {
  INFO("file " << path);
  std::ifstream in(path);
  REQUIRE(in.good());
  return json::parse(in);
}

// One histogram as the tests compare it: accesses, infinite, and bin → {count, min, max}.
struct histogram {
  std::uint64_t accesses = 0, infinite = 0;
  std::map<int, std::vector<std::uint64_t>> bins;
  bool operator==(const histogram&) const = default;
};
// (thread, line, kind) → histogram, checking the format's fields on the way.
std::map<std::tuple<int, int, std::string>, histogram> histograms(const json& doc) {
  CHECK(doc.at("format") == "pgas-reuse");
  CHECK(doc.at("version") == 1);
  CHECK(fs::path(doc.at("program").get<std::string>()).is_absolute());
  CHECK(doc.at("threads") == 2);
  CHECK(doc.at("size") == 16);
  std::map<int, std::pair<int, std::string>> sites;
  for (const json& s : doc.at("sites")) {
    CHECK(s.at("file").get<std::string>().ends_with("reuse_known.cpp"));
    CHECK_FALSE(s.at("function").get<std::string>().empty());
    sites[s.at("id").get<int>()] = {s.at("line").get<int>(), s.at("kind").get<std::string>()};
  }
  CHECK(sites.size() == doc.at("sites").size());
  std::map<std::tuple<int, int, std::string>, histogram> out;
  for (const json& h : doc.at("histograms")) {
    const auto& [line, kind] = sites.at(h.at("site").get<int>());
    histogram& got = out[{h.at("thread").get<int>(), line, kind}];
    got.accesses = h.at("accesses");
    got.infinite = h.at("infinite");
    std::uint64_t counted = got.infinite;
    for (const json& b : h.at("bins")) {
      got.bins[b.at("bin").get<int>()] = {b.at("count"), b.at("min"), b.at("max")};
      CHECK(b.at("mean").get<double>() >= b.at("min").get<double>());
      CHECK(b.at("mean").get<double>() <= b.at("max").get<double>());
      counted += b.at("count").get<std::uint64_t>();
    }
    CHECK(counted == got.accesses);
  }
  return out;
}

result run_known(const std::vector<std::string>& options, const std::string& between) {
  std::vector<std::string> argv{env_or_fail("PGASRUN"), "-n", "2"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back(program("reuse_known"));
  argv.push_back(between);
  const result r = run_command(argv);
  INFO(r);
  REQUIRE(r.exited);
  REQUIRE(r.status == 0);
  return r;
}

histogram first_accesses(std::uint64_t n) {
  return {n, n, {}};
}

}  // namespace

TEST_CASE("reuse: a known program's histograms by element, with and without a drop between",
          "[reuse]") {
  scratch dir;
  const int first = line_of("reuse_known", "@reuse_known:first");
  const int second = line_of("reuse_known", "@reuse_known:second");
  const int bulk = line_of("reuse_known", "@reuse_known:bulk");
  const std::string mode = GENERATE("exact", "approximate");
  for (const std::string between : {"none", "barrier", "fence"}) {
    INFO("mode " << mode << ", between the passes: " << between);
    const std::string file = dir.file(between + ".reuse");
    run_known({"--reuse=" + file, "--reuse-mode=" + mode}, between);
    const json doc = read_json(file);
    INFO(doc.dump());
    CHECK(doc.at("grain") == "element");
    CHECK(doc.at("grain_bytes") == 8);
    CHECK(doc.at("mode") == mode);
    CHECK((doc.at("error_bound").get<double>() > 0) == (mode == "approximate"));
    const auto got = histograms(doc);
    // Distances below 32 are exact in both modes; thread 0 reads nobody's data.
    const histogram seven{8, 0, {{3, {8, 7, 7}}}};
    const std::map<std::tuple<int, int, std::string>, histogram> want{
        {{1, first, "element"}, first_accesses(8)},
        {{1, second, "element"}, between == "none" ? seven : first_accesses(8)},
        {{1, bulk, "bulk"}, {1, 0, {{3, {1, 7, 7}}}}},
    };
    CHECK(got == want);
  }
}

TEST_CASE("reuse: by block, the 8 doubles of a block are one unit", "[reuse]") {
  scratch dir;
  const std::string file = dir.file("block.reuse");
  run_known({"--reuse=" + file, "--reuse-grain", "block"}, "none");
  const json doc = read_json(file);
  INFO(doc.dump());
  CHECK(doc.at("grain") == "block");
  CHECK(doc.at("grain_bytes") == 64);
  const auto got = histograms(doc);
  const std::map<std::tuple<int, int, std::string>, histogram> want{
      {{1, line_of("reuse_known", "@reuse_known:first"), "element"}, {8, 1, {{0, {7, 0, 0}}}}},
      {{1, line_of("reuse_known", "@reuse_known:second"), "element"}, {8, 0, {{0, {8, 0, 0}}}}},
      {{1, line_of("reuse_known", "@reuse_known:bulk"), "bulk"}, {1, 0, {{0, {1, 0, 0}}}}},
  };
  CHECK(got == want);
}

TEST_CASE("reuse: by line, the 8 doubles span one or two 64-byte lines", "[reuse]") {
  scratch dir;
  const std::string file = dir.file("line.reuse");
  run_known({"--reuse=" + file, "--reuse-grain=line"}, "none");
  const json doc = read_json(file);
  INFO(doc.dump());
  CHECK(doc.at("grain") == "line");
  CHECK(doc.at("grain_bytes") == 64);
  const auto got = histograms(doc);
  // The first pass meets its lines for the first time, the rest at distance 0; the second pass
  // and the copy find every unit again at distance 0 or 1 (two lines: the other one between).
  const histogram& first = got.at({1, line_of("reuse_known", "@reuse_known:first"), "element"});
  CHECK(first.accesses == 8);
  CHECK((first.infinite == 1 || first.infinite == 2));
  CHECK(first.bins.at(0)[0] ==
        8 - first.infinite - (first.bins.contains(1) ? first.bins.at(1)[0] : 0));
  const histogram& second = got.at({1, line_of("reuse_known", "@reuse_known:second"), "element"});
  CHECK(second.accesses == 8);
  CHECK(second.infinite == 0);
  for (const auto& [bin, v] : second.bins)
    CHECK(bin <= 1);
}

TEST_CASE("reuse: --reuse with --trace writes both files; a bare --reuse writes PROGRAM.reuse",
          "[reuse]") {
  scratch dir;
  run_known({"--reuse=" + dir.file("both.reuse"), "--trace=" + dir.file("both.trace")}, "none");
  CHECK(read_json(dir.file("both.trace")).at("format") == "pgas-trace");
  CHECK(histograms(read_json(dir.file("both.reuse"))).size() == 3);
  const result r = run_command({"/bin/sh", "-c",
                                "cd '" + dir.file("") + "' && '" + env_or_fail("PGASRUN") +
                                    "' -n 2 --reuse '" + program("reuse_known") + "' none"});
  INFO(r);
  REQUIRE(r.exited);
  CHECK(r.status == 0);
  CHECK(histograms(read_json(dir.file("reuse_known.reuse"))).size() == 3);
}

TEST_CASE("reuse: a file that cannot be written stops the job before any thread runs", "[reuse]") {
  scratch dir;
  fs::create_directory(dir.file("a-directory"));
  const std::string marker = dir.file("marker");
  for (const std::string& path :
       {std::string("/nonexistent-dir/x.reuse"), dir.file("a-directory")}) {
    for (const bool by_env : {false, true}) {
      INFO("reuse file " << path << (by_env ? " (PGAS_REUSE)" : " (--reuse)"));
      std::vector<std::string> argv{env_or_fail("PGASRUN"), "-n", "2"};
      std::vector<std::string> env{"TRACE_MARKER=" + marker};
      (by_env ? env : argv).push_back(by_env ? "PGAS_REUSE=" + path : "--reuse=" + path);
      argv.push_back(program("trace_start"));
      const result r = run_command(argv, kill_after, env);
      INFO(r);
      REQUIRE(r.exited);
      CHECK(r.status == 2);
      CHECK(r.err.rfind("pgasrun: error: --reuse: cannot write " + path + ": ", 0) == 0);
      CHECK_FALSE(fs::exists(marker + ".main"));
      CHECK_FALSE(fs::exists(marker + ".body"));
    }
  }
  // Without pgasrun, the job itself refuses before its threads start.
  const result r = run_command(
      {program("trace_start")}, kill_after,
      {"TRACE_MARKER=" + marker, "PGAS_THREADS=2", "PGAS_REUSE=/nonexistent-dir/x.reuse"});
  INFO(r);
  REQUIRE(r.exited);
  CHECK(r.status == 2);
  CHECK(contains(r.err, "PGAS_REUSE: cannot write /nonexistent-dir/x.reuse: "));
  CHECK_FALSE(fs::exists(marker + ".body"));
}

TEST_CASE("reuse: one file for both recordings, a FIFO, or reuse options alone are usage errors",
          "[reuse]") {
  scratch dir;
  const std::string marker = dir.file("marker");
  REQUIRE(mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--reuse=" + dir.file("x"), "--trace=" + dir.file("x")},
       "pgasrun: error: --trace and --reuse (PGAS_TRACE and PGAS_REUSE) both name " +
           dir.file("x") + ": each recording needs its own file"},
      {{"--reuse-grain=line"},
       "pgasrun: error: --reuse-grain applies to a reuse recording: give --reuse[=FILE] (or "
       "PGAS_REUSE) too"},
      {{"--reuse-mode", "approximate"}, "pgasrun: error: --reuse-mode applies to a reuse"},
      {{"--reuse=" + dir.file("fifo")},
       "pgasrun: error: --reuse: cannot write " + dir.file("fifo") +
           ": it is a FIFO, not a regular file"},
  };
  for (const auto& [options, message] : cases) {
    std::vector<std::string> argv{env_or_fail("PGASRUN"), "-n", "2"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(program("trace_start"));
    const result r = run_command(argv, kill_after, {"TRACE_MARKER=" + marker});
    INFO(r);
    REQUIRE(r.exited);
    CHECK(r.status == 2);
    CHECK(r.err.rfind(message, 0) == 0);
    CHECK_FALSE(fs::exists(marker + ".main"));
  }
  struct stat st {};
  REQUIRE(lstat(dir.file("fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));  // not replaced
}
