// Tests src/models/placement.cpp: pgas::place, the pure function from (machine, threads, bind, map)
// to each thread's home PU and CPU set. Fixed cases are worked out by hand from the rules in
// include/pgas/topology.hpp (map core: PU t mod PUs; map numa/socket: domain t mod D, then the
// (t div D)-th PU of that domain); property tests check invariants on random synthetic machines.

#include <pgas/topology.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using pgas::bind_policy;
using pgas::map_policy;

constexpr bind_policy all_binds[] = {bind_policy::core, bind_policy::numa, bind_policy::socket,
                                     bind_policy::none};
constexpr map_policy all_maps[] = {map_policy::core, map_policy::numa, map_policy::socket};

// {lo, lo+1, ..., hi}
std::vector<int> span(int lo, int hi) {
  std::vector<int> v;
  for (int i = lo; i <= hi; ++i)
    v.push_back(i);
  return v;
}

std::vector<int> homes(const std::vector<pgas::thread_place>& plan) {
  std::vector<int> v;
  for (const auto& p : plan)
    v.push_back(p.pu);
  return v;
}

bool same(const std::vector<pgas::thread_place>& a, const std::vector<pgas::thread_place>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.thread == y.thread && x.pu == y.pu && x.cpus == y.cpus;
  });
}

// Checks `plan` against hand-computed home PUs and CPU sets, thread by thread.
void check_plan(const std::vector<pgas::thread_place>& plan, const std::vector<int>& pu,
                const std::vector<std::vector<int>>& cpus) {
  REQUIRE(plan.size() == pu.size());
  REQUIRE(cpus.size() == pu.size());
  for (std::size_t t = 0; t < plan.size(); ++t) {
    INFO("thread " << t);
    CHECK(plan[t].thread == static_cast<int>(t));
    CHECK(plan[t].pu == pu[t]);
    CHECK(plan[t].cpus == cpus[t]);
  }
}

// The OS indices of every PU whose `field` equals that of PU `home`, sorted.
template <class Field>
std::vector<int> sharing(const pgas::machine& m, int home, Field field) {
  std::vector<int> v;
  for (const auto& p : m.pus())
    if (field(p) == field(m.pus()[home])) v.push_back(p.os_index);
  std::sort(v.begin(), v.end());
  return v;
}

pgas::pu_info pu(int os, int logical, int core, int numa) {
  return {.os_index = os, .logical = logical, .core = core, .l3 = -1, .numa = numa, .package = 0};
}

}  // namespace

// "package:2 numa:2 core:4 pu:2": 32 PUs, OS index = logical index i, core i/2, NUMA node
// i/8 (eight PUs each), package i/16 (sixteen PUs each).
TEST_CASE("8 threads on package:2 numa:2 core:4 pu:2, every map and bind", "[placement]") {
  const auto m = pgas::machine::synthetic("package:2 numa:2 core:4 pu:2");
  REQUIRE(m.pu_count() == 32);
  const std::vector<std::vector<int>> unbound(8);

  SECTION("map core: threads fill PUs 0..7 in order") {
    const std::vector<int> pu = {0, 1, 2, 3, 4, 5, 6, 7};
    check_plan(pgas::place(m, 8, bind_policy::core, map_policy::core), pu,
               {{0, 1}, {0, 1}, {2, 3}, {2, 3}, {4, 5}, {4, 5}, {6, 7}, {6, 7}});
    check_plan(pgas::place(m, 8, bind_policy::numa, map_policy::core), pu,
               std::vector<std::vector<int>>(8, span(0, 7)));
    check_plan(pgas::place(m, 8, bind_policy::socket, map_policy::core), pu,
               std::vector<std::vector<int>>(8, span(0, 15)));
    check_plan(pgas::place(m, 8, bind_policy::none, map_policy::core), pu, unbound);
  }

  SECTION("map numa: thread t on node t%4, PU 8*(t%4) + t/4") {
    const std::vector<int> pu = {0, 8, 16, 24, 1, 9, 17, 25};
    check_plan(pgas::place(m, 8, bind_policy::core, map_policy::numa), pu,
               {{0, 1}, {8, 9}, {16, 17}, {24, 25}, {0, 1}, {8, 9}, {16, 17}, {24, 25}});
    check_plan(pgas::place(m, 8, bind_policy::numa, map_policy::numa), pu,
               {span(0, 7), span(8, 15), span(16, 23), span(24, 31), span(0, 7), span(8, 15),
                span(16, 23), span(24, 31)});
    check_plan(pgas::place(m, 8, bind_policy::socket, map_policy::numa), pu,
               {span(0, 15), span(0, 15), span(16, 31), span(16, 31), span(0, 15), span(0, 15),
                span(16, 31), span(16, 31)});
    check_plan(pgas::place(m, 8, bind_policy::none, map_policy::numa), pu, unbound);
  }

  SECTION("map socket: thread t on package t%2, PU 16*(t%2) + t/2") {
    const std::vector<int> pu = {0, 16, 1, 17, 2, 18, 3, 19};
    check_plan(pgas::place(m, 8, bind_policy::core, map_policy::socket), pu,
               {{0, 1}, {16, 17}, {0, 1}, {16, 17}, {2, 3}, {18, 19}, {2, 3}, {18, 19}});
    check_plan(pgas::place(m, 8, bind_policy::numa, map_policy::socket), pu,
               {span(0, 7), span(16, 23), span(0, 7), span(16, 23), span(0, 7), span(16, 23),
                span(0, 7), span(16, 23)});
    check_plan(pgas::place(m, 8, bind_policy::socket, map_policy::socket), pu,
               {span(0, 15), span(16, 31), span(0, 15), span(16, 31), span(0, 15), span(16, 31),
                span(0, 15), span(16, 31)});
    check_plan(pgas::place(m, 8, bind_policy::none, map_policy::socket), pu, unbound);
  }
}

TEST_CASE("one thread goes to the first PU under every map policy", "[placement]") {
  const auto m = pgas::machine::synthetic("package:2 numa:2 core:4 pu:2");
  for (auto map : all_maps) {
    INFO("map " << pgas::to_string(map));
    check_plan(pgas::place(m, 1, bind_policy::core, map), {0}, {{0, 1}});
    check_plan(pgas::place(m, 1, bind_policy::numa, map), {0}, {span(0, 7)});
    check_plan(pgas::place(m, 1, bind_policy::socket, map), {0}, {span(0, 15)});
    check_plan(pgas::place(m, 1, bind_policy::none, map), {0}, std::vector<std::vector<int>>(1));
  }
}

TEST_CASE("more threads than PUs wrap around", "[placement]") {
  const auto two = pgas::machine::synthetic("pu:2");
  CHECK(pgas::oversubscribed(two, 3));
  CHECK_FALSE(pgas::oversubscribed(two, 2));
  for (auto map : all_maps) {
    INFO("map " << pgas::to_string(map));
    // One NUMA node, so numa and socket mapping degenerate to filling PUs in order.
    check_plan(pgas::place(two, 5, bind_policy::numa, map), {0, 1, 0, 1, 0},
               std::vector<std::vector<int>>(5, {0, 1}));
    check_plan(pgas::place(two, 5, bind_policy::none, map), {0, 1, 0, 1, 0},
               std::vector<std::vector<int>>(5));
  }

  const auto cores = pgas::machine::synthetic("core:2 pu:1");
  check_plan(pgas::place(cores, 5, bind_policy::core, map_policy::core), {0, 1, 0, 1, 0},
             {{0}, {1}, {0}, {1}, {0}});

  // 40 threads on 32 PUs with map numa: thread t → node t%4, PU (t/4)%8 of that node.
  const auto m = pgas::machine::synthetic("package:2 numa:2 core:4 pu:2");
  const auto plan = pgas::place(m, 40, bind_policy::none, map_policy::numa);
  REQUIRE(plan.size() == 40);
  CHECK(plan[31].pu == 31);  // node 3, 7th PU
  CHECK(plan[32].pu == 0);   // node 0, wraps to its first PU
  CHECK(plan[33].pu == 8);
  CHECK(plan[39].pu == 25);  // node 3, PU (39/4)%8 = 1
}

TEST_CASE("bind lists OS indices, sorted, when they differ from logical ones", "[placement]") {
  // PU L#i has OS index {0,4,1,5,2,6,3,7}[i]; core i/2, package i/4.
  const auto m = pgas::machine::synthetic("package:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)");
  REQUIRE(m.pu_count() == 8);
  check_plan(pgas::place(m, 4, bind_policy::core, map_policy::core), {0, 1, 2, 3},
             {{0, 4}, {0, 4}, {1, 5}, {1, 5}});
  check_plan(pgas::place(m, 4, bind_policy::socket, map_policy::core), {0, 1, 2, 3},
             std::vector<std::vector<int>>(4, {0, 1, 4, 5}));
  // map socket: thread t → package t%2, its (t/2)-th PU: L#0, L#4, L#1, L#5.
  check_plan(pgas::place(m, 4, bind_policy::socket, map_policy::socket), {0, 4, 1, 5},
             {{0, 1, 4, 5}, {2, 3, 6, 7}, {0, 1, 4, 5}, {2, 3, 6, 7}});
  check_plan(pgas::place(m, 4, bind_policy::core, map_policy::socket), {0, 4, 1, 5},
             {{0, 4}, {2, 6}, {0, 4}, {2, 6}});
}

TEST_CASE("map numa on uneven NUMA nodes skips full nodes", "[placement]") {
  // Node 0 has four PUs (L#0..3), node 1 two (L#4..5); every PU is its own core.
  const pgas::machine m({pu(0, 0, 0, 0), pu(1, 1, 1, 0), pu(2, 2, 2, 0), pu(3, 3, 3, 0),
                         pu(4, 4, 4, 1), pu(5, 5, 5, 1)},
                        "uneven");
  check_plan(pgas::place(m, 4, bind_policy::numa, map_policy::numa), {0, 4, 1, 5},
             {span(0, 3), span(4, 5), span(0, 3), span(4, 5)});
  // Node 1 is full after threads 1 and 3, so the deal skips it: threads 4 and 5 take the
  // free L#2 and L#3 rather than doubling up on node 1 while node 0 has idle PUs.
  check_plan(pgas::place(m, 6, bind_policy::core, map_policy::numa), {0, 4, 1, 5, 2, 3},
             {{0}, {4}, {1}, {5}, {2}, {3}});
  // Past one thread per PU the same sequence repeats.
  check_plan(pgas::place(m, 8, bind_policy::core, map_policy::numa), {0, 4, 1, 5, 2, 3, 0, 4},
             {{0}, {4}, {1}, {5}, {2}, {3}, {0}, {4}});
}

TEST_CASE("a machine without NUMA information is one NUMA domain", "[placement]") {
  const pgas::machine m({pu(0, 0, 0, -1), pu(1, 1, 0, -1), pu(2, 2, 1, -1), pu(3, 3, 1, -1)},
                        "no NUMA");
  for (auto map : {map_policy::core, map_policy::numa}) {
    INFO("map " << pgas::to_string(map));
    check_plan(pgas::place(m, 3, bind_policy::core, map), {0, 1, 2}, {{0, 1}, {0, 1}, {2, 3}});
    check_plan(pgas::place(m, 3, bind_policy::numa, map), {0, 1, 2},
               std::vector<std::vector<int>>(3, span(0, 3)));
  }
}

TEST_CASE("placement invariants on random synthetic machines", "[placement][property]") {
  std::mt19937 rng(Catch::rngSeed() ? Catch::rngSeed() : 20240521u);
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };

  for (int round = 0; round < 60; ++round) {
    const int packages = draw(1, 4), numas = draw(1, 2), cores = draw(1, 8), pus = draw(1, 2);
    const std::string desc = "package:" + std::to_string(packages) +
                             " numa:" + std::to_string(numas) + " core:" + std::to_string(cores) +
                             " pu:" + std::to_string(pus);
    const auto m = pgas::machine::synthetic(desc);
    const int n = m.pu_count();
    REQUIRE(n == packages * numas * cores * pus);
    REQUIRE(m.numa_count() == packages * numas);
    REQUIRE(m.package_count() == packages);

    for (int trial = 0; trial < 4; ++trial) {
      const int threads = trial == 0 ? n : draw(1, 3 * n);
      for (auto map : all_maps) {
        std::vector<int> home_by_bind;
        for (auto bind : all_binds) {
          INFO(desc << ", " << threads << " threads, map " << pgas::to_string(map) << ", bind "
                    << pgas::to_string(bind));
          const auto plan = pgas::place(m, threads, bind, map);
          REQUIRE(static_cast<int>(plan.size()) == threads);
          CHECK(same(pgas::place(m, threads, bind, map), plan));  // pure

          // Binding never changes where a thread lives.
          if (home_by_bind.empty()) home_by_bind = homes(plan);
          CHECK(homes(plan) == home_by_bind);

          std::map<int, int> per_numa, per_package;
          std::set<int> used;
          for (int t = 0; t < threads; ++t) {
            const auto& p = plan[t];
            INFO("thread " << t);
            CHECK(p.thread == t);
            REQUIRE(p.pu >= 0);
            REQUIRE(p.pu < n);
            const auto& home = m.pus()[p.pu];
            used.insert(p.pu);
            ++per_numa[home.numa];
            ++per_package[home.package];
            if (map == map_policy::core) CHECK(p.pu == t % n);

            switch (bind) {
              case bind_policy::none:
                CHECK(p.cpus.empty());
                break;
              case bind_policy::core:
                CHECK(p.cpus == sharing(m, p.pu, [](const pgas::pu_info& q) { return q.core; }));
                break;
              case bind_policy::numa:
                CHECK(p.cpus == sharing(m, p.pu, [](const pgas::pu_info& q) { return q.numa; }));
                break;
              case bind_policy::socket:
                CHECK(p.cpus == sharing(m, p.pu, [](const pgas::pu_info& q) { return q.package; }));
                break;
            }
            if (bind != bind_policy::none)
              CHECK(std::find(p.cpus.begin(), p.cpus.end(), home.os_index) != p.cpus.end());
          }
          if (threads <= n) CHECK(static_cast<int>(used.size()) == threads);
          if (threads >= n) CHECK(static_cast<int>(used.size()) == n);

          // Round-robin over domains: every domain gets floor or ceil of threads / domains.
          auto balanced = [](const std::map<int, int>& count, int domains, int threads) {
            const int lo = threads / domains, hi = (threads + domains - 1) / domains;
            if (static_cast<int>(count.size()) != std::min(domains, threads)) return false;
            return std::all_of(count.begin(), count.end(),
                               [&](const auto& kv) { return kv.second == lo || kv.second == hi; });
          };
          if (map == map_policy::numa) CHECK(balanced(per_numa, m.numa_count(), threads));
          if (map == map_policy::socket) CHECK(balanced(per_package, packages, threads));
        }
      }
    }
  }
}
