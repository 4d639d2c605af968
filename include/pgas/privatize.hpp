// pgas/privatize.hpp — inter-thread privatization: replicated pointer tables that turn an
// access to any thread's element of a shared array into a table look-up plus an index.
//
//   pgas::shared_array<int, 2> A({1024, 1024}, pgas::block_spec::cyclic(1024));
//   auto t = pgas::privatize(A, {.replicas = pgas::replicate::per_numa});   // collective
//   int* row = t.row(i);          // a private pointer to row i, hoisted out of a loop
//   t(i, j) = 7;                  // == A(i, j): one load of a row pointer, one indexed access
//
// Which layouts have a table, its levels, its size and its replicas are the table model
// (pgas/table_model.hpp, pure and usable offline). This header is the handle on a built table.
// Each replica is mapped on its own pages, bound to its users' NUMA node (when threads are
// bound), filled by its lowest-numbered user and then made read-only: a stray write faults
// (and the fault report names the table) instead of corrupting translations.
//
// Accounting is exact and comes from the same code everywhere: table_shape::bytes() is what
// one replica's table holds, plan_replicas() how many replicas a job has; `pgas-tables`
// prints both for declarations offline, table::bytes()/total_bytes()/mapped_bytes() report a
// live table, and `pgasrun --report tables` lists every table the job built when it ends.
//
// shared_array uses a one-level automatic table for A(i, j, …) whenever one applies and its
// replicas together cost at most 1/32 of the array's data (PGAS_TABLES=off turns this off);
// privatize() builds one explicitly with any options.
//
// Contract.
//   * Collective: privatize(). Every thread must call it for the same array with the same
//     options, in the same order as other collectives (checked). Handles, their destruction
//     and job_replica_policy()/job_replica_count() are not collective.
//   * Errors (pgas/error.hpp): privatize() throws pgas::table_error (on every thread alike)
//     naming why no table applies, and pgas::bad_shared_alloc when a replica cannot be mapped;
//     table::row() and table::rows() throw table_error for a table that has no such pointers.
//     A mismatched privatize() is misuse: inside a job the job ends naming each thread's call.
//     Element access through a handle is not checked.
//   * Outside a job privatize() is misuse and throws pgas::usage_error (or table_error first,
//     when no table applies); job_replica_policy() and job_replica_count() answer for one
//     thread on one replica.
//   * Memory ordering: privatize() ends with a barrier, so every replica is filled and sealed
//     when it returns on any thread. Element access through a table is the same relaxed
//     access as through the array (pgas/shared_array.hpp).
//   * Thread safety: a handle is used by one thread at a time; element access through any
//     number of handles is as safe as the same access through the array.
#pragma once

#include <pgas/detail/export.hpp>

#include <array>
#include <cstddef>
#include <source_location>
#include <utility>

#include <pgas/detail/table_index.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/table_model.hpp>

namespace pgas {

/// What `policy` means in the running job (automatic becomes per_numa or single), with the
/// replica count it gives. Not collective; outside a job, one thread on one replica.
PGAS_API replicate job_replica_policy(replicate policy);
PGAS_API int job_replica_count(replicate policy);

/// A thread's handle on a privatization table of a shared array of T with `Rank` dimensions.
/// Element access reads the calling thread's replica (the one of the thread that called
/// privatize(); pass handles between threads only if that is what you want). Move-only; the
/// last handle of a table to go (on any thread) unmaps its replicas. A handle must not outlive
/// its array.
template <class T, std::size_t Rank>
class table {
 public:
  table() = default;
  table(const table&) = delete;
  table& operator=(const table&) = delete;
  table(table&& o) noexcept
      : state_(std::exchange(o.state_, nullptr)),
        ix_(o.ix_),
        shape_(std::move(o.shape_)),
        replica_(o.replica_) {}
  table& operator=(table&& o) noexcept {
    if (this != &o) {
      reset();
      state_ = std::exchange(o.state_, nullptr);
      ix_ = o.ix_;
      shape_ = std::move(o.shape_);
      replica_ = o.replica_;
    }
    return *this;
  }
  ~table() { reset(); }

  /// Element (i, j, …) of any thread, by reference: the same element as the array's A(i, j, …).
  /// Indices are not checked.
  template <class... I>
  [[gnu::always_inline]] T& operator()(I... i) const noexcept requires(sizeof...(I) == Rank) {
    T* const e = ix_.template address<T>({static_cast<std::size_t>(i)...});
    detail::trace_element(e);
    return *e;
  }
  /// The address of element (i, j, …).
  T* address(const std::array<std::size_t, Rank>& idx) const noexcept {
    return ix_.template address<T>(idx);
  }
  /// The first element of row (i, …) (the leading Rank−1 indices) as a plain pointer; the
  /// whole row is contiguous. Only for rows in blocks (segments_per_row() == 1); throws
  /// table_error otherwise.
  template <class... I>
  T* row(I... i) const requires(sizeof...(I) + 1 == Rank) {
    if (ix_.per_row != 1) {
      throw table_error(
          "table::row: rows of this array are split over threads; use operator() or segment()");
    }
    return ix_.template address<T>({static_cast<std::size_t>(i)..., std::size_t{0}});
  }

  /// The table itself as plain row pointers, so that rows()[i][j] is element (i, j): take it
  /// once, outside the loop, and the loop indexes it with no test and no call. For Rank > 2,
  /// rows()[e] is the row at the row-major position e of the leading Rank−1 indices. Only for
  /// one-level tables of whole rows (levels one, segments_per_row() == 1); throws table_error
  /// otherwise.
  T* const* rows() const {
    if (!ix_.single_level || ix_.per_row != 1 || Rank == 1) {
      throw table_error(
          "table::rows: only a one-level table of whole rows of a 2-D or higher array is "
          "plain row pointers; use operator() or row()");
    }
    return reinterpret_cast<T* const*>(const_cast<void**>(ix_.root));
  }

  const table_shape& shape() const noexcept { return shape_; }
  /// Bytes of one replica (table_shape::bytes()).
  std::size_t bytes() const { return shape_.bytes(); }
  /// Replicas of this table in the job, and the one this handle reads (that of the thread
  /// that called privatize(), whichever thread uses the handle).
  int replicas() const noexcept { return detail::table_replicas(state_); }
  int replica() const noexcept { return replica_; }
  /// bytes() × replicas().
  std::size_t total_bytes() const { return bytes() * static_cast<std::size_t>(replicas()); }
  /// Bytes of memory mapped for all replicas (whole pages).
  std::size_t mapped_bytes() const noexcept { return detail::table_mapped_bytes(state_); }
  replicate policy() const noexcept { return detail::table_policy(state_); }
  explicit operator bool() const noexcept { return state_ != nullptr; }

  /// For privatize(): adopts a built table.
  table(detail::table_ref r, table_shape s)
      : state_(r.state), shape_(std::move(s)), replica_(r.replica) {
    ix_.assign(shape_, r.root, sizeof(T));
  }

 private:
  void reset() noexcept {
    if (state_ != nullptr) detail::table_release(std::exchange(state_, nullptr));
  }
  detail::table_state* state_ = nullptr;
  detail::table_index<Rank> ix_;
  table_shape shape_;
  int replica_ = -1;
};

/// Collective: builds a table for `a` with `options` and returns this thread's handle.
/// Throws pgas::table_error on every thread when no table applies to a's layout. When `a`
/// already has an automatic table with the same levels and the same replica for every thread
/// (often the case with the default options), the handle shares it instead of building a
/// second copy; `pgasrun --report tables` lists the call beside the automatic table.
template <class Array>
auto privatize(const Array& a, table_options options = {},
               std::source_location where = std::source_location::current()) {
  using T = typename Array::value_type;
  constexpr std::size_t rank = Array::rank;
  table_shape shape(a.layout(), options.levels, options.sort_dims);
  char* const data0 = reinterpret_cast<char*>(a.local_part(0).data());
  // An array's automatic table serves an equivalent privatize() too (see table_build).
  detail::table_state* reuse = nullptr;
  if constexpr (requires { automatic_table_of(a); }) reuse = automatic_table_of(a);
  detail::table_ref r = detail::table_build(a.layout(), sizeof(T), data0, shape, options.replicas,
                                            false, reuse, where);
  return table<T, rank>(r, std::move(shape));
}

}  // namespace pgas
