// pgas/cut_model.hpp — the locality-cut model, pure and usable offline: the loop box, the access
// offsets, cut_plan (a thread's runs) and cut_formula_of (the paper's cut values). The model,
// its layouts, errors and contract are described at the top of pgas/cuts.hpp, which adds the
// loop over the runs (forall_cuts) and includes this header; tools that only compute
// (pgas-layout --cuts) include this one and link the models library only.
#pragma once

#include <pgas/detail/export.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <span>
#include <utility>
#include <vector>

#include <pgas/layout.hpp>

namespace pgas {

/// The most accesses (offsets) one cut_plan or forall_cuts takes.
inline constexpr std::size_t max_cut_accesses = 32;

/// One dimension of a loop box: the iterations lo, lo + 1, … below hi.
struct interval {
  std::ptrdiff_t lo = 0;
  std::ptrdiff_t hi = 0;
  interval() = default;
  /// Any two integers (a size_t extent, an int bound): no narrowing error in braces.
  template <std::integral L, std::integral H>
  interval(L l, H h) : lo(static_cast<std::ptrdiff_t>(l)), hi(static_cast<std::ptrdiff_t>(h)) {}
};

/// A loop box, one interval per dimension: pgas::box{{lo0, hi0}, {lo1, hi1}}. It remembers
/// where it was written, the call site forall_cuts names on misuse.
class box {
 public:
  box(std::initializer_list<interval> dims,
      std::source_location where = std::source_location::current())
      : dims_(dims), where_(where) {}
  box(std::vector<interval> dims, std::source_location where = std::source_location::current())
      : dims_(std::move(dims)), where_(where) {}
  std::size_t rank() const noexcept { return dims_.size(); }
  const interval& operator[](std::size_t d) const noexcept { return dims_[d]; }
  const std::source_location& where() const noexcept { return where_; }

 private:
  std::vector<interval> dims_;
  std::source_location where_;
};

/// The accesses of a loop, one offset vector k per access A(i + k):
/// pgas::offsets{{-1, 0}, {1, 0}}. Access a is the a-th vector.
class offsets {
 public:
  offsets(std::initializer_list<std::initializer_list<std::ptrdiff_t>> ks) {
    for (const auto& k : ks)
      ks_.emplace_back(k);
  }
  explicit offsets(std::vector<std::vector<std::ptrdiff_t>> ks) : ks_(std::move(ks)) {}
  std::size_t size() const noexcept { return ks_.size(); }
  const std::vector<std::ptrdiff_t>& operator[](std::size_t a) const noexcept { return ks_[a]; }

 private:
  std::vector<std::vector<std::ptrdiff_t>> ks_;
};

struct cut_options {
  /// Locality granularity: an owner is local when owner / T == thread / T (T = 1: the thread).
  int threads_per_node = 1;
};

/// Where one access of one run reads: its owner, whether that is local, and the offset (in
/// elements, in the owner's part, pgas::layout's offsets) of the element the run's first
/// iteration reads.
struct cut_target {
  int owner = 0;
  bool local = false;
  std::size_t offset = 0;
  friend bool operator==(const cut_target&, const cut_target&) = default;
};

/// A run: the iterations lo[d] <= i_d < hi[d] (d < rank), all in one tile of the calling
/// thread, in which every access has one owner.
struct cut_run {
  std::array<std::size_t, layout::max_rank> lo{};
  std::array<std::size_t, layout::max_rank> hi{};
  /// Offset (in the calling thread's part) of the element A(lo): the affinity element.
  std::size_t offset = 0;
  /// Every access local.
  bool local = false;
  /// This run's targets: cut_plan::targets(run)[a] for access a.
  std::size_t first_target = 0;
  /// Iterations in the run.
  std::size_t iterations(std::size_t rank) const noexcept {
    std::size_t n = 1;
    for (std::size_t d = 0; d < rank; ++d)
      n *= hi[d] - lo[d];
    return n;
  }
};

/// The runs of the calling thread (or any thread) for one layout, box and set of offsets.
class PGAS_API cut_plan {
 public:
  /// Computes the runs of `thread` (see the top of this header for errors, named at `where`).
  cut_plan(const layout& l, const box& b, const offsets& k, int thread, cut_options options = {},
           std::source_location where = std::source_location::current());

  std::size_t rank() const noexcept { return rank_; }
  std::size_t accesses() const noexcept { return accesses_; }
  int thread() const noexcept { return thread_; }
  /// The runs, tile by tile in the thread's storage order, each tile's runs row-major.
  const std::vector<cut_run>& runs() const noexcept { return runs_; }
  /// The targets of `r` (accesses() of them, in the order of the offsets).
  std::span<const cut_target> targets(const cut_run& r) const noexcept {
    return {targets_.data() + r.first_target, accesses_};
  }
  /// The tile the model uses (the layout's tile, or a block-cyclic block as a tile).
  std::span<const std::size_t> tile() const noexcept { return {tile_.data(), rank_}; }
  /// Row-major strides (in elements) within a tile: the last is 1.
  std::span<const std::size_t> strides() const noexcept { return {strides_.data(), rank_}; }
  /// Iterations of all runs (the thread's iterations of the box).
  std::size_t iterations() const noexcept { return iterations_; }
  /// Iterations of the runs in which every access is local.
  std::size_t local_iterations() const noexcept { return local_iterations_; }

 private:
  std::size_t rank_ = 0;
  std::size_t accesses_ = 0;
  int thread_ = 0;
  std::array<std::size_t, layout::max_rank> tile_{};
  std::array<std::size_t, layout::max_rank> strides_{};
  std::vector<cut_run> runs_;
  std::vector<cut_target> targets_;
  std::size_t iterations_ = 0;
  std::size_t local_iterations_ = 0;
};

/// The paper's cut values for one access and one tile (row-major tile index `tile` of the
/// model's tiles, cut_plan::tile()), threads_per_node tpn: cut[i] = Cut_i = b_i − k_i mod b_i
/// for i < rank − 1, and for the last dimension Cut^Upper and Cut^Lower (see the top), each −1
/// when the shifted corner it needs lies outside the array. All are counted from the tile's
/// first index along their dimension. For rank 1, lower == upper. Errors as cut_plan's.
struct cut_formula {
  std::vector<std::size_t> cut;
  std::ptrdiff_t upper = -1;
  std::ptrdiff_t lower = -1;
};
PGAS_API cut_formula cut_formula_of(const layout& l, std::size_t tile,
                                    std::span<const std::ptrdiff_t> k, int threads_per_node,
                                    std::source_location where = std::source_location::current());

namespace detail {

/// Misuse unless every layout equals the first (named at `where`).
PGAS_API void cuts_check_layouts(const layout& first, std::initializer_list<const layout*> others,
                                 const std::source_location& where);

}  // namespace detail
}  // namespace pgas
