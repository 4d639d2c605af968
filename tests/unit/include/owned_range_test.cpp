// Tests pgas/owned_range.hpp against a brute-force model built from pgas::layout::place: for
// every thread count 1–5 and layouts of every kind (block-cyclic with several blocks, [*],
// indefinite, tiles of rank 1–3 with partial edge tiles, several ranks), the chunks of all
// threads together hold every index exactly once; each chunk's indices belong to its thread and
// are consecutive in its storage (offsets one apart), chunks come in storage order, their
// element count is upc_affinitysize; owned_indices yields exactly the chunks' indices, as index
// tuples for rank > 1; a thread outside [0, THREADS) owns nothing.

#include <pgas/owned_range.hpp>

#include <array>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace {

std::string describe(const pgas::layout& l) {
  return l.declaration("int", "A");
}

// The place of row-major position l, for any layout (tiles need the index tuple).
pgas::element_place place_of(const pgas::layout& l, std::size_t lin) {
  const std::vector<std::size_t> idx = l.unlinear(lin);
  return l.place(std::span<const std::size_t>(idx));
}

template <std::size_t Rank>
void check_layout(const pgas::layout& l) {
  INFO(describe(l) << " over " << l.threads() << " threads");
  std::vector<int> seen(l.size(), 0);
  for (int t = 0; t < l.threads(); ++t) {
    INFO("thread " << t);
    std::vector<std::size_t> from_chunks;
    std::size_t last_offset = 0;
    bool first = true;
    for (const pgas::index_chunk& c : pgas::owned_chunks(l, t)) {
      REQUIRE(c.begin < c.end);
      REQUIRE(c.end <= l.size());
      const pgas::element_place p0 = place_of(l, c.begin);
      CHECK(c.offset == p0.offset);
      // Storage order: each chunk starts after the previous one ended.
      CHECK((first || p0.offset >= last_offset));
      first = false;
      for (std::size_t lin = c.begin; lin < c.end; ++lin) {
        const pgas::element_place p = place_of(l, lin);
        CHECK(p.thread == t);
        CHECK(p.offset == p0.offset + (lin - c.begin));  // contiguous in t's part
        seen[lin]++;
        from_chunks.push_back(lin);
      }
      last_offset = p0.offset + c.size();
    }
    CHECK(from_chunks.size() == l.elements_on(t));
    // The indices, one by one, are the chunks' indices in the same order.
    std::vector<std::size_t> from_range;
    for (const auto& i : pgas::owned_indices<Rank>(l, t)) {
      if constexpr (Rank == 1) {
        from_range.push_back(i);
      } else {
        from_range.push_back(l.linear(std::span<const std::size_t>(i.data(), Rank)));
      }
    }
    CHECK(from_range == from_chunks);
  }
  for (std::size_t lin = 0; lin < l.size(); ++lin) {
    INFO("index " << lin);
    CHECK(seen[lin] == 1);  // every index exactly once over all threads
  }
  CHECK(pgas::owned_chunks(l, -1).begin() == pgas::owned_chunks::sentinel{});
  CHECK(pgas::owned_chunks(l, l.threads()).begin() == pgas::owned_chunks::sentinel{});
}

}  // namespace

TEST_CASE("owned ranges: block-cyclic, [*] and indefinite layouts of rank 1", "[owned_range]") {
  for (int n = 1; n <= 5; ++n) {
    for (std::size_t size : {1, 2, 7, 23, 64, 100}) {
      for (std::size_t b : {1, 2, 3, 4, 7, 16, 200})
        check_layout<1>(pgas::layout({size}, pgas::block_spec::cyclic(b), n));
      check_layout<1>(pgas::layout({size}, pgas::block_spec::star(), n));
      check_layout<1>(pgas::layout({size}, pgas::block_spec::indefinite(), n));
      check_layout<1>(pgas::layout({size}, pgas::block_spec{}, n));  // UPC's default, block 1
    }
  }
}

TEST_CASE("owned ranges: block-cyclic layouts of rank 2 and 3 (index tuples)", "[owned_range]") {
  for (int n = 1; n <= 5; ++n) {
    for (std::size_t b : {1, 2, 3, 5, 9, 12, 40}) {
      check_layout<2>(pgas::layout({4, 9}, pgas::block_spec::cyclic(b), n));
      check_layout<2>(pgas::layout({7, 3}, pgas::block_spec::cyclic(b), n));
      check_layout<2>(pgas::layout({1, 11}, pgas::block_spec::cyclic(b), n));
      check_layout<3>(pgas::layout({3, 4, 5}, pgas::block_spec::cyclic(b), n));
    }
    check_layout<2>(pgas::layout({6, 5}, pgas::block_spec::star(), n));
    check_layout<2>(pgas::layout({6, 5}, pgas::block_spec::indefinite(), n));
    check_layout<2>(pgas::layout({6, 5}, pgas::block_spec{}, n));
    check_layout<3>(pgas::layout({2, 3, 4}, pgas::block_spec::star(), n));
  }
}

TEST_CASE("owned ranges: tiles of rank 1-3, with partial edge tiles", "[owned_range]") {
  for (int n = 1; n <= 5; ++n) {
    check_layout<1>(pgas::layout({10}, pgas::block_spec::tiles({3}), n));
    check_layout<1>(pgas::layout({12}, pgas::block_spec::tiles({4}), n));
    check_layout<2>(pgas::layout({8, 9}, pgas::block_spec::tiles({2, 3}), n));
    check_layout<2>(pgas::layout({7, 10}, pgas::block_spec::tiles({3, 4}), n));
    check_layout<2>(pgas::layout({5, 5}, pgas::block_spec::tiles({1, 5}), n));
    check_layout<2>(pgas::layout({5, 6}, pgas::block_spec::tiles({5, 1}), n));
    check_layout<2>(pgas::layout({3, 3}, pgas::block_spec::tiles({4, 4}), n));  // one tile, padded
    check_layout<3>(pgas::layout({5, 4, 7}, pgas::block_spec::tiles({2, 3, 3}), n));
    check_layout<3>(pgas::layout({2, 2, 2}, pgas::block_spec::tiles({1, 1, 1}), n));
  }
}

TEST_CASE("owned ranges: hand-worked chunks", "[owned_range]") {
  // shared [3] int A[10] over 2 threads: thread 1 has blocks 1 and 3.
  const pgas::layout c({10}, pgas::block_spec::cyclic(3), 2);
  std::vector<pgas::index_chunk> got;
  for (const auto& ch : pgas::owned_chunks(c, 1))
    got.push_back(ch);
  CHECK(got == std::vector<pgas::index_chunk>{{3, 6, 0}, {9, 10, 3}});
  // shared [2][3] int T[5][4] over 3 threads: tiles (row-major) 0 1 / 2 3 / 4 5; thread 1 has
  // tiles 1 (rows 0-1, columns 3) and 4 (row 4, columns 0-2).
  const pgas::layout t({5, 4}, pgas::block_spec::tiles({2, 3}), 3);
  got.clear();
  for (const auto& ch : pgas::owned_chunks(t, 1))
    got.push_back(ch);
  CHECK(got == std::vector<pgas::index_chunk>{{3, 4, 0}, {7, 8, 3}, {16, 19, 6}});
  std::vector<std::array<std::size_t, 2>> idx;
  for (auto [i, j] : pgas::owned_indices<2>(t, 1))
    idx.push_back({i, j});
  CHECK(idx == std::vector<std::array<std::size_t, 2>>{{0, 3}, {1, 3}, {4, 0}, {4, 1}, {4, 2}});
  // Indefinite: thread 0 has everything in one chunk.
  const pgas::layout ind({6}, pgas::block_spec::indefinite(), 4);
  got.clear();
  for (const auto& ch : pgas::owned_chunks(ind, 0))
    got.push_back(ch);
  CHECK(got == std::vector<pgas::index_chunk>{{0, 6, 0}});
  CHECK(pgas::owned_chunks(ind, 2).begin() == pgas::owned_chunks::sentinel{});
}
