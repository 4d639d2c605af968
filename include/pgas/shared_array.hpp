// pgas/shared_array.hpp — shared arrays: UPC's `shared [B] T A[d0][d1]…`, created at run time
// by every thread together (UPC 1.3 §6.5.1.1, with multidimensional tiles).
//
//   pgas::shared_array<double, 2> A({1024, 1024}, pgas::block_spec::cyclic(1024));  // rows
//   pgas::shared_array<int, 2> T({8, 9}, pgas::block_spec::tiles({2, 3}));       // 2×3 tiles
//   pgas::shared_array<int, 1, 4> V({100});          // compile-time block: shared [4] int V[100]
//   pgas::shared_array<int> W({n});                  // no block: shared int W[n] (block 1)
//   A(i, j) = 1.0;                       // any thread's element, by reference
//   pgas::sptr<double, pgas::dynamic_block> p = A.ptr(i, j);   // &A[i][j]
//   pgas::sptr<int> w = W.ptr(3);                    // shared int *w = &W[3]
//   for (auto [b, e] : W.my_chunks()) …              // the indices this thread owns
//
// Layouts are those of pgas/layout.hpp. The array is one symmetric allocation
// (pgas::all_alloc): thread t's part sits at the same offset of segment t, bound to t's NUMA
// node and first touched by t. Elements are zero-initialised, as UPC's statically declared
// shared arrays are.
//
// Contract.
//   * Collective: the constructors and the destructor (and move-assigning onto an array that
//     owns memory, which destroys it first). Every thread must create the same arrays in the
//     same order with the same arguments — checked: a mismatch ends the job naming each
//     thread's declaration — and destroy them in the same order. Nothing else is collective.
//   * Errors (pgas/error.hpp): an invalid layout (zero extents, a [*] or tile block beyond
//     config::max_runtime_block, tiles of the wrong rank) is misuse named at the
//     constructor's call site (block_spec's own misuse — cyclic(B) beyond
//     config::max_runtime_block, no or zero tile extents — at the block_spec call's); with bounds
//     checking (config::bounds_check) so is an index outside the extents, named at the index's call
//     site with the index and the extents. Inside a job misuse ends the job naming the thread. Out
//     of shared memory throws pgas::bad_shared_alloc on every thread. A type that is not shared
//     data (pgas/shared_storable.hpp: trivially copyable, trivially destructible and valid as zero
//     bytes — pointers-to-shared, lock handles and aggregates of them are), or aligned to more
//     than 64 bytes, or a compile-time block beyond config::max_block (2^20; run-time blocks may
//     be larger), does not compile.
//   * An array with static storage duration — a block-scope `static pgas::shared_array`, or
//     one inside a global — created inside a job is misuse named at its declaration: one
//     thread runs a static's initialisation while the others wait in its guard, so the
//     collective creation could never complete (the job would hang). Namespace-scope shared
//     data is pgas::static_array (pgas/static_shared.hpp).
//   * Outside a job an array cannot be created: the constructor throws pgas::usage_error.
//     Checked element access is noexcept only when unchecked, so that misuse outside a job
//     reaches the caller as that exception too.
//   * Memory ordering: the constructor passes a barrier after every thread has zeroed its
//     part, so the zeros are visible to every thread when it returns; the destructor waits
//     for every thread before the memory is freed. Element access (A(i, j), views, ptr(),
//     local_part()) is plain loads and stores — UPC's relaxed accesses: order them between
//     threads with a barrier or a lock (pgas/sync.hpp, pgas/lock.hpp).
//   * Thread safety: element access is as safe as the elements (no locking). Each thread holds
//     its own array object; every const member may be called on any thread's object at any
//     time while it lives. Arrays are move-only; a moved-from array owns nothing.
//
// UPC's defaults. An array declared without a block is UPC's `shared T A[…]`, block 1: for
// rank 1 element i is on thread i mod THREADS; for rank > 1 the row-major (flattened) index
// is dealt one element per thread, exactly as UPC lays out `shared int M[4][5]` — not rows,
// not tiles (give block_spec::cyclic(n) for rows of n, or tiles). The array type keeps a
// run-time block (the Block parameter defaults to dynamic_block, so that every block_spec
// can be passed to the same type), and ptr() returns sptr<T, dynamic_block>; that pointer
// converts implicitly to sptr<T> (or any compile-time sptr<T, B>) when its block is that B,
// checked at the conversion (pgas/sptr.hpp), so `pgas::sptr<int> p = A.ptr(0);` is UPC's
// `shared int *p = &A[0];`. Converting to a block the array does not have ends the job naming
// the conversion's line. Writing shared_array<T, Rank, 1> instead fixes block 1 in the type:
// its ptr() is a one-word sptr<T> and A(i) divides by THREADS only.
//
// My indices. my_chunks() gives the runs [begin, end) of row-major linear indices the calling
// thread owns, for every layout, padding excluded — one per block (tile row for tiles), each
// contiguous in the thread's part from the chunk's `offset`; my_range() gives the indices
// (index tuples for rank > 1) one by one (pgas/owned_range.hpp). The fast loop over my
// elements:
//
//   int* part = A.local_part().data();
//   for (const pgas::index_chunk& c : A.my_chunks())
//     for (std::size_t l = c.begin; l < c.end; ++l) part[c.offset + (l - c.begin)] += 1;
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
#pragma once

#include <array>
#include <cstddef>
#include <source_location>
#include <span>
#include <type_traits>
#include <utility>

#include <pgas/config.hpp>
#include <pgas/detail/shared_array_impl.hpp>
#include <pgas/layout.hpp>
#include <pgas/owned_range.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_storable.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

namespace detail {
template <class T, std::size_t Rank, std::size_t Block, class Seq>
class shared_array_base;
}

/// UPC `shared [Block] T A[d0]…[dRank-1]`; Block = pgas::dynamic_block (the default) takes
/// the block specification — cyclic B, indefinite, [*] or tiles — at run time, block 1 when
/// none is given (UPC's default; see "UPC's defaults" above). Its members
/// are those of detail::shared_array_base below, which takes one index parameter per
/// dimension.
template <class T, std::size_t Rank = 1, std::size_t Block = dynamic_block>
class shared_array
    : public detail::shared_array_base<T, Rank, Block, std::make_index_sequence<Rank>> {
  using base = detail::shared_array_base<T, Rank, Block, std::make_index_sequence<Rank>>;

 public:
  using base::base;
};

namespace detail {

/// The members of shared_array<T, Rank, Block> (D… = 0 … Rank-1: one index per dimension).
template <class T, std::size_t Rank, std::size_t Block, std::size_t... D>
class shared_array_base<T, Rank, Block, std::index_sequence<D...>> {
  static_assert(Rank >= 1 && Rank <= pgas::layout::max_rank, "shared_array rank must be 1..8");
  static_assert(is_shared_storable_v<T>,
                "shared data must be trivially copyable, trivially destructible and valid as zero "
                "bytes (pgas/shared_storable.hpp)");
  static_assert(alignof(T) <= 64, "shared elements may be aligned to at most 64 bytes");
  static_assert(Block == dynamic_block || Block <= config::max_block,
                "block size exceeds config::max_block (2^sptr_phase_bits elements) for a "
                "compile-time block: use pgas::dynamic_block, whose run-time blocks may be up to "
                "config::max_runtime_block");
  using impl = shared_array_impl<T, Rank, Block, std::index_sequence<D...>>;

 public:
  using value_type = T;
  using extents_type = std::array<std::size_t, Rank>;
  using index_type = std::array<std::size_t, Rank>;
  /// &A(…): a pointer-to-shared with the array's block size (the tile volume for tiled
  /// arrays, whose pointers walk each tile row-major, then the next tile in tile order).
  using pointer = sptr<T, Block>;
  static constexpr std::size_t rank = Rank;

  /// Collective: creates the array with a run-time block specification (default: block 1).
  shared_array_base(const extents_type& extents, block_spec spec = {},
                    std::source_location where =
                        std::source_location::current()) requires(Block == dynamic_block) {
    impl_.create(extents, std::move(spec), where);
  }
  /// Collective: creates `shared [Block] T A[…]` (Block = indefinite for `shared []`).
  explicit shared_array_base(const extents_type& extents,
                             std::source_location where =
                                 std::source_location::current()) requires(Block != dynamic_block) {
    impl_.create(extents, block_spec::cyclic(Block), where);
  }

  shared_array_base(const shared_array_base&) = delete;
  shared_array_base& operator=(const shared_array_base&) = delete;
  /// Takes o's array; o owns nothing after. Assigning onto an array that owns memory frees it
  /// first, collectively.
  shared_array_base(shared_array_base&& o) noexcept = default;
  shared_array_base& operator=(shared_array_base&& o) noexcept = default;
  /// Collective: frees the array (UPC upc_all_free) unless it was moved from.
  ~shared_array_base() = default;

  /// Element (i, j, …) of any thread, by reference. Checked builds: misuse when an index is
  /// outside its extent.
  [[gnu::always_inline]] T& operator()(index_of<D>... i) const noexcept(!config::bounds_check) {
    if constexpr (config::bounds_check) impl_.check(i...);
    T* const e = impl_.address(i.value...);
    detail::trace_element(e);
    return *e;
  }
  /// A(i) for one-dimensional arrays (UPC A[i]).
  [[gnu::always_inline]] T& operator[](index_arg i) const
      noexcept(!config::bounds_check) requires(Rank == 1) {
    if constexpr (config::bounds_check) impl_.check(i);
    T* const e = impl_.address(i.value);
    detail::trace_element(e);
    return *e;
  }
  /// &A[i][j]…: the pointer-to-shared to an element (UPC &A[i][j]); checked as A(i, j, …).
  pointer ptr(index_of<D>... i) const noexcept(!config::bounds_check) {
    if constexpr (config::bounds_check) impl_.check(i...);
    return impl_.ptr(i.value...);
  }
  /// &A[0]…[0]: the array as a pointer-to-shared (thread 0, phase 0).
  pointer begin_ptr() const noexcept { return impl_.begin_ptr(); }
  /// The address of element (i, j, …), unchecked: the fast path every access goes through.
  T* address(decltype(D, std::size_t{})... i) const noexcept { return impl_.address(i...); }

  /// A view: a copy of the array's indexing, small and trivially copyable, that a function
  /// takes by value to index the array in its loops — v(i, j, …) is A(i, j, …), v[i] is A[i]
  /// and v.address(i, j, …) is A.address(i, j, …). Valid while the array lives. Its row table
  /// is restrict (the table is read-only), which matters in a loop that stores through a
  /// char-sized type: such a store may alias anything, so through the array itself every
  /// access reloads the row table, and through a view none does. A view type's static
  /// `whole_rows` is true for rows_view_type, whose views index an automatic table of whole
  /// rows with no test at all (see visit()); view_type's views test, as A(i, j, …) does.
  using view_type = shared_array_view<T, Rank, Block, false, std::index_sequence<D...>>;
  using rows_view_type = shared_array_view<T, Rank, Block, true, std::index_sequence<D...>>;

  /// A view that works for every layout.
  view_type view() const noexcept { return impl_.template make_view<false>(); }
  /// Calls f(v) with the fastest view of this array: a rows_view_type when A(i, j, …) indexes
  /// an automatic table of whole rows, else a view_type; returns what f returns (both calls
  /// must return the same type). f is typically a generic lambda, compiled once for each.
  /// pgas::with_views does the same for several arrays at once.
  template <class F>
  decltype(auto) visit(F&& f) const {
    if (impl_.whole_rows()) return std::forward<F>(f)(impl_.template make_view<true>());
    return std::forward<F>(f)(impl_.template make_view<false>());
  }

  /// True when A(i, j, …) indexes through the array's automatic privatization table (see
  /// pgas/privatize.hpp) instead of computing the owner and offset.
  bool uses_table() const noexcept { return impl_.uses_table(); }

  /// The layout (owner, phase and offset of every element; see pgas/layout.hpp).
  const pgas::layout& layout() const noexcept { return impl_.layout(); }
  /// The extent of dimension d.
  std::size_t extent(std::size_t d) const noexcept { return layout().extent(d); }
  /// Elements in the array.
  std::size_t size() const noexcept { return layout().size(); }

  /// UPC upc_affinitysize: elements with affinity to `thread` (padding excluded).
  std::size_t affinitysize(int thread) const { return layout().elements_on(thread); }
  /// UPC upc_localsizeof: bytes of each thread's part (the largest part, padding included).
  std::size_t localsizeof() const noexcept { return layout().part_elements() * sizeof(T); }
  /// UPC upc_blocksizeof: the block size in elements (0 for indefinite, the tile volume for
  /// tiles).
  std::size_t blocksizeof() const noexcept { return layout().block_elements(); }
  /// UPC upc_elemsizeof: bytes per element.
  static constexpr std::size_t elemsizeof() noexcept { return sizeof(T); }

  /// Thread t's whole part as plain memory: part_elements() elements in the owner's storage
  /// order (block after block; a tiled array's tiles each whole and row-major), padding
  /// included. The privatisation of UPC `(T*)&A[…]` on the part's first element.
  std::span<T> local_part(int thread) const noexcept { return impl_.local_part(thread); }
  /// The calling thread's part.
  std::span<T> local_part() const noexcept { return local_part(mythread()); }

  /// The row-major linear indices thread t owns, as runs [begin, end) in t's storage order
  /// (pgas/owned_range.hpp). Each run is contiguous in t's part, from local_part(t)[offset].
  /// Not collective. The range refers to this array's layout: use it while the array lives
  /// and is not moved.
  owned_chunks chunks_of(int thread) const noexcept { return {layout(), thread}; }
  /// The calling thread's runs: `for (auto [b, e] : A.my_chunks())`.
  owned_chunks my_chunks() const noexcept { return chunks_of(mythread()); }
  /// Every index thread t owns, in the order of chunks_of(t): std::size_t for rank 1,
  /// std::array<std::size_t, Rank> for more (`for (auto [i, j] : M.range_of(t))`).
  owned_indices<Rank> range_of(int thread) const noexcept { return {layout(), thread}; }
  /// The calling thread's indices: `for (auto i : A.my_range()) A[i] = …`.
  owned_indices<Rank> my_range() const noexcept { return range_of(mythread()); }

  /// Calls f(element, index) for every element with affinity to the calling thread, in the
  /// owner's storage order (no padding). Not collective.
  template <class F>
  void for_each_mine(F&& f) const {
    impl_.for_each_mine(f);
  }

 private:
  // Found by pgas::privatize through argument-dependent lookup only.
  friend table_state* automatic_table_of(const shared_array_base& a) noexcept {
    return a.impl_.automatic_table();
  }
  impl impl_;
};

}  // namespace detail

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
