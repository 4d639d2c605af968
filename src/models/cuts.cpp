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

// The tiles that meet a box along one dimension, [first, last], are of at most three kinds: the
// first, the last and those between, whose parts of the box are the same relative to their
// start (whole tiles). A kind's segments are bounds[kind][s] to bounds[kind][s + 1], counted
// from the tile's start.
struct tile_kinds {
  std::size_t first = 0;
  std::size_t last = 0;
  std::size_t count = 1;
  // Written before read, for the kinds there are only (no 6.5 KiB of zeros per plan).
  std::array<std::size_t, 3> segs;
  std::array<std::array<std::size_t, max_cut_accesses + 2>, 3> bounds;
  std::size_t of(std::size_t c) const noexcept {
    return c == first ? 0 : c == last ? count - 1 : 1;
  }
};

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

cut_plan::cut_plan(const layout& l, const box& b, const offsets& k, int thread, cut_options options,
                   std::source_location where)
    : rank_(l.rank()), accesses_(k.size()), thread_(thread) {
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
  // The tiles that meet the box, as tile coordinates [tlo, thi], and their kinds per dimension
  // (see tile_kinds): every tile of one kind has the same segments and shifts, computed here
  // once.
  tile_stride_[last] = 1;
  for (std::size_t d = last; d-- > 0;)
    tile_stride_[d] = tile_stride_[d + 1] * t.n[d + 1];
  std::array<tile_kinds, layout::max_rank> kinds;
  // Written before read, for the kinds and segments there are only: left uninitialised.
  // Where a segment's first index shifted by each access lands along dimension d: the tile,
  // relative to the segment's and times the row-major tile stride, as course · THREADS +
  // residue (0 <= residue < THREADS), and the position in it (times the in-tile stride). Three
  // rows of `na` per segment (residues, courses modulo 2^64, positions), so that a run's sums
  // over the dimensions vectorise.
  const auto shifts = std::make_unique_for_overwrite<std::size_t[]>(rank_ * 3 * max_segs * 3 * na);
  const auto shift_at = [&](std::size_t d, std::size_t kind, std::size_t sg) {
    return ((d * 3 + kind) * max_segs + sg) * 3 * na;
  };
  std::size_t all_kinds = 1;
  for (std::size_t d = 0; d < rank_; ++d) {
    const std::size_t b = t.b[d];
    tlo_[d] = lo[d] / b;
    thi_[d] = (hi[d] - 1) / b;
    tile_kinds& tk = kinds[d];
    tk.first = tlo_[d];
    tk.last = thi_[d];
    tk.count = std::min<std::size_t>(3, thi_[d] - tlo_[d] + 1);
    kind_stride_[d] = all_kinds;
    all_kinds *= tk.count;
    // A position p in [0, b) shifted by k is in tile whole (+1 when p + rest >= b).
    // That tile, times the tile stride, as courses · THREADS + residue: [a][0] for whole,
    // [a][1] for whole + 1.
    // A stencil's offsets (−b <= k < b) need only w = −1, 0, 1 whole tiles: divided once.
    std::array<std::size_t, max_cut_accesses> rest;
    std::array<std::array<std::pair<std::ptrdiff_t, std::size_t>, 2>, max_cut_accesses> tile_of;
    const auto sthreads = static_cast<std::ptrdiff_t>(threads);
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
    for (std::size_t kind = 0; kind < tk.count; ++kind) {
      // The kind's part of the box relative to its tiles' start, split at every access's cut.
      const std::size_t c = kind == 0 ? tlo_[d] : kind + 1 == tk.count ? thi_[d] : tlo_[d] + 1;
      const std::size_t start = c * b;
      const std::size_t a0 = std::max(start, lo[d]) - start;
      const std::size_t a1 = std::min(start + b, hi[d]) - start;
      auto& bd = tk.bounds[kind];
      std::size_t nb = 1;
      bd[0] = a0;
      for (std::size_t a = 0; a < na; ++a) {
        const std::size_t cut = b - rest[a];
        if (cut <= a0 || cut >= a1) continue;
        std::size_t x = nb++;  // insertion, skipping duplicates
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
      bd[nb] = a1;
      tk.segs[kind] = nb;
      // Per segment and access, where the segment's first index shifted by the access lands.
      for (std::size_t sg = 0; sg < nb; ++sg) {
        for (std::size_t a = 0; a < na; ++a) {
          const std::size_t p = bd[sg] + rest[a];
          const bool next = p >= b;
          const auto [courses, residue] = tile_of[a][next ? 1 : 0];
          std::size_t* row = &shifts[shift_at(d, kind, sg)];
          row[a] = residue;
          row[na + a] = static_cast<std::size_t>(courses);
          row[2 * na + a] = (next ? p - b : p) * strides_[d];
        }
      }
    }
  }
  kinds_.resize(all_kinds);
  // A kind's runs, built for the first tile of the thread that has it: the product of its
  // segments, row-major. Every tile q of the thread has q mod THREADS == thread, so access a's
  // tile q + s (s: the shifts' tiles, Σ courses · THREADS + residue) has owner (thread + Σ
  // residue) mod THREADS and lies Σ courses (+ 1 per THREADS taken off the owner) after q in
  // its owner's part, whatever q is: no division per run.
  const auto build_kind = [&](std::size_t index,
                              const std::array<std::size_t, layout::max_rank>& kind) {
    pgas::cut_plan::kind& m = kinds_[index];
    std::size_t runs = 1;
    for (std::size_t d = 0; d < rank_; ++d)
      runs *= kinds[d].segs[kind[d]];
    m.first_run = kind_runs_.size();
    m.end_run = m.first_run + runs;
    std::size_t target = kind_targets_.size();
    // Zeroed in one go, then written field by field in place (a run built aside and copied in
    // would reload its narrow stores wide, and wait on them).
    kind_runs_.resize(m.end_run);
    std::array<std::size_t, layout::max_rank> seg{};
    std::array<const std::size_t*, layout::max_rank> rows;  // each dimension's segment's shifts
    for (std::size_t x = m.first_run; x < m.end_run; ++x) {
      cut_run& r = kind_runs_[x];
      r.first_target = target;
      std::size_t my_phase = 0;
      for (std::size_t d = 0; d < rank_; ++d) {
        const auto& bd = kinds[d].bounds[kind[d]];
        r.lo[d] = bd[seg[d]];
        r.hi[d] = bd[seg[d] + 1];
        my_phase += bd[seg[d]] * strides_[d];
        rows[d] = &shifts[shift_at(d, kind[d], seg[d])];
      }
      r.offset = my_phase;
      bool local = true;
      // Per access, its sums over the dimensions in registers (no arrays between passes).
      for (std::size_t a = 0; a < na; ++a, ++target) {
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
        kind_targets_.push_back({o, is_local, course * t.volume + phase});
      }
      r.local = local;
      const std::size_t n = r.iterations(rank_);
      m.iterations += n;
      if (local) m.local_iterations += n;
      for (std::size_t d = rank_; d-- > 0;) {
        if (++seg[d] < kinds[d].segs[kind[d]]) break;
        seg[d] = 0;
      }
    }
  };
  // Room for every kind's runs (most plans build most kinds), within reason.
  std::size_t all_runs = 1;
  for (std::size_t d = 0; d < rank_; ++d) {
    std::size_t segs = 0;
    for (std::size_t kind = 0; kind < kinds[d].count; ++kind)
      segs += kinds[d].segs[kind];
    all_runs = std::min<std::size_t>(all_runs * segs, 4096);
  }
  kind_runs_.reserve(all_runs);
  kind_targets_.reserve(all_runs * na);
  // Row by row of tiles: the thread's tiles of the row of each kind along the last dimension
  // (the first, the last, those between: every THREADS-th tile), their kinds' runs built when
  // first met and counted.
  std::array<std::size_t, layout::max_rank> tc = tlo_;
  std::array<std::size_t, layout::max_rank> kind{};
  const std::size_t tiles_last = thi_[last] - tlo_[last] + 1;
  for (;;) {
    std::size_t row = 0;
    std::size_t row_kind = 0;
    for (std::size_t d = 0; d < last; ++d) {
      row += tc[d] * tile_stride_[d];
      kind[d] = kinds[d].of(tc[d]);
      row_kind += kind[d] * kind_stride_[d];
    }
    // The thread's tiles of the row: tlo + first, tlo + first + THREADS, … <= thi.
    const std::size_t first = (me + threads - (row + tlo_[last]) % threads) % threads;
    if (first < tiles_last) {
      const std::size_t mine = (tiles_last - 1 - first) / threads + 1;
      const std::size_t last_mine = first + (mine - 1) * threads;
      std::array<std::size_t, 3> count{};  // of the row's tiles of the thread, per last kind
      count[0] = first == 0 ? 1 : 0;
      const std::size_t last_kind = kinds[last].count - 1;
      if (last_kind > 0 && last_mine == tiles_last - 1) count[last_kind] = 1;
      if (kinds[last].count == 3) count[1] = mine - count[0] - count[2];
      for (std::size_t kl = 0; kl < kinds[last].count; ++kl) {
        if (count[kl] == 0) continue;
        kind[last] = kl;
        const std::size_t index = row_kind + kl * kind_stride_[last];
        if (kinds_[index].end_run == kinds_[index].first_run) build_kind(index, kind);
        const pgas::cut_plan::kind& m = kinds_[index];
        run_count_ += count[kl] * (m.end_run - m.first_run);
        iterations_ += count[kl] * m.iterations;
        local_iterations_ += count[kl] * m.local_iterations;
      }
    }
    std::size_t d = last;
    while (d-- > 0) {
      if (++tc[d] <= thi_[d]) break;
      tc[d] = tlo_[d];
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

void cut_plan::run_iterator::enter_row() noexcept {
  const cut_plan& p = *plan_;
  const std::size_t last = p.rank_ - 1;
  row_ = 0;
  row_kind_ = 0;
  for (std::size_t d = 0; d < last; ++d) {
    row_ += tc_[d] * p.tile_stride_[d];
    start_[d] = tc_[d] * p.tile_[d];
    row_kind_ += p.kind_along(d, tc_[d]) * p.kind_stride_[d];
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
  const std::size_t last = rank_ - 1;
  while (it.c_ > thi_[last]) {  // rows without a tile of the thread
    std::size_t d = last;
    while (d-- > 0) {
      if (++it.tc_[d] <= thi_[d]) break;
      it.tc_[d] = tlo_[d];
    }
    it.enter_row();
  }
  it.enter_tile();
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

void cuts_check_layouts(const layout& first, std::initializer_list<const layout*> others,
                        const std::source_location& where) {
  std::size_t n = 1;
  for (const layout* o : others) {
    if (o->extents() != first.extents() || !(o->spec() == first.spec()) ||
        o->threads() != first.threads()) {
      misuse(fmt::format("forall_cuts: array {} of the loop is {}, but the first is {}: the "
                         "arrays of one loop must have one layout",
                         n, o->declaration("T", "B"), first.declaration("T", "A")),
             where);
    }
    ++n;
  }
}

}  // namespace detail
}  // namespace pgas
