// The connected-components kernel (kernels/cc.cpp) through pgasrun: every variant at 1-3
// threads reports the kernel contract's JSON line, verified, with the number of components a
// breadth-first search here finds in the same graph (generated from the kernel's description:
// edge e joins (h >> 32) % n and (h & 0xffffffff) % n, h = splitmix64(seed + e)); sizes where
// a thread owns one vertex or none; and its usage errors. Meson passes PGASRUN and CC.
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/kernels/app_run.hpp"

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

// Components of the kernel's graph of n vertices and 4n edges.
std::size_t components(std::size_t n) {
  std::vector<std::vector<std::size_t>> adj(n);
  for (std::uint64_t e = 0; e < 4 * n; ++e) {
    const std::uint64_t h = splitmix64(0x5eedcc000001 + e);
    const std::size_t u = (h >> 32) % n, v = (h & 0xffffffff) % n;
    adj[u].push_back(v);
    adj[v].push_back(u);
  }
  std::vector<bool> seen(n, false);
  std::size_t count = 0;
  for (std::size_t s = 0; s < n; ++s) {
    if (seen[s]) continue;
    ++count;
    std::queue<std::size_t> q;
    q.push(s);
    seen[s] = true;
    while (!q.empty()) {
      const std::size_t x = q.front();
      q.pop();
      for (std::size_t y : adj[x]) {
        if (!seen[y]) {
          seen[y] = true;
          q.push(y);
        }
      }
    }
  }
  return count;
}

// Runs cc and checks its JSON line against the graph's component count.
void check_cc(const char* variant, int threads, std::size_t n, std::size_t want) {
  INFO(variant << " at " << threads << " threads, " << n << " vertices");
  const nlohmann::json j = app_test::run_kernel("CC", "cc", variant, threads,
                                                "--size " + std::to_string(n) + " --reps 1");
  CHECK(j["size"] == n);
  CHECK(j["edges"] == 4 * n);
  CHECK(j["components"] == want);
}

}  // namespace

TEST_CASE("cc: every variant finds the components of the graph at 1-3 threads", "[cc]") {
  const std::size_t want = components(2000);
  for (const char* variant : {"seq", "naive", "cached", "coalesced", "openmp"}) {
    for (int threads = 1; threads <= 3; ++threads)
      check_cc(variant, threads, 2000, want);
  }
}

TEST_CASE("cc: threads that own one vertex or none", "[cc]") {
  for (const std::size_t n : {std::size_t{1}, std::size_t{5}}) {
    for (const char* variant : {"naive", "cached", "coalesced"})
      check_cc(variant, 3, n, components(n));
  }
}

TEST_CASE("cc refuses the variants it does not have and a size of 0 with status 2", "[cc]") {
  for (const char* args : {"--variant tables", "--variant privatized", "--variant seq --size 0"}) {
    INFO(args);
    const app_test::app_output out = app_test::run_app("CC", 1, args);
    INFO(out.text);
    CHECK(out.status == 2);
  }
  const app_test::app_output out = app_test::run_app("CC", 1, "--variant auto");
  CHECK(out.status == 2);
  CHECK(out.text.find("auto not in {seq,naive,cached,coalesced,openmp}") != std::string::npos);
}
