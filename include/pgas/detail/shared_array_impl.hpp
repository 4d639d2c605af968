// pgas/detail/shared_array_impl.hpp — the inline machinery of shared arrays
// (pgas/shared_array.hpp): index arguments that remember their call site, the out-of-line
// entry points of array creation (src/objects/shared_array.cpp), shared_array_impl — an
// array's storage, its automatic table and the address arithmetic every access inlines — and
// the views. Not part of the API.
#pragma once

#include <pgas/detail/export.hpp>

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include <pgas/alloc.hpp>
#include <pgas/config.hpp>
#include <pgas/detail/table_index.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/layout.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sptr.hpp>

namespace pgas::detail {

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
// One index_arg per dimension D: the parameter pack of A(i, j, …).
template <std::size_t>
using index_of = index_arg;

// Misuse (pgas/error.hpp): an index outside the extents; an invalid layout.
[[noreturn]] PGAS_API void index_error(std::span<const std::size_t> index,
                                       std::span<const std::size_t> extents,
                                       const std::source_location& where);
[[noreturn]] PGAS_API void layout_error(const char* what, const std::source_location& where);
// Misuse when `object` (an array being created) has static storage duration: a block-scope
// `static` is initialised by one thread while the others wait for its guard, so the
// collective creation could never complete (src/objects/shared_array.cpp).
PGAS_API void shared_array_check_storage(const void* object, const std::source_location& where);
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
template <class T, std::size_t Rank, std::size_t Block, bool Whole, class Seq>
class shared_array_view;

// An array's storage and indexing. Owns the symmetric allocation and the automatic table:
// moving transfers them, destroying (or moving onto) releases them, collectively.
template <class T, std::size_t Rank, std::size_t Block, std::size_t... D>
class shared_array_impl<T, Rank, Block, std::index_sequence<D...>> {
  static constexpr std::size_t S = sizeof(T);
  using seq = std::index_sequence<D...>;

 public:
  using index_type = std::array<std::size_t, Rank>;
  using pointer = sptr<T, Block>;

  shared_array_impl() = default;
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
      bdiv_ = o.bdiv_;
      tab_ = o.tab_;
      out_of_line_ = std::exchange(o.out_of_line_, false);
      o.tab_ = {};
      tstate_ = std::exchange(o.tstate_, nullptr);
    }
    return *this;
  }
  ~shared_array_impl() { release(); }

  // Collective: allocates, zeroes and agrees on the array, then builds its automatic table.
  void create(const index_type& extents, block_spec spec, const std::source_location& where) {
    shared_array_check_storage(this, where);
    try {
      layout_ = pgas::layout({extents.begin(), extents.end()}, std::move(spec), threads());
    } catch (const std::invalid_argument& e) {
      layout_error(e.what(), where);
    }
    const std::size_t b = layout_.block_elements();
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

  // Collective when the array owns memory (all_free).
  void release() noexcept {
    if (tstate_ != nullptr) table_release(std::exchange(tstate_, nullptr));
    tab_ = {};
    out_of_line_ = false;
    if (alloc_) all_free(std::exchange(alloc_, shared_alloc{}));
    data0_ = nullptr;
  }

  const pgas::layout& layout() const noexcept { return layout_; }
  bool uses_table() const noexcept { return tab_.root != nullptr; }
  bool whole_rows() const noexcept { return tab_.whole; }

  // The address of element (i, j, …): the fast path every access goes through.
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

  // The paths address() leaves out of line, so that loops over the common ones keep their
  // registers: a tiled array's element by address arithmetic, or an automatic table whose rows
  // hold several segments (the segment's pointer plus the column within it). Pure: it reads
  // memory and writes none.
  [[gnu::noinline, gnu::pure]] T* address_out_of_line(decltype(D,
                                                               std::size_t{})... i) const noexcept {
    const index_type idx{i...};
    if (tab_.root == nullptr) {
      const element_place p =
          layout_.tiled() ? layout_.place(idx) : layout_.place_linear(linear(i...));
      return reinterpret_cast<T*>(data0_ + (static_cast<std::size_t>(p.thread) << geometry.shift) +
                                  p.offset * S);
    }
    return static_cast<T*>(const_cast<void*>(tab_.address_general(idx)));
  }

  // &A[i][j]…, unchecked.
  pointer ptr(decltype(D, std::size_t{})... i) const noexcept {
    const index_type idx{i...};
    const element_place p = layout_.place(idx);
    const std::uint64_t off =
        (static_cast<std::uint64_t>(p.thread) << geometry.shift) + alloc_.offset() + p.offset * S;
    if constexpr (Block == dynamic_block) {
      return pointer::from_offset(off, p.phase, *bdiv_);  // the phase may exceed the word's field
    } else {
      return word_pointer((static_cast<std::uint64_t>(p.phase) << phase_shift) | off);
    }
  }
  // &A[0]…[0].
  pointer begin_ptr() const noexcept { return word_pointer(word0_); }

  // Checked builds: misuse when an index is outside its extent, named at the index's call site.
  void check(const index_of<D>&... i) const {
    const index_type idx{i.value...};
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

  std::span<T> local_part(int thread) const noexcept {
    return {reinterpret_cast<T*>(data0_ + (static_cast<std::size_t>(thread) << geometry.shift)),
            layout_.part_elements()};
  }

  template <class F>
  void for_each_mine(F& f) const {
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

  template <bool Whole>
  shared_array_view<T, Rank, Block, Whole, seq> make_view() const noexcept {
    shared_array_view<T, Rank, Block, Whole, seq> v;
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

  // The automatic table, or null; pgas::privatize shares it when it asks for an equivalent one.
  table_state* automatic_table() const noexcept { return tstate_; }

 private:
  pointer word_pointer(std::uint64_t w) const noexcept {
    if constexpr (Block == dynamic_block) {
      return pointer::from_word(w, *bdiv_);
    } else {
      return pointer::from_word(w);
    }
  }

  std::size_t linear(decltype(D, std::size_t{})... i) const noexcept {
    const index_type idx{i...};
    std::size_t l = idx[0];
    for (std::size_t d = 1; d < Rank; ++d)
      l = l * layout_.extent(d) + idx[d];
    return l;
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
  const block_divider* bdiv_ = nullptr;
  table_index<Rank> tab_;     // the automatic table; root null when A(…) computes addresses
  bool out_of_line_ = false;  // tiled, or a table of segmented rows
  table_state* tstate_ = nullptr;
};

// A view of an array (shared_array::view_type, rows_view_type): a trivially copyable copy of
// its indexing. Whole: the array has an automatic table of whole rows, so address() tests
// nothing.
template <class T, std::size_t Rank, std::size_t Block, bool Whole, std::size_t... D>
class shared_array_view<T, Rank, Block, Whole, std::index_sequence<D...>> {
 public:
  static constexpr bool whole_rows = Whole;

  [[gnu::always_inline]] T& operator()(index_of<D>... i) const noexcept(!config::bounds_check) {
    if constexpr (config::bounds_check) a_->check(i...);
    T* const e = address(i.value...);
    trace_element(e);
    return *e;
  }
  [[gnu::always_inline]] T& operator[](index_arg i) const
      noexcept(!config::bounds_check) requires(Rank == 1) {
    if constexpr (config::bounds_check) a_->check(i);
    T* const e = address(i.value);
    trace_element(e);
    return *e;
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
  friend class shared_array_impl<T, Rank, Block, std::index_sequence<D...>>;
  // Restrict covers the row table only (never written); the elements are reached through
  // pointers loaded from it, or for Rank 1 through data_, which is not restrict: views of
  // one array, and the array itself, may read and write the same elements.
  const void* const* __restrict__ rows_ = nullptr;
  T* data_ = nullptr;  // Rank 1: the data when one segment holds it all
  std::array<std::size_t, Rank> ext_{};
  bool whole_ = Whole;
  const shared_array_impl<T, Rank, Block, std::index_sequence<D...>>* a_ = nullptr;
};

}  // namespace pgas::detail
