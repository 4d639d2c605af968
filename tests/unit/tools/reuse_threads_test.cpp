// tests/unit/tools/reuse_threads_test.cpp — choosing training threads (tools/reuse_threads.hpp)
// on the worked example of a blocked LU: runs of 16 and 25 threads predict 36, threads with
// blocks on the diagonal do extra work, and the diagonal pattern (0 on the diagonal of the
// square thread grid, 1 off it) picks threads 5 and 6 for the diagonal threads of 36 and
// threads 1 and 1 for the others; thread 0 comes from thread 0. And training on 2 threads
// with pattern line, which has no inner thread: stand-ins (threads that behave alike), the
// 4-thread run alone (nothing changes with the thread count), or a refusal.

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "reuse_file.hpp"
#include "reuse_threads.hpp"

using namespace pgas::tools;

namespace {

reuse_histogram histogram(int thread, int site, std::uint64_t min, std::uint64_t max,
                          std::uint64_t count) {
  return {thread, site, count + 1, 1, {{reuse_bin_of(min), count, min, max, double(min)}}};
}

// An LU run on a square of n threads: every thread updates (site 0, the same distances);
// threads on the diagonal also factor (site 1), their share 3600 / n of the factoring.
reuse_recording lu_run(int n) {
  reuse_recording r;
  r.program = "/bin/lu";
  r.threads = n;
  r.size = 64;
  r.grain = "element";
  r.grain_bytes = 8;
  r.mode = "exact";
  r.sites = {{"lu.cpp", 50, "update", "element"}, {"lu.cpp", 30, "factor", "bulk"}};
  const int s = static_cast<int>(std::lround(std::sqrt(n)));
  for (int t = 0; t < n; ++t) {
    r.histograms.push_back(histogram(t, 0, 16, 31, 100));
    if (t / s == t % s) r.histograms.push_back(histogram(t, 1, 32, 63, 3600 / n));
  }
  return r;
}

// A run of n threads on a line (pattern line). Every thread reads at one distance, and
// `first(t, n)` first accesses.
template <class First>
reuse_recording line_run(int n, First first) {
  reuse_recording r = lu_run(1);
  r.threads = n;
  r.histograms.clear();
  for (int t = 0; t < n; ++t) {
    reuse_histogram h = histogram(t, 0, 16, 31, 100);
    h.infinite = first(t, n);
    h.accesses = h.infinite + 100;
    r.histograms.push_back(h);
  }
  return r;
}

}  // namespace

TEST_CASE("pattern functions", "[reuse]") {
  // 16 threads: the diagonal is 0, 5, 10, 15.
  std::vector<int> diagonal;
  for (int t = 0; t < 16; ++t) {
    if (pattern_value(thread_pattern::diagonal, t, 16) == 0) diagonal.push_back(t);
  }
  CHECK(diagonal == std::vector<int>{0, 5, 10, 15});
  // A 4 x 4 grid: corners, edges, diagonal and triangles.
  std::vector<int> grid;
  for (int t = 0; t < 16; ++t)
    grid.push_back(pattern_value(thread_pattern::grid, t, 16));
  CHECK(grid == std::vector<int>{0, 4, 4, 1, 6, 8, 9, 7, 6, 10, 8, 7, 2, 5, 5, 3});
  CHECK(pattern_value(thread_pattern::line, 0, 5) == 0);
  CHECK(pattern_value(thread_pattern::line, 4, 5) == 1);
  CHECK(pattern_value(thread_pattern::line, 2, 5) == 2);
  CHECK_THROWS_AS(pattern_value(thread_pattern::diagonal, 1, 12), reuse_error);
  thread_pattern p{};
  CHECK(parse_thread_pattern("grid", p));
  CHECK(p == thread_pattern::grid);
  CHECK_FALSE(parse_thread_pattern("square", p));
}

TEST_CASE("the LU example: groups, match and selection", "[reuse]") {
  const reuse_recording test = lu_run(16), train = lu_run(25);
  const auto test_groups = partition_threads(test);
  REQUIRE(test_groups.size() == 2);
  CHECK(test_groups[0] == std::vector<int>{1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14});
  CHECK(test_groups[1] == std::vector<int>{5, 10, 15});
  const auto train_groups = partition_threads(train);
  REQUIRE(train_groups.size() == 2);
  CHECK(train_groups[1] == std::vector<int>{6, 12, 18, 24});
  CHECK(train_groups[0].size() == 20);

  const std::map<int, int> m0 = match_pattern(test, "t16", test_groups, thread_pattern::diagonal);
  const std::map<int, int> m1 = match_pattern(train, "t25", train_groups, thread_pattern::diagonal);
  CHECK(m0 == std::map<int, int>{{0, 5}, {1, 1}});
  CHECK(m1 == std::map<int, int>{{0, 6}, {1, 1}});

  // The selection for 36 threads, as the worked example's table lists it.
  const auto from =
      select_training({test, train}, thread_pattern::diagonal, 36, {m0, m1}, {"t16", "t25"});
  REQUIRE(from.size() == 36);
  for (int t = 0; t < 36; ++t) {
    INFO("thread " << t);
    const std::vector<int> expected = t == 0 ? std::vector<int>{0, 0}
                                      : t == 7 || t == 14 || t == 21 || t == 28 || t == 35
                                          ? std::vector<int>{5, 6}
                                          : std::vector<int>{1, 1};
    CHECK(from[static_cast<std::size_t>(t)] == expected);
  }

  SECTION("the prediction: the diagonal threads factor, at distances fitted on n") {
    std::vector<std::vector<int>> chosen;
    std::vector<prediction_note> notes;
    const reuse_recording p =
        predict_threads({test, train}, {"t16", "t25"}, 36, thread_pattern::diagonal, chosen, notes);
    CHECK(chosen == from);
    CHECK(p.threads == 36);
    int factoring = 0;
    for (const reuse_histogram& h : p.histograms) {
      if (p.sites[static_cast<std::size_t>(h.site)].function != "factor") continue;
      ++factoring;
      CHECK(h.bins.front().count == 100);
    }
    CHECK(factoring == 6);
  }
}

TEST_CASE("a pattern that does not describe the run is refused", "[reuse]") {
  reuse_recording run = lu_run(16);
  // Thread 6 (off the diagonal) now behaves like the diagonal threads.
  run.histograms.insert(run.histograms.begin() + 9, histogram(6, 1, 32, 63, 160));
  const auto groups = partition_threads(run);
  try {
    match_pattern(run, "t16", groups, thread_pattern::diagonal);
    FAIL("no error");
  } catch (const reuse_error& e) {
    CHECK(std::string(e.what()).find(
              "t16: threads 1 and 6 share value 1 (off the diagonal) of pattern diagonal") !=
          std::string::npos);
  }
  // Behaviour within 5 % is one group; 6 % apart is two.
  reuse_recording near = lu_run(4);
  near.histograms[3] = histogram(2, 0, 16, 31, 104);
  CHECK(partition_threads(near).size() == 2);
  near.histograms[3] = histogram(2, 0, 16, 31, 107);
  CHECK(partition_threads(near).size() == 3);
}

TEST_CASE("pattern line trains on 2 threads", "[reuse]") {
  const auto select = [](const reuse_recording& two, const reuse_recording& four) {
    const std::vector<std::map<int, int>> maps = {
        match_pattern(two, "n2", partition_threads(two), thread_pattern::line),
        match_pattern(four, "n4", partition_threads(four), thread_pattern::line)};
    return select_training({two, four}, thread_pattern::line, 8, maps, {"n2", "n4"});
  };
  SECTION("threads that behave alike stand in for each other (every thread alike)") {
    const auto same = [](int, int) { return std::uint64_t{64}; };
    const auto from = select(line_run(2, same), line_run(4, same));
    CHECK(from[1] == std::vector<int>{1, 1});  // inner: the 2-thread run's last thread
    CHECK(from[7] == std::vector<int>{1, 3});
  }
  SECTION("inner threads unlike the edges come from the 4-thread run alone") {
    // A neighbour exchange: inner threads read two halos, the edges one, whatever the count.
    const auto halos = [](int t, int n) { return std::uint64_t(t == 0 || t == n - 1 ? 64 : 128); };
    const reuse_recording two = line_run(2, halos), four = line_run(4, halos);
    const auto from = select(two, four);
    CHECK(from[1] == std::vector<int>{-1, 1});
    CHECK(from[6] == std::vector<int>{-1, 1});
    CHECK(from[7] == std::vector<int>{1, 3});
    std::vector<std::vector<int>> chosen;
    std::vector<prediction_note> notes;
    const reuse_recording p =
        predict_threads({two, four}, {"n2", "n4"}, 8, thread_pattern::line, chosen, notes);
    CHECK(chosen == from);
    for (const reuse_histogram& h : p.histograms) {
      INFO("thread " << h.thread);
      CHECK(h.infinite == (h.thread == 0 || h.thread == 7 ? 64 : 128));
    }
  }
  SECTION("behaviour that changes with the thread count is refused") {
    // The last thread's first accesses grow with n: the 4-thread inner thread cannot be
    // taken as it is.
    const auto growing = [](int t, int n) {
      return std::uint64_t(t == n - 1 ? 32 * n : t == 0 ? 64 : 256);
    };
    try {
      select(line_run(2, growing), line_run(4, growing));
      FAIL("no error");
    } catch (const reuse_error& e) {
      CHECK(std::string(e.what()).find("thread 1 of 8 has value 2 (inner) of pattern line, "
                                       "which no thread of n2 has") != std::string::npos);
      CHECK(std::string(e.what()).find("n2's last thread 1 behaves unlike n4's thread 3") !=
            std::string::npos);
    }
  }
}
