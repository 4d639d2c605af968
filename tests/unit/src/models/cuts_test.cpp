// Tests src/models/cuts.cpp, the locality-cut model (pgas/cuts.hpp): the runs against brute force
// (every iteration's owner and offset from layout::place) on random tiled and block-cyclic
// layouts of ranks 1–4 at 1–17 threads with several offsets in −2..2, at thread and node
// granularity; the paper's worked example (shared [2][3] int A[8][9], 8 threads, 2 per node,
// k = [1, 2]: Cut_0 = 1, Cut^Upper = 4, Cut^Lower = 1) exactly; and each misuse, which outside a
// job throws pgas::usage_error naming the problem.

#include <pgas/cut_model.hpp>
#include <pgas/error.hpp>

#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using Catch::Matchers::Contains;
using pgas::block_spec;
using pgas::cut_plan;
using pgas::layout;
using sizes = std::vector<std::size_t>;

// Checks every run of `thread` against the layout, and that the runs cover exactly the thread's
// iterations of the box, each once.
void check_against_places(const layout& l, const pgas::box& b, const pgas::offsets& k, int thread,
                          int tpn) {
  const cut_plan plan(l, b, k, thread, {.threads_per_node = tpn});
  const std::size_t rank = l.rank();
  std::vector<int> seen(l.size(), 0);
  std::size_t local_iterations = 0;
  for (const pgas::cut_run& r : plan.runs()) {
    const auto targets = plan.targets(r);
    bool all_local = true;
    for (const auto& t : targets)
      all_local = all_local && t.local;
    REQUIRE(r.local == all_local);
    sizes i(r.lo.begin(), r.lo.begin() + static_cast<std::ptrdiff_t>(rank));
    for (;;) {
      const pgas::element_place mine = l.place(i);
      REQUIRE(mine.thread == thread);
      std::size_t rel = 0;
      for (std::size_t d = 0; d < rank; ++d)
        rel += (i[d] - r.lo[d]) * plan.strides()[d];
      REQUIRE(mine.offset == r.offset + rel);
      ++seen[l.linear(i)];
      for (std::size_t a = 0; a < k.size(); ++a) {
        sizes at(rank);
        for (std::size_t d = 0; d < rank; ++d)
          at[d] = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i[d]) + k[a][d]);
        const pgas::element_place p = l.place(at);
        REQUIRE(p.thread == targets[a].owner);
        REQUIRE(p.offset == targets[a].offset + rel);
        REQUIRE(targets[a].local == (p.thread / tpn == thread / tpn));
      }
      if (r.local) ++local_iterations;
      std::size_t d = rank;
      while (d-- > 0) {
        if (++i[d] < r.hi[d]) break;
        i[d] = r.lo[d];
      }
      if (d == static_cast<std::size_t>(-1)) break;
    }
  }
  REQUIRE(plan.local_iterations() == local_iterations);
  // size() counts the walk; a second walk, and a copied iterator, give the same runs.
  std::size_t walked = 0;
  auto again = plan.runs().begin();
  for (const pgas::cut_run& r : plan.runs()) {
    REQUIRE(again != plan.runs().end());
    const pgas::cut_run copy = *again++;
    REQUIRE(copy.lo == r.lo);
    REQUIRE(copy.offset == r.offset);
    ++walked;
  }
  REQUIRE(again == plan.runs().end());
  REQUIRE(walked == plan.runs().size());
  REQUIRE(plan.runs().empty() == (walked == 0));
  // Every iteration of the box that the thread owns, once; none other.
  sizes i(rank);
  for (std::size_t d = 0; d < rank; ++d)
    i[d] = static_cast<std::size_t>(b[d].lo);
  std::size_t owned = 0;
  bool empty = false;
  for (std::size_t d = 0; d < rank; ++d)
    empty = empty || b[d].lo == b[d].hi;
  while (!empty) {
    const bool mine = l.place(i).thread == thread;
    REQUIRE(seen[l.linear(i)] == (mine ? 1 : 0));
    owned += mine ? 1 : 0;
    std::size_t d = rank;
    while (d-- > 0) {
      if (++i[d] < static_cast<std::size_t>(b[d].hi)) break;
      i[d] = static_cast<std::size_t>(b[d].lo);
    }
    if (d == static_cast<std::size_t>(-1)) break;
  }
  REQUIRE(plan.iterations() == owned);
}

TEST_CASE("cut_plan's runs match every iteration's places on random layouts") {
  std::mt19937 rng(20261128);
  const auto pick = [&](std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t rank = pick(1, 4);
    const std::size_t max_extent = rank == 1 ? 40 : rank == 2 ? 14 : rank == 3 ? 8 : 6;
    sizes ext(rank);
    sizes tile(rank);
    for (std::size_t d = 0; d < rank; ++d) {
      ext[d] = pick(3, max_extent);
      tile[d] = pick(1, 4);
    }
    const int threads = static_cast<int>(pick(1, 17));
    block_spec spec = block_spec::tiles(tile);
    if (trial % 5 == 0) {
      // Block-cyclic: a divisor of the last extent, or whole trailing rows.
      std::size_t blk = pick(1, ext[rank - 1]);
      while (ext[rank - 1] % blk != 0)
        --blk;
      if (rank > 1 && trial % 10 == 0) blk = ext[rank - 1] * pick(1, 2);
      if (rank > 2 || (rank == 2 && blk > ext[1] && ext[0] % (blk / ext[1]) != 0))
        blk = ext[rank - 1];
      spec = block_spec::cyclic(blk);
    }
    const layout l(ext, spec, threads);
    const std::size_t accesses = pick(1, 4);
    std::vector<std::vector<std::ptrdiff_t>> ks(accesses);
    std::vector<pgas::interval> dims(rank);
    std::vector<std::ptrdiff_t> lo_margin(rank, 0);
    std::vector<std::ptrdiff_t> hi_margin(rank, 0);
    for (auto& k : ks) {
      k.resize(rank);
      for (std::size_t d = 0; d < rank; ++d) {
        k[d] = static_cast<std::ptrdiff_t>(pick(0, 4)) - 2;
        lo_margin[d] = std::max(lo_margin[d], -k[d]);
        hi_margin[d] = std::max(hi_margin[d], k[d]);
      }
    }
    for (std::size_t d = 0; d < rank; ++d) {
      const auto e = static_cast<std::ptrdiff_t>(ext[d]);
      const std::ptrdiff_t first = lo_margin[d];
      const std::ptrdiff_t end = e - hi_margin[d];
      const std::ptrdiff_t a = first + static_cast<std::ptrdiff_t>(pick(0, 2));
      const std::ptrdiff_t b = end - static_cast<std::ptrdiff_t>(pick(0, 2));
      dims[d] = a < b ? pgas::interval(a, b) : pgas::interval(first, std::max(first, end));
    }
    const pgas::box b(dims);
    const pgas::offsets k(ks);
    const int tpn = trial % 3 == 0 ? static_cast<int>(pick(2, 4)) : 1;
    INFO("trial " << trial << ": " << l.declaration("int", "A") << " at " << threads << " threads, "
                  << accesses << " accesses, " << tpn << " per node");
    for (int t = 0; t < threads; ++t)
      check_against_places(l, b, k, t, tpn);
  }
}

TEST_CASE("cut_plan's tiles of one kind (first, between, last) repeat its first tile's runs") {
  // Many tiles between the box's first and last along each dimension, offsets within a tile and
  // beyond one (whole tiles and a remainder), a partial last tile: each tile of a kind copies
  // the runs of the kind's first tile, moved, and must still match the layout everywhere.
  const layout l({40, 41}, block_spec::tiles({3, 4}), 5);
  const pgas::offsets k{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {0, 0}, {5, -6}, {-7, 9}};
  for (int t = 0; t < 5; ++t) {
    check_against_places(l, pgas::box{{7, 33}, {6, 32}}, k, t, 1);
    check_against_places(l, pgas::box{{7, 33}, {6, 32}}, k, t, 2);
  }
  const layout cube({13, 14, 15}, block_spec::tiles({2, 3, 4}), 7);
  const pgas::offsets k3{{-1, 0, 2}, {1, -1, 0}, {0, 3, -5}};
  for (int t = 0; t < 7; ++t)
    check_against_places(cube, pgas::box{{1, 12}, {1, 11}, {5, 10}}, k3, t, 3);
}

TEST_CASE("cut_plan on an indefinite layout gives every iteration to thread 0") {
  const layout l({5, 6}, block_spec::indefinite(), 3);
  check_against_places(l, pgas::box{{1, 4}, {0, 5}}, pgas::offsets{{1, 1}, {-1, 0}}, 0, 1);
  REQUIRE(cut_plan(l, pgas::box{{1, 4}, {0, 5}}, pgas::offsets{{1, 1}}, 1).runs().empty());
}

TEST_CASE("the paper's worked example: shared [2][3] int A[8][9], 8 threads, 2 per node") {
  const layout l({8, 9}, block_spec::tiles({2, 3}), 8);
  const std::vector<std::ptrdiff_t> k{1, 2};
  // Thread 0's first tile (0, 0): Cut_0 = 1, Cut^Upper = 4, Cut^Lower = 1.
  const pgas::cut_formula f = pgas::cut_formula_of(l, 0, k, 2);
  REQUIRE(f.cut == sizes{1});
  REQUIRE(f.upper == 4);
  REQUIRE(f.lower == 1);
  // At thread granularity Cut^Upper is the plain cut b − k mod b.
  REQUIRE(pgas::cut_formula_of(l, 0, k, 1).upper == 1);
  // Thread 0's iterations of the box [0, 7) × [0, 6): tile (0, 0) and tile (2, 2) is outside
  // the box's columns, so only tile (0, 0), split at row 1 and column 1.
  const cut_plan plan(l, pgas::box{{0, 7}, {0, 6}}, pgas::offsets{{1, 2}}, 0,
                      {.threads_per_node = 2});
  REQUIRE(plan.runs().size() == 4);
  struct expected {
    std::size_t lo0, hi0, lo1, hi1;
    int owner;
    bool local;
  };
  const expected want[] = {
      {0, 1, 0, 1, 0, true}, {0, 1, 1, 3, 1, true}, {1, 2, 0, 1, 3, false}, {1, 2, 1, 3, 4, false}};
  const std::vector<pgas::cut_run> runs(plan.runs().begin(), plan.runs().end());
  for (std::size_t r = 0; r < 4; ++r) {
    const pgas::cut_run& run = runs[r];
    CHECK(run.lo[0] == want[r].lo0);
    CHECK(run.hi[0] == want[r].hi0);
    CHECK(run.lo[1] == want[r].lo1);
    CHECK(run.hi[1] == want[r].hi1);
    CHECK(plan.targets(run)[0].owner == want[r].owner);
    CHECK(run.local == want[r].local);
  }
  for (int t = 0; t < 8; ++t)
    check_against_places(l, pgas::box{{0, 7}, {0, 6}}, pgas::offsets{{1, 2}}, t, 2);
}

TEST_CASE("cut_plan walks the thread's tiles in storage order, each tile's runs row-major") {
  // Thread 2 of 3 on [4][5] tiles of a 23 × 31 array (6 × 7 tiles, a partial last tile each
  // way), a box clipping the first and last tiles: the runs' affinity offsets grow tile by tile
  // (a tile's place in the thread's part), and within a tile the runs go row-major.
  const layout l({23, 31}, block_spec::tiles({4, 5}), 3);
  const cut_plan plan(l, pgas::box{{2, 21}, {3, 29}}, pgas::offsets{{-1, 1}, {2, -2}, {0, 0}}, 2);
  std::size_t last_tile_offset = 0;
  std::array<std::size_t, 2> last_lo{};
  bool first = true;
  for (const pgas::cut_run& r : plan.runs()) {
    const std::size_t tile_offset = r.offset / 20 * 20;
    if (!first && tile_offset == last_tile_offset) {
      REQUIRE((r.lo[0] > last_lo[0] || (r.lo[0] == last_lo[0] && r.lo[1] > last_lo[1])));
    } else {
      REQUIRE((first || tile_offset > last_tile_offset));
    }
    last_tile_offset = tile_offset;
    last_lo = {r.lo[0], r.lo[1]};
    first = false;
  }
  REQUIRE_FALSE(first);
}

TEST_CASE("cut_plan's cost is per tile, not per iteration") {
  // 10^6 iterations on 64×64 tiles at 4 threads: a 5-point stencil's thread has 61 tiles of at
  // most 9 runs each, whatever the tile size.
  const layout l({1000, 1000}, block_spec::tiles({64, 64}), 4);
  const cut_plan plan(l, pgas::box{{1, 999}, {1, 999}},
                      pgas::offsets{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {0, 0}}, 1);
  REQUIRE(plan.runs().size() <= 64 * 9);
  REQUIRE(plan.local_iterations() > plan.iterations() * 9 / 10);
}

TEST_CASE("cut_plan's misuse throws usage_error outside a job, naming the problem") {
  const layout l({8, 9}, block_spec::tiles({2, 3}), 4);
  const auto throws = [&](auto f, const char* what) {
    REQUIRE_THROWS_WITH(f(), Contains(what) && Contains("cuts_test.cpp"));
  };
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 7}, {0, 8}}, pgas::offsets{{1, 2}}, 0);
      },
      "access 0 (offset (1, 2)) leaves the array at iteration (0, 7)");
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 7}, {0, 8}}, pgas::offsets{{0, 0}, {-1, 0}}, 0);
      },
      "access 1 (offset (-1, 0)) leaves the array at iteration (0, 0)");
  // Offsets near 2^63 leave the array too (lo + k would wrap), named without wrapping.
  constexpr std::ptrdiff_t huge = std::numeric_limits<std::ptrdiff_t>::max();
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 7}, {0, 6}}, pgas::offsets{{huge, 2}}, 0);
      },
      "access 0 (offset (9223372036854775807, 2)) leaves the array at iteration (6, 0): it "
      "reads (9223372036854775813, 2)");
  throws(
      [&] {
        cut_plan(l, pgas::box{{1, 7}, {0, 6}}, pgas::offsets{{0, -huge - 1}}, 0);
      },
      "access 0 (offset (0, -9223372036854775808)) leaves the array at iteration (1, 0): it "
      "reads (1, -9223372036854775808)");
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 9}, {0, 8}}, pgas::offsets{{0, 0}}, 0);
      },
      "dimension 0 is [0, 9), outside the array's extent 8");
  throws(
      [&] {
        cut_plan(l, pgas::box{{-1, 3}, {0, 8}}, pgas::offsets{{0, 0}}, 0);
      },
      "dimension 0 is [-1, 3)");
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 8}, {5, 3}}, pgas::offsets{{0, 0}}, 0);
      },
      "dimension 1 is [5, 3): lo > hi");
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 8}}, pgas::offsets{{0, 0}}, 0);
      },
      "the box has rank 1 but the array has rank 2");
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 0, 0}}, 0);
      },
      "offset 0 has rank 3 but the array has rank 2");
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 8}, {0, 9}},
                 pgas::offsets(std::vector<std::vector<std::ptrdiff_t>>{}), 0);
      },
      "0 offsets given");
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 0}}, 4);
      },
      "thread 4 is outside [0, 4)");
  throws(
      [&] {
        cut_plan(l, pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 0}}, 0, {.threads_per_node = 0});
      },
      "threads_per_node is 0");
  throws(
      [&] {
        (void)pgas::cut_formula_of(l, 12, std::vector<std::ptrdiff_t>{1, 2}, 1);
      },
      "tile 12 of 12 tiles");
  const layout cyclic({8, 9}, block_spec::cyclic(4), 4);
  throws(
      [&] {
        cut_plan(cyclic, pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 0}}, 0);
      },
      "block 4 of an array of extents [8][9] is not");
  throws([&] { pgas::detail::cuts_check_layouts(l, {&cyclic}, std::source_location::current()); },
         "must have one layout");
}

}  // namespace
