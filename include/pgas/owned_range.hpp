// pgas/owned_range.hpp — the global indices a thread owns, as ranges for a range-for: the first
// thing a loop over "my elements" needs, for every layout of pgas/layout.hpp (block-cyclic
// with any block, [*], indefinite, tiles of any rank), padding never included.
//
//   for (auto [b, e] : A.my_chunks())              // fast: one contiguous run per block
//     for (std::size_t l = b; l < e; ++l) A[l] += 1;
//   for (std::size_t i : V.my_range()) V[i] = i;    // 1-D: each index of mine
//   for (auto [i, j] : M.my_range()) M(i, j) = 0;   // N-D: each index tuple of mine
//
// shared_array's my_chunks() / chunks_of(t) and my_range() / range_of(t) return these; they
// are also made from a bare pgas::layout (owned_chunks(l, t)), with no job.
//
// Chunks. owned_chunks yields index_chunk{begin, end, offset}: runs of consecutive row-major
// linear indices (the layout's l, as in layout::place_linear) that thread t owns, in the
// order of its storage — so a chunk is also contiguous in t's part, from element `offset` of
// it, and a loop over a chunk is a plain loop over memory:
//
//   int* part = A.local_part().data();
//   for (const pgas::index_chunk& c : A.my_chunks())
//     for (std::size_t l = c.begin; l < c.end; ++l) part[c.offset + (l - c.begin)] = f(l);
//
//   * block-cyclic and [*] (any rank): one chunk per block of t, [k B, min((k+1) B, size))
//     for k = t, t + THREADS, …; block 1 gives one-element chunks (use my_range there);
//   * indefinite: thread 0 has one chunk [0, size), every other thread none;
//   * tiles: one chunk per row of each of t's tiles (the row cut at the array's edge), tile
//     after tile (k = t, t + THREADS, …), rows of a tile in row-major order.
// Each chunk costs a few additions (a tiled layout adds rank divisions per tile); nothing is
// divided per element.
//
// Indices. owned_indices<Rank> yields every index of those chunks, in the same order: a
// std::size_t for rank 1, a std::array<std::size_t, Rank> (structured bindings work) for
// more. Stepping within a row is one increment; moving to the next chunk carries its index
// tuple without dividing (unless a jump spans a whole row or more, then once per dimension).
// For tight loops prefer my_chunks: the compiler sees a plain counted loop.
//
// Contract.
//   * Collective: no; pure functions of the layout and a thread number.
//   * Errors: none. A thread outside [0, THREADS) owns nothing (an empty range).
//   * Outside a job: works (a layout needs no job); shared_array's my_chunks() needs one only
//     because an array does.
//   * Memory ordering: none (no shared memory is touched).
//   * Thread safety: the ranges are values that refer to the layout, which must outlive them;
//     any number of threads may iterate at once.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <tuple>
#include <type_traits>

#include <pgas/layout.hpp>

namespace pgas {
struct index_chunk;
}
// Structured bindings of an index_chunk give [begin, end).
template <>
struct std::tuple_size<pgas::index_chunk> : std::integral_constant<std::size_t, 2> {};
template <std::size_t N>
struct std::tuple_element<N, pgas::index_chunk> {
  using type = std::size_t;
};

namespace pgas {

/// A run of consecutive row-major linear indices [begin, end), all on one thread and
/// contiguous in its part, from element `offset` of the part (layout::place's offset of
/// begin). `auto [b, e] = chunk` binds begin and end.
struct index_chunk {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t offset = 0;
  std::size_t size() const noexcept { return end - begin; }
  friend bool operator==(const index_chunk&, const index_chunk&) = default;

  template <std::size_t N>
  requires(N < 2) std::size_t get()
  const noexcept { return N == 0 ? begin : end; }
};

namespace detail {

// Walks the chunks of one thread (see the top of this header); with Tuple and rank > 1 it
// also keeps the index tuple of the current chunk's first element.
template <bool Tuple>
class chunk_cursor {
 public:
  chunk_cursor() = default;
  chunk_cursor(const layout& l, int thread) : l_(&l) {
    rank_ = l.rank();
    size_ = l.size();
    block_ = l.block_elements();
    if (thread < 0 || thread >= l.threads()) return;
    const auto t = static_cast<std::size_t>(thread);
    const std::size_t b = l.block_elements();
    if (b == 0) {  // indefinite: all on thread 0
      if (t == 0) set({0, l.size(), 0}, 0);
      return;
    }
    k_ = t;
    if (k_ >= l.blocks()) return;
    threads_ = static_cast<std::size_t>(l.threads());
    if (!l.tiled()) {
      stride_ = b * threads_;
      set({k_ * b, std::min(k_ * b + b, l.size()), 0}, k_ * b);
      return;
    }
    tiled_ = true;
    enter_tile();
  }

  bool done() const noexcept { return done_; }
  const index_chunk& chunk() const noexcept { return chunk_; }
  // The index tuple of chunk().begin (rank > 1).
  const std::array<std::size_t, layout::max_rank>& start() const noexcept { return idx_; }

  void next() noexcept {
    if (!tiled_) {
      const std::size_t b = chunk_.begin;
      if (stride_ == 0 || size_ - b <= stride_) {
        done_ = true;
        return;
      }
      chunk_ = {b + stride_, std::min(b + stride_ + block_, size_), chunk_.offset + block_};
      if (Tuple && rank_ > 1) add(idx_, *l_, rank_, stride_);
      return;
    }
    // The next row of this tile: an odometer over dimensions 0 … rank-2 within [lo_, hi_).
    for (std::size_t d = rank_ - 1; d-- > 0;) {
      if (++idx_[d] < hi_[d]) {
        row();
        return;
      }
      idx_[d] = lo_[d];
    }
    k_ += threads_;
    if (k_ >= l_->blocks()) {
      done_ = true;
      return;
    }
    course_ += block_;
    enter_tile();
  }

  // Adds n to the index tuple idx_ (row-major), carrying into the leading dimensions; divides
  // only when a dimension overflows by a whole extent or more.
  static void add(std::array<std::size_t, layout::max_rank>& idx, const layout& l, std::size_t rank,
                  std::size_t n) noexcept {
    for (std::size_t d = rank; d-- > 0 && n != 0;) {
      const std::size_t e = l.extent(d);
      const std::size_t v = idx[d] + n;
      if (v < e) {
        idx[d] = v;
        return;
      }
      if (v - e < e) {
        idx[d] = v - e;
        n = 1;
      } else {
        n = v / e;
        idx[d] = v - n * e;
      }
    }
  }

 private:
  void set(index_chunk c, std::size_t lin) {
    chunk_ = c;
    done_ = false;
    if (Tuple && rank_ > 1) {
      idx_ = {};
      add(idx_, *l_, rank_, lin);
    }
  }

  // Tile k_: its bounds, and its first row.
  void enter_tile() noexcept {
    std::size_t rest = k_;
    const auto& tile = l_->spec().tile();
    for (std::size_t d = rank_; d-- > 0;) {
      const std::size_t n = l_->tiles_along(d);
      const std::size_t q = rest / n;
      lo_[d] = (rest - q * n) * tile[d];
      hi_[d] = std::min(lo_[d] + tile[d], l_->extent(d));
      idx_[d] = lo_[d];
      rest = q;
    }
    done_ = false;
    row();
  }
  // The chunk of the row idx_[0 … rank-2] of the current tile; its offset is the tile's
  // course plus the row's row-major position in the (whole, padded) tile.
  void row() noexcept {
    const auto& tile = l_->spec().tile();
    std::size_t lin = 0;
    std::size_t phase = 0;
    for (std::size_t d = 0; d < rank_; ++d) {
      lin = lin * l_->extent(d) + idx_[d];
      phase = phase * tile[d] + (idx_[d] - lo_[d]);
    }
    chunk_ = {lin, lin + (hi_[rank_ - 1] - lo_[rank_ - 1]), course_ + phase};
  }

  const layout* l_ = nullptr;
  std::size_t rank_ = 1;
  bool done_ = true;
  bool tiled_ = false;
  index_chunk chunk_{};
  std::size_t size_ = 0;     // elements in the array
  std::size_t block_ = 0;    // elements per block (tile)
  std::size_t k_ = 0;        // the current block (tile)
  std::size_t course_ = 0;   // tiled: the current tile's offset in the part
  std::size_t threads_ = 1;  // THREADS
  std::size_t stride_ = 0;   // non-tiled: B * THREADS, from one chunk to the next
  std::array<std::size_t, layout::max_rank> idx_{};
  std::array<std::size_t, layout::max_rank> lo_{};  // tiled: the current tile's bounds
  std::array<std::size_t, layout::max_rank> hi_{};
};

}  // namespace detail

/// The chunks thread t owns (see the top of this header): a range of index_chunk.
class owned_chunks {
 public:
  struct sentinel {};
  class iterator {
   public:
    using value_type = index_chunk;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::input_iterator_tag;

    iterator() = default;
    const index_chunk& operator*() const noexcept { return c_.chunk(); }
    iterator& operator++() noexcept {
      c_.next();
      return *this;
    }
    void operator++(int) noexcept { c_.next(); }
    friend bool operator==(const iterator& i, sentinel) noexcept { return i.c_.done(); }

   private:
    friend class owned_chunks;
    explicit iterator(const layout& l, int t) : c_(l, t) {}
    detail::chunk_cursor<false> c_;
  };

  /// The chunks of `thread` in layout `l` (which must outlive the range).
  owned_chunks(const layout& l, int thread) noexcept : l_(&l), thread_(thread) {}
  iterator begin() const { return iterator(*l_, thread_); }
  sentinel end() const noexcept { return {}; }

 private:
  const layout* l_;
  int thread_;
};

/// Every index thread t owns (see the top of this header): std::size_t for Rank 1, else
/// std::array<std::size_t, Rank>.
template <std::size_t Rank>
class owned_indices {
 public:
  using index = std::conditional_t<Rank == 1, std::size_t, std::array<std::size_t, Rank>>;
  struct sentinel {};
  class iterator {
   public:
    using value_type = index;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::input_iterator_tag;

    iterator() = default;
    index operator*() const noexcept {
      if constexpr (Rank == 1) {
        return l_;
      } else {
        index i;
        std::copy_n(idx_.begin(), Rank, i.begin());
        return i;
      }
    }
    iterator& operator++() noexcept {
      if (++l_ == end_) {
        c_.next();
        load();
      } else if constexpr (Rank > 1) {
        detail::chunk_cursor<true>::add(idx_, *layout_, Rank, 1);
      }
      return *this;
    }
    void operator++(int) noexcept { ++*this; }
    friend bool operator==(const iterator& i, sentinel) noexcept { return i.c_.done(); }

   private:
    friend class owned_indices;
    iterator(const layout& l, int t) : c_(l, t), layout_(&l) { load(); }
    void load() noexcept {
      if (c_.done()) return;
      l_ = c_.chunk().begin;
      end_ = c_.chunk().end;
      if constexpr (Rank > 1) idx_ = c_.start();
    }
    detail::chunk_cursor<true> c_;
    const layout* layout_ = nullptr;
    std::size_t l_ = 0;
    std::size_t end_ = 0;
    std::array<std::size_t, layout::max_rank> idx_{};
  };

  /// The indices of `thread` in layout `l` (which must have rank Rank and outlive the range).
  owned_indices(const layout& l, int thread) noexcept : l_(&l), thread_(thread) {}
  iterator begin() const { return iterator(*l_, thread_); }
  sentinel end() const noexcept { return {}; }

 private:
  const layout* l_;
  int thread_;
};

}  // namespace pgas
