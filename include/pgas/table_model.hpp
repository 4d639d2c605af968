// pgas/table_model.hpp — the pure model of inter-thread privatization tables: which layouts
// have a table, how many pointers it holds (by level, with dimension sorting) and how a job's
// threads share replicas of it. Needs no running job: `pgas-tables` and the runtime
// compute sizes with the same code.
//
// A table holds pointers to *segments*: runs of elements of one row that are contiguous in
// one thread's part. Three layouts have them:
//   rows in blocks    `shared [B]` with B a multiple of the row length (also `shared []` and
//                     a `[*]` that comes out a multiple): one pointer per row.
//   blocks in rows    the row length a multiple of B (or a single row, e.g. a 1-D array):
//                     one pointer per block, rows_in_blocks with the column split in
//                     (column / B, column % B).
//   tile rows         `shared [b0]…[bn-1]` tiles: one pointer per row of every
//                     tile, the column split by the last tile extent.
// Any other layout (a row that straddles a block boundary somewhere other than at a row start)
// has no table; table_shape says why, naming a row whose start falls inside a block.
//
// Levels (`table_levels`): `one` is a single table with one pointer per segment, indexed by
// the row-major position of the leading indices; `n_minus_1` is one table per index
// dimension, each pointing into the next, so level k holds the product of the first k + 1
// index extents (d0 + d0·d1 + … pointers in all); `sort_dims` builds the n−1 levels over the
// index dimensions sorted from the smallest extent to the largest, which never changes an
// element's address, only the table's size. The index dimensions are the leading n−1 array
// dimensions, plus the segment number when a row holds several segments.
//
// Replicas (`replicate`): every thread reads the replica of its group — one for the job
// (`single`), one per NUMA node, package (`per_socket`), L3 cache or thread the job's threads
// occupy — and `automatic` means per_numa when the job's threads span several NUMA nodes,
// else single. plan_replicas() says which thread reads which replica and on which node it
// lives.
//
// Contract.
//   * Collective: nothing here; every function is a pure function of its arguments.
//   * Errors (pgas/error.hpp's recoverable kind): every function here throws
//     pgas::table_error (a std::invalid_argument) naming why no table applies, which size
//     overflows or which option word is unknown; nothing here is misuse or ends the job.
//   * Outside a job everything works the same: the model needs no running job.
//   * Memory ordering: not applicable (no shared state).
//   * Thread safety: callable from any thread; a table_shape is a value.
#pragma once

#include <pgas/detail/export.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <pgas/layout.hpp>
#include <pgas/topology.hpp>

namespace pgas {

/// No table applies to a layout, a size overflows, or an option word is unknown.
class PGAS_API table_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Which threads share a replica of a table (see the top of this header).
enum class replicate { single, per_numa, per_socket, per_l3, per_thread, automatic };
/// "single", "per-numa", "per-socket", "per-l3", "per-thread", "auto". Throws table_error
/// naming the word and the accepted ones.
PGAS_API replicate parse_replicate(std::string_view word);
PGAS_API std::string_view to_string(replicate r) noexcept;

/// One table of segment pointers, or one table per index dimension (see the top of this
/// header).
enum class table_levels { one, n_minus_1 };
/// "one", "n-1". Throws table_error.
PGAS_API table_levels parse_table_levels(std::string_view word);
PGAS_API std::string_view to_string(table_levels l) noexcept;

struct table_options {
  replicate replicas = replicate::automatic;
  table_levels levels = table_levels::one;
  bool sort_dims = false;  // n−1 levels over the index dimensions sorted by extent
};

/// The shape of the table for a layout: which segments it points to and how many pointers it
/// holds. A pure value; needs no running job.
class PGAS_API table_shape {
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
PGAS_API replica_plan plan_replicas(const machine& m, const std::vector<thread_place>& placement,
                                    replicate policy);

}  // namespace pgas
