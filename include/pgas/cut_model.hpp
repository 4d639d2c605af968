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
#include <iterator>
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
/// thread, in which every access has one owner. A cut_plan hands runs out by value (see
/// cut_plan::runs()).
struct cut_run {
  std::array<std::size_t, layout::max_rank> lo{};
  std::array<std::size_t, layout::max_rank> hi{};
  /// Offset (in the calling thread's part) of the element A(lo): the affinity element.
  std::size_t offset = 0;
  /// Every access local.
  bool local = false;
  /// Where cut_plan::targets(run) finds this run's targets: the plan's shared targets of the
  /// run's tile kind, starting at first_target, each offset moved by target_shift (the tile's
  /// place in its owner's part). Read through targets(run), not directly.
  std::size_t first_target = 0;
  std::size_t target_shift = 0;
  /// Iterations in the run.
  std::size_t iterations(std::size_t rank) const noexcept {
    std::size_t n = 1;
    for (std::size_t d = 0; d < rank; ++d)
      n *= hi[d] - lo[d];
    return n;
  }
};

/// The targets of one run (cut_plan::targets): accesses() of them, in the order of the
/// offsets, by value.
class cut_targets {
 public:
  cut_targets(const cut_target* first, std::size_t n, std::size_t shift) noexcept
      : first_(first), n_(n), shift_(shift) {}
  std::size_t size() const noexcept { return n_; }
  cut_target operator[](std::size_t a) const noexcept {
    return {first_[a].owner, first_[a].local, first_[a].offset + shift_};
  }
  class iterator {
   public:
    using value_type = cut_target;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(const cut_target* at, std::size_t shift) noexcept : at_(at), shift_(shift) {}
    cut_target operator*() const noexcept { return {at_->owner, at_->local, at_->offset + shift_}; }
    iterator& operator++() noexcept {
      ++at_;
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++at_;
      return old;
    }
    friend bool operator==(const iterator& x, const iterator& y) noexcept { return x.at_ == y.at_; }

   private:
    const cut_target* at_ = nullptr;
    std::size_t shift_ = 0;
  };
  iterator begin() const noexcept { return {first_, shift_}; }
  iterator end() const noexcept { return {first_ + n_, shift_}; }

 private:
  const cut_target* first_;
  std::size_t n_;
  std::size_t shift_;
};

/// The runs of the calling thread (or any thread) for one layout, box and set of offsets.
///
/// Cost. Along each dimension the tiles that meet the box are of at most three kinds (the
/// first, the last, those between), and every tile of the thread of one kind has the same runs
/// and owners relative to its own start and place: the plan computes each kind's runs once (at
/// most 3^rank kinds, (accesses + 1)^rank runs each) and counts the thread's tiles of each kind
/// row by row of tiles, so building it costs nothing per tile. runs() then walks the thread's
/// tiles, handing out each kind's runs moved to the tile: a few additions per run.
class PGAS_API cut_plan {
 public:
  /// Computes the runs of `thread` (see the top of this header for errors, named at `where`).
  cut_plan(const layout& l, const box& b, const offsets& k, int thread, cut_options options = {},
           std::source_location where = std::source_location::current());

  std::size_t rank() const noexcept { return rank_; }
  std::size_t accesses() const noexcept { return accesses_; }
  int thread() const noexcept { return thread_; }

  /// The walk over the runs: tile by tile in the thread's storage order, each tile's runs
  /// row-major; a forward iterator whose * gives a cut_run by value.
  class run_iterator {
   public:
    using value_type = cut_run;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    run_iterator() = default;
    cut_run operator*() const noexcept {
      cut_run r = plan_->kind_runs_[run_];  // the kind's run, moved to the tile
      for (std::size_t d = 0; d < plan_->rank_; ++d) {
        r.lo[d] += start_[d];
        r.hi[d] += start_[d];
      }
      r.offset += shift_;
      r.target_shift = shift_;
      return r;
    }
    run_iterator& operator++() noexcept {
      if (--left_ != 0 && ++run_ == run_end_) next_tile();
      return *this;
    }
    run_iterator operator++(int) noexcept {
      run_iterator old = *this;
      ++*this;
      return old;
    }
    /// Iterators of one plan compare by the runs left.
    friend bool operator==(const run_iterator& x, const run_iterator& y) noexcept {
      return x.left_ == y.left_;
    }

   private:
    friend class cut_plan;
    void next_tile() noexcept;   // the thread's next tile (there is one: left_ > 0)
    void enter_tile() noexcept;  // at tile c_ of the row: its kind, start and shift
    void enter_row() noexcept;   // at row tc_: the row's first tile of the thread
    const cut_plan* plan_ = nullptr;
    std::size_t left_ = 0;      // runs left, this one included
    std::size_t run_ = 0;       // in kind_runs_
    std::size_t run_end_ = 0;   // the tile's kind's end in kind_runs_
    std::size_t shift_ = 0;     // the tile's course × tile volume
    std::size_t row_ = 0;       // row-major tile index of the row's first tile (last index 0)
    std::size_t row_kind_ = 0;  // the kind index of the row's outer dimensions
    std::size_t c_ = 0;         // the tile's index along the last dimension
    std::size_t course_ = 0;    // the tile's position in the thread's storage
    std::array<std::size_t, layout::max_rank> tc_{};     // the tile's indices
    std::array<std::size_t, layout::max_rank> start_{};  // its first element's indices
  };

  /// The runs as a range: for (const cut_run& r : plan.runs()) …; size() and empty() too.
  class run_range {
   public:
    run_iterator begin() const noexcept { return plan_->begin_runs(); }
    run_iterator end() const noexcept { return {}; }
    std::size_t size() const noexcept { return plan_->run_count_; }
    bool empty() const noexcept { return plan_->run_count_ == 0; }

   private:
    friend class cut_plan;
    explicit run_range(const cut_plan* p) noexcept : plan_(p) {}
    const cut_plan* plan_;
  };
  run_range runs() const noexcept { return run_range(this); }

  /// The targets of `r` (accesses() of them, in the order of the offsets): the owner of each
  /// access, whether it is local, and the offset in the owner's part of the element that the
  /// run's first iteration reads.
  cut_targets targets(const cut_run& r) const noexcept {
    return {kind_targets_.data() + r.first_target, accesses_, r.target_shift};
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
  run_iterator begin_runs() const noexcept;
  // A tile kind (one of first, between, last per dimension): its runs in kind_runs_, relative
  // to the tile's first element (lo, hi) and place (offsets: as if the tile were at course 0 of
  // the thread's part; its targets' offsets likewise, modulo 2^64).
  struct kind {
    std::size_t first_run = 0;
    std::size_t end_run = 0;     // first_run == end_run: not built (the thread has no such tile)
    std::size_t iterations = 0;  // of one tile of the kind
    std::size_t local_iterations = 0;  // of its runs in which every access is local
  };
  std::size_t rank_ = 0;
  std::size_t accesses_ = 0;
  int thread_ = 0;
  std::array<std::size_t, layout::max_rank> tile_{};
  std::array<std::size_t, layout::max_rank> strides_{};
  std::size_t iterations_ = 0;
  std::size_t local_iterations_ = 0;
  std::size_t run_count_ = 0;
  // The walk (run_iterator): the tiles that meet the box, [tlo, thi] per dimension, the tile
  // grid's row-major strides, the kinds per dimension and the kinds' row-major strides.
  std::size_t threads_ = 1;
  std::size_t volume_ = 1;
  std::array<std::size_t, layout::max_rank> tlo_{};
  std::array<std::size_t, layout::max_rank> thi_{};
  std::array<std::size_t, layout::max_rank> tile_stride_{};
  std::array<std::size_t, layout::max_rank> kind_stride_{};
  std::vector<kind> kinds_;
  std::vector<cut_run> kind_runs_;
  std::vector<cut_target> kind_targets_;

  // The kind of tile index c along dimension d (0 first, 1 between, count − 1 last).
  std::size_t kind_along(std::size_t d, std::size_t c) const noexcept {
    return c == tlo_[d] ? 0 : c == thi_[d] ? (thi_[d] - tlo_[d] >= 2 ? 2 : 1) : 1;
  }
};

inline void cut_plan::run_iterator::enter_tile() noexcept {
  const cut_plan& p = *plan_;
  const std::size_t last = p.rank_ - 1;
  tc_[last] = c_;
  start_[last] = c_ * p.tile_[last];
  const kind& k = p.kinds_[row_kind_ + p.kind_along(last, c_) * p.kind_stride_[last]];
  run_ = k.first_run;
  run_end_ = k.end_run;
  shift_ = course_ * p.volume_;
}

inline void cut_plan::run_iterator::next_tile() noexcept {
  const cut_plan& p = *plan_;
  const std::size_t last = p.rank_ - 1;
  c_ += p.threads_;
  ++course_;
  while (c_ > p.thi_[last]) {  // the next row of tiles with a tile of the thread
    std::size_t d = last;
    while (d-- > 0) {
      if (++tc_[d] <= p.thi_[d]) break;
      tc_[d] = p.tlo_[d];
    }
    enter_row();
  }
  enter_tile();
}

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
