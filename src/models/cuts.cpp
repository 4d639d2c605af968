// Locality cuts (pgas/cut_model.hpp, described in pgas/cuts.hpp): cut_plan splits a thread's
// iterations of a loop box over a tiled layout into runs in which every access A(i + k) has one
// owner, by Barton et al.'s observation that a tile shifted by k spans at most two tiles per
// dimension, split at b − k mod b. cut_formula_of computes the paper's Cut_i, Cut^Upper and
// Cut^Lower for tools. Block-cyclic layouts whose blocks are tiles of the row-major order are
// modelled as tiles.

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>

#include <pgas/cut_model.hpp>
#include <pgas/error.hpp>

namespace pgas {
namespace {

// A layout seen as tiles: extents, tile extents and tiles per dimension.
struct tiling {
  std::size_t rank = 0;
  std::size_t threads = 1;
  std::array<std::size_t, layout::max_rank> ext{};
  std::array<std::size_t, layout::max_rank> b{};
  std::array<std::size_t, layout::max_rank> n{};
  std::size_t volume = 1;
};

// An index plus an offset, which may pass 2^63 in a misuse message.
__extension__ typedef __int128 wide_index;

std::string index_text(std::span<const std::ptrdiff_t> v) {
  return fmt::format("({})", fmt::join(v, ", "));
}

// The tiles of a block-cyclic block B: {1, …, 1, m, d_{r+1}, …, d_{n−1}} where B = m · the
// product of the trailing extents, m dividing d_r (any m for r = 0); "" when B is such a tile.
std::string block_as_tile(const layout& l, std::size_t block, tiling& t) {
  std::size_t trailing = 1;
  for (std::size_t r = t.rank; r-- > 0;) {
    if (block % trailing != 0) break;
    const std::size_t m = block / trailing;
    if (r == 0 || (m <= l.extent(r) && l.extent(r) % m == 0)) {
      for (std::size_t d = 0; d < t.rank; ++d)
        t.b[d] = d < r ? 1 : d == r ? m : l.extent(d);
      return "";
    }
    if (m < l.extent(r)) break;
    trailing *= l.extent(r);
  }
  return fmt::format(
      "locality cuts need blocks that are tiles of the row-major order, but block {} of an array "
      "of extents [{}] is not: it must divide the last extent or be a whole number of trailing "
      "rows",
      block, fmt::join(l.extents(), "]["));
}

tiling tiling_of(const layout& l, const std::source_location& where) {
  tiling t;
  t.rank = l.rank();
  t.threads = static_cast<std::size_t>(l.threads());
  for (std::size_t d = 0; d < t.rank; ++d)
    t.ext[d] = l.extent(d);
  switch (l.which()) {
    case block_spec::kind::tiles:
      for (std::size_t d = 0; d < t.rank; ++d)
        t.b[d] = l.spec().tile()[d];
      break;
    case block_spec::kind::indefinite:
      for (std::size_t d = 0; d < t.rank; ++d)
        t.b[d] = l.extent(d);
      t.threads = 1;  // one tile, on thread 0
      break;
    case block_spec::kind::cyclic:
    case block_spec::kind::star:
      if (std::string problem = block_as_tile(l, l.block_elements(), t); !problem.empty())
        detail::misuse(problem, where);
      break;
  }
  for (std::size_t d = 0; d < t.rank; ++d) {
    t.n[d] = (t.ext[d] + t.b[d] - 1) / t.b[d];
    t.volume *= t.b[d];
  }
  return t;
}

std::size_t positive_mod(std::ptrdiff_t k, std::size_t b) {
  const auto sb = static_cast<std::ptrdiff_t>(b);
  return static_cast<std::size_t>(((k % sb) + sb) % sb);
}

// An offset as whole tiles and a remainder, k = whole · b + rest with 0 <= rest < b; a stencil's
// offsets, −b <= k < b, need no division.
struct offset_split {
  std::ptrdiff_t whole = 0;
  std::size_t rest = 0;
};
offset_split split_offset(std::ptrdiff_t k, std::size_t b) {
  const auto sb = static_cast<std::ptrdiff_t>(b);
  if (k >= 0 && k < sb) return {0, static_cast<std::size_t>(k)};
  if (k < 0 && k >= -sb) return {-1, static_cast<std::size_t>(k + sb)};
  const std::size_t rest = positive_mod(k, b);
  return {(k - static_cast<std::ptrdiff_t>(rest)) / sb, rest};
}

// The owner and offset of the element at `index` (inside the array).
cut_target place_of(const tiling& t, const std::array<std::size_t, layout::max_rank>& index) {
  std::size_t tile = 0;
  std::size_t phase = 0;
  for (std::size_t d = 0; d < t.rank; ++d) {
    tile = tile * t.n[d] + index[d] / t.b[d];
    phase = phase * t.b[d] + index[d] % t.b[d];
  }
  return {static_cast<int>(tile % t.threads), false, (tile / t.threads) * t.volume + phase};
}

void check_rank(const layout& l, std::size_t rank, const char* what,
                const std::source_location& where) {
  if (rank != l.rank()) {
    detail::misuse(fmt::format("locality cuts: {} has rank {} but the array has rank {}", what,
                               rank, l.rank()),
                   where);
  }
}

void check_thread(const layout& l, int thread, int tpn, const std::source_location& where) {
  if (thread < 0 || thread >= l.threads())
    detail::misuse(fmt::format("locality cuts: thread {} is outside [0, {})", thread, l.threads()),
                   where);
  if (tpn < 1)
    detail::misuse(fmt::format("locality cuts: threads_per_node is {}, must be >= 1", tpn), where);
}

}  // namespace

cut_plan::cut_plan(const pgas::layout& l, const box& b, const offsets& k, int thread,
                   cut_options options, std::source_location where)
    : layout_(l), where_(where), rank_(l.rank()), accesses_(k.size()), thread_(thread) {
  check_rank(l, b.rank(), "the box", where);
  check_thread(l, thread, options.threads_per_node, where);
  if (k.size() == 0 || k.size() > max_cut_accesses) {
    detail::misuse(
        fmt::format("locality cuts: {} offsets given, 1 to {} allowed", k.size(), max_cut_accesses),
        where);
  }
  for (std::size_t a = 0; a < k.size(); ++a) {
    if (k[a].size() != rank_)  // formatted only then: a plan is built per loop
      check_rank(l, k[a].size(), fmt::format("offset {}", a).c_str(), where);
  }
  const tiling t = tiling_of(l, where);
  std::array<std::size_t, layout::max_rank> lo{};
  std::array<std::size_t, layout::max_rank> hi{};
  bool empty = false;
  for (std::size_t d = 0; d < rank_; ++d) {
    const interval& v = b[d];
    if (v.lo > v.hi) {
      detail::misuse(
          fmt::format("locality cuts: the box's dimension {} is [{}, {}): lo > hi", d, v.lo, v.hi),
          where);
    }
    if (v.lo < 0 || static_cast<std::size_t>(v.hi) > t.ext[d]) {
      detail::misuse(fmt::format("locality cuts: the box's dimension {} is [{}, {}), outside the "
                                 "array's extent {}",
                                 d, v.lo, v.hi, t.ext[d]),
                     where);
    }
    lo[d] = static_cast<std::size_t>(v.lo);
    hi[d] = static_cast<std::size_t>(v.hi);
    empty = empty || lo[d] == hi[d];
  }
  for (std::size_t d = 0; d < rank_; ++d)
    tile_[d] = t.b[d];
  strides_[rank_ - 1] = 1;
  for (std::size_t d = rank_ - 1; d-- > 0;)
    strides_[d] = strides_[d + 1] * t.b[d + 1];
  if (empty) return;
  // Every access must stay inside the array for every iteration of the box (the box's corners).
  for (std::size_t a = 0; a < k.size(); ++a) {
    for (std::size_t d = 0; d < rank_; ++d) {
      // An offset at least as long as the dimension leaves it from any iteration; checked
      // first, so that lo + k and hi - 1 + k below cannot overflow.
      const auto ext = static_cast<std::ptrdiff_t>(t.ext[d]);
      const bool short_offset = k[a][d] > -ext && k[a][d] < ext;
      const std::ptrdiff_t first =
          short_offset ? static_cast<std::ptrdiff_t>(lo[d]) + k[a][d] : (k[a][d] < 0 ? -1 : ext);
      const std::ptrdiff_t last =
          short_offset ? static_cast<std::ptrdiff_t>(hi[d]) - 1 + k[a][d] : first;
      if (first >= 0 && last < ext) continue;
      std::vector<std::ptrdiff_t> iter(rank_);
      for (std::size_t e = 0; e < rank_; ++e)
        iter[e] = static_cast<std::ptrdiff_t>(lo[e]);
      iter[d] =
          first < 0 ? static_cast<std::ptrdiff_t>(lo[d]) : static_cast<std::ptrdiff_t>(hi[d]) - 1;
      // The index read, in 128 bits: an offset near 2^63 must not wrap in the message either.
      std::vector<std::string> at(rank_);
      for (std::size_t e = 0; e < rank_; ++e)
        at[e] = fmt::format("{}", static_cast<wide_index>(iter[e]) + k[a][e]);
      detail::misuse(
          fmt::format("locality cuts: access {} (offset {}) leaves the array at iteration {}: "
                      "it reads {}, outside the extents [{}]",
                      a, index_text(k[a]), index_text(iter),
                      fmt::format("({})", fmt::join(at, ", ")), fmt::join(l.extents(), "][")),
          where);
    }
  }
  const int tpn = options.threads_per_node;
  // The calling thread's node as a range of threads (no division per access).
  const int node_first = thread / tpn * tpn;
  const int node_end = node_first + tpn;
  if (static_cast<std::size_t>(thread) >= t.threads) return;  // indefinite: thread 0 owns all
  const std::size_t me = static_cast<std::size_t>(thread);
  const std::size_t threads = t.threads;
  threads_ = threads;
  volume_ = t.volume;
  const std::size_t na = k.size();
  const std::size_t last = rank_ - 1;
  const std::size_t max_segs = na + 1;
  // The tiles that meet the box: [tlo, thi] along each dimension.
  tile_stride_[last] = 1;
  for (std::size_t d = last; d-- > 0;)
    tile_stride_[d] = tile_stride_[d + 1] * t.n[d + 1];
  // Along each dimension a whole tile [0, b) splits at every access's cut b − (k mod b) into at
  // most na + 1 segments, bounds_[d][s] to bounds_[d][s + 1]; per segment and access, where
  // the segment's first index shifted by the access lands: the tile, relative to the
  // segment's and times the row-major tile stride, as course · THREADS + residue (0 <= residue
  // < THREADS), and the position in it (times the in-tile stride), three rows of `na`
  // (residues, courses modulo 2^64, positions). Every tile of the thread has the same
  // segments and shifts: the box clips them at its edges, and the array's end a partial tile.
  bounds_.resize(rank_ * (max_segs + 1));
  const auto shifts = std::make_unique_for_overwrite<std::size_t[]>(rank_ * max_segs * 3 * na);
  const auto shift_at = [&](std::size_t d, std::size_t sg) { return (d * max_segs + sg) * 3 * na; };
  const auto sthreads = static_cast<std::ptrdiff_t>(threads);
  for (std::size_t d = 0; d < rank_; ++d) {
    const std::size_t b = t.b[d];
    tlo_[d] = lo[d] / b;
    thi_[d] = (hi[d] - 1) / b;
    blo_[d] = lo[d];
    bhi_[d] = hi[d];
    // A position p in [0, b) shifted by k is in tile whole (+1 when p + rest >= b); that tile
    // as courses and residue for w = whole, whole + 1 (a stencil's −b <= k < b needs only w =
    // −1, 0, 1: divided once each).
    std::array<std::size_t, max_cut_accesses> rest;
    std::array<std::array<std::pair<std::ptrdiff_t, std::size_t>, 2>, max_cut_accesses> tile_of;
    const auto split_tiles = [&](std::ptrdiff_t w) -> std::pair<std::ptrdiff_t, std::size_t> {
      const std::ptrdiff_t tiles = w * static_cast<std::ptrdiff_t>(tile_stride_[d]);
      std::ptrdiff_t courses = tiles / sthreads;  // floor
      if (courses * sthreads > tiles) --courses;
      return {courses, static_cast<std::size_t>(tiles - courses * sthreads)};
    };
    const std::array<std::pair<std::ptrdiff_t, std::size_t>, 3> near{
        split_tiles(-1), std::pair<std::ptrdiff_t, std::size_t>{0, 0}, split_tiles(1)};
    for (std::size_t a = 0; a < na; ++a) {
      const offset_split split = split_offset(k[a][d], b);
      rest[a] = split.rest;
      for (std::ptrdiff_t next = 0; next < 2; ++next) {
        const std::ptrdiff_t w = split.whole + next;
        tile_of[a][static_cast<std::size_t>(next)] =
            w >= -1 && w <= 1 ? near[static_cast<std::size_t>(w + 1)] : split_tiles(w);
      }
    }
    std::size_t* bd = &bounds_[d * (max_segs + 1)];
    std::size_t nb = 1;
    bd[0] = 0;
    for (std::size_t a = 0; a < na; ++a) {
      const std::size_t cut = b - rest[a];
      if (cut >= b) continue;  // rest 0: no split
      std::size_t x = nb++;    // insertion, skipping duplicates
      while (x > 1 && bd[x - 1] > cut) {
        bd[x] = bd[x - 1];
        --x;
      }
      if (bd[x - 1] == cut) {
        for (std::size_t y = x; y + 1 < nb; ++y)
          bd[y] = bd[y + 1];
        --nb;
      } else {
        bd[x] = cut;
      }
    }
    bd[nb] = b;
    segs_[d] = nb;
    for (std::size_t sg = 0; sg < nb; ++sg) {
      std::size_t* row = &shifts[shift_at(d, sg)];
      for (std::size_t a = 0; a < na; ++a) {
        const std::size_t p = bd[sg] + rest[a];
        const bool next = p >= b;
        const auto [courses, residue] = tile_of[a][next ? 1 : 0];
        row[a] = residue;
        row[na + a] = static_cast<std::size_t>(courses);
        row[2 * na + a] = (next ? p - b : p) * strides_[d];
      }
    }
  }
  // The tile's runs: the product of the segments, row-major, relative to the tile's first
  // element and place (its course 0 in the thread's part). Every tile q of the thread has q
  // mod THREADS == thread, so access a's tile q + s (s: the shifts' tiles, Σ courses · THREADS
  // + residue) has owner (thread + Σ residue) mod THREADS and lies Σ courses (+ 1 per THREADS
  // taken off the owner) after q in its owner's part, whatever q is: no division per run.
  std::size_t runs = 1;
  for (std::size_t d = 0; d < rank_; ++d)
    runs *= segs_[d];
  tile_runs_.resize(runs);  // zeroed in one go, then written field by field in place
  tile_targets_.reserve(runs * na);
  std::array<std::size_t, layout::max_rank> seg{};
  std::array<const std::size_t*, layout::max_rank> rows;  // each dimension's segment's shifts
  for (cut_run& r : tile_runs_) {
    r.first_target = tile_targets_.size();
    std::size_t my_phase = 0;
    for (std::size_t d = 0; d < rank_; ++d) {
      const std::size_t* bd = &bounds_[d * (max_segs + 1)];
      r.lo[d] = bd[seg[d]];
      r.hi[d] = bd[seg[d] + 1];
      my_phase += bd[seg[d]] * strides_[d];
      rows[d] = &shifts[shift_at(d, seg[d])];
    }
    r.offset = my_phase;
    bool local = true;
    // Per access, its sums over the dimensions in registers (no arrays between passes).
    for (std::size_t a = 0; a < na; ++a) {
      std::size_t owner = me;
      std::size_t course = 0;  // modulo 2^64
      std::size_t phase = 0;
      for (std::size_t d = 0; d < rank_; ++d) {
        owner += rows[d][a];
        course += rows[d][na + a];
        phase += rows[d][2 * na + a];
      }
      while (owner >= threads) {  // at most rank times
        owner -= threads;
        ++course;
      }
      const auto o = static_cast<int>(owner);
      const bool is_local = o >= node_first && o < node_end;
      local = local && is_local;
      // Modulo 2^64: a course before the tile's comes back when the tile's place is added.
      tile_targets_.push_back({o, is_local, course * t.volume + phase});
    }
    r.local = local;
    for (std::size_t d = rank_; d-- > 0;) {
      if (++seg[d] < segs_[d]) break;
      seg[d] = 0;
    }
  }
  // The runs and iterations, row of tiles by row: along each dimension a tile is the box's
  // first, last or one between, which fixes its part of the box and its segments that meet
  // it; along the last dimension the thread's tiles of a row are every THREADS-th.
  for_each_row([&](const row_info& w) {
    std::size_t outer_runs = 1;
    std::size_t outer_iterations = 1;
    for (std::size_t d = 0; d < last; ++d) {
      outer_runs *= w.part[d].segments;
      outer_iterations *= w.part[d].length;
    }
    for (std::size_t kl = 0; kl < 3; ++kl) {
      run_count_ += w.count[kl] * outer_runs * w.last[kl].segments;
      iterations_ += w.count[kl] * outer_iterations * w.last[kl].length;
    }
  });
}

// A dimension's segments that meet the box in a tile that starts at `start`, and its length.
cut_plan::part_info cut_plan::part_of(std::size_t d, std::size_t start) const noexcept {
  const std::size_t max_segs = accesses_ + 1;
  const std::size_t* bd = &bounds_[d * (max_segs + 1)];
  const std::size_t a0 = std::max(start, blo_[d]) - start;
  const std::size_t a1 = std::min(start + tile_[d], bhi_[d]) - start;
  part_info p;
  p.first = a0;
  p.length = a1 - a0;
  for (std::size_t s = 0; s < segs_[d]; ++s)
    p.segments += std::max(bd[s], a0) < std::min(bd[s + 1], a1) ? 1 : 0;
  return p;
}

template <class F>
void cut_plan::for_each_row(F&& f) const {
  if (tile_runs_.empty()) return;
  const std::size_t last = rank_ - 1;
  const auto me = static_cast<std::size_t>(thread_);
  const std::size_t tiles_last = thi_[last] - tlo_[last] + 1;
  // The last dimension's three kinds of tile: first, between, last (the same tile when the box
  // meets one, then counted as first).
  row_info w;
  w.last[0] = part_of(last, tlo_[last] * tile_[last]);
  if (tiles_last > 2) w.last[1] = part_of(last, (tlo_[last] + 1) * tile_[last]);
  if (tiles_last > 1) w.last[2] = part_of(last, thi_[last] * tile_[last]);
  std::array<std::size_t, layout::max_rank> tc = tlo_;
  for (;;) {
    std::size_t row = 0;
    for (std::size_t d = 0; d < last; ++d) {
      row += tc[d] * tile_stride_[d];
      w.part[d] = part_of(d, tc[d] * tile_[d]);
    }
    // The thread's tiles of the row: tlo + first, tlo + first + THREADS, … <= thi.
    const std::size_t first = (me + threads_ - (row + tlo_[last]) % threads_) % threads_;
    w.count = {0, 0, 0};
    if (first < tiles_last) {
      const std::size_t mine = (tiles_last - 1 - first) / threads_ + 1;
      const std::size_t last_mine = first + (mine - 1) * threads_;
      w.count[0] = first == 0 ? 1 : 0;
      w.count[2] = tiles_last > 1 && last_mine == tiles_last - 1 ? 1 : 0;
      w.count[1] = mine - w.count[0] - w.count[2];
      f(w);
    }
    std::size_t d = last;
    while (d-- > 0) {
      if (++tc[d] <= thi_[d]) break;
      tc[d] = tlo_[d];
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

std::size_t cut_plan::local_iterations() const noexcept {
  // Per row of tiles, each local run's iterations in each part: its segment clipped to the
  // part, per dimension.
  const std::size_t last = rank_ - 1;
  const std::size_t max_segs = accesses_ + 1;
  const auto clipped = [&](std::size_t d, const part_info& p, std::size_t s) -> std::size_t {
    const std::size_t* bd = &bounds_[d * (max_segs + 1)];
    const std::size_t x0 = std::max(bd[s], p.first), x1 = std::min(bd[s + 1], p.first + p.length);
    return x0 < x1 ? x1 - x0 : 0;
  };
  std::size_t total = 0;
  for_each_row([&](const row_info& w) {
    std::array<std::size_t, layout::max_rank> seg{};
    for (const cut_run& r : tile_runs_) {
      if (r.local) {
        std::size_t outer = 1;
        for (std::size_t d = 0; d < last; ++d)
          outer *= clipped(d, w.part[d], seg[d]);
        std::size_t along = 0;
        for (std::size_t kl = 0; kl < 3; ++kl) {
          if (w.count[kl] != 0) along += w.count[kl] * clipped(last, w.last[kl], seg[last]);
        }
        total += outer * along;
      }
      for (std::size_t d = rank_; d-- > 0;) {
        if (++seg[d] < segs_[d]) break;
        seg[d] = 0;
      }
    }
  });
  return total;
}

void cut_plan::run_iterator::enter_row() noexcept {
  const cut_plan& p = *plan_;
  const std::size_t last = p.rank_ - 1;
  row_ = 0;
  row_whole_ = true;
  for (std::size_t d = 0; d < last; ++d) {
    row_ += tc_[d] * p.tile_stride_[d];
    start_[d] = tc_[d] * p.tile_[d];
    row_whole_ = row_whole_ && start_[d] >= p.blo_[d] && start_[d] + p.tile_[d] <= p.bhi_[d];
  }
  const auto me = static_cast<std::size_t>(p.thread_);
  const std::size_t first_q = row_ + p.tlo_[last];
  c_ = p.tlo_[last] + (me + p.threads_ - first_q % p.threads_) % p.threads_;
  course_ = (row_ + c_) / p.threads_;
}

cut_plan::run_iterator cut_plan::begin_runs() const noexcept {
  run_iterator it;
  if (run_count_ == 0) return it;
  it.plan_ = this;
  it.left_ = run_count_;
  it.tc_ = tlo_;
  it.enter_row();
  it.skip_rows();
  it.enter_tile();
  it.settle();
  return it;
}

cut_formula cut_formula_of(const layout& l, std::size_t tile, std::span<const std::ptrdiff_t> k,
                           int threads_per_node, std::source_location where) {
  check_rank(l, k.size(), "the offset", where);
  check_thread(l, 0, threads_per_node, where);
  const tiling t = tiling_of(l, where);
  const std::size_t last = t.rank - 1;
  std::size_t tiles = 1;
  for (std::size_t d = 0; d < t.rank; ++d)
    tiles *= t.n[d];
  if (tile >= tiles)
    detail::misuse(fmt::format("locality cuts: tile {} of {} tiles", tile, tiles), where);
  std::array<std::size_t, layout::max_rank> origin{};
  std::size_t q = tile;
  for (std::size_t d = t.rank; d-- > 0;) {
    origin[d] = (q % t.n[d]) * t.b[d];
    q /= t.n[d];
  }
  cut_formula f;
  for (std::size_t d = 0; d < last; ++d)
    f.cut.push_back(t.b[d] - positive_mod(k[d], t.b[d]));
  // Cut^Upper from the corner shifted by k, Cut^Lower from the one shifted by k' (the last
  // row of the tile in every outer dimension).
  const auto node_cut = [&](bool lower) -> std::ptrdiff_t {
    std::array<std::size_t, layout::max_rank> corner{};
    for (std::size_t d = 0; d < t.rank; ++d) {
      std::ptrdiff_t c = static_cast<std::ptrdiff_t>(origin[d]) + k[d];
      if (lower && d < last) c += static_cast<std::ptrdiff_t>(t.b[d]) - 1;
      if (c < 0 || c >= static_cast<std::ptrdiff_t>(t.ext[d])) return -1;
      corner[d] = static_cast<std::size_t>(c);
    }
    const auto course = place_of(t, corner).owner % threads_per_node;
    return static_cast<std::ptrdiff_t>((static_cast<std::size_t>(threads_per_node - course)) *
                                           t.b[last] -
                                       positive_mod(k[last], t.b[last]));
  };
  f.upper = node_cut(false);
  f.lower = node_cut(true);
  return f;
}

namespace detail {

namespace {
bool same_layout(const layout& x, const layout& y) {
  return x.extents() == y.extents() && x.spec() == y.spec() && x.threads() == y.threads();
}

// Array n of a loop, as forall_cuts's arguments name it: 0 is the loop array (the accesses'),
// n >= 1 the n-th output array after the body.
std::string loop_array_name(std::size_t n) {
  return n == 0 ? "the loop array (the accesses' array, before the body)"
                : fmt::format("output array {} (argument {} after the body)", n, n);
}
std::string loop_array_decl(const layout& l, std::size_t n) {
  return l.declaration("T", n == 0 ? "In" : fmt::format("Out{}", n));
}
}  // namespace

void cuts_access_misuse(std::size_t a, std::size_t accesses, const std::source_location& where) {
  misuse(fmt::format("forall_cuts: the body read e[{}], but the loop has {} offset{} (e[0] to "
                     "e[{}])",
                     a, accesses, accesses == 1 ? "" : "s", accesses - 1),
         where);
}

void cuts_check_layouts(const layout& first, std::initializer_list<const layout*> others,
                        const std::source_location& where) {
  std::size_t n = 1;
  for (const layout* o : others) {
    if (!same_layout(*o, first)) {
      misuse(fmt::format("forall_cuts: {} is {}, but the loop array is {}: the arrays of one "
                         "loop must have one layout (extents, blocks and threads)",
                         loop_array_name(n), loop_array_decl(*o, n), loop_array_decl(first, 0)),
             where);
    }
    ++n;
  }
}

void cuts_check_plan(const cut_plan& plan, int thread, std::initializer_list<const layout*> arrays,
                     const std::source_location& where) {
  if (plan.thread() != thread) {
    misuse(fmt::format("forall_cuts: the plan built at {}:{} holds thread {}'s runs, but thread "
                       "{} runs the loop: each thread builds its own plan "
                       "(cut_plan(layout, box, offsets, pgas::mythread()))",
                       plan.where().file_name(), plan.where().line(), plan.thread(), thread),
           where);
  }
  std::size_t n = 0;
  for (const layout* a : arrays) {
    if (!same_layout(*a, plan.layout())) {
      misuse(fmt::format("forall_cuts: {} is {}, but the plan built at {}:{} is for {}: the "
                         "arrays of a planned loop must have the plan's layout (extents, blocks "
                         "and threads)",
                         loop_array_name(n), loop_array_decl(*a, n), plan.where().file_name(),
                         plan.where().line(), plan.layout().declaration("T", "P")),
             where);
    }
    ++n;
  }
}

}  // namespace detail
}  // namespace pgas
