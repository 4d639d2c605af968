// pgas/detail/table_index.hpp — inline machinery of privatization tables (pgas/privatize.hpp,
// pgas/shared_array.hpp): a thread's reference to a built table, the out-of-line entry points
// of the table build (src/objects/table_build.cpp), and table_index, the indexing that
// A(i, j, …) and table::operator() inline. Not part of the API.
#pragma once

#include <pgas/detail/export.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <span>

#include <libdivide.h>

#include <pgas/layout.hpp>
#include <pgas/table_model.hpp>

namespace pgas::detail {

// One table: its replicas, accounting and registry entry (src/objects/table_build.cpp).
struct table_state;

/// A thread's reference to a table: the shared state and the root of the thread's replica.
struct table_ref {
  table_state* state = nullptr;
  const void* const* root = nullptr;  // level-1 table, or the data itself for an empty index
  int replica = 0;                    // the replica root belongs to
};

/// Collective: builds the table for an array whose thread-0 part starts at `data0`. Throws
/// table_error (on every thread alike) when none applies. `reuse`, when not null, is the
/// array's automatic table: if it has the same shape and the same replica of every thread as
/// the table asked for, it is shared (one more reference per thread) instead of built twice.
PGAS_API table_ref table_build(const layout& l, std::size_t element_size, char* data0,
                               const table_shape& shape, replicate policy, bool automatic,
                               table_state* reuse, const std::source_location& where);
/// Drops one thread's reference; the last one unmaps every replica.
PGAS_API void table_release(table_state* s) noexcept;
/// Accounting of a live table.
PGAS_API int table_replicas(const table_state* s) noexcept;
PGAS_API int table_replica_of(const table_state* s, int thread) noexcept;
PGAS_API replicate table_policy(const table_state* s) noexcept;
PGAS_API std::size_t table_mapped_bytes(const table_state* s) noexcept;

// A read-only run of at least `rows` null row pointers, for arrays that have no table of whole
// rows: A(i, j, …) and t(i, j, …) load their row pointer before it tests whether the table has
// whole rows (a load the compiler may hoist out of a loop, because it cannot fault), then ignores
// it. Zero pages, so it costs address space and page tables only; shared by every array and never
// unmapped. Ends the job when the address space cannot be had.
PGAS_API const void* const* null_rows(std::size_t rows, const std::source_location& where);

/// The inline part of a table: its root and how to index it. Shared by pgas::table and the
/// shared_array fast path.
template <std::size_t Rank>
struct table_index {
  const void* const* root = nullptr;
  std::size_t per_row = 1;  // segments per row
  std::size_t segment = 0;  // elements per segment
  libdivide::divider<std::uint64_t> by_segment{};
  std::array<std::size_t, Rank> ext{};     // leading extents (the last one unused)
  std::array<std::uint8_t, Rank> order{};  // n−1 levels: level → index dimension
  std::size_t levels = 0;                  // 0: one level; else the number of levels
  bool single_level = true;
  bool whole = false;                 // one level of whole rows: rows == root
  const void* const* rows = nullptr;  // root when whole, else null_rows() (Rank > 1)

  void assign(const table_shape& s, const void* const* r, std::size_t element_bytes,
              const std::source_location& where = std::source_location::current()) {
    root = r;
    element_size = element_bytes;
    per_row = s.segments_per_row();
    segment = s.segment();
    by_segment = libdivide::divider<std::uint64_t>(segment == 0 ? 1 : segment);
    std::size_t leading = 1;
    for (std::size_t d = 0; d + 1 < Rank && d < s.index_extents().size(); ++d) {
      ext[d] = s.index_extents()[d];
      leading *= ext[d];
    }
    single_level = s.levels() == table_levels::one;
    levels = s.level_order().size();
    for (std::size_t k = 0; k < levels && k < Rank; ++k)
      order[k] = static_cast<std::uint8_t>(s.level_order()[k]);
    whole = single_level && per_row == 1;
    rows = whole || Rank == 1 ? root : null_rows(leading, where);
  }
  /// No table (a shared array that indexes by arithmetic): rows still readable for Rank > 1.
  void assign_none(std::span<const std::size_t> extents, const std::source_location& where) {
    *this = table_index{};
    std::size_t leading = 1;
    for (std::size_t d = 0; d + 1 < Rank; ++d) {
      ext[d] = extents[d];
      leading *= ext[d];
    }
    if constexpr (Rank > 1) rows = null_rows(leading, where);
  }

  /// Row (idx[0], …, idx[Rank-2])'s pointer from `rows`, plus the column: the whole-rows
  /// address, loaded whatever the table's kind (the caller tests `whole` after).
  template <class T>
  static T* row_address(const void* const* rows, const std::array<std::size_t, Rank>& ext,
                        const std::array<std::size_t, Rank>& idx) noexcept requires(Rank > 1) {
    std::size_t e = idx[0];
    for (std::size_t d = 1; d + 1 < Rank; ++d)
      e = e * ext[d] + idx[d];
    return static_cast<T*>(const_cast<void*>(rows[e])) + idx[Rank - 1];
  }

  /// The address of the element at `idx` (each below its extent). The common table — one
  /// level, whole rows — is inline, and its row pointer is loaded before the test that says
  /// whether the table is of that kind (rows is always readable), so a loop may hoist the load
  /// and the test and vectorise. The others are out of line and pure, which keeps that so.
  template <class T>
  [[gnu::always_inline]] T* address(const std::array<std::size_t, Rank>& idx) const noexcept {
    if constexpr (Rank == 1) {
      if (whole) [[likely]]
        return static_cast<T*>(const_cast<void*>(static_cast<const void*>(root))) + idx[0];
    } else {
      T* const p = row_address<T>(rows, ext, idx);
      if (whole) [[likely]]
        return p;
    }
    return static_cast<T*>(const_cast<void*>(address_general(idx)));
  }

  [[gnu::noinline, gnu::pure]] const void* address_general(
      std::array<std::size_t, Rank> idx) const noexcept {
    std::size_t col = idx[Rank - 1];
    std::size_t seg = 0;
    if (per_row != 1) {
      seg = static_cast<std::size_t>(col / by_segment);
      col -= seg * segment;
    }
    const void* const* p = root;
    if (single_level) {
      std::size_t e = 0;
      for (std::size_t d = 0; d + 1 < Rank; ++d)
        e = e * ext[d] + idx[d];
      p = static_cast<const void* const*>(root[e * per_row + seg]);
    } else {
      for (std::size_t k = 0; k < levels; ++k) {
        const std::size_t dim = order[k];
        p = static_cast<const void* const*>(p[dim + 1 < Rank ? idx[dim] : seg]);
      }
    }
    return static_cast<const char*>(static_cast<const void*>(p)) + col * element_size;
  }
  std::size_t element_size = 1;
};

}  // namespace pgas::detail
