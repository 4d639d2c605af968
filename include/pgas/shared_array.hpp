// pgas/shared_array.hpp — shared arrays: UPC's `shared [B] T A[d0][d1]…`, created at run time
// by every thread together (UPC 1.3 §6.5.1.1; tiles from papers/004).
//
//   pgas::shared_array<double, 2> A({1024, 1024}, pgas::block_spec::cyclic(1024));  // rows
//   pgas::shared_array<int, 2> T({8, 9}, pgas::block_spec::tiles({2, 3}));       // 2×3 tiles
//   pgas::shared_array<int, 1, 4> V({100});          // compile-time block: shared [4] int V[100]
//   A(i, j) = 1.0;                       // any thread's element, by reference
//   pgas::sptr<double, pgas::dynamic_block> p = A.ptr(i, j);   // &A[i][j]
//
// Layouts are those of pgas/layout.hpp. The array is one symmetric allocation
// (pgas::all_alloc): thread t's part sits at the same offset of segment t, bound to t's NUMA
// node and first touched by t. Elements are zero-initialised, as UPC's statically declared
// shared arrays are.
//
// Access. A(i, j, …) of an array that has an automatic privatization table of whole rows
// (pgas/privatize.hpp: built at creation when one applies and costs at most 1/32 of the data;
// uses_table() says so) is a load of the row pointer plus the column, and loops over it
// vectorise. Otherwise it computes the owner and offset with a few multiplies and shifts: the
// block size (a compile-time Block, or a precomputed libdivide divider for a run-time one)
// and THREADS are never divided by in hardware, and the element's address is base +
// (thread << log2(segment)) + offset. Tiles, tables of split rows and run-time blocks of
// Rank > 1 take that path out of line. The reference works from any thread (one address space).
//
// Views. A loop that stores through a char-sized element type (uint8_t images) may alias
// anything, so the compiler reloads the array's row table at every access and the loop stays
// scalar. Pass the arrays to the loop as views instead (view(), or visit() / pgas::with_views,
// which hand over a view with no test when the rows are whole): a view is a trivially
// copyable copy of the indexing whose read-only row table is restrict, and such loops
// vectorise.
//
//   pgas::with_views([&](auto in, auto out) {
//     for (std::size_t j = 1; j + 1 < n; ++j) out(i, j) = (in(i, j - 1) + in(i, j + 1)) / 2;
//   }, In, Out);
//
// Collective: the constructor and the destructor. Every thread must create the same arrays
// in the same order with the same arguments (checked: a mismatch ends the job naming each
// thread's arguments) and destroy them in the same order (the destructor calls all_free).
// Arrays are move-only; a moved-from array owns nothing.
//
// Errors: an invalid layout (zero extents, block beyond config::max_block, tiles of the
// wrong rank) ends the job naming the thread and the constructor's call site. Out of shared
// memory throws pgas::bad_shared_alloc. With bounds checking (config::bounds_check) an index
// outside the extents ends the job naming the thread, the index, the extents and the call
// site.
//
// Thread-safety: element access is as safe as the elements (no locking); the array object is
// read-only after construction.
#pragma once

#include <pgas/detail/export.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <source_location>
#include <span>
#include <type_traits>
#include <utility>

#include <pgas/alloc.hpp>
#include <pgas/layout.hpp>
#include <pgas/privatize.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sptr.hpp>
#include <pgas/sync.hpp>

namespace pgas {

namespace detail {

// An index argument. In checked builds it records where it was written, so an out-of-range
// index can be reported at the caller's file and line; otherwise it is just the value.
struct located_index {
  std::size_t value;
  std::source_location where;
  template <std::integral I>
  located_index(I v, std::source_location w = std::source_location::current()) noexcept
      : value(static_cast<std::size_t>(v)), where(w) {}
};
struct plain_index {
  std::size_t value;
  template <std::integral I>
  constexpr plain_index(I v) noexcept : value(static_cast<std::size_t>(v)) {}
};
using index_arg = std::conditional_t<config::bounds_check, located_index, plain_index>;
template <std::size_t>
using index_of = index_arg;

[[noreturn]] PGAS_API void index_error(std::span<const std::size_t> index,
                                       std::span<const std::size_t> extents,
                                       const std::source_location& where);
[[noreturn]] PGAS_API void layout_error(const char* what, const std::source_location& where);
// Collective: the barrier that ends an array's creation, at which every thread must bring the
// same layout and element size (a mismatch ends the job naming each thread's declaration).
PGAS_API void shared_array_agree(const pgas::layout& l, std::size_t element_size,
                                 const std::source_location& where);
// Collective when it builds one: the automatic privatization table of a new array (see
// pgas/privatize.hpp), its shape in *shape; a null root when none applies or pays.
PGAS_API table_ref shared_array_table(const pgas::layout& l, std::size_t element_size, char* data0,
                                      table_shape* shape, const std::source_location& where);

template <class T, std::size_t Rank, std::size_t Block, class Seq>
class shared_array_impl;

template <class T, std::size_t Rank, std::size_t Block, std::size_t... D>
class shared_array_impl<T, Rank, Block, std::index_sequence<D...>> {
  static_assert(Rank >= 1 && Rank <= pgas::layout::max_rank, "shared_array rank must be 1..8");
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                "shared data must be trivially copyable and default constructible");
  static_assert(alignof(T) <= 64, "shared elements may be aligned to at most 64 bytes");
  static_assert(Block == dynamic_block || Block <= config::max_block,
                "block size exceeds config::max_block (2^sptr_phase_bits elements)");
  static constexpr std::size_t S = sizeof(T);

 public:
  using value_type = T;
  using extents_type = std::array<std::size_t, Rank>;
  using index_type = std::array<std::size_t, Rank>;
  /// &A(…): a pointer-to-shared with the array's block size (the tile volume for tiled
  /// arrays, whose pointers walk each tile row-major, then the next tile in tile order).
  using pointer = sptr<T, Block>;
  static constexpr std::size_t rank = Rank;

  /// Collective: creates the array with a run-time block specification (default: block 1).
  shared_array_impl(const extents_type& extents, block_spec spec = {},
                    std::source_location where =
                        std::source_location::current()) requires(Block == dynamic_block) {
    create(extents, std::move(spec), where);
  }
  /// Collective: creates `shared [Block] T A[…]` (Block = indefinite for `shared []`).
  explicit shared_array_impl(const extents_type& extents,
                             std::source_location where =
                                 std::source_location::current()) requires(Block != dynamic_block) {
    create(extents, block_spec::cyclic(Block), where);
  }

  shared_array_impl(const shared_array_impl&) = delete;
  shared_array_impl& operator=(const shared_array_impl&) = delete;
  shared_array_impl(shared_array_impl&& o) noexcept { *this = std::move(o); }
  shared_array_impl& operator=(shared_array_impl&& o) noexcept {
    if (this != &o) {
      release();
      layout_ = std::move(o.layout_);
      alloc_ = std::exchange(o.alloc_, shared_alloc{});
      data0_ = std::exchange(o.data0_, nullptr);
      word0_ = o.word0_;
      block_ = o.block_;
      bdiv_ = o.bdiv_;
      tab_ = o.tab_;
      out_of_line_ = std::exchange(o.out_of_line_, false);
      o.tab_ = {};
      tstate_ = std::exchange(o.tstate_, nullptr);
    }
    return *this;
  }
  /// Collective: frees the array (UPC upc_all_free).
  ~shared_array_impl() { release(); }

  /// Element (i, j, …) of any thread, by reference.
  T& operator()(index_of<D>... i) const noexcept {
    if constexpr (config::bounds_check) check(i...);
    return *address(i.value...);
  }
  /// A(i) for one-dimensional arrays (UPC A[i]).
  T& operator[](index_arg i) const noexcept requires(Rank == 1) {
    if constexpr (config::bounds_check) check(i);
    return *address(i.value);
  }
  /// &A[i][j]…: the pointer-to-shared to an element (UPC &A[i][j]).
  pointer ptr(index_of<D>... i) const noexcept {
    if constexpr (config::bounds_check) check(i...);
    const std::array<std::size_t, Rank> idx{i.value...};
    const element_place p = layout_.place(idx);
    const std::uint64_t w =
        (static_cast<std::uint64_t>(p.phase) << phase_shift) |
        ((static_cast<std::uint64_t>(p.thread) << geometry.shift) + alloc_.offset() + p.offset * S);
    if constexpr (Block == dynamic_block) {
      return pointer::from_word(w, *bdiv_);
    } else {
      return pointer::from_word(w);
    }
  }
  /// &A[0]…[0]: the array as a pointer-to-shared (thread 0, phase 0).
  pointer begin_ptr() const noexcept {
    if constexpr (Block == dynamic_block) {
      return pointer::from_word(word0_, *bdiv_);
    } else {
      return pointer::from_word(word0_);
    }
  }

  /// A view: a copy of the array's indexing, small and trivially copyable, that a function
  /// takes by value to index the array in its loops — v(i, j, …) is A(i, j, …). Valid while
  /// the array lives. Its row table is restrict (the table is read-only), which matters in a
  /// loop that stores through a char-sized type: such a store may alias anything, so through
  /// the array itself every access reloads the row table, and through a view none does. Views
  /// for which `whole_rows` is true index an automatic table of whole rows with no test at all
  /// (see visit()); the others test, as A(i, j, …) does.
  template <bool Whole>
  class basic_view {
   public:
    static constexpr bool whole_rows = Whole;
    T& operator()(index_of<D>... i) const noexcept {
      if constexpr (config::bounds_check) a_->check(i...);
      return *address(i.value...);
    }
    T& operator[](index_arg i) const noexcept requires(Rank == 1) {
      if constexpr (config::bounds_check) a_->check(i);
      return *address(i.value);
    }
    T* address(decltype(D, std::size_t{})... i) const noexcept {
      if constexpr (Rank == 1) {
        if (Whole || whole_) [[likely]]
          return data_ + (i + ...);
      } else {
        T* const p = table_index<Rank>::template row_address<T>(rows_, ext_, {i...});
        if (Whole || whole_) [[likely]]
          return p;
      }
      return a_->address_out_of_line(i...);
    }

   private:
    friend class shared_array_impl;
    // Restrict covers the row table only (never written); the elements are reached through
    // pointers loaded from it, or for Rank 1 through data_, which is not restrict: views of
    // one array, and the array itself, may read and write the same elements.
    const void* const* __restrict__ rows_ = nullptr;
    T* data_ = nullptr;  // Rank 1: the data when one segment holds it all
    std::array<std::size_t, Rank> ext_{};
    bool whole_ = Whole;
    const shared_array_impl* a_ = nullptr;
  };
  using view_type = basic_view<false>;
  using rows_view_type = basic_view<true>;

  /// A view that works for every layout.
  view_type view() const noexcept { return make_view<false>(); }
  /// Calls f(v) with the fastest view of this array: a rows_view_type when A(i, j, …) indexes
  /// an automatic table of whole rows, else a view_type; returns what f returns (both calls
  /// must return the same type). f is typically a generic lambda, compiled once for each.
  /// pgas::with_views does the same for several arrays at once.
  template <class F>
  decltype(auto) visit(F&& f) const {
    if (tab_.whole) return std::forward<F>(f)(make_view<true>());
    return std::forward<F>(f)(make_view<false>());
  }

  /// The address of element (i, j, …): the fast path every access goes through.
  T* address(decltype(D, std::size_t{})... i) const noexcept {
    if constexpr (Rank == 1) {
      if (tab_.whole) [[likely]]
        return static_cast<T*>(const_cast<void*>(static_cast<const void*>(tab_.root))) + (i + ...);
    } else {
      T* const p = tab_.template row_address<T>(tab_.rows, tab_.ext, {i...});
      if (tab_.whole) [[likely]]
        return p;
    }
    // A run-time block divides twice. Inline, that code makes a loop over several arrays too
    // big for the compiler to unswitch on their tables, so for Rank > 1 (where tables are the
    // common case) it is out of line; a 1-D array has a table of whole rows only when one
    // thread holds it all, so there the arithmetic stays inline.
    if ((Block == dynamic_block && Rank > 1) || out_of_line_) return address_out_of_line(i...);
    const std::size_t l = linear(i...);
    std::size_t thread, off;
    if constexpr (Block == 0) {
      thread = 0;
      off = l;
    } else if constexpr (Block == 1) {
      const std::size_t course = layout_.divide_threads(l);
      thread = l - course * static_cast<std::size_t>(geometry.threads);
      off = course;
    } else if constexpr (Block != dynamic_block) {
      const std::size_t k = l / Block;
      const std::size_t course = layout_.divide_threads(k);
      thread = k - course * static_cast<std::size_t>(geometry.threads);
      off = course * Block + (l - k * Block);
    } else if constexpr (Rank == 1) {
      const element_place p = layout_.place_linear(l);
      thread = static_cast<std::size_t>(p.thread);
      off = p.offset;
    } else {
      thread = off = 0;  // out of line
    }
    return reinterpret_cast<T*>(data0_ + (thread << geometry.shift) + off * S);
  }

  /// True when A(i, j, …) indexes through the array's automatic privatization table (see
  /// pgas/privatize.hpp) instead of computing the owner and offset.
  bool uses_table() const noexcept { return tab_.root != nullptr; }

  /// The layout (owner, phase and offset of every element; see pgas/layout.hpp).
  const pgas::layout& layout() const noexcept { return layout_; }
  std::size_t extent(std::size_t d) const noexcept { return layout_.extent(d); }
  /// Elements in the array.
  std::size_t size() const noexcept { return layout_.size(); }

  /// UPC upc_affinitysize: elements with affinity to `thread` (padding excluded).
  std::size_t affinitysize(int thread) const { return layout_.elements_on(thread); }
  /// UPC upc_localsizeof: bytes of each thread's part (the largest part, padding included).
  std::size_t localsizeof() const noexcept { return layout_.part_elements() * S; }
  /// UPC upc_blocksizeof: the block size in elements (0 for indefinite, the tile volume for
  /// tiles).
  std::size_t blocksizeof() const noexcept { return layout_.block_elements(); }
  /// UPC upc_elemsizeof: bytes per element.
  static constexpr std::size_t elemsizeof() noexcept { return S; }

  /// Thread t's whole part as plain memory: part_elements() elements in the owner's storage
  /// order (block after block; a tiled array's tiles each whole and row-major), padding
  /// included. The privatisation of UPC `(T*)&A[…]` on the part's first element.
  std::span<T> local_part(int thread) const noexcept {
    return {reinterpret_cast<T*>(data0_ + (static_cast<std::size_t>(thread) << geometry.shift)),
            layout_.part_elements()};
  }
  std::span<T> local_part() const noexcept { return local_part(mythread()); }

  /// Calls f(element, index) for every element with affinity to the calling thread, in the
  /// owner's storage order (no padding). Not collective.
  template <class F>
  void for_each_mine(F&& f) const {
    const int me = mythread();
    const auto n = static_cast<std::size_t>(layout_.threads());
    T* const part = local_part(me).data();
    if (layout_.block_elements() == 0) {  // indefinite: all on thread 0
      if (me != 0) return;
      walk(0, layout_.size(), part, f);
      return;
    }
    const std::size_t b = layout_.block_elements();
    std::size_t course = 0;
    for (std::size_t k = static_cast<std::size_t>(me); k < layout_.blocks(); k += n, ++course) {
      if (!layout_.tiled()) {
        const std::size_t l0 = k * b;
        walk(l0, std::min(b, layout_.size() - l0), part + course * b, f);
      } else {
        walk_tile(k, part + course * b, f);
      }
    }
  }

 private:
  static constexpr unsigned phase_shift = detail::phase_shift;

  void create(const extents_type& extents, block_spec spec, const std::source_location& where) {
    try {
      layout_ = pgas::layout({extents.begin(), extents.end()}, std::move(spec), threads());
    } catch (const std::invalid_argument& e) {
      layout_error(e.what(), where);
    }
    const std::size_t b = layout_.block_elements();
    block_ = b;
    const std::size_t nblocks = b == 0 ? 1 : layout_.blocks();
    const std::size_t block_bytes = (b == 0 ? layout_.size() : b) * S;
    alloc_ = all_alloc(nblocks, block_bytes, where);
    data0_ = static_cast<char*>(alloc_.part(0));
    word0_ = alloc_.offset();
    bdiv_ = &block_divider_for(b);
    // Zero-initialise my part (UPC zero-initialises declared shared arrays), then make sure
    // every part is ready before anyone reads it — and that every thread made the same array:
    // all_alloc only compares sizes, which arrays of different shapes can share.
    if (const std::size_t bytes = alloc_.part_bytes();
        bytes != 0 && nblocks > 0 && (b != 0 || mythread() == 0)) {
      std::memset(alloc_.part(mythread()), 0, bytes);
    }
    shared_array_agree(layout_, S, where);
    table_shape shape;
    const table_ref t = shared_array_table(layout_, S, data0_, &shape, where);
    if (t.root != nullptr) {
      tab_.assign(shape, t.root, S, where);
    } else {
      tab_.assign_none(layout_.extents(), where);
    }
    tstate_ = t.state;
    out_of_line_ = layout_.tiled() || (tab_.root != nullptr && !tab_.whole);
  }

  void release() noexcept {
    if (tstate_ != nullptr) table_release(std::exchange(tstate_, nullptr));
    tab_ = {};
    out_of_line_ = false;
    if (alloc_) all_free(std::exchange(alloc_, shared_alloc{}));
    data0_ = nullptr;
  }

  // The slower paths are out of line, so that loops over the common ones keep their registers.

  template <bool Whole>
  basic_view<Whole> make_view() const noexcept {
    basic_view<Whole> v;
    if constexpr (Rank == 1) {
      v.data_ = static_cast<T*>(const_cast<void*>(static_cast<const void*>(tab_.root)));
    } else {
      v.rows_ = tab_.rows;
    }
    v.ext_ = tab_.ext;
    v.whole_ = tab_.whole;
    v.a_ = this;
    return v;
  }

  // The paths address() leaves out of line: a tiled array's element by address arithmetic,
  // or an automatic table whose rows hold several segments (the segment's pointer plus the
  // column within it). Pure: it reads memory and writes none.
  [[gnu::noinline, gnu::pure]] T* address_out_of_line(decltype(D,
                                                               std::size_t{})... i) const noexcept {
    const std::array<std::size_t, Rank> idx{i...};
    if (tab_.root == nullptr) {
      const element_place p =
          layout_.tiled() ? layout_.place(idx) : layout_.place_linear(linear(i...));
      return reinterpret_cast<T*>(data0_ + (static_cast<std::size_t>(p.thread) << geometry.shift) +
                                  p.offset * S);
    }
    return static_cast<T*>(const_cast<void*>(tab_.address_general(idx)));
  }

  std::size_t linear(decltype(D, std::size_t{})... i) const noexcept {
    const std::array<std::size_t, Rank> idx{i...};
    std::size_t l = idx[0];
    for (std::size_t d = 1; d < Rank; ++d)
      l = l * layout_.extent(d) + idx[d];
    return l;
  }

  void check(const index_of<D>&... i) const noexcept {
    const std::array<std::size_t, Rank> idx{i.value...};
    for (std::size_t d = 0; d < Rank; ++d) {
      if (idx[d] >= layout_.extent(d)) {
        const auto ext = layout_.extents();
        const std::source_location where = [&] {
          if constexpr (config::bounds_check) {
            const std::array<std::source_location, Rank> at{i.where...};
            return at[d];
          } else {
            return std::source_location::current();
          }
        }();
        index_error(idx, ext, where);
      }
    }
  }

  // Calls f on `count` consecutive elements starting at row-major position l0.
  template <class F>
  void walk(std::size_t l0, std::size_t count, T* p, F& f) const {
    std::vector<std::size_t> v = layout_.unlinear(l0);
    index_type idx{};
    std::copy(v.begin(), v.end(), idx.begin());
    for (std::size_t e = 0; e < count; ++e) {
      f(p[e], std::as_const(idx));
      for (std::size_t d = Rank; d-- > 0;) {  // odometer
        if (++idx[d] < layout_.extent(d)) break;
        idx[d] = 0;
      }
    }
  }

  // Calls f on the real elements of tile k, stored row-major at p (padding skipped).
  template <class F>
  void walk_tile(std::size_t k, T* p, F& f) const {
    index_type lo{}, tile{}, idx{};
    std::size_t rest = k;
    for (std::size_t d = Rank; d-- > 0;) {
      const std::size_t q = rest % layout_.tiles_along(d);
      rest /= layout_.tiles_along(d);
      tile[d] = layout_.spec().tile()[d];
      lo[d] = q * tile[d];
    }
    const std::size_t volume = layout_.block_elements();
    index_type in{};  // position inside the tile
    for (std::size_t e = 0; e < volume; ++e) {
      bool real = true;
      for (std::size_t d = 0; d < Rank; ++d) {
        idx[d] = lo[d] + in[d];
        real = real && idx[d] < layout_.extent(d);
      }
      if (real) f(p[e], std::as_const(idx));
      for (std::size_t d = Rank; d-- > 0;) {
        if (++in[d] < tile[d]) break;
        in[d] = 0;
      }
    }
  }

  pgas::layout layout_;
  shared_alloc alloc_;
  char* data0_ = nullptr;    // thread 0's part
  std::uint64_t word0_ = 0;  // pointer-to-shared word of element 0
  std::size_t block_ = 0;
  const block_divider* bdiv_ = nullptr;
  table_index<Rank> tab_;     // the automatic table; root null when A(…) computes addresses
  bool out_of_line_ = false;  // tiled, or a table of segmented rows
  table_state* tstate_ = nullptr;
};

}  // namespace detail

/// UPC `shared [Block] T A[d0]…[dRank-1]`; Block = pgas::dynamic_block (the default) takes
/// the block specification — cyclic B, indefinite, [*] or tiles — at run time.
template <class T, std::size_t Rank = 1, std::size_t Block = dynamic_block>
class shared_array
    : public detail::shared_array_impl<T, Rank, Block, std::make_index_sequence<Rank>> {
  using base = detail::shared_array_impl<T, Rank, Block, std::make_index_sequence<Rank>>;

 public:
  using base::base;
};

/// Calls f(v1, v2, …) with the fastest view of each array (shared_array::visit): the loop in f
/// indexes every array through its table of whole rows with no test where it has one. f is
/// typically a generic lambda, compiled once for each combination.
///
///   pgas::with_views([&](auto in, auto out) {
///     for (std::size_t j = 1; j + 1 < n; ++j) out(i, j) = in(i, j - 1) / 2 + in(i, j + 1) / 2;
///   }, In, Out);
template <class F>
decltype(auto) with_views(F&& f) {
  return std::forward<F>(f)();
}
template <class F, class A, class... Rest>
decltype(auto) with_views(F&& f, const A& a, const Rest&... rest) {
  return a.visit([&](auto v) -> decltype(auto) {
    return with_views([&](auto... vs) -> decltype(auto) { return f(v, vs...); }, rest...);
  });
}

}  // namespace pgas
