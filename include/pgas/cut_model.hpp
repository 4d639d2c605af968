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
  /// Where cut_plan::targets(run) finds this run's targets: the plan's targets of a whole
  /// tile's run, starting at first_target, each offset moved by target_shift (the tile's place
  /// in its owner's part and the clipping). Read through targets(run), not directly.
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
/// Cost. Every tile of the thread has the same runs and owners relative to its own first
/// element and place (its tiles are every THREADS-th, so an access's tile is always the same
/// number of tiles and courses away): the plan computes one whole tile's runs ((accesses +
/// 1)^rank at most) and counts the thread's runs and iterations row by row of tiles, so
/// building it costs nothing per tile. runs() then walks the thread's tiles, handing out the
/// tile's runs moved there and clipped to the box (at its edges and the array's end some
/// runs are empty and skipped): a few additions and comparisons per run.
class PGAS_API cut_plan {
 public:
  /// Computes the runs of `thread` (see the top of this header for errors, named at `where`).
  cut_plan(const pgas::layout& l, const box& b, const offsets& k, int thread,
           cut_options options = {}, std::source_location where = std::source_location::current());

  /// The layout, thread and call site the plan was built for (forall_cuts over a plan checks
  /// its arrays and thread against them).
  const pgas::layout& layout() const noexcept { return layout_; }
  const std::source_location& where() const noexcept { return where_; }
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
      cut_run r = plan_->tile_runs_[run_];  // the tile's run, moved to the tile, clipped
      std::size_t moved = 0;                // the clipped first iteration's distance from the run's
      for (std::size_t d = 0; d < plan_->rank_; ++d) {
        const auto [lo, hi] = clipped(r, d);
        moved += (lo - (start_[d] + r.lo[d])) * plan_->strides_[d];
        r.lo[d] = lo;
        r.hi[d] = hi;
      }
      r.offset += shift_ + moved;
      r.target_shift = shift_ + moved;
      return r;
    }
    run_iterator& operator++() noexcept {
      if (--left_ != 0) {
        ++run_;
        settle();
      }
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
    // Whether run run_ of the tile meets the box (a tile at the box's edge or the array's end
    // keeps only some of its runs).
    // Run r's indices along dimension d, moved to the tile and clipped to the box.
    std::pair<std::size_t, std::size_t> clipped(const cut_run& r, std::size_t d) const noexcept {
      const std::size_t lo = start_[d] + r.lo[d], hi = start_[d] + r.hi[d];
      return {lo > plan_->blo_[d] ? lo : plan_->blo_[d], hi < plan_->bhi_[d] ? hi : plan_->bhi_[d]};
    }
    bool meets() const noexcept {
      if (whole_) return true;
      const cut_run& r = plan_->tile_runs_[run_];
      for (std::size_t d = 0; d < plan_->rank_; ++d) {
        const auto [lo, hi] = clipped(r, d);
        if (lo >= hi) return false;
      }
      return true;
    }
    void settle() noexcept {  // at the first run from run_ on that meets the box
      for (;;) {
        for (; run_ < plan_->tile_runs_.size(); ++run_) {
          if (meets()) return;
        }
        next_tile();
      }
    }
    void next_tile() noexcept;   // the thread's next tile (there is one: left_ > 0)
    void enter_tile() noexcept;  // at tile c_ of the row: its start and place, its first run
    void enter_row() noexcept;   // at row tc_: the row's first tile of the thread
    void skip_rows() noexcept;   // from a row past its last tile of the thread to the next
    const cut_plan* plan_ = nullptr;
    std::size_t left_ = 0;    // runs left, this one included
    std::size_t run_ = 0;     // in tile_runs_
    std::size_t shift_ = 0;   // the tile's course × tile volume
    std::size_t row_ = 0;     // row-major tile index of the row's first tile (last index 0)
    std::size_t c_ = 0;       // the tile's index along the last dimension
    std::size_t course_ = 0;  // the tile's position in the thread's storage
    bool row_whole_ = false;  // the row's tiles lie in the box along the outer dimensions
    bool whole_ = false;      // the tile lies in the box: every run meets it
    std::array<std::size_t, pgas::layout::max_rank> tc_{};     // the tile's indices
    std::array<std::size_t, pgas::layout::max_rank> start_{};  // its first element's indices
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
    return {tile_targets_.data() + r.first_target, accesses_, r.target_shift};
  }
  /// The tile the model uses (the layout's tile, or a block-cyclic block as a tile).
  std::span<const std::size_t> tile() const noexcept { return {tile_.data(), rank_}; }
  /// Row-major strides (in elements) within a tile: the last is 1.
  std::span<const std::size_t> strides() const noexcept { return {strides_.data(), rank_}; }
  /// Iterations of all runs (the thread's iterations of the box).
  std::size_t iterations() const noexcept { return iterations_; }
  /// Iterations of the runs in which every access is local (counted on each call: a pass over
  /// the rows of tiles).
  std::size_t local_iterations() const noexcept;

 private:
  run_iterator begin_runs() const noexcept;
  // A tile's part of the box along one dimension (from its first element `start`): its length
  // and how many of the dimension's segments meet it.
  struct part_info {
    std::size_t first = 0;  // from the tile's first element
    std::size_t length = 0;
    std::size_t segments = 0;
  };
  // A row of tiles (all indices but the last fixed) as for_each_row hands it out: its parts
  // of the box along the outer dimensions, and along the last the parts of the box's first,
  // between and last tiles with how many of each the thread has in the row.
  struct row_info {
    std::array<part_info, pgas::layout::max_rank> part{};
    std::array<part_info, 3> last{};
    std::array<std::size_t, 3> count{};
  };
  part_info part_of(std::size_t d, std::size_t start) const noexcept;
  template <class F>
  void for_each_row(F&& f) const;  // the rows of tiles in which the thread has tiles

  pgas::layout layout_;
  std::source_location where_;
  std::size_t rank_ = 0;
  std::size_t accesses_ = 0;
  int thread_ = 0;
  std::array<std::size_t, pgas::layout::max_rank> tile_{};
  std::array<std::size_t, pgas::layout::max_rank> strides_{};
  std::size_t iterations_ = 0;
  std::size_t run_count_ = 0;
  // The walk (run_iterator): the box, the tiles that meet it ([tlo, thi] per dimension), the
  // tile grid's row-major strides.
  std::size_t threads_ = 1;
  std::size_t volume_ = 1;
  std::array<std::size_t, pgas::layout::max_rank> blo_{};
  std::array<std::size_t, pgas::layout::max_rank> bhi_{};
  std::array<std::size_t, pgas::layout::max_rank> tlo_{};
  std::array<std::size_t, pgas::layout::max_rank> thi_{};
  std::array<std::size_t, pgas::layout::max_rank> tile_stride_{};
  // A whole tile's segments per dimension (bounds_[d · (accesses + 2) + s], segs_[d] of them)
  // and its runs, the segments' product, relative to the tile's first element and place (its
  // course 0 in the thread's part; the targets' offsets likewise, modulo 2^64): the same for
  // every tile of the thread, clipped by the box at its edges.
  std::array<std::size_t, pgas::layout::max_rank> segs_{};
  std::vector<std::size_t> bounds_;
  std::vector<cut_run> tile_runs_;
  std::vector<cut_target> tile_targets_;
};

inline void cut_plan::run_iterator::enter_tile() noexcept {
  const cut_plan& p = *plan_;
  const std::size_t last = p.rank_ - 1;
  tc_[last] = c_;
  start_[last] = c_ * p.tile_[last];
  run_ = 0;
  shift_ = course_ * p.volume_;
  whole_ =
      row_whole_ && start_[last] >= p.blo_[last] && start_[last] + p.tile_[last] <= p.bhi_[last];
}

inline void cut_plan::run_iterator::next_tile() noexcept {
  const cut_plan& p = *plan_;
  const std::size_t last = p.rank_ - 1;
  c_ += p.threads_;
  ++course_;
  if (c_ > p.thi_[last]) skip_rows();
  enter_tile();
}

inline void cut_plan::run_iterator::skip_rows() noexcept {
  const cut_plan& p = *plan_;
  const std::size_t last = p.rank_ - 1;
  while (c_ > p.thi_[last]) {  // the next row of tiles with a tile of the thread
    std::size_t d = last;
    while (d-- > 0) {
      if (++tc_[d] <= p.thi_[d]) break;
      tc_[d] = p.tlo_[d];
    }
    enter_row();
  }
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

/// Misuse unless `plan` was built for `thread` and every layout in `arrays` equals the plan's
/// (named at `where`, with the plan's line).
PGAS_API void cuts_check_plan(const cut_plan& plan, int thread,
                              std::initializer_list<const layout*> arrays,
                              const std::source_location& where);

/// Misuse: forall_cuts's body read e[a] of a loop with only `accesses` offsets (the checked
/// build's check, pgas/cuts.hpp), named at `where`.
[[noreturn]] PGAS_API void cuts_access_misuse(std::size_t a, std::size_t accesses,
                                              const std::source_location& where);

}  // namespace detail
}  // namespace pgas
