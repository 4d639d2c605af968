// Tests pgas/layout.hpp and src/models/layout.cpp, the pure layout model of shared arrays: a brute
// force reference (blocks or tiles enumerated in order and dealt to threads one by one) is
// compared with layout::place, place_linear, elements_on, part_elements, blocks and
// block_elements on thousands of random declarations; tiled per-thread counts are compared with
// a walk over the tiles on larger random layouts of rank 1 to 8; the figures of Serres et al. and
// Barton et al. are checked exactly; and every documented construction error is provoked.

#include <pgas/error.hpp>
#include <pgas/layout.hpp>

#include <algorithm>
#include <cstddef>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using pgas::block_spec;
using pgas::element_place;
using pgas::layout;
using extents_t = std::vector<std::size_t>;

// What the reference model says about one declaration.
struct reference {
  std::vector<element_place> place;  // by row-major linear position
  std::vector<std::size_t> on;       // elements (not padding) per thread
  std::size_t part = 0;              // elements reserved per thread (the most any thread needs)
  std::size_t blocks = 0;
  std::size_t block = 0;  // elements per block (tile volume), 0 for indefinite
};

std::size_t product(const extents_t& e) {
  std::size_t n = 1;
  for (std::size_t x : e)
    n *= x;
  return n;
}

std::size_t linear_of(const extents_t& ext, const extents_t& index) {
  std::size_t l = 0;
  for (std::size_t d = 0; d < ext.size(); ++d)
    l = l * ext[d] + index[d];
  return l;
}

// Advances a row-major odometer over `limits`; false when it wraps to all zeros.
bool next_index(extents_t& index, const extents_t& limits) {
  for (std::size_t d = index.size(); d-- > 0;) {
    if (++index[d] < limits[d]) return true;
    index[d] = 0;
  }
  return false;
}

// UPC semantics by enumeration: blocks (or tiles) are taken in order and handed to threads
// 0, 1, …, THREADS-1, 0, …; each thread stacks the blocks it receives one after another.
reference model(const extents_t& ext, const block_spec& spec, int threads) {
  const std::size_t size = product(ext);
  const auto nthreads = static_cast<std::size_t>(threads);
  reference r;
  r.place.resize(size);
  r.on.assign(nthreads, 0);
  std::vector<std::size_t> fill(nthreads, 0);

  if (spec.which() == block_spec::kind::indefinite) {
    for (std::size_t l = 0; l < size; ++l)
      r.place[l] = {0, 0, l};
    r.on[0] = size;
    r.part = size;
    r.blocks = 1;
    r.block = 0;
    return r;
  }

  std::size_t owner = 0;  // the thread that receives the next block
  auto deal = [&](std::size_t volume) {
    const std::size_t t = owner;
    const std::size_t start = fill[t];
    fill[t] += volume;
    owner = owner + 1 == nthreads ? 0 : owner + 1;
    ++r.blocks;
    return std::pair{t, start};
  };

  if (spec.which() != block_spec::kind::tiles) {
    std::size_t b = spec.block();
    if (spec.which() == block_spec::kind::star) {
      b = 1;
      while (b * nthreads < size)
        ++b;
    }
    r.block = b;
    for (std::size_t l = 0; l < size;) {
      const auto [t, start] = deal(b);
      for (std::size_t e = 0; e < b && l < size; ++e, ++l) {
        r.place[l] = {static_cast<int>(t), e, start + e};
        ++r.on[t];
      }
    }
  } else {
    const extents_t& tile = spec.tile();
    extents_t ntiles(ext.size());
    r.block = 1;
    for (std::size_t d = 0; d < ext.size(); ++d) {
      for (std::size_t origin = 0; origin < ext[d]; origin += tile[d])
        ++ntiles[d];
      r.block *= tile[d];
    }
    extents_t which(ext.size(), 0);
    do {
      const auto [t, start] = deal(r.block);
      extents_t in(ext.size(), 0);
      std::size_t pos = 0;
      do {
        extents_t index(ext.size());
        bool real = true;
        for (std::size_t d = 0; d < ext.size(); ++d) {
          index[d] = which[d] * tile[d] + in[d];
          real = real && index[d] < ext[d];
        }
        if (real) {
          r.place[linear_of(ext, index)] = {static_cast<int>(t), pos, start + pos};
          ++r.on[t];
        }
        ++pos;
      } while (next_index(in, tile));
    } while (next_index(which, ntiles));
  }
  r.part = *std::max_element(fill.begin(), fill.end());
  return r;
}

std::string describe(const extents_t& ext, const block_spec& spec, int threads) {
  std::ostringstream s;
  s << "shared " << spec.to_string() << " T A";
  for (std::size_t e : ext)
    s << '[' << e << ']';
  s << " on " << threads << " threads";
  return s.str();
}

std::string show(const element_place& p) {
  std::ostringstream s;
  s << "{thread " << p.thread << ", phase " << p.phase << ", offset " << p.offset << "}";
  return s.str();
}

// Compares every answer of `lay` with the model. Returns "" or the first disagreement.
std::string compare(const layout& lay, const extents_t& ext, const block_spec& spec, int threads) {
  const reference r = model(ext, spec, threads);
  std::ostringstream why;
  if (lay.size() != r.place.size()) why << "size " << lay.size() << " vs " << r.place.size();
  if (lay.rank() != ext.size()) why << "rank " << lay.rank();
  if (lay.extents() != ext) why << "extents differ; ";
  if (lay.threads() != threads) why << "threads " << lay.threads();
  if (lay.block_elements() != r.block)
    why << "block_elements " << lay.block_elements() << " vs " << r.block << "; ";
  if (lay.blocks() != r.blocks) why << "blocks " << lay.blocks() << " vs " << r.blocks << "; ";
  if (lay.part_elements() != r.part)
    why << "part_elements " << lay.part_elements() << " vs " << r.part << "; ";
  for (int t = 0; t < threads; ++t) {
    if (lay.elements_on(t) != r.on[static_cast<std::size_t>(t)]) {
      why << "elements_on(" << t << ") " << lay.elements_on(t) << " vs "
          << r.on[static_cast<std::size_t>(t)] << "; ";
    }
  }
  if (lay.elements_on(-1) != 0 || lay.elements_on(threads) != 0)
    why << "elements_on outside [0, THREADS) is not 0; ";
  if (!why.str().empty()) return why.str();
  for (std::size_t l = 0; l < r.place.size(); ++l) {
    const extents_t index = lay.unlinear(l);
    if (lay.linear(index) != l) {
      why << "linear(unlinear(" << l << ")) = " << lay.linear(index);
      return why.str();
    }
    const element_place p = lay.place(index);
    if (!(p == r.place[l])) {
      why << "place(linear " << l << ") = " << show(p) << ", expected " << show(r.place[l]);
      return why.str();
    }
    if (!lay.tiled() && !(lay.place_linear(l) == r.place[l])) {
      why << "place_linear(" << l << ") = " << show(lay.place_linear(l)) << ", expected "
          << show(r.place[l]);
      return why.str();
    }
    if (p.thread < 0 || p.thread >= threads || p.offset >= lay.part_elements() ||
        (lay.block_elements() != 0 && p.phase >= lay.block_elements())) {
      why << "place(linear " << l << ") = " << show(p) << " is outside its part or block";
      return why.str();
    }
  }
  return {};
}

// A random declaration of at most `max_size` elements.
struct declaration {
  extents_t ext;
  block_spec spec;
  int threads = 1;
};

declaration random_declaration(std::mt19937_64& rng, std::size_t max_size) {
  auto uniform = [&rng](std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
  };
  declaration d;
  const std::size_t rank = uniform(1, 4);
  std::size_t room = max_size;
  for (std::size_t r = 0; r < rank; ++r) {
    // Leave at least one element per remaining dimension.
    const std::size_t most = std::max<std::size_t>(1, room);
    const std::size_t e = uniform(1, std::min<std::size_t>(most, rank == 1 ? most : 24));
    d.ext.push_back(e);
    room = std::max<std::size_t>(1, room / e);
  }
  d.threads = static_cast<int>(uniform(1, 17));
  const std::size_t size = product(d.ext);
  switch (uniform(0, 5)) {
    case 0:
      d.spec = block_spec::cyclic(1);
      break;
    case 1:  // any block, including blocks longer than the array
      d.spec = block_spec::cyclic(uniform(1, size + 5));
      break;
    case 2:  // small blocks, often not powers of two
      d.spec = block_spec::cyclic(uniform(1, 9));
      break;
    case 3:
      d.spec = uniform(0, 1) == 0 ? block_spec::indefinite() : block_spec::cyclic(0);
      break;
    case 4:
      d.spec = block_spec::star();
      break;
    default: {  // tiles, often not dividing the extents (padded edge tiles)
      extents_t tile;
      for (std::size_t e : d.ext)
        tile.push_back(uniform(1, e + 2));
      d.spec = block_spec::tiles(tile);
      break;
    }
  }
  return d;
}

// Elements on `thread` by visiting its tiles one by one (thread, thread + THREADS, …) and adding
// each tile's real extent: the oracle for layout::elements_on's closed form.
std::size_t walk_tiles_on(const layout& lay, int thread) {
  const auto n = static_cast<std::size_t>(lay.threads());
  std::size_t count = 0;
  for (std::size_t k = static_cast<std::size_t>(thread); k < lay.blocks(); k += n) {
    std::size_t rest = k;
    std::size_t volume = 1;
    for (std::size_t d = lay.rank(); d-- > 0;) {
      const std::size_t tile = lay.spec().tile()[d];
      const std::size_t q = rest % lay.tiles_along(d);
      rest /= lay.tiles_along(d);
      volume *= std::min(tile, lay.extent(d) - q * tile);
    }
    count += volume;
  }
  return count;
}

// A random tiled layout of rank 1 to `max_rank` with at most about `max_tiles` tiles; edges are
// padded in a random subset of the dimensions, and THREADS is often a power of two or shares
// factors with the tile counts.
layout random_tiled(std::mt19937_64& rng, std::size_t max_rank, std::size_t max_tiles) {
  auto uniform = [&rng](std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
  };
  const std::size_t rank = uniform(1, max_rank);
  extents_t ext;
  extents_t tile;
  std::size_t room = max_tiles;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::size_t most =
        std::max<std::size_t>(1, d + 1 == rank ? room : std::min<std::size_t>(room, 40));
    const std::size_t tiles = uniform(1, most);
    room = std::max<std::size_t>(1, room / tiles);
    const std::size_t b = uniform(1, 6);
    const bool padded = uniform(0, 1) == 0;
    ext.push_back(padded ? (tiles - 1) * b + uniform(1, b) : tiles * b);
    tile.push_back(b);
  }
  std::size_t threads = 0;
  switch (uniform(0, 3)) {
    case 0:
      threads = std::size_t{1} << uniform(0, 12);
      break;
    case 1:
      threads = uniform(1, 12);
      break;
    case 2:
      threads = uniform(1, 5000);
      break;
    default:
      threads = uniform(1, 3) * tile.size() * uniform(1, 6);
      break;
  }
  return layout(ext, block_spec::tiles(tile), static_cast<int>(threads));
}

std::string describe(const layout& lay) {
  return describe(lay.extents(), lay.spec(), lay.threads());
}

std::string grid_of(const layout& lay) {
  std::string g;
  for (std::size_t i = 0; i < lay.extent(0); ++i) {
    for (std::size_t j = 0; j < lay.extent(1); ++j)
      g += std::to_string(lay.place({i, j}).thread) + (j + 1 < lay.extent(1) ? " " : "");
    g += "\n";
  }
  return g;
}

}  // namespace

TEST_CASE("layout agrees with the brute-force model on random declarations", "[layout]") {
  std::mt19937_64 rng(20240611);
  int tiled = 0, star = 0, indefinite = 0, cyclic = 0;
  for (int n = 0; n < 4000; ++n) {
    const declaration d = random_declaration(rng, n % 10 == 0 ? 6000 : 600);
    const layout lay(d.ext, d.spec, d.threads);
    const std::string why = compare(lay, d.ext, d.spec, d.threads);
    INFO("case " << n << ": " << describe(d.ext, d.spec, d.threads));
    REQUIRE(why.empty());
    switch (d.spec.which()) {
      case block_spec::kind::tiles:
        ++tiled;
        break;
      case block_spec::kind::star:
        ++star;
        break;
      case block_spec::kind::indefinite:
        ++indefinite;
        break;
      case block_spec::kind::cyclic:
        ++cyclic;
        break;
    }
  }
  // Every kind was exercised many times.
  CHECK(tiled > 400);
  CHECK(star > 400);
  CHECK(indefinite > 400);
  CHECK(cyclic > 1000);
}

TEST_CASE("layout: tiled elements_on agrees with walking the tiles", "[layout]") {
  std::mt19937_64 rng(20240612);
  // Ranks 1 to 4 are every case of up to two free groups; ranks 5 to 8 reach three and four.
  for (int c = 0; c < 3000; ++c) {
    const layout lay = random_tiled(rng, c % 3 == 0 ? 8 : 4, c % 10 == 0 ? 200000 : 3000);
    INFO("case " << c << ": " << describe(lay));
    // Every thread of small jobs; a sample of large ones.
    const int step = std::max(1, lay.threads() / 64);
    std::size_t total = 0;
    for (int t = 0; t < lay.threads(); t += step) {
      INFO("thread " << t);
      REQUIRE(lay.elements_on(t) == walk_tiles_on(lay, t));
      total += lay.elements_on(t);
    }
    if (step == 1) CHECK(total == lay.size());
  }
}

TEST_CASE("layout: tiled elements_on is exact past 32-bit products", "[layout]") {
  // 2^64 - 1 = 3 · 5 · 17 · 257 · 641 · 65537 · 6700417: extents whose product is that large,
  // with every dimension padded; the per-thread counts must add up to the size exactly.
  const std::vector<layout> cases = {
      layout({4294967295u, 4294967297u}, block_spec::tiles({2, 3}), 4093),
      layout({65535u, 65537u, 4294967297u}, block_spec::tiles({7, 4, 9}), 4096),
      layout({255u, 257u, 65537u, 4294967297u}, block_spec::tiles({2, 2, 2, 2}), 3),
      layout({15u, 17u, 255u, 257u, 65537u, 65537u}, block_spec::tiles({2, 2, 2, 2, 2, 3}), 4096),
  };
  for (const layout& lay : cases) {
    INFO(describe(lay));
    std::size_t total = 0;
    for (int t = 0; t < lay.threads(); ++t)
      total += lay.elements_on(t);
    CHECK(total == lay.size());
  }
  // A padded row of two tiles on thread 0 or 1 of 2 threads, the rest even: hand-checkable.
  const layout two({3, 2}, block_spec::tiles({2, 2}), 2);
  CHECK(two.elements_on(0) == 4);
  CHECK(two.elements_on(1) == 2);
}

TEST_CASE("layout: hand-picked edge cases agree with the model", "[layout]") {
  const std::vector<declaration> cases = {
      {{1}, block_spec::cyclic(1), 1},
      {{1}, block_spec::cyclic(1), 17},
      {{5}, block_spec::star(), 8},        // fewer elements than threads: blocks of 1
      {{16}, block_spec::star(), 4},       // exact
      {{17}, block_spec::star(), 4},       // last thread short
      {{13}, block_spec::star(), 4},       // last thread gets 1 of 4
      {{10}, block_spec::cyclic(100), 3},  // one partial block
      {{7, 5}, block_spec::cyclic(5), 2},  // one row per block
      {{7, 5}, block_spec::cyclic(3), 4},  // blocks straddle rows
      {{4, 4}, block_spec::tiles({4, 4}), 3},
      {{4, 4}, block_spec::tiles({8, 8}), 3},  // one tile, mostly padding
      {{5, 7}, block_spec::tiles({2, 3}), 3},
      {{3, 4, 5}, block_spec::tiles({2, 2, 2}), 5},
      {{3, 4, 5}, block_spec::tiles({1, 1, 1}), 7},
      {{2, 3, 2, 3}, block_spec::tiles({1, 2, 2, 2}), 4},
      {{9}, block_spec::tiles({4}), 2},
      {{6, 6}, block_spec::indefinite(), 4},
      {{2, 3, 4}, block_spec::star(), 5},
  };
  for (const auto& d : cases) {
    INFO(describe(d.ext, d.spec, d.threads));
    const layout lay(d.ext, d.spec, d.threads);
    CHECK(compare(lay, d.ext, d.spec, d.threads).empty());
  }
}

TEST_CASE("layout: Serres et al., shared [3] int array[4][3] on 2 threads", "[layout][paper]") {
  // Rows 0 and 2 (elements 1, 2, 3, 7, 8, 9) are stored contiguously on thread 0, rows 1 and 3
  // on thread 1.
  const layout lay({4, 3}, block_spec::cyclic(3), 2);
  CHECK(lay.block_elements() == 3);
  CHECK(lay.blocks() == 4);
  CHECK(lay.part_elements() == 6);
  CHECK(lay.elements_on(0) == 6);
  CHECK(lay.elements_on(1) == 6);
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      INFO("array[" << i << "][" << j << "]");
      const element_place p = lay.place({i, j});
      CHECK(p.thread == static_cast<int>(i % 2));
      CHECK(p.phase == j);
      CHECK(p.offset == (i / 2) * 3 + j);
    }
  }
  CHECK(grid_of(lay) == "0 0 0\n1 1 1\n0 0 0\n1 1 1\n");
  CHECK(lay.declaration("int", "array") == "shared [3] int array[4][3]");
}

TEST_CASE("layout: Barton et al., shared [2][3] int A[8][9] on 8 threads", "[layout][paper]") {
  // The owner grid as printed in the paper ("Computing Cuts").
  const std::string paper =
      "0 0 0 1 1 1 2 2 2\n"
      "0 0 0 1 1 1 2 2 2\n"
      "3 3 3 4 4 4 5 5 5\n"
      "3 3 3 4 4 4 5 5 5\n"
      "6 6 6 7 7 7 0 0 0\n"
      "6 6 6 7 7 7 0 0 0\n"
      "1 1 1 2 2 2 3 3 3\n"
      "1 1 1 2 2 2 3 3 3\n";
  const layout lay({8, 9}, block_spec::tiles({2, 3}), 8);
  CHECK(grid_of(lay) == paper);
  CHECK(lay.tiled());
  CHECK(lay.block_elements() == 6);
  CHECK(lay.blocks() == 12);
  CHECK(lay.tiles_along(0) == 4);
  CHECK(lay.tiles_along(1) == 3);
  CHECK(lay.part_elements() == 12);
  for (int t = 0; t < 8; ++t)
    CHECK(lay.elements_on(t) == (t < 4 ? 12u : 6u));
  // Phase is the row-major position inside the 2x3 tile; the second tile a thread receives
  // (course 1) starts after its first.
  CHECK(lay.place({0, 0}) == element_place{0, 0, 0});
  CHECK(lay.place({1, 4}) == element_place{1, 4, 4});
  CHECK(lay.place({4, 6}) == element_place{0, 0, 6});
  CHECK(lay.place({5, 8}) == element_place{0, 5, 11});
  CHECK(lay.place({7, 8}) == element_place{3, 5, 11});
  CHECK(lay.declaration("int", "A") == "shared [2][3] int A[8][9]");
}

TEST_CASE("layout: padded edge tiles, shared [2][3] int A[5][7] on 3 threads", "[layout]") {
  // 3 x 3 tiles; the last tile row holds row 4 only, the last tile column columns 6 only.
  const layout lay({5, 7}, block_spec::tiles({2, 3}), 3);
  CHECK(lay.blocks() == 9);
  CHECK(lay.part_elements() == 18);  // three whole tiles each, padding included
  // Thread 0: tiles 0 (6), 3 (6), 6 (3 real: row 4, columns 0-2) = 15.
  // Thread 1: tiles 1 (6), 4 (6), 7 (3) = 15. Thread 2: tiles 2 (2), 5 (2), 8 (1) = 5.
  CHECK(lay.elements_on(0) == 15);
  CHECK(lay.elements_on(1) == 15);
  CHECK(lay.elements_on(2) == 5);
  CHECK(lay.place({4, 6}) == element_place{2, 0, 12});
  CHECK(lay.place({3, 6}) == element_place{2, 3, 9});
  CHECK(lay.place({4, 5}) == element_place{1, 2, 14});
  CHECK(grid_of(lay) ==
        "0 0 0 1 1 1 2\n"
        "0 0 0 1 1 1 2\n"
        "0 0 0 1 1 1 2\n"
        "0 0 0 1 1 1 2\n"
        "0 0 0 1 1 1 2\n");
}

TEST_CASE("layout: UPC formulas for block-cyclic, star and indefinite", "[layout]") {
  SECTION("shared [4] int A[10][10] on 3 threads") {
    const layout lay({10, 10}, block_spec::cyclic(4), 3);
    for (std::size_t l = 0; l < 100; ++l) {
      const element_place p = lay.place_linear(l);
      CHECK(p.thread == static_cast<int>((l / 4) % 3));
      CHECK(p.phase == l % 4);
      CHECK(p.offset == (l / 4 / 3) * 4 + l % 4);
    }
    // 25 blocks: threads 0 gets 9 (the last one, block 24, has 4 elements), 1 and 2 get 8.
    CHECK(lay.elements_on(0) == 36);
    CHECK(lay.elements_on(1) == 32);
    CHECK(lay.elements_on(2) == 32);
    CHECK(lay.part_elements() == 36);
  }
  SECTION("shared [*] int A[10] on 4 threads: blocks of 3") {
    const layout lay({10}, block_spec::star(), 4);
    CHECK(lay.block_elements() == 3);
    CHECK(lay.spec().block() == 0);  // as given, unresolved
    CHECK(lay.elements_on(0) == 3);
    CHECK(lay.elements_on(3) == 1);
    CHECK(lay.place_linear(9) == element_place{3, 0, 0});
  }
  SECTION("shared [] int A[3][4] on 5 threads") {
    const layout lay({3, 4}, block_spec::indefinite(), 5);
    CHECK(lay.block_elements() == 0);
    CHECK(lay.blocks() == 1);
    CHECK(lay.part_elements() == 12);
    CHECK(lay.elements_on(0) == 12);
    for (int t = 1; t < 5; ++t)
      CHECK(lay.elements_on(t) == 0);
    CHECK(lay.place({2, 3}) == element_place{0, 0, 11});
  }
  SECTION("block exactly config::max_block is allowed") {
    const layout lay({10}, block_spec::cyclic(pgas::config::max_block), 2);
    CHECK(lay.block_elements() == pgas::config::max_block);
    CHECK(lay.elements_on(0) == 10);
  }
  SECTION("blocks beyond config::max_block: one band of rows per thread, [*], big tiles") {
    // shared [*] double M[2048][2048] for T = 1..4: one band of rows per thread, the same as
    // shared [B] with B = ceil(2048 * 2048 / T).
    for (int t = 1; t <= 4; ++t) {
      INFO("THREADS = " << t);
      const std::size_t n = 2048 * 2048;
      const auto ut = static_cast<std::size_t>(t);
      const std::size_t band = (n + ut - 1) / ut;
      const layout lay({2048, 2048}, block_spec::cyclic(band), t);
      const layout star({2048, 2048}, block_spec::star(), t);
      CHECK(lay.block_elements() == band);
      CHECK(star.block_elements() == band);
      CHECK(lay.blocks() == ut);
      CHECK(lay.part_elements() == band);
      std::size_t total = 0;
      for (int u = 0; u < t; ++u)
        total += lay.elements_on(u);
      CHECK(total == n);
      CHECK(lay.elements_on(0) == band);
      for (std::size_t i : {0, 1, 511, 512, 681, 682, 683, 1023, 1024, 1365, 1366, 1536, 2047}) {
        for (std::size_t j : {0, 1, 1000, 2047}) {
          const std::size_t l = i * 2048 + j;
          const element_place want{static_cast<int>(l / band), l % band, l % band};
          CHECK(lay.place({i, j}) == want);
          CHECK(star.place({i, j}) == want);
        }
      }
    }
    // Blocks of 2^20 + 1 and 2^24 elements over 3 threads, against the definition.
    for (const std::size_t b : {(std::size_t{1} << 20) + 1, std::size_t{1} << 24}) {
      const layout lay({5 * b + 7}, block_spec::cyclic(b), 3);
      CHECK(lay.blocks() == 6);
      CHECK(lay.part_elements() == 2 * b);
      CHECK(lay.elements_on(0) == 2 * b);
      CHECK(lay.elements_on(1) == 2 * b);
      CHECK(lay.elements_on(2) == b + 7);
      for (const std::size_t l :
           {std::size_t{0}, b - 1, b, 3 * b - 1, 3 * b, 4 * b + 5, 5 * b + 6}) {
        const std::size_t k = l / b;
        CHECK(lay.place_linear(l) ==
              element_place{static_cast<int>(k % 3), l % b, k / 3 * b + l % b});
      }
    }
    // Tiles of 2048 x 1024 elements (2^21).
    const layout tiles({4096, 2048}, block_spec::tiles({2048, 1024}), 3);
    CHECK(tiles.block_elements() == std::size_t{1} << 21);
    CHECK(tiles.blocks() == 4);
    CHECK(tiles.place({2048 + 5, 1024 + 7}) ==
          element_place{0, 5 * 1024 + 7, (std::size_t{1} << 21) + 5 * 1024 + 7});
    CHECK(tiles.elements_on(0) == std::size_t{2} << 21);
  }
}

TEST_CASE("block_spec: spellings and equality", "[layout]") {
  CHECK(block_spec().to_string().empty());
  CHECK(block_spec::cyclic(1).to_string().empty());
  CHECK(block_spec::cyclic(3).to_string() == "[3]");
  CHECK(block_spec::indefinite().to_string() == "[]");
  CHECK(block_spec::cyclic(0) == block_spec::indefinite());  // shared [0] is shared []
  CHECK(block_spec::star().to_string() == "[*]");
  CHECK(block_spec::tiles({2, 3}).to_string() == "[2][3]");
  CHECK(block_spec() == block_spec::cyclic(1));
  CHECK_FALSE(block_spec::cyclic(2) == block_spec::cyclic(3));
  CHECK_FALSE(block_spec::tiles({2, 3}) == block_spec::tiles({3, 2}));
  CHECK(layout({10}, block_spec(), 2).declaration("double", "x") == "shared double x[10]");
  CHECK(layout({2, 2}, block_spec::indefinite(), 2).declaration("int", "y") ==
        "shared [] int y[2][2]");
}

namespace {

// Constructs the layout (spec made inside, as a declaration would be) and returns the
// message of the std::invalid_argument the layout throws or the pgas::usage_error a
// block_spec's misuse throws outside a job, or "no error".
template <class MakeSpec>
std::string error_of(const extents_t& ext, MakeSpec make_spec, int threads) {
  try {
    const layout lay(ext, make_spec(), threads);
    return "no error";
  } catch (const std::invalid_argument& e) {
    return e.what();
  } catch (const pgas::usage_error& e) {
    return std::string("usage_error: ") + e.what();
  }
}

bool has(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

}  // namespace

TEST_CASE("layout: every documented error throws std::invalid_argument naming it",
          "[layout][errors]") {
  const auto cyclic1 = [] { return block_spec(); };
  const std::size_t max_block = pgas::config::max_runtime_block;
  std::string e;

  e = error_of({10}, cyclic1, 0);
  INFO(e);
  CHECK(has(e, "THREADS"));
  CHECK(has(error_of({10}, cyclic1, -3), "-3"));

  e = error_of({}, cyclic1, 2);
  INFO(e);
  CHECK(has(e, "dimension"));

  e = error_of({4, 0, 3}, cyclic1, 2);
  INFO(e);
  CHECK(has(e, "zero"));
  CHECK(has(e, "1"));  // the dimension

  e = error_of(extents_t(layout::max_rank + 1, 2), cyclic1, 2);
  INFO(e);
  CHECK(has(e, std::to_string(layout::max_rank)));
  CHECK(error_of(extents_t(layout::max_rank, 2), cyclic1, 2) == "no error");

  e = error_of({std::size_t{1} << 32, std::size_t{1} << 32}, cyclic1, 2);
  INFO(e);
  CHECK(has(e, "overflow"));

  // Blocks beyond what a run-time-block pointer-to-shared's phase can hold: block_spec's
  // misuse, named at its call site (this file, the line below).
  const int line = __LINE__ + 2;
  e = error_of(
      {10}, [&] { return block_spec::cyclic(max_block + 1); }, 2);
  INFO(e);
  CHECK(has(e, "usage_error: pgas: block size " + std::to_string(max_block + 1)));
  CHECK(has(e, "layout_test.cpp:" + std::to_string(line)));
  CHECK(has(e, "max_runtime_block"));
  CHECK(error_of(
            {10}, [&] { return block_spec::cyclic(max_block); }, 2) == "no error");
  // [*] resolving to a block beyond the limit: 2 threads share 2 * max_block + 1 elements.
  e = error_of(
      {2 * max_block + 1}, [] { return block_spec::star(); }, 2);
  INFO(e);
  CHECK(has(e, "[*]"));
  CHECK(error_of(
            {2 * max_block + 1}, [] { return block_spec::star(); }, 3) == "no error");
  // Tiles whose volume is beyond the limit (the layout's error: the volume is not known before).
  e = error_of(
      {4, 4},
      [&] {
        return block_spec::tiles({max_block, 2});
      },
      2);
  INFO(e);
  CHECK(has(e, "tile"));
  CHECK_FALSE(has(e, "usage_error"));

  // Tiles of the wrong rank, empty, of zero size, or too many.
  e = error_of(
      {4, 4}, [] { return block_spec::tiles({2}); }, 2);
  INFO(e);
  CHECK(has(e, "tile"));
  CHECK(has(error_of(
                {4},
                [] {
                  return block_spec::tiles({2, 2});
                },
                2),
            "tile"));
  const int empty_line = __LINE__ + 2;
  e = error_of(
      {4}, [] { return block_spec::tiles(std::vector<std::size_t>{}); }, 2);
  INFO(e);
  CHECK(has(e, "usage_error: pgas: a tiled layout needs at least one tile extent"));
  CHECK(has(e, "layout_test.cpp:" + std::to_string(empty_line)));
  e = error_of(
      {4, 4},
      [] {
        return block_spec::tiles({2, 0});
      },
      2);
  INFO(e);
  CHECK(has(e, "usage_error"));
  CHECK(has(e, "zero"));
  CHECK(has(e, "dimension 1"));
  e = error_of(
      extents_t(layout::max_rank + 1, 2),
      [] { return block_spec::tiles(extents_t(layout::max_rank + 1, 1)); }, 2);
  INFO(e);
  CHECK(e != "no error");

  // The per-thread part overflowing: almost 2^64 elements in blocks of 2^20 on one thread.
  e = error_of(
      {~std::size_t{0}}, [&] { return block_spec::cyclic(max_block); }, 1);
  INFO(e);
  CHECK(has(e, "overflow"));
  e = error_of(
      {~std::size_t{0}}, [] { return block_spec::tiles({2}); }, 1);
  INFO(e);
  CHECK(has(e, "overflow"));
}
