// Tests src/models/table_shape.cpp, the pure model of inter-thread privatization tables
// (pgas/table_model.hpp, Serres et al. section IV): the paper's eq. 1 worked example, the layout
// kinds (rows in blocks, blocks in rows, tile rows) on hand-picked declarations, why_not's
// reasons naming the row, threads and column where a row crosses a block, overflow, and n−1
// level sizes against hand-computed eq. 1 sums. A brute-force property test walks thousands of
// random layouts: a table applies exactly when every row lies in one block or every block in
// one row (or the layout is tiled), and then every element sits at its segment's start plus
// its column within the segment, in the segment owner's part. Replica plans (plan_replicas)
// are checked on synthetic and hand-made machines for every policy, and the option words.

#include <pgas/privatize.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using Catch::Matchers::Contains;
using pgas::block_spec;
using pgas::layout;
using pgas::replicate;
using pgas::table_error;
using pgas::table_levels;
using pgas::table_shape;
using kind = pgas::table_shape::kind;
using sizes = std::vector<std::size_t>;

std::string show(const sizes& v) {
  std::ostringstream os;
  os << "{";
  for (std::size_t k = 0; k < v.size(); ++k)
    os << (k ? ", " : "") << v[k];
  os << "}";
  return os.str();
}

std::string describe(const layout& l) {
  return l.declaration("int", "A") + " with THREADS = " + std::to_string(l.threads());
}

// Paper eq. 1 (in pointers): the sum over levels of the product of the first m extents, the
// extents taken outermost first (d_n, d_n-1, …, d_2).
std::size_t eq1(const sizes& ordered) {
  std::size_t total = 0;
  std::size_t product = 1;
  for (std::size_t x : ordered) {
    product *= x;
    total += product;
  }
  return total;
}

// Paper eq. 2, the nested form of eq. 1: d_n * (1 + d_n-1 * (1 + … d_2)).
std::size_t eq2(const sizes& ordered) {
  std::size_t inner = 0;
  for (std::size_t k = ordered.size(); k-- > 0;)
    inner = ordered[k] * (1 + inner);
  return inner;
}

// ---------------------------------------------------------------------------------------------
// The paper's worked example.

TEST_CASE("eq. 1: shared [4] int array[16][8][4]", "[table_shape]") {
  for (int threads : {1, 2, 3, 4, 64}) {
    INFO("THREADS = " << threads);
    const layout l({16, 8, 4}, block_spec::cyclic(4), threads);
    REQUIRE(table_shape::why_not(l).empty());

    const table_shape n1(l, table_levels::n_minus_1, false);
    CHECK(n1.which() == kind::rows_in_blocks);
    CHECK(n1.levels() == table_levels::n_minus_1);
    CHECK_FALSE(n1.sorted());
    CHECK(n1.segment() == 4);
    CHECK(n1.segments_per_row() == 1);
    CHECK(n1.index_extents() == sizes{16, 8});
    CHECK(n1.level_order() == sizes{0, 1});
    CHECK(n1.level_entries() == sizes{16, 128});
    CHECK(n1.entries() == 144);
    CHECK(n1.entries() == eq1({16, 8}));
    CHECK(n1.entries() == eq2({16, 8}));
    // "the pointer arrays should occupy 16 * (8 + 1) * 8 = 1152 bytes"
    CHECK(n1.bytes(8) == 1152);
    CHECK(n1.bytes() == 144 * sizeof(void*));
    CHECK(n1.bytes(4) == 576);

    // "By sorting the array indices, the look-up tables will only use 8 * (16 + 1) * 8 = 1088"
    const table_shape sorted(l, table_levels::n_minus_1, true);
    CHECK(sorted.sorted());
    CHECK(sorted.index_extents() == sizes{16, 8});  // natural order; only the levels reorder
    CHECK(sorted.level_order() == sizes{1, 0});
    CHECK(sorted.level_entries() == sizes{8, 128});
    CHECK(sorted.entries() == 136);
    CHECK(sorted.entries() == eq2({8, 16}));
    CHECK(sorted.bytes(8) == 1088);
    CHECK(sorted.bytes(4) == 544);

    // One level (Figure 4): one pointer per row, 16 * 8 of them.
    const table_shape one(l);
    CHECK(one.levels() == table_levels::one);
    CHECK(one.level_entries() == sizes{16 * 8});
    CHECK(one.entries() == 128);
    CHECK(one.bytes(8) == 1024);
    CHECK(one.bytes(4) == 512);
    // Sorting means nothing for one level.
    const table_shape one_sorted(l, table_levels::one, true);
    CHECK_FALSE(one_sorted.sorted());
    CHECK(one_sorted.entries() == 128);
    CHECK(one_sorted.level_order() == sizes{0, 1});
  }
}

TEST_CASE("eq. 1 for sorted and unsorted 4-D arrays", "[table_shape]") {
  struct eq_case {
    sizes extents;
    std::size_t block;
    sizes natural;   // index extents
    sizes order;     // sorted level order
    sizes unsorted;  // level entries, natural order
    sizes sorted;    // level entries, sorted order
  };
  const std::vector<eq_case> cases = {
      // Rows in blocks: the index is the three leading extents.
      {{9, 2, 5, 7}, 7, {9, 2, 5}, {1, 2, 0}, {9, 18, 90}, {2, 10, 90}},
      {{3, 4, 5, 6}, 12, {3, 4, 5}, {0, 1, 2}, {3, 12, 60}, {3, 12, 60}},
      {{6, 5, 4, 3}, 3, {6, 5, 4}, {2, 1, 0}, {6, 30, 120}, {4, 20, 120}},
      // Ties keep their natural order (a stable sort).
      {{4, 2, 4, 8}, 8, {4, 2, 4}, {1, 0, 2}, {4, 8, 32}, {2, 8, 32}},
      // Blocks in rows: the segment number (12 / 4 = 3 per row) is the last index dimension.
      {{5, 2, 6, 12}, 4, {5, 2, 6, 3}, {1, 3, 0, 2}, {5, 10, 60, 180}, {2, 6, 30, 180}},
      // Rows of one element: B = 1 with d = 1 is rows in blocks.
      {{2, 3, 2, 1}, 1, {2, 3, 2}, {0, 2, 1}, {2, 6, 12}, {2, 4, 12}},
  };
  for (const auto& c : cases) {
    for (int threads : {1, 3, 8}) {
      const layout l(c.extents, block_spec::cyclic(c.block), threads);
      INFO(describe(l));
      const table_shape u(l, table_levels::n_minus_1, false);
      const table_shape s(l, table_levels::n_minus_1, true);
      CHECK(u.index_extents() == c.natural);
      CHECK(s.index_extents() == c.natural);
      sizes identity(c.natural.size());
      std::iota(identity.begin(), identity.end(), std::size_t{0});
      CHECK(u.level_order() == identity);
      CHECK(s.level_order() == c.order);
      CHECK(u.level_entries() == c.unsorted);
      CHECK(s.level_entries() == c.sorted);
      // The totals are eq. 1 over the extents in each order.
      sizes ordered;
      for (std::size_t k : c.order)
        ordered.push_back(c.natural[k]);
      CHECK(u.entries() == eq1(c.natural));
      CHECK(u.entries() == eq2(c.natural));
      CHECK(s.entries() == eq1(ordered));
      CHECK(s.entries() == eq2(ordered));
      CHECK(s.entries() <= u.entries());
      CHECK(u.bytes(8) == 8 * u.entries());
      CHECK(u.bytes(4) == 4 * u.entries());
      CHECK(s.bytes(8) == 2 * s.bytes(4));
      // One level: the product of the index extents, the last level of either n−1 table.
      const table_shape one(l);
      CHECK(one.entries() == c.unsorted.back());
      CHECK(one.level_entries() == sizes{c.unsorted.back()});
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Layout kinds.

struct kind_case {
  sizes extents;
  block_spec spec;
  int threads;
  kind which;
  std::size_t segment;
  std::size_t per_row;
  sizes index;
};

void check_kind(const kind_case& c) {
  const layout l(c.extents, c.spec, c.threads);
  INFO(describe(l));
  INFO("why_not: " << table_shape::why_not(l));
  REQUIRE(table_shape::why_not(l).empty());
  const table_shape s(l);
  CHECK(s.which() == c.which);
  CHECK(s.segment() == c.segment);
  CHECK(s.segments_per_row() == c.per_row);
  CHECK(s.index_extents() == c.index);
  std::size_t product = 1;
  for (std::size_t x : c.index)
    product *= x;
  if (c.index.empty()) {
    // A single row in one block: the array's own address is the row pointer (eq. 1, n = 1).
    CHECK(s.entries() == 0);
    CHECK(s.level_entries().empty());
    CHECK(s.level_order().empty());
    CHECK(s.bytes() == 0);
    const table_shape n1(l, table_levels::n_minus_1, true);
    CHECK(n1.entries() == 0);
    CHECK(n1.level_entries().empty());
  } else {
    CHECK(s.entries() == product);
    CHECK(s.level_entries() == sizes{product});
  }
}

TEST_CASE("rows in blocks: B a multiple of the row, indefinite, [*], size <= B", "[table_shape]") {
  const kind r = kind::rows_in_blocks;
  const std::vector<kind_case> cases = {
      // The paper's case, B = the row length.
      {{4, 3}, block_spec::cyclic(3), 2, r, 3, 1, {4}},
      {{1024, 1024}, block_spec::cyclic(1024), 4, r, 1024, 1, {1024}},
      // B a multiple of the row: two rows per block.
      {{8, 4}, block_spec::cyclic(8), 3, r, 4, 1, {8}},
      {{6, 5, 3}, block_spec::cyclic(15), 2, r, 3, 1, {6, 5}},
      // Rows of one element.
      {{7, 1}, block_spec::cyclic(1), 3, r, 1, 1, {7}},
      // shared []: everything on thread 0.
      {{3, 5}, block_spec::indefinite(), 4, r, 5, 1, {3}},
      {{2, 3, 7}, block_spec::cyclic(0), 1, r, 7, 1, {2, 3}},
      {{10}, block_spec::indefinite(), 3, r, 10, 1, {}},
      // [*] that comes out a multiple of the row: 32 / 2 = 16 = 4 rows of 4.
      {{8, 4}, block_spec::star(), 2, r, 4, 1, {8}},
      // [*] of 24 elements over 4 threads: 6 = 2 rows of 3.
      {{2, 4, 3}, block_spec::star(), 4, r, 3, 1, {2, 4}},
      // The whole array fits one block, whatever B is.
      {{3, 7}, block_spec::cyclic(100), 2, r, 7, 1, {3}},
      {{3, 7}, block_spec::cyclic(21), 5, r, 7, 1, {3}},
      {{10}, block_spec::cyclic(10), 2, r, 10, 1, {}},
      {{10}, block_spec::cyclic(64), 2, r, 10, 1, {}},
      {{10}, block_spec::star(), 1, r, 10, 1, {}},
  };
  for (const auto& c : cases)
    check_kind(c);
}

TEST_CASE("blocks in rows: rows a multiple of B, 1-D arrays, partial last block", "[table_shape]") {
  const kind b = kind::blocks_in_rows;
  const std::vector<kind_case> cases = {
      {{3, 8}, block_spec::cyclic(4), 2, b, 4, 2, {3, 2}},
      {{3, 8}, block_spec::cyclic(1), 3, b, 1, 8, {3, 8}},
      {{2, 3, 6}, block_spec::cyclic(2), 4, b, 2, 3, {2, 3, 3}},
      // 1-D arrays: a single row, any B; the last block may be partial.
      {{10}, block_spec::cyclic(1), 3, b, 1, 10, {10}},
      {{10}, block_spec::cyclic(3), 2, b, 3, 4, {4}},
      {{10}, block_spec::cyclic(4), 5, b, 4, 3, {3}},
      {{10}, block_spec::cyclic(9), 1, b, 9, 2, {2}},
      {{4096}, block_spec::cyclic(1), 2, b, 1, 4096, {4096}},
      // 1-D [*]: ceil(10 / 3) = 4.
      {{10}, block_spec::star(), 3, b, 4, 3, {3}},
      // A single row of a multi-dimensional array.
      {{1, 10}, block_spec::cyclic(3), 2, b, 3, 4, {1, 4}},
      {{1, 1, 7}, block_spec::cyclic(2), 3, b, 2, 4, {1, 1, 4}},
      // [*] that divides the row: 2 rows of 8 over 4 threads, blocks of 4.
      {{2, 8}, block_spec::star(), 4, b, 4, 2, {2, 2}},
  };
  for (const auto& c : cases)
    check_kind(c);
}

TEST_CASE("tile rows: every tile layout, padded edge tiles included", "[table_shape]") {
  const kind t = kind::tile_rows;
  const std::vector<kind_case> cases = {
      // Barton et al.'s example: 2×3 tiles of an 8×9 array.
      {{8, 9}, block_spec::tiles({2, 3}), 4, t, 3, 3, {8, 3}},
      // Padded edge tiles: 9 = 4 + 4 + 1.
      {{5, 9}, block_spec::tiles({2, 4}), 3, t, 4, 3, {5, 3}},
      // A tile as wide as the array or wider: one segment per row.
      {{5, 9}, block_spec::tiles({2, 9}), 2, t, 9, 1, {5}},
      {{5, 9}, block_spec::tiles({3, 16}), 2, t, 16, 1, {5}},
      // 1-D tiles are blocks.
      {{10}, block_spec::tiles({4}), 3, t, 4, 3, {3}},
      {{10}, block_spec::tiles({10}), 3, t, 10, 1, {}},
      // 3-D.
      {{3, 4, 5}, block_spec::tiles({2, 2, 2}), 2, t, 2, 3, {3, 4, 3}},
      {{3, 4, 5}, block_spec::tiles({1, 3, 5}), 5, t, 5, 1, {3, 4}},
  };
  for (const auto& c : cases)
    check_kind(c);
}

TEST_CASE("to_string names the kinds", "[table_shape]") {
  CHECK(table_shape::to_string(kind::rows_in_blocks) == "rows in blocks");
  CHECK(table_shape::to_string(kind::blocks_in_rows) == "blocks in rows");
  CHECK(table_shape::to_string(kind::tile_rows) == "tile rows");
}

// ---------------------------------------------------------------------------------------------
// No table.

TEST_CASE("why_not names the row, the threads and the column where a row crosses a block",
          "[table_shape]") {
  struct why_case {
    sizes extents;
    block_spec spec;
    int threads;
    std::vector<std::string> words;
  };
  const std::vector<why_case> cases = {
      // Row 1 = elements 3..5; block 1 starts at element 5, column 2.
      {{4, 3},
       block_spec::cyclic(5),
       2,
       {"shared [5] T A[4][3]", "rows of 3 elements", "blocks of 5 elements",
        "row 1 crosses from thread 0's block into thread 1's at column 2"}},
      // Row 1 = elements 3..5 starts in block 1 (elements 2, 3; thread 1); block 2 (thread 0)
      // starts at its column 1.
      {{3, 3},
       block_spec::cyclic(2),
       2,
       {"shared [2] T A[3][3]", "blocks of 2 elements",
        "row 1 crosses from thread 1's block into thread 0's at column 1"}},
      {{3, 3},
       block_spec::cyclic(2),
       3,
       {"row 1 crosses from thread 1's block into thread 2's at column 1"}},
      // B = 7 > d = 3: rows 0 and 1 fit in block 0, row 2 (elements 6..8) meets block 1 at 7.
      {{5, 3},
       block_spec::cyclic(7),
       4,
       {"row 2 crosses from thread 0's block into thread 1's at column 1"}},
      // [*]: 15 elements over 2 threads, blocks of 8; row 1 (5..9) meets block 1 at 8.
      {{3, 5},
       block_spec::star(),
       2,
       {"shared [*] T A[3][5]", "[*] blocks of 8 elements with 2 threads",
        "row 1 crosses from thread 0's block into thread 1's at column 3"}},
      // [*] of 3 rows of 4 over 5 threads: blocks of 3 < 4; row 1 starts in block 1.
      {{3, 4},
       block_spec::star(),
       5,
       {"[*] blocks of 3 elements with 5 threads",
        "row 1 crosses from thread 1's block into thread 2's at column 2"}},
  };
  for (const auto& c : cases) {
    const layout l(c.extents, c.spec, c.threads);
    INFO(describe(l));
    const std::string why = table_shape::why_not(l);
    INFO("why_not: " << why);
    REQUIRE_FALSE(why.empty());
    for (const auto& w : c.words)
      CHECK_THAT(why, Contains(w));
    CHECK_THAT(why, Contains("no table applies"));
    // The constructor throws the same reason, for every choice of levels.
    for (auto levels : {table_levels::one, table_levels::n_minus_1}) {
      CHECK_THROWS_AS(table_shape(l, levels, true), table_error);
      CHECK_THROWS_WITH(table_shape(l, levels, false), why);
    }
  }
}

TEST_CASE("a table too large to count throws table_error", "[table_shape]") {
  constexpr std::size_t big = std::size_t{1} << 63;
  // n−1 levels of [2^63][1][1]: 2^63 + 2^63 pointers.
  const layout l({big, 1, 1}, block_spec::indefinite(), 1);
  REQUIRE(table_shape::why_not(l).empty());
  CHECK_NOTHROW(table_shape(l, table_levels::one));
  CHECK_THROWS_AS(table_shape(l, table_levels::n_minus_1, false), table_error);
  CHECK_THROWS_WITH(table_shape(l, table_levels::n_minus_1, false),
                    Contains("more than 2^64 pointers"));
  // Sorted, the levels are [1] then [2^63]: 2^63 + 1 pointers, no overflow.
  const table_shape sorted(l, table_levels::n_minus_1, true);
  CHECK(sorted.level_order() == sizes{1, 0});
  CHECK(sorted.entries() == big + 1);

  // 2^61 pointers: 2^64 bytes of 8-byte pointers overflow; 4-byte ones do not.
  const layout m({std::size_t{1} << 61, 1}, block_spec::indefinite(), 2);
  const table_shape s(m);
  CHECK(s.entries() == std::size_t{1} << 61);
  CHECK_THROWS_AS(s.bytes(8), table_error);
  CHECK_THROWS_WITH(s.bytes(8), Contains("overflows 64 bits"));
  CHECK(s.bytes(4) == std::size_t{1} << 63);
  CHECK(s.bytes(2) == std::size_t{1} << 62);
}

// ---------------------------------------------------------------------------------------------
// The property test.

std::size_t block_of(const layout& l, std::size_t linear) {
  return l.block_elements() == 0 ? 0 : linear / l.block_elements();
}

// Advances a row-major odometer; false when it wraps.
bool next_index(sizes& index, const sizes& limits) {
  for (std::size_t d = index.size(); d-- > 0;) {
    if (++index[d] < limits[d]) return true;
    index[d] = 0;
  }
  return false;
}

block_spec random_spec(std::mt19937_64& rng, const sizes& ext, std::size_t size) {
  switch (rng() % 8) {
    case 0:
      return block_spec::indefinite();
    case 1:
      return block_spec::star();
    case 2: {
      sizes tile;
      for (std::size_t x : ext)
        tile.push_back(1 + rng() % (x + 2));
      return block_spec::tiles(tile);
    }
    case 3:
      return block_spec::cyclic(1 + rng() % 1000);
    case 4:
      return block_spec::cyclic(ext.back() * (1 + rng() % 3));  // rows in blocks
    case 5: {
      const std::size_t d = ext.back();
      std::vector<std::size_t> divisors;
      for (std::size_t b = 1; b <= d; ++b)
        if (d % b == 0) divisors.push_back(b);
      return block_spec::cyclic(divisors[rng() % divisors.size()]);  // blocks in rows
    }
    default:
      return block_spec::cyclic(1 + rng() % (size + 3));
  }
}

// The reason's row, threads and column, read back from its text.
void check_reason(const layout& l, const std::string& why) {
  // (No <regex>: GCC 12 warns about its internals in sanitizer builds.)
  const std::string key = "row ";
  // One thread: consecutive blocks are the same thread's, and the text says so.
  const bool one = l.threads() == 1;
  std::size_t at =
      why.find(one ? " crosses from one block into the next" : " crosses from thread ");
  REQUIRE(at != std::string::npos);
  const std::size_t row_at = why.rfind(key, at);
  REQUIRE(row_at != std::string::npos);
  std::size_t row = 0, column = 0;
  int from = 0, to = 0;
  if (one) {
    REQUIRE(std::sscanf(why.c_str() + row_at,
                        "row %zu crosses from one block into the next at column %zu", &row,
                        &column) == 2);
  } else {
    REQUIRE(std::sscanf(why.c_str() + row_at,
                        "row %zu crosses from thread %d's block into thread %d's at column %zu",
                        &row, &from, &to, &column) == 4);
  }
  const std::size_t d = l.extent(l.rank() - 1);
  const std::size_t first = row * d;
  REQUIRE(first < l.size());
  REQUIRE(column > 0);
  REQUIRE(column < d);
  // The row starts inside a block, and a new block starts at `column` — its first in the row.
  CHECK(l.place_linear(first).phase != 0);
  CHECK(l.place_linear(first + column).phase == 0);
  for (std::size_t c = 1; c < column; ++c)
    CHECK(l.place_linear(first + c).phase != 0);
  CHECK(l.place_linear(first).thread == from);
  CHECK(l.place_linear(first + column).thread == to);
  // It is the first such row.
  for (std::size_t r = 0; r < row; ++r) {
    const bool starts_inside = l.place_linear(r * d).phase != 0;
    bool meets_block = false;
    for (std::size_t c = 1; c < d; ++c)
      meets_block = meets_block || l.place_linear(r * d + c).phase == 0;
    CHECK_FALSE((starts_inside && meets_block));
  }
}

// Every element lies at its segment's first element plus its column in the segment, in the
// same thread's part: the pointer a table stores for the segment reaches it.
void check_segments(const layout& l, const table_shape& s) {
  const std::size_t n = l.rank();
  const std::size_t d = l.extent(n - 1);
  const std::size_t seg = s.segment();
  REQUIRE(seg > 0);
  CHECK(seg * s.segments_per_row() >= d);
  CHECK((s.segments_per_row() - 1) * seg < d);
  sizes lead;
  for (std::size_t k = 0; k + 1 < n; ++k)
    lead.push_back(l.extent(k));
  if (s.segments_per_row() > 1) lead.push_back(s.segments_per_row());
  CHECK(s.index_extents() == lead);
  const sizes ext = l.extents();
  sizes idx(n, 0);
  std::size_t failures = 0;
  do {
    const std::size_t col = idx[n - 1];
    sizes start = idx;
    start[n - 1] = col / seg * seg;
    const pgas::element_place p = l.place(idx);
    const pgas::element_place q = l.place(start);
    if (p.thread != q.thread || p.offset != q.offset + (col - start[n - 1])) {
      if (++failures <= 3) {
        FAIL_CHECK("element " << show(idx) << " at thread " << p.thread << " offset " << p.offset
                              << ", its segment " << show(start) << " at thread " << q.thread
                              << " offset " << q.offset);
      }
    }
  } while (next_index(idx, ext));
  CHECK(failures == 0);
}

void check_levels(const layout& l, const table_shape& one, const table_shape& unsorted,
                  const table_shape& sorted) {
  const sizes& ix = one.index_extents();
  CHECK(unsorted.index_extents() == ix);
  CHECK(sorted.index_extents() == ix);
  if (ix.empty()) {
    for (const table_shape* s : {&one, &unsorted, &sorted}) {
      CHECK(s->entries() == 0);
      CHECK(s->level_entries().empty());
    }
    return;
  }
  std::size_t product = 1;
  for (std::size_t x : ix)
    product *= x;
  CHECK(one.level_entries() == sizes{product});
  CHECK(one.entries() == product);

  sizes identity(ix.size());
  std::iota(identity.begin(), identity.end(), std::size_t{0});
  CHECK(unsorted.level_order() == identity);
  CHECK(unsorted.entries() == eq1(ix));

  // Sorted: a permutation, extents non-decreasing, ties in natural order.
  const sizes& order = sorted.level_order();
  REQUIRE(order.size() == ix.size());
  sizes seen = order;
  std::sort(seen.begin(), seen.end());
  CHECK(seen == identity);
  for (std::size_t k = 1; k < order.size(); ++k) {
    CHECK(ix[order[k - 1]] <= ix[order[k]]);
    if (ix[order[k - 1]] == ix[order[k]]) CHECK(order[k - 1] < order[k]);
  }
  sizes ordered;
  sizes prefix;
  std::size_t p = 1;
  for (std::size_t k : order) {
    ordered.push_back(ix[k]);
    p *= ix[k];
    prefix.push_back(p);
  }
  CHECK(sorted.level_entries() == prefix);
  CHECK(sorted.entries() == eq1(ordered));
  CHECK(sorted.entries() == eq2(ordered));
  CHECK(sorted.entries() <= unsorted.entries());
  CHECK(sorted.level_entries().back() == product);
  CHECK(unsorted.level_entries().back() == product);
  for (const table_shape* s : {&one, &unsorted, &sorted}) {
    CHECK(s->bytes(8) == 8 * s->entries());
    CHECK(s->bytes(4) == 4 * s->entries());
  }
  (void)l;
}

TEST_CASE("random layouts: a table applies exactly when rows and blocks nest", "[table_shape]") {
  std::mt19937_64 rng(20240611);
  int with_table = 0;
  int without = 0;
  int kinds[3] = {0, 0, 0};
  for (int iteration = 0; iteration < 4000; ++iteration) {
    const std::size_t rank = 1 + rng() % 4;
    sizes ext;
    std::size_t size = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      ext.push_back(1 + rng() % (rank <= 2 ? 9 : 5));
      size *= ext.back();
    }
    const int threads = 1 + static_cast<int>(rng() % 6);
    const layout l(ext, random_spec(rng, ext, size), threads);
    INFO(describe(l));

    // Brute force: does every row lie in one block, does every block lie in one row?
    const std::size_t d = ext.back();
    bool rows_in_one_block = true;
    bool blocks_in_one_row = true;
    if (!l.tiled()) {
      for (std::size_t i = 0; i < size; ++i) {
        if (i % d != 0 && block_of(l, i) != block_of(l, i - 1)) rows_in_one_block = false;
        if (i % d == 0 && i > 0 && block_of(l, i) == block_of(l, i - 1)) blocks_in_one_row = false;
      }
    }
    const bool applies = l.tiled() || rows_in_one_block || blocks_in_one_row;
    const std::string why = table_shape::why_not(l);
    INFO("why_not: " << why);
    REQUIRE(why.empty() == applies);
    if (!applies) {
      ++without;
      check_reason(l, why);
      CHECK_THROWS_AS(table_shape(l), table_error);
      continue;
    }
    ++with_table;
    const table_shape one(l);
    const table_shape unsorted(l, table_levels::n_minus_1, false);
    const table_shape sorted(l, table_levels::n_minus_1, true);
    ++kinds[static_cast<int>(one.which())];
    if (l.tiled()) {
      CHECK(one.which() == kind::tile_rows);
      CHECK(one.segment() == l.spec().tile().back());
    } else if (one.segments_per_row() == 1) {
      CHECK(one.which() == kind::rows_in_blocks);
      CHECK(one.segment() == d);
      CHECK(rows_in_one_block);
    } else {
      CHECK(one.which() == kind::blocks_in_rows);
      CHECK(one.segment() == l.block_elements());
      CHECK(blocks_in_one_row);
    }
    for (const table_shape* s : {&unsorted, &sorted}) {
      CHECK(s->which() == one.which());
      CHECK(s->segment() == one.segment());
      CHECK(s->segments_per_row() == one.segments_per_row());
    }
    check_segments(l, one);
    check_levels(l, one, unsorted, sorted);
  }
  // The generator reaches every case.
  CHECK(without > 200);
  CHECK(with_table > 2000);
  CHECK(kinds[0] > 200);
  CHECK(kinds[1] > 200);
  CHECK(kinds[2] > 200);
}

// ---------------------------------------------------------------------------------------------
// Replica plans.

struct plan_expect {
  replicate resolved;
  std::vector<int> replica_of;
  std::vector<int> filler;
  std::vector<int> node;
};

void check_plan(const pgas::machine& m, const std::vector<pgas::thread_place>& placement,
                replicate policy, const plan_expect& e) {
  INFO(m.description() << ", " << placement.size() << " threads, policy "
                       << pgas::to_string(policy));
  const pgas::replica_plan p = pgas::plan_replicas(m, placement, policy);
  CHECK(p.policy == e.resolved);
  CHECK(p.replica_of == e.replica_of);
  CHECK(p.filler == e.filler);
  CHECK(p.node == e.node);
  CHECK(p.count() == static_cast<int>(e.filler.size()));
  // Invariants: a filler uses its replica and is its lowest-numbered user; replicas are
  // numbered by their first user; a replica's node is its users' node.
  REQUIRE(p.replica_of.size() == placement.size());
  int next = 0;
  for (std::size_t t = 0; t < placement.size(); ++t) {
    const int r = p.replica_of[t];
    REQUIRE(r >= 0);
    REQUIRE(r < p.count());
    if (r == next) {
      CHECK(p.filler[static_cast<std::size_t>(r)] == static_cast<int>(t));
      ++next;
    }
    CHECK(r < next);
    CHECK(p.filler[static_cast<std::size_t>(r)] <= static_cast<int>(t));
    // Every user of a replica sits on the replica's node when replicas follow NUMA nodes.
    const auto& pu = m.pus()[static_cast<std::size_t>(placement[t].pu)];
    if (p.policy == replicate::per_numa || p.policy == replicate::per_thread) {
      CHECK(p.node[static_cast<std::size_t>(r)] == pu.numa_os);
    }
  }
}

std::vector<int> each(int n, int (*f)(int)) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i)
    v.push_back(f(i));
  return v;
}

TEST_CASE("plan_replicas on package:2 numa:2 core:4 pu:2", "[replicas]") {
  const auto m = pgas::machine::synthetic("package:2 numa:2 core:4 pu:2");
  REQUIRE(m.pu_count() == 32);
  using pgas::bind_policy;
  using pgas::map_policy;

  SECTION("8 threads mapped by core: all on NUMA node 0 of package 0") {
    const auto placement = pgas::place(m, 8, bind_policy::core, map_policy::core);
    const std::vector<int> zeros(8, 0);
    check_plan(m, placement, replicate::single, {replicate::single, zeros, {0}, {0}});
    check_plan(m, placement, replicate::per_numa, {replicate::per_numa, zeros, {0}, {0}});
    check_plan(m, placement, replicate::per_socket, {replicate::per_socket, zeros, {0}, {0}});
    // No L3 in this description: per-l3 groups by package.
    check_plan(m, placement, replicate::per_l3, {replicate::per_l3, zeros, {0}, {0}});
    const auto all = each(8, [](int t) { return t; });
    check_plan(m, placement, replicate::per_thread,
               {replicate::per_thread, all, all, std::vector<int>(8, 0)});
    // One NUMA node: auto is single.
    check_plan(m, placement, replicate::automatic, {replicate::single, zeros, {0}, {0}});
  }

  SECTION("8 threads mapped by numa: thread t on node t%4, package (t%4)/2") {
    const auto placement = pgas::place(m, 8, bind_policy::core, map_policy::numa);
    const auto by_node = each(8, [](int t) { return t % 4; });
    const auto by_package = each(8, [](int t) { return t % 4 / 2; });
    check_plan(m, placement, replicate::single,
               {replicate::single, std::vector<int>(8, 0), {0}, {0}});
    check_plan(m, placement, replicate::per_numa,
               {replicate::per_numa, by_node, {0, 1, 2, 3}, {0, 1, 2, 3}});
    check_plan(m, placement, replicate::per_socket,
               {replicate::per_socket, by_package, {0, 2}, {0, 2}});
    check_plan(m, placement, replicate::per_l3, {replicate::per_l3, by_package, {0, 2}, {0, 2}});
    const auto all = each(8, [](int t) { return t; });
    check_plan(m, placement, replicate::per_thread,
               {replicate::per_thread, all, all, {0, 1, 2, 3, 0, 1, 2, 3}});
    // Four NUMA nodes: auto is per-numa.
    check_plan(m, placement, replicate::automatic,
               {replicate::per_numa, by_node, {0, 1, 2, 3}, {0, 1, 2, 3}});
  }

  SECTION("20 threads mapped by core span nodes 0, 1 and 2") {
    const auto placement = pgas::place(m, 20, bind_policy::none, map_policy::core);
    const auto by_node = each(20, [](int t) { return t / 8; });
    check_plan(m, placement, replicate::automatic,
               {replicate::per_numa, by_node, {0, 8, 16}, {0, 1, 2}});
    // Package 1's only users (threads 16..19) are on node 2: its replica goes there.
    check_plan(m, placement, replicate::per_socket,
               {replicate::per_socket, each(20, [](int t) { return t / 16; }), {0, 16}, {0, 2}});
  }

  SECTION("40 threads mapped by numa wrap around; replicas still one per node") {
    const auto placement = pgas::place(m, 40, bind_policy::none, map_policy::numa);
    const auto by_node = each(40, [](int t) { return t % 4; });
    check_plan(m, placement, replicate::per_numa,
               {replicate::per_numa, by_node, {0, 1, 2, 3}, {0, 1, 2, 3}});
    const pgas::replica_plan p = pgas::plan_replicas(m, placement, replicate::per_thread);
    CHECK(p.count() == 40);
  }

  SECTION("replicas are numbered by their first user") {
    // A hand-made placement: thread 0 on node 3, thread 1 on node 0, thread 2 on node 3,
    // thread 3 on node 1.
    std::vector<pgas::thread_place> placement = {{0, 31, {}}, {1, 0, {}}, {2, 25, {}}, {3, 9, {}}};
    check_plan(m, placement, replicate::per_numa,
               {replicate::per_numa, {0, 1, 0, 2}, {0, 1, 3}, {3, 0, 1}});
    check_plan(m, placement, replicate::per_socket,
               {replicate::per_socket, {0, 1, 0, 1}, {0, 1}, {3, 0}});
    check_plan(m, placement, replicate::automatic,
               {replicate::per_numa, {0, 1, 0, 2}, {0, 1, 3}, {3, 0, 1}});
    check_plan(m, placement, replicate::single, {replicate::single, {0, 0, 0, 0}, {0}, {3}});
  }
}

TEST_CASE("plan_replicas groups per-l3 by L3 cache", "[replicas]") {
  const auto m = pgas::machine::synthetic("package:2 l3:2 core:4 pu:1");
  REQUIRE(m.l3_count() == 4);
  const auto placement = pgas::place(m, 16, pgas::bind_policy::core, pgas::map_policy::core);
  const auto by_l3 = each(16, [](int t) { return t / 4; });
  check_plan(m, placement, replicate::per_l3,
             {replicate::per_l3, by_l3, {0, 4, 8, 12}, {0, 0, 0, 0}});
  check_plan(m, placement, replicate::per_socket,
             {replicate::per_socket, each(16, [](int t) { return t / 8; }), {0, 8}, {0, 0}});
  // One NUMA node: per-numa and auto have a single replica.
  check_plan(m, placement, replicate::per_numa,
             {replicate::per_numa, std::vector<int>(16, 0), {0}, {0}});
  check_plan(m, placement, replicate::automatic,
             {replicate::single, std::vector<int>(16, 0), {0}, {0}});
}

pgas::pu_info make_pu(int logical, int core, int package, int numa, int numa_os, int l3) {
  pgas::pu_info p;
  p.os_index = logical;
  p.logical = logical;
  p.core = core;
  p.package = package;
  p.numa = numa;
  p.numa_os = numa_os;
  p.l3 = l3;
  return p;
}

TEST_CASE("plan_replicas: nodes are OS numbers; missing levels fall back to the package",
          "[replicas]") {
  SECTION("a replica's node is its users' numa_os, not the logical index") {
    const pgas::machine m({make_pu(0, 0, 0, 0, 4, -1), make_pu(1, 1, 0, 0, 4, -1),
                           make_pu(2, 2, 1, 1, 6, -1), make_pu(3, 3, 1, 1, 6, -1)},
                          "nodes 4 and 6");
    const auto placement = pgas::place(m, 4, pgas::bind_policy::none, pgas::map_policy::core);
    check_plan(m, placement, replicate::per_numa,
               {replicate::per_numa, {0, 0, 1, 1}, {0, 2}, {4, 6}});
    check_plan(m, placement, replicate::automatic,
               {replicate::per_numa, {0, 0, 1, 1}, {0, 2}, {4, 6}});
    check_plan(m, placement, replicate::per_thread,
               {replicate::per_thread, {0, 1, 2, 3}, {0, 1, 2, 3}, {4, 4, 6, 6}});
    check_plan(m, placement, replicate::single, {replicate::single, {0, 0, 0, 0}, {0}, {4}});
  }
  SECTION("no NUMA node and no L3 above the PUs: per-numa and per-l3 group by package") {
    const pgas::machine m({make_pu(0, 0, 0, -1, -1, -1), make_pu(1, 1, 0, -1, -1, -1),
                           make_pu(2, 2, 1, -1, -1, -1), make_pu(3, 3, 1, -1, -1, -1)},
                          "no NUMA, no L3");
    const auto placement = pgas::place(m, 4, pgas::bind_policy::none, pgas::map_policy::core);
    const plan_expect by_package{replicate::per_numa, {0, 0, 1, 1}, {0, 2}, {-1, -1}};
    check_plan(m, placement, replicate::per_numa, by_package);
    check_plan(m, placement, replicate::per_l3,
               {replicate::per_l3, {0, 0, 1, 1}, {0, 2}, {-1, -1}});
    check_plan(m, placement, replicate::per_socket,
               {replicate::per_socket, {0, 0, 1, 1}, {0, 2}, {-1, -1}});
    // auto counts NUMA nodes only: a machine that reports none is one memory domain.
    check_plan(m, placement, replicate::automatic, {replicate::single, {0, 0, 0, 0}, {0}, {-1}});
    // Threads on one package only: one group.
    const auto two = pgas::place(m, 2, pgas::bind_policy::none, pgas::map_policy::core);
    check_plan(m, two, replicate::automatic, {replicate::single, {0, 0}, {0}, {-1}});
    check_plan(m, two, replicate::per_numa, {replicate::per_numa, {0, 0}, {0}, {-1}});
  }
  SECTION("an L3 in one package only: the other package's PUs group by package") {
    // PUs 0, 1: package 0 under L3 #0; PUs 2, 3: package 1, no L3.
    const pgas::machine m({make_pu(0, 0, 0, 0, 0, 0), make_pu(1, 1, 0, 0, 0, 0),
                           make_pu(2, 2, 1, 0, 0, -1), make_pu(3, 3, 1, 0, 0, -1)},
                          "half L3");
    const auto placement = pgas::place(m, 4, pgas::bind_policy::none, pgas::map_policy::core);
    check_plan(m, placement, replicate::per_l3, {replicate::per_l3, {0, 0, 1, 1}, {0, 2}, {0, 0}});
  }
  SECTION("one thread: every policy has one replica") {
    const auto m = pgas::machine::synthetic("package:2 numa:2 core:2 pu:1");
    const auto placement = pgas::place(m, 1, pgas::bind_policy::none, pgas::map_policy::numa);
    for (auto p : {replicate::single, replicate::per_numa, replicate::per_socket, replicate::per_l3,
                   replicate::per_thread}) {
      check_plan(m, placement, p, {p, {0}, {0}, {0}});
    }
    check_plan(m, placement, replicate::automatic, {replicate::single, {0}, {0}, {0}});
  }
}

// ---------------------------------------------------------------------------------------------
// Option words.

TEST_CASE("parse_replicate and parse_table_levels: words and errors", "[table_shape]") {
  const std::vector<std::pair<std::string, replicate>> words = {
      {"single", replicate::single},         {"per-numa", replicate::per_numa},
      {"per-socket", replicate::per_socket}, {"per-l3", replicate::per_l3},
      {"per-thread", replicate::per_thread}, {"auto", replicate::automatic},
  };
  for (const auto& [word, value] : words) {
    INFO(word);
    CHECK(pgas::parse_replicate(word) == value);
    CHECK(pgas::to_string(value) == word);
  }
  for (const std::string bad : {"", "per_numa", "Single", "per-core", "automatic", "per-numa "}) {
    INFO("'" << bad << "'");
    CHECK_THROWS_AS(pgas::parse_replicate(bad), table_error);
    CHECK_THROWS_WITH(pgas::parse_replicate(bad), Contains("'" + bad + "'"));
    CHECK_THROWS_WITH(pgas::parse_replicate(bad),
                      Contains("single, per-numa, per-socket, per-l3, per-thread or auto"));
  }
  // table_error is an invalid_argument.
  CHECK_THROWS_AS(pgas::parse_replicate("x"), std::invalid_argument);

  CHECK(pgas::parse_table_levels("one") == table_levels::one);
  CHECK(pgas::parse_table_levels("n-1") == table_levels::n_minus_1);
  CHECK(pgas::to_string(table_levels::one) == "one");
  CHECK(pgas::to_string(table_levels::n_minus_1) == "n-1");
  for (const std::string bad : {"", "two", "n_minus_1", "N-1", "1"}) {
    INFO("'" << bad << "'");
    CHECK_THROWS_AS(pgas::parse_table_levels(bad), table_error);
    CHECK_THROWS_WITH(pgas::parse_table_levels(bad), Contains("'" + bad + "'"));
    CHECK_THROWS_WITH(pgas::parse_table_levels(bad), Contains("one or n-1"));
  }
}

}  // namespace
