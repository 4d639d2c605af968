// pgas/privatize.hpp — inter-thread privatization: replicated pointer tables that turn an
// access to any thread's element of a shared array into a table look-up plus an index
// (papers/000 section IV).
//
//   pgas::shared_array<int, 2> A({1024, 1024}, pgas::block_spec::cyclic(1024));
//   auto t = pgas::privatize(A, {.replicas = pgas::replicate::per_numa});   // collective
//   int* row = t.row(i);          // the paper's `int *ppc_i = pc[i]`, hoisted out of a loop
//   t(i, j) = 7;                  // == A(i, j): one load of a row pointer, one indexed access
//
// A table holds pointers to *segments*: runs of elements of one row that are contiguous in
// one thread's part. Three layouts have them:
//   rows in blocks    `shared [B]` with B a multiple of the row length (the paper's case, also
//                     `shared []` and a `[*]` that comes out a multiple): one pointer per row.
//   blocks in rows    the row length a multiple of B (or a single row, e.g. a 1-D array):
//                     one pointer per block, rows_in_blocks with the column split in
//                     (column / B, column % B).
//   tile rows         `shared [b0]…[bn-1]` tiles (papers/004): one pointer per row of every
//                     tile, the column split by the last tile extent.
// Any other layout (a row that straddles a block boundary somewhere other than at a row start)
// has no table; table_shape says why, naming a row whose start falls inside a block.
//
// Levels (`table_levels`): `one` is a single table with one pointer per segment, indexed by
// the row-major position of the leading indices (paper Figure 4); `n_minus_1` is one table per
// index dimension, each pointing into the next (Figure 5), costing paper eq. 1 bytes;
// `sort_dims` builds the n−1 levels over the index dimensions sorted from the smallest extent
// to the largest (paper IV.B.3), which never changes an element's address, only the table's
// size. The index dimensions are the leading n−1 array dimensions, plus the segment number
// when a row holds several segments.
//
// Replicas (`replicate`): every thread reads the replica of its group — one for the job
// (`single`), one per NUMA node, package (`per_socket`), L3 cache or thread the job's threads
// occupy — and `automatic` means per_numa when the job's threads span several NUMA nodes,
// else single. Each replica is mapped on its own pages, bound to its users' NUMA node (when
// threads are bound), filled by its lowest-numbered user and then made read-only: a stray
// write faults instead of corrupting translations.
//
// Accounting is exact and comes from the same code everywhere: table_shape::bytes() is what
// one replica's table holds (the paper's figures), plan_replicas() how many replicas a job
// has; `pgas-tables` prints both for declarations offline, table::bytes()/total_bytes()/
// mapped_bytes() report a live table, and `pgasrun --report tables` lists every table the job
// built when it ends.
//
// shared_array uses a one-level automatic table for A(i, j, …) whenever one applies and its
// replicas together cost at most 1/32 of the array's data (PGAS_TABLES=off turns this off);
// privatize() builds one explicitly with any options.
//
// Errors: table_shape and privatize() throw pgas::table_error (a std::invalid_argument) naming
// why no table applies or which size overflows. privatize() is collective: every thread must
// call it for the same array with the same options, in the same order as other collectives (a
// mismatch ends the job naming each thread's call).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <libdivide.h>

#include <pgas/layout.hpp>
#include <pgas/runtime.hpp>
#include <pgas/topology.hpp>

namespace pgas {

/// No table applies to a layout, a size overflows, or an option word is unknown.
class table_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Which threads share a replica of a table (see the top of this header).
enum class replicate { single, per_numa, per_socket, per_l3, per_thread, automatic };
/// "single", "per-numa", "per-socket", "per-l3", "per-thread", "auto". Throws table_error
/// naming the word and the accepted ones.
replicate parse_replicate(std::string_view word);
std::string_view to_string(replicate r) noexcept;

/// One table of segment pointers, or one table per index dimension (paper Figures 4 and 5).
enum class table_levels { one, n_minus_1 };
/// "one", "n-1". Throws table_error.
table_levels parse_table_levels(std::string_view word);
std::string_view to_string(table_levels l) noexcept;

struct table_options {
  replicate replicas = replicate::automatic;
  table_levels levels = table_levels::one;
  bool sort_dims = false;  // n−1 levels over the index dimensions sorted by extent
};

/// The shape of the table for a layout: which segments it points to and how many pointers it
/// holds. A pure value; needs no running job.
class table_shape {
 public:
  enum class kind { rows_in_blocks, blocks_in_rows, tile_rows };

  /// Why no table applies to `l`, or an empty string when one does.
  static std::string why_not(const layout& l);
  /// The table for `l`. Throws table_error with why_not()'s reason, or when the table's
  /// pointer count overflows.
  table_shape(const layout& l, table_levels levels = table_levels::one, bool sort_dims = false);
  table_shape() = default;

  kind which() const noexcept { return kind_; }
  table_levels levels() const noexcept { return levels_; }
  bool sorted() const noexcept { return sorted_; }
  /// Elements per segment (the last dimension's extent, B, or the last tile extent).
  std::size_t segment() const noexcept { return segment_; }
  /// Segments per row: 1 for rows in blocks.
  std::size_t segments_per_row() const noexcept { return per_row_; }
  /// The index dimensions' extents in natural order: the leading array dimensions, then the
  /// segment number when segments_per_row() > 1. Empty for a single row in one block.
  const std::vector<std::size_t>& index_extents() const noexcept { return index_; }
  /// The order the n−1 levels take the index dimensions in (level → index dimension):
  /// 0, 1, 2, … unless sorted.
  const std::vector<std::size_t>& level_order() const noexcept { return order_; }
  /// Pointers in each level (one value for one level; none for an empty index).
  const std::vector<std::size_t>& level_entries() const noexcept { return level_entries_; }
  /// Pointers in one replica.
  std::size_t entries() const noexcept { return entries_; }
  /// Bytes of one replica with pointers of `pointer_size` bytes (4 models a 32-bit target).
  /// Throws table_error when that overflows.
  std::size_t bytes(std::size_t pointer_size = sizeof(void*)) const;
  /// "rows in blocks", "blocks in rows" or "tile rows".
  static std::string_view to_string(kind k) noexcept;

 private:
  kind kind_ = kind::rows_in_blocks;
  table_levels levels_ = table_levels::one;
  bool sorted_ = false;
  std::size_t segment_ = 0;
  std::size_t per_row_ = 1;
  std::vector<std::size_t> index_;
  std::vector<std::size_t> order_;
  std::vector<std::size_t> level_entries_;
  std::size_t entries_ = 0;
};

/// Which replica each thread of a job reads, and where each replica lives.
struct replica_plan {
  replicate policy = replicate::single;  // resolved: never automatic
  std::vector<int> replica_of;           // per thread
  std::vector<int> filler;               // per replica: its lowest-numbered user
  std::vector<int> node;                 // per replica: its users' NUMA node (OS index), or -1
  int count() const noexcept { return static_cast<int>(filler.size()); }
};

/// The replicas of a job placed as `placement` on `m` (a pure function; see pgas/topology.hpp
/// for place()). Replicas are numbered in the order of their first user. A machine with no L3
/// (or no NUMA node) above a PU groups per_l3 (per_numa) by package instead; automatic counts
/// reported NUMA nodes only, so such a machine gets one replica.
replica_plan plan_replicas(const machine& m, const std::vector<thread_place>& placement,
                           replicate policy);

/// What `policy` means in the running job (automatic becomes per_numa or single), with the
/// replica count it gives. Not collective; outside a job, one thread on one replica.
replicate job_replica_policy(replicate policy);
int job_replica_count(replicate policy);

namespace detail {

struct table_state;  // one table: its replicas, accounting and registry entry (src/privatize.cpp)

/// A thread's reference to a table: the shared state and the root of the thread's replica.
struct table_ref {
  table_state* state = nullptr;
  const void* const* root = nullptr;  // level-1 table, or the data itself for an empty index
  int replica = 0;                    // the replica root belongs to
};

/// Collective: builds the table for an array whose thread-0 part starts at `data0`. `name` is
/// what reports call the array. Throws table_error (on every thread alike) when none applies.
table_ref table_build(const layout& l, std::size_t element_size, char* data0,
                      const table_shape& shape, replicate policy, bool automatic,
                      const std::source_location& where);
/// Drops one thread's reference; the last one unmaps every replica.
void table_release(table_state* s) noexcept;
/// Accounting of a live table.
int table_replicas(const table_state* s) noexcept;
int table_replica_of(const table_state* s, int thread) noexcept;
replicate table_policy(const table_state* s) noexcept;
std::size_t table_mapped_bytes(const table_state* s) noexcept;
/// True when shared arrays may build automatic tables (PGAS_TABLES is not "off").
bool tables_auto_enabled() noexcept;
/// Whether an automatic table pays for `l`: it applies and all replicas together cost at most
/// 1/32 of the data. Identical on every thread.
bool table_auto_pays(const layout& l, std::size_t element_size, const table_shape& shape,
                     const replica_plan& plan);
/// The replica plan of the running job.
replica_plan job_replica_plan(replicate policy);

// A read-only run of at least `rows` null row pointers, for arrays that have no table of whole
// rows: A(i, j, …) and t(i, j, …) load their row pointer before it tests whether the table has
// whole rows (a load the compiler may hoist out of a loop, because it cannot fault), then ignores
// it. Zero pages, so it costs address space and page tables only; shared by every array and never
// unmapped. Ends the job when the address space cannot be had.
const void* const* null_rows(std::size_t rows, const std::source_location& where);

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

}  // namespace detail

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
    return *ix_.template address<T>({static_cast<std::size_t>(i)...});
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

  /// The table itself as plain row pointers — the paper's `pc`, so that rows()[i][j] is
  /// element (i, j): take it once, outside the loop, and the loop indexes it with no test and
  /// no call. For Rank > 2, rows()[e] is the row at the row-major position e of the leading
  /// Rank−1 indices. Only for one-level tables of whole rows (levels one, segments_per_row()
  /// == 1); throws table_error otherwise.
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
/// Throws pgas::table_error on every thread when no table applies to a's layout.
template <class Array>
auto privatize(const Array& a, table_options options = {},
               std::source_location where = std::source_location::current()) {
  using T = typename Array::value_type;
  constexpr std::size_t rank = Array::rank;
  table_shape shape(a.layout(), options.levels, options.sort_dims);
  char* const data0 = reinterpret_cast<char*>(a.local_part(0).data());
  detail::table_ref r =
      detail::table_build(a.layout(), sizeof(T), data0, shape, options.replicas, false, where);
  return table<T, rank>(r, std::move(shape));
}

}  // namespace pgas
