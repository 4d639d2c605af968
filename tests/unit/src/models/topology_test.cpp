// Tests src/models/topology.cpp: the machine model (pgas::machine) built from hwloc synthetic
// descriptions, XML exports, hand-made PU lists and this machine (restricted to the process
// affinity), plus the policy words and cpu_list. Expected counts and per-PU tags are worked
// out by hand from the hwloc descriptions, never read back from the code under test.

#include <pgas/topology.hpp>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using Catch::Matchers::Contains;

// The tags of every PU of `m`, one vector per field, in logical order.
struct tags {
  std::vector<int> os, logical, core, l3, numa, package;
};

tags tags_of(const pgas::machine& m) {
  tags t;
  for (const auto& p : m.pus()) {
    t.os.push_back(p.os_index);
    t.logical.push_back(p.logical);
    t.core.push_back(p.core);
    t.l3.push_back(p.l3);
    t.numa.push_back(p.numa);
    t.package.push_back(p.package);
  }
  return t;
}

// {f(0), f(1), ..., f(n-1)}: expected tag vectors written as the arithmetic of the description.
template <class F>
std::vector<int> each(int n, F f) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i)
    v.push_back(f(i));
  return v;
}

int distinct_non_negative(const std::vector<int>& v) {
  std::set<int> s;
  for (int x : v)
    if (x >= 0) s.insert(x);
  return static_cast<int>(s.size());
}

// Properties every machine satisfies, whatever it was built from: logical indices are
// 0..n-1 in order, OS indices are unique, the counts are the number of distinct tags, and
// since logical order is machine (tree) order, every tag is non-decreasing along the PUs.
void check_consistent(const pgas::machine& m) {
  const tags t = tags_of(m);
  CHECK(t.logical == each(m.pu_count(), [](int i) { return i; }));
  CHECK(std::set<int>(t.os.begin(), t.os.end()).size() == t.os.size());
  CHECK(m.core_count() == distinct_non_negative(t.core));
  CHECK(m.l3_count() == distinct_non_negative(t.l3));
  CHECK(m.numa_count() == distinct_non_negative(t.numa));
  CHECK(m.package_count() == distinct_non_negative(t.package));
  for (const auto* v : {&t.core, &t.l3, &t.numa, &t.package}) {
    INFO("tags must follow logical order");
    CHECK(std::is_sorted(v->begin(), v->end()));
  }
}

}  // namespace

TEST_CASE("a flat synthetic machine has one NUMA node and no L3", "[topology]") {
  const auto m = pgas::machine::synthetic("pu:4");
  REQUIRE(m.pu_count() == 4);
  CHECK(m.numa_count() == 1);  // hwloc always inserts one NUMA node
  CHECK(m.l3_count() == 0);
  CHECK_FALSE(m.is_current());
  const tags t = tags_of(m);
  CHECK(t.os == std::vector<int>{0, 1, 2, 3});
  CHECK(t.numa == std::vector<int>{0, 0, 0, 0});
  CHECK(t.l3 == std::vector<int>{-1, -1, -1, -1});
  check_consistent(m);
}

TEST_CASE("synthetic core:2 pu:2", "[topology]") {
  const auto m = pgas::machine::synthetic("core:2 pu:2");
  REQUIRE(m.pu_count() == 4);
  CHECK(m.core_count() == 2);
  CHECK(m.numa_count() == 1);
  CHECK(m.l3_count() == 0);
  const tags t = tags_of(m);
  CHECK(t.os == std::vector<int>{0, 1, 2, 3});
  CHECK(t.core == std::vector<int>{0, 0, 1, 1});
  CHECK(t.numa == std::vector<int>{0, 0, 0, 0});
  CHECK(t.l3 == std::vector<int>{-1, -1, -1, -1});
  check_consistent(m);
}

TEST_CASE("synthetic package:2 core:4 pu:2", "[topology]") {
  const auto m = pgas::machine::synthetic("package:2 core:4 pu:2");
  REQUIRE(m.pu_count() == 16);
  CHECK(m.core_count() == 8);
  CHECK(m.package_count() == 2);
  CHECK(m.numa_count() == 1);
  CHECK(m.l3_count() == 0);
  const tags t = tags_of(m);
  CHECK(t.os == each(16, [](int i) { return i; }));
  CHECK(t.core == each(16, [](int i) { return i / 2; }));
  CHECK(t.package == each(16, [](int i) { return i / 8; }));
  CHECK(t.numa == each(16, [](int) { return 0; }));
  check_consistent(m);
}

TEST_CASE("synthetic package:2 numa:2 core:4 pu:2 has four NUMA nodes", "[topology]") {
  const auto m = pgas::machine::synthetic("package:2 numa:2 core:4 pu:2");
  REQUIRE(m.pu_count() == 32);
  CHECK(m.core_count() == 16);
  CHECK(m.numa_count() == 4);
  CHECK(m.package_count() == 2);
  CHECK(m.l3_count() == 0);
  const tags t = tags_of(m);
  CHECK(t.os == each(32, [](int i) { return i; }));
  CHECK(t.core == each(32, [](int i) { return i / 2; }));
  CHECK(t.numa == each(32, [](int i) { return i / 8; }));
  CHECK(t.package == each(32, [](int i) { return i / 16; }));
  CHECK(t.l3 == each(32, [](int) { return -1; }));
  check_consistent(m);
  // The header's own example of the one-line description.
  CHECK_THAT(m.description(), Contains("32 PUs"));
  CHECK_THAT(m.description(), Contains("package:2 numa:2 core:4 pu:2"));
}

TEST_CASE("synthetic package:2 l3:2 core:4 pu:1 tags L3 caches", "[topology]") {
  const auto m = pgas::machine::synthetic("package:2 l3:2 core:4 pu:1");
  REQUIRE(m.pu_count() == 16);
  CHECK(m.core_count() == 16);
  CHECK(m.l3_count() == 4);
  CHECK(m.package_count() == 2);
  CHECK(m.numa_count() == 1);
  const tags t = tags_of(m);
  CHECK(t.core == each(16, [](int i) { return i; }));
  CHECK(t.l3 == each(16, [](int i) { return i / 4; }));
  CHECK(t.package == each(16, [](int i) { return i / 8; }));
  CHECK(t.numa == each(16, [](int) { return 0; }));
  check_consistent(m);
}

TEST_CASE("a TILE64-like mesh of 64 single-PU cores", "[topology]") {
  // hwloc requires the last level of a synthetic description to be PUs.
  const auto m = pgas::machine::synthetic("core:64 pu:1");
  REQUIRE(m.pu_count() == 64);
  CHECK(m.core_count() == 64);
  CHECK(m.numa_count() == 1);
  CHECK(m.l3_count() == 0);
  const tags t = tags_of(m);
  CHECK(t.os == each(64, [](int i) { return i; }));
  CHECK(t.core == each(64, [](int i) { return i; }));
  check_consistent(m);
}

TEST_CASE("synthetic indexes= gives OS indices that differ from logical ones", "[topology]") {
  // Hyper-threading style numbering: the two PUs of core c are CPUs c and c + 4.
  const auto m = pgas::machine::synthetic("package:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)");
  REQUIRE(m.pu_count() == 8);
  CHECK(m.core_count() == 4);
  CHECK(m.package_count() == 2);
  const tags t = tags_of(m);
  CHECK(t.os == std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7});
  CHECK(t.logical == each(8, [](int i) { return i; }));
  CHECK(t.core == each(8, [](int i) { return i / 2; }));
  CHECK(t.package == each(8, [](int i) { return i / 4; }));
  check_consistent(m);
}

TEST_CASE("a hand-made machine keeps its PUs and counts distinct tags", "[topology]") {
  // Two NUMA nodes of unequal size, one package, no L3, OS indices out of order.
  std::vector<pgas::pu_info> pus = {
      {.os_index = 0, .logical = 0, .core = 0, .l3 = -1, .numa = 0, .package = 0},
      {.os_index = 2, .logical = 1, .core = 0, .l3 = -1, .numa = 0, .package = 0},
      {.os_index = 1, .logical = 2, .core = 1, .l3 = -1, .numa = 0, .package = 0},
      {.os_index = 5, .logical = 3, .core = 2, .l3 = -1, .numa = 1, .package = 0},
  };
  const pgas::machine m(pus, "hand-made");
  REQUIRE(m.pu_count() == 4);
  CHECK(m.core_count() == 3);
  CHECK(m.numa_count() == 2);
  CHECK(m.package_count() == 1);
  CHECK(m.l3_count() == 0);
  CHECK_THAT(m.description(), Contains("hand-made"));
  CHECK_FALSE(m.is_current());
  CHECK(tags_of(m).os == std::vector<int>{0, 2, 1, 5});
  check_consistent(m);

  CHECK(pgas::machine(pus, "marked current", true).is_current());
}

TEST_CASE("malformed synthetic descriptions throw topology_error naming them", "[topology]") {
  for (const std::string bad : {"bogus:7", "core:0", "pu:abc", "core:64", "package:2 pu"}) {
    INFO("description: " << bad);
    CHECK_THROWS_AS(pgas::machine::synthetic(bad), pgas::topology_error);
    CHECK_THROWS_WITH(pgas::machine::synthetic(bad), Contains(bad));
  }
  CHECK_THROWS_AS(pgas::machine::synthetic(""), pgas::topology_error);
}

TEST_CASE("described machines have a size limit, checked before hwloc builds them", "[topology]") {
  const auto limit = std::to_string(pgas::machine::max_described_pus);
  // 100 000 PUs would take hwloc minutes; the refusal is immediate.
  CHECK_THROWS_WITH(pgas::machine::synthetic("core:50000 pu:2"),
                    Contains("has 100000 PUs; at most " + limit));
  CHECK_THROWS_WITH(pgas::machine::synthetic("package:99999999999 core:99999999999 pu:99999999"),
                    Contains("too many PUs"));
  CHECK(pgas::machine::synthetic("package:4 core:8 pu:2").pu_count() == 64);
  // Wide levels cost hwloc more than deep ones: a level is limited too (found by the fuzz suite).
  CHECK_THROWS_WITH(pgas::machine::synthetic("core:2 pu:4000"),
                    Contains("a level of 4000 objects; at most 1024 per level"));
  CHECK(pgas::machine::synthetic("core:2 pu:1024").pu_count() == 2048);
  // hwloc reads a bare number as a level: those count too (found by the fuzz suite, where
  // "7095pu5:64" kept hwloc busy for minutes).
  CHECK_THROWS_WITH(pgas::machine::synthetic("2000 pu:64"), Contains("has 128000 PUs"));
  CHECK_THROWS_AS(pgas::machine::synthetic("7095pu5:64"), pgas::topology_error);
  CHECK(pgas::machine::synthetic("2 2 2").pu_count() == 8);
  // A '(' that opens no attributes hides nothing ("pack*((( numa:2184467444" did).
  CHECK_THROWS_AS(pgas::machine::synthetic("pack*(((age:2 numa:2184467444 pu:2"),
                  pgas::topology_error);
  CHECK(pgas::machine::synthetic("package:2 l3:2 core:4 pu:2(indexes=0,8,1,9,2,10,3,11,4,12,5,13,"
                                 "6,14,7,15,16,24,17,25,18,26,19,27,20,28,21,29,22,30,23,31)")
            .pu_count() == 32);
}

TEST_CASE("an OS index in indexes= has a limit, checked before hwloc builds its bitmaps",
          "[topology]") {
  // hwloc kept a bitmap up to the index: 4000000000 took it 6 GB and 19 s (found by the fuzz
  // suite); the refusal is immediate and names the index.
  CHECK_THROWS_WITH(
      pgas::machine::synthetic("package:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,4000000000)"),
      Contains("gives the OS index 4000000000 in indexes=; at most 1048575"));
  CHECK_THROWS_WITH(
      pgas::machine::synthetic("core:2 pu:2(indexes=0,1,2,888888888888888888888888888888)"),
      Contains("OS index (too large)"));
  CHECK_THROWS_AS(pgas::machine::synthetic("numa:2(indexes=0,1048576) pu:1"), pgas::topology_error);
  // Within the limit, sparse indexes stay as given.
  const auto m = pgas::machine::synthetic("core:2 pu:1(indexes=3,1048575)");
  REQUIRE(m.pu_count() == 2);
  CHECK(tags_of(m).os == std::vector<int>{3, 1048575});
  // An interleaving's counts are small numbers, within the limit.
  CHECK(pgas::machine::synthetic("numa:2 core:2 pu:1(indexes=2*2:1*2)").pu_count() == 4);
}

TEST_CASE("a topology XML must be a regular file within the size limit", "[topology]") {
  CHECK_THROWS_WITH(pgas::machine::from_xml("/dev/zero"),
                    Contains("/dev/zero: not a regular file"));
  CHECK_THROWS_WITH(pgas::machine::from_spec("/tmp"), Contains("Is a directory"));
  char path[] = "/tmp/pgas-topology-junk-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, "not xml\n", 8) == 8);
  close(fd);
  CHECK_THROWS_AS(pgas::machine::from_xml(path), pgas::topology_error);
  std::remove(path);
}

TEST_CASE("from_spec reads synthetic: specs, quoted or not, and XML paths", "[topology]") {
  const auto plain = pgas::machine::from_spec("synthetic:core:2 pu:2");
  CHECK(plain.pu_count() == 4);
  CHECK(plain.core_count() == 2);
  CHECK_FALSE(plain.is_current());

  const auto quoted = pgas::machine::from_spec("synthetic:\"package:2 core:4 pu:2\"");
  CHECK(quoted.pu_count() == 16);
  CHECK(quoted.package_count() == 2);

  CHECK_THROWS_AS(pgas::machine::from_spec("synthetic:bogus:7"), pgas::topology_error);
  CHECK_THROWS_WITH(pgas::machine::from_spec("synthetic:bogus:7"), Contains("bogus:7"));
  CHECK_THROWS_AS(pgas::machine::from_spec("/nonexistent/pgas-topology.xml"), pgas::topology_error);
  CHECK_THROWS_AS(pgas::machine::from_xml("/nonexistent/pgas-topology.xml"), pgas::topology_error);

  const auto here = pgas::machine::from_spec("");
  CHECK(here.is_current());
  CHECK(here.pu_count() >= 1);
}

namespace {

// A fresh temporary directory holding `name`, lstopo's XML export of the synthetic machine
// `desc`; empty when lstopo (Debian package hwloc) is not installed.
std::filesystem::path lstopo_export(const std::string& desc, const std::string& name) {
  if (std::system("command -v lstopo >/dev/null 2>&1") != 0) return {};
  char dir_template[] = "/tmp/pgas-topology-test-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::filesystem::path dir = dir_template;
  const std::string cmd =
      "lstopo -i '" + desc + "' --of xml '" + (dir / name).string() + "' 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return dir;
}

}  // namespace

TEST_CASE("an XML export of a synthetic machine reads back the same", "[topology]") {
  const std::string desc = "package:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)";
  const std::filesystem::path dir = lstopo_export(desc, "machine.xml");
  if (dir.empty()) {
    WARN("lstopo (Debian package hwloc) is not installed; XML round trip skipped");
    return;
  }
  const std::string xml = (dir / "machine.xml").string();

  const auto from_file = pgas::machine::from_xml(xml);
  const auto via_spec = pgas::machine::from_spec(xml);
  const auto expected = tags_of(pgas::machine::synthetic(desc));
  std::filesystem::remove_all(dir);

  for (const auto* m : {&from_file, &via_spec}) {
    CHECK_FALSE(m->is_current());
    CHECK(m->pu_count() == 8);
    CHECK(m->core_count() == 4);
    CHECK(m->package_count() == 2);
    CHECK(m->numa_count() == 1);
    const tags t = tags_of(*m);
    CHECK(t.os == std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7});
    CHECK(t.core == each(8, [](int i) { return i / 2; }));
    CHECK(t.package == each(8, [](int i) { return i / 4; }));
    CHECK(t.os == expected.os);
    CHECK(t.core == expected.core);
    CHECK(t.numa == expected.numa);
    CHECK(t.package == expected.package);
    check_consistent(*m);
  }
}

TEST_CASE("a topology XML that contradicts itself is refused, naming the PU", "[topology]") {
  const std::filesystem::path dir = lstopo_export("package:2 numa:2 core:2 pu:2", "good.xml");
  if (dir.empty()) {
    WARN("lstopo (Debian package hwloc) is not installed; skipped");
    return;
  }
  const std::string good = (dir / "good.xml").string();
  CHECK(pgas::machine::from_xml(good).pu_count() == 16);

  std::ifstream in(good);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // hwloc keeps 32 bits of an OS index: 99999999999 becomes 1215752191, which is not the CPU
  // in the PU's cpuset (0x2). Another PU's index (0) is not either.
  for (const char* index : {"99999999999", "0"}) {
    std::string bad = text;
    const std::string pu1 = "type=\"PU\" os_index=\"1\"";
    const std::size_t at = bad.find(pu1);
    REQUIRE(at != std::string::npos);
    bad.replace(at, pu1.size(), std::string("type=\"PU\" os_index=\"") + index + "\"");
    const std::string path = (dir / "bad.xml").string();
    std::ofstream(path) << bad;
    INFO("os_index " << index);
    CHECK_THROWS_WITH(
        pgas::machine::from_xml(path),
        Contains("contradicts itself: PU L#1") && Contains("is not the one CPU of its own cpuset"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("the current machine is the CPUs this process may run on", "[topology]") {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  REQUIRE(sched_getaffinity(0, sizeof mask, &mask) == 0);
  std::vector<int> allowed;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mask)) allowed.push_back(c);

  const auto m = pgas::machine::current();
  CHECK(m.is_current());
  CHECK(m.numa_count() >= 1);
  CHECK_FALSE(m.description().empty());
  std::vector<int> os = tags_of(m).os;
  std::sort(os.begin(), os.end());
  CHECK(os == allowed);
  check_consistent(m);
}

TEST_CASE("the current machine shrinks to an inherited affinity mask", "[topology]") {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  REQUIRE(sched_getaffinity(0, sizeof mask, &mask) == 0);
  int first = 0;
  while (!CPU_ISSET(first, &mask))
    ++first;

  // In a child, so the restriction does not leak into the other tests. The child reports
  // through its exit status: 0 pass, 1 wrong machine, 2 exception, 3 setaffinity failed.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) _exit(3);
    try {
      const auto m = pgas::machine::current();
      const bool ok = m.pu_count() == 1 && m.pus()[0].os_index == first && m.core_count() == 1 &&
                      m.is_current();
      _exit(ok ? 0 : 1);
    } catch (...) {
      _exit(2);
    }
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("policy words parse and print", "[topology][policy]") {
  using pgas::bind_policy;
  using pgas::map_policy;
  CHECK(pgas::parse_bind_policy("core") == bind_policy::core);
  CHECK(pgas::parse_bind_policy("numa") == bind_policy::numa);
  CHECK(pgas::parse_bind_policy("socket") == bind_policy::socket);
  CHECK(pgas::parse_bind_policy("none") == bind_policy::none);
  CHECK(pgas::parse_map_policy("core") == map_policy::core);
  CHECK(pgas::parse_map_policy("numa") == map_policy::numa);
  CHECK(pgas::parse_map_policy("socket") == map_policy::socket);

  for (auto p : {bind_policy::core, bind_policy::numa, bind_policy::socket, bind_policy::none})
    CHECK(pgas::parse_bind_policy(pgas::to_string(p)) == p);
  for (auto p : {map_policy::core, map_policy::numa, map_policy::socket})
    CHECK(pgas::parse_map_policy(pgas::to_string(p)) == p);
  CHECK(pgas::to_string(bind_policy::socket) == "socket");
  CHECK(pgas::to_string(map_policy::numa) == "numa");
}

TEST_CASE("bad policy words name themselves and the accepted words", "[topology][policy]") {
  CHECK_THROWS_AS(pgas::parse_bind_policy("banana"), std::invalid_argument);
  for (const char* word : {"banana", "core", "numa", "socket", "none"})
    CHECK_THROWS_WITH(pgas::parse_bind_policy("banana"), Contains(word));

  // "none" binds nothing but is not a way to map threads.
  CHECK_THROWS_AS(pgas::parse_map_policy("none"), std::invalid_argument);
  CHECK_THROWS_AS(pgas::parse_map_policy("banana"), std::invalid_argument);
  for (const char* word : {"banana", "core", "numa", "socket"})
    CHECK_THROWS_WITH(pgas::parse_map_policy("banana"), Contains(word));

  CHECK_THROWS_AS(pgas::parse_bind_policy(""), std::invalid_argument);
  CHECK_THROWS_AS(pgas::parse_map_policy(""), std::invalid_argument);
  CHECK_THROWS_AS(pgas::parse_bind_policy("core "), std::invalid_argument);
}

TEST_CASE("cpu_list folds runs of CPUs into ranges", "[topology]") {
  CHECK(pgas::cpu_list({}) == "-");
  CHECK(pgas::cpu_list({3}) == "3");
  CHECK(pgas::cpu_list({0, 1, 2, 5}) == "0-2,5");
  CHECK(pgas::cpu_list({0, 2, 4}) == "0,2,4");
  CHECK(pgas::cpu_list({0, 1}) == "0-1");
  CHECK(pgas::cpu_list({1, 3, 4, 5, 7, 8}) == "1,3-5,7-8");
  CHECK(pgas::cpu_list(each(32, [](int i) { return i; })) == "0-31");
  CHECK(pgas::cpu_list({0, 1, 4, 5}) == "0-1,4-5");
}

TEST_CASE("each PU carries its NUMA node's OS number", "[topology]") {
  // Synthetic nodes are numbered as they are laid out, so OS numbers equal logical indices;
  // the current machine's PUs all have a node OS number as well.
  const auto m = pgas::machine::synthetic("package:2 numa:2 core:2 pu:1");
  for (const auto& p : m.pus())
    CHECK(p.numa_os == p.numa);
  const auto here = pgas::machine::current();  // named: pus() refers into it
  for (const auto& p : here.pus())
    CHECK(p.numa_os >= 0);
}
