// pgas/layout.hpp — where each element of a shared array lives (UPC 1.3 §6.5.1.1, extended
// with multidimensional blocking: tiles).
//
// A layout is a pure value: the array's extents, its block specification and THREADS. It
// answers, for any index, which thread owns the element, its phase within its block and its
// offset (in elements) within the owner's part — the numbers shared arrays use to address
// memory and `pgas-layout` prints. It needs no running job, so tools use it offline.
//
// The block specifications:
//   block_spec::cyclic(B)  `shared [B] T A[d0]…[dn-1]`, B >= 1 (1 is UPC's default): the
//                          row-major linearisation l of the index is dealt in blocks of B
//                          elements: block k = l / B goes to thread k % THREADS, at course
//                          k / THREADS of its part; phase = l % B,
//                          offset = (k / THREADS) * B + phase.
//   block_spec::indefinite()  `shared [] T A[…]` (also `shared [0]`): every element on
//                          thread 0, offset = l, phase 0.
//   block_spec::star()     `shared [*] T A[…]`: cyclic with B = ceil(size / THREADS), so each
//                          thread gets one contiguous block.
//   block_spec::tiles({b0, …, bn-1})  `shared [b0][b1]… T A[d0][d1]…`: the
//                          array is cut into tiles of b0×b1×… elements; tile k, in row-major
//                          tile order, goes to thread k % THREADS at course k / THREADS; a
//                          tile is stored whole and row-major, edge tiles padded to full size.
//                          phase = row-major position within the tile,
//                          offset = (k / THREADS) * tile_volume + phase.
//
// Every thread's part is part_elements() long (the most any thread needs, padding included),
// which is also what the symmetric allocation reserves per thread.
//
// Contract.
//   * Collective: nothing here; a layout is a pure value.
//   * Errors (pgas/error.hpp): block_spec::cyclic with a block beyond
//     config::max_runtime_block (2^36 elements by default) and block_spec::tiles with no, too
//     many or zero tile extents are misuse named at their call site: inside a job the job ends
//     naming the thread, file and line; outside one they throw pgas::usage_error. Constructing
//     a layout with zero threads, a zero or overflowing extent, a [*] or tile block beyond
//     config::max_runtime_block, tiles of the wrong rank, or more than max_rank dimensions
//     throws std::invalid_argument naming the problem (shared_array turns it into misuse
//     named at the array's declaration). Index functions do not check (an index out of range
//     gives a meaningless place); shared_array checks in checked builds.
//   * Outside a job everything else works the same: a layout needs no running job.
//   * Thread safety: a const layout may be used from any number of threads.
#pragma once

#include <pgas/detail/export.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include <libdivide.h>

#include <pgas/config.hpp>

namespace pgas {

/// How a shared array's elements are dealt to threads (see the top of this header).
class PGAS_API block_spec {
 public:
  enum class kind { cyclic, indefinite, star, tiles };

  /// `shared [b]`; b == 0 means indefinite, as in UPC. Misuse: b beyond
  /// config::max_runtime_block.
  static block_spec cyclic(std::size_t b,
                           std::source_location where = std::source_location::current());
  /// `shared []`.
  static block_spec indefinite();
  /// `shared [*]`.
  static block_spec star();
  /// `shared [b0][b1]…`: one tile extent per array dimension, each >= 1. Misuse: no extents,
  /// more than layout::max_rank, or a zero one.
  static block_spec tiles(std::vector<std::size_t> b,
                          std::source_location where = std::source_location::current());
  static block_spec tiles(std::initializer_list<std::size_t> b,
                          std::source_location where = std::source_location::current()) {
    return tiles(std::vector<std::size_t>(b), where);
  }
  /// What cyclic(b) and tiles(b) would report as misuse, or "" when they accept b: for tools
  /// that check a declaration without calling them.
  static std::string cyclic_problem(std::size_t b);
  static std::string tiles_problem(const std::vector<std::size_t>& b);

  /// UPC's default: `shared T A[…]` is `shared [1]`.
  block_spec() = default;

  kind which() const noexcept { return kind_; }
  /// B for cyclic (0 for indefinite and star, which depends on the array).
  std::size_t block() const noexcept { return block_; }
  const std::vector<std::size_t>& tile() const noexcept { return tile_; }
  /// As written in UPC: "[3]", "[]", "[*]", "[2][3]"; "" for the default block 1.
  std::string to_string() const;

  friend bool operator==(const block_spec&, const block_spec&) = default;

 private:
  kind kind_ = kind::cyclic;
  std::size_t block_ = 1;
  std::vector<std::size_t> tile_;
};

/// One element's place: UPC's upc_threadof / upc_phaseof of &A[…], and its offset in elements
/// from the start of the owner's part.
struct element_place {
  int thread = 0;
  std::size_t phase = 0;
  std::size_t offset = 0;
  friend bool operator==(const element_place&, const element_place&) = default;
};

class PGAS_API layout {
 public:
  static constexpr std::size_t max_rank = 8;

  layout() = default;
  /// The layout of an array with these extents (row-major, at least one) over `threads`
  /// threads. Throws std::invalid_argument (see the top of this header).
  layout(std::vector<std::size_t> extents, block_spec spec, int threads);

  int threads() const noexcept { return threads_; }
  std::size_t rank() const noexcept { return rank_; }
  std::size_t extent(std::size_t d) const noexcept { return extents_[d]; }
  std::vector<std::size_t> extents() const {
    return {extents_.begin(), extents_.begin() + static_cast<std::ptrdiff_t>(rank_)};
  }
  /// The specification as given (star is not resolved here; see block_elements()).
  const block_spec& spec() const noexcept { return spec_; }
  block_spec::kind which() const noexcept { return spec_.which(); }
  bool tiled() const noexcept { return spec_.which() == block_spec::kind::tiles; }

  /// Elements in the array (the product of the extents).
  std::size_t size() const noexcept { return size_; }
  /// Elements per block: B for cyclic, ceil(size / THREADS) for star, the tile volume for
  /// tiles, 0 for indefinite (UPC upc_blocksizeof in elements).
  std::size_t block_elements() const noexcept { return block_; }
  /// Blocks (tiles) in the array, the last one possibly partial; 1 for indefinite.
  std::size_t blocks() const noexcept { return blocks_; }
  /// Tiles along dimension d (tiled layouts).
  std::size_t tiles_along(std::size_t d) const noexcept { return tiles_[d]; }
  /// Elements reserved for each thread's part: ceil(blocks / THREADS) blocks (the whole array
  /// for indefinite). Padding included.
  std::size_t part_elements() const noexcept { return part_; }
  /// Elements (not padding) with affinity to `thread`: UPC upc_affinitysize; 0 for a
  /// thread outside [0, THREADS).
  ///
  /// Cost: O(1) for block-cyclic, star and indefinite layouts. For tiles it is computed in
  /// closed form, never by visiting the thread's tiles: O(2^p · rank · log THREADS) with p the
  /// number of dimensions whose last tile is partial, for every layout of rank 4 or less;
  /// from rank 5, layouts with partial edge tiles in alternate dimensions add a factor of at
  /// most THREADS (still independent of the number of tiles).
  std::size_t elements_on(int thread) const;
  /// Blocks (tiles) dealt to `thread`: blocks thread, thread + THREADS, …; an indefinite
  /// array is one block on thread 0.
  std::size_t blocks_on(int thread) const noexcept {
    if (thread < 0 || thread >= threads_) return 0;
    const auto t = static_cast<std::size_t>(thread);
    if (block_ == 0) return t == 0 ? 1 : 0;
    return t < blocks_ ? (blocks_ - 1 - t) / static_cast<std::size_t>(threads_) + 1 : 0;
  }

  /// Row-major linear position of an index (rank() values, each below its extent).
  std::size_t linear(std::span<const std::size_t> index) const noexcept {
    std::size_t l = 0;
    for (std::size_t d = 0; d < rank_; ++d)
      l = l * extents_[d] + index[d];
    return l;
  }
  /// The index of a linear position.
  std::vector<std::size_t> unlinear(std::size_t l) const;

  /// The place of the element at `index` (rank() values, each below its extent).
  element_place place(std::span<const std::size_t> index) const noexcept {
    if (spec_.which() != block_spec::kind::tiles) return place_linear(linear(index));
    std::size_t tile = 0;
    std::size_t phase = 0;
    for (std::size_t d = 0; d < rank_; ++d) {
      const std::size_t q = divide_tile(d, index[d]);
      tile = tile * tiles_[d] + q;
      phase = phase * tile_[d] + (index[d] - q * tile_[d]);
    }
    const std::size_t course = divide_threads(tile);
    return {static_cast<int>(tile - course * static_cast<std::size_t>(threads_)), phase,
            course * block_ + phase};
  }
  element_place place(std::initializer_list<std::size_t> index) const noexcept {
    return place(std::span<const std::size_t>(index.begin(), index.size()));
  }
  /// The place of the element at row-major position l (cyclic, star and indefinite layouts;
  /// for tiles use place(index)).
  element_place place_linear(std::size_t l) const noexcept {
    if (block_ == 0) return {0, 0, l};
    const std::size_t k = divide_block(l);
    const std::size_t phase = l - k * block_;
    const std::size_t course = divide_threads(k);
    return {static_cast<int>(k - course * static_cast<std::size_t>(threads_)), phase,
            course * block_ + phase};
  }

  /// Division helpers (libdivide: a multiply and shift, or a shift for powers of two).
  std::size_t divide_block(std::size_t n) const noexcept { return block_div_.divide(n); }
  std::size_t divide_threads(std::size_t n) const noexcept { return threads_div_.divide(n); }
  std::size_t divide_tile(std::size_t d, std::size_t n) const noexcept {
    return tile_div_[d].divide(n);
  }

  /// "shared [2][3] int A[8][9]" style description of the layout (element type and name
  /// given by the caller).
  std::string declaration(const std::string& type, const std::string& name) const;

 private:
  block_spec spec_;
  int threads_ = 1;
  std::size_t rank_ = 0;
  std::array<std::size_t, max_rank> extents_{};
  std::array<std::size_t, max_rank> tile_{};   // tile extents (tiled)
  std::array<std::size_t, max_rank> tiles_{};  // tiles per dimension (tiled)
  std::size_t size_ = 0;
  std::size_t block_ = 0;
  std::size_t blocks_ = 0;
  std::size_t part_ = 0;
  libdivide::divider<std::uint64_t> block_div_;
  libdivide::divider<std::uint64_t> threads_div_;
  std::array<libdivide::divider<std::uint64_t>, max_rank> tile_div_{};
};

}  // namespace pgas
