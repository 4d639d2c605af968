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

// Where a segment's first index shifted by an access lands along one dimension: the tile
// (relative to the segment's, times the row-major tile stride) and the position in it (times
// the in-tile stride).
struct access_shift {
  std::ptrdiff_t tiles;
  std::size_t phase;
};

// The runs and targets of the first tile of the thread of one kind (a kind per dimension),
// which the later tiles of that kind copy, moved; runs == 0 until that tile.
struct kind_runs {
  std::size_t first_run = 0;
  std::size_t runs = 0;
  std::size_t first_target = 0;
  std::size_t course = 0;  // the tile's position in the thread's storage
  std::size_t iterations = 0;
  std::size_t local_iterations = 0;
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
  const std::size_t na = k.size();
  const std::size_t last = rank_ - 1;
  const std::size_t max_segs = na + 1;
  // The tiles that meet the box, as tile coordinates [tlo, thi], and their kinds per dimension
  // (see tile_kinds): every tile of one kind has the same segments and shifts, computed here
  // once, so that a tile costs no division and only its first of a kind computes targets.
  std::array<std::size_t, layout::max_rank> tlo{};
  std::array<std::size_t, layout::max_rank> thi{};
  std::array<std::size_t, layout::max_rank> tile_stride{};  // tiles, row-major
  tile_stride[last] = 1;
  for (std::size_t d = last; d-- > 0;)
    tile_stride[d] = tile_stride[d + 1] * t.n[d + 1];
  std::array<tile_kinds, layout::max_rank> kinds;
  std::array<std::size_t, layout::max_rank> kind_stride{};  // of the memo's index
  // Written before read, for the kinds and segments there are only: left uninitialised.
  const auto shifts = std::make_unique_for_overwrite<access_shift[]>(rank_ * 3 * max_segs * na);
  const auto shift_at = [&](std::size_t d, std::size_t kind, std::size_t sg, std::size_t a) {
    return ((d * 3 + kind) * max_segs + sg) * na + a;
  };
  std::size_t all_kinds = 1;
  std::size_t most_runs = 1;  // per tile
  for (std::size_t d = 0; d < rank_; ++d) {
    const std::size_t b = t.b[d];
    tlo[d] = lo[d] / b;
    thi[d] = (hi[d] - 1) / b;
    tile_kinds& tk = kinds[d];
    tk.first = tlo[d];
    tk.last = thi[d];
    tk.count = std::min<std::size_t>(3, thi[d] - tlo[d] + 1);
    kind_stride[d] = all_kinds;
    all_kinds *= tk.count;
    // A position p in [0, b) shifted by k is in tile whole (+1 when p + rest >= b).
    std::array<std::size_t, max_cut_accesses> rest;
    std::array<std::ptrdiff_t, max_cut_accesses> whole;
    for (std::size_t a = 0; a < na; ++a) {
      const offset_split split = split_offset(k[a][d], b);
      rest[a] = split.rest;
      whole[a] = split.whole;
    }
    std::size_t most = 0;
    for (std::size_t kind = 0; kind < tk.count; ++kind) {
      // The kind's part of the box relative to its tiles' start, split at every access's cut.
      const std::size_t c = kind == 0 ? tlo[d] : kind + 1 == tk.count ? thi[d] : tlo[d] + 1;
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
      most = std::max(most, nb);
      // Per segment and access, where the segment's first index shifted by the access lands.
      for (std::size_t sg = 0; sg < nb; ++sg) {
        for (std::size_t a = 0; a < na; ++a) {
          const std::size_t p = bd[sg] + rest[a];
          const bool next = p >= b;
          shifts[shift_at(d, kind, sg, a)] = {
              (whole[a] + (next ? 1 : 0)) * static_cast<std::ptrdiff_t>(tile_stride[d]),
              (next ? p - b : p) * strides_[d]};
        }
      }
    }
    most_runs *= most;
  }
  // Room for every run: at most ceil(row / THREADS) of a row's tiles are the thread's.
  std::size_t my_tiles = (thi[last] - tlo[last] + threads) / threads;
  for (std::size_t d = 0; d < last; ++d)
    my_tiles *= thi[d] - tlo[d] + 1;
  runs_.reserve(my_tiles * most_runs);
  targets_.reserve(my_tiles * most_runs * na);
  // The runs and targets of each kind, built at its first tile (absolute there), which every
  // tile of the kind then copies in one block and moves.
  std::vector<kind_runs> memo(all_kinds);
  std::vector<cut_run> kind_run_store;
  std::vector<cut_target> kind_target_store;
  kind_run_store.reserve(std::min(all_kinds, my_tiles) * most_runs);
  kind_target_store.reserve(std::min(all_kinds, my_tiles) * most_runs * na);
  const libdivide::divider<std::uint64_t> by_threads(threads);
  std::array<std::size_t, layout::max_rank> kind{};
  std::array<std::size_t, layout::max_rank> start{};
  std::array<std::size_t, layout::max_rank> tc = tlo;
  // The first tile of its kind (row-major tile index q, at `course` in the thread's storage):
  // its segments' product, row-major; each access's tile is q plus its shifts' tiles, whose
  // owner and course are one libdivide division by THREADS.
  const auto build_kind = [&](kind_runs& m, std::size_t q, std::size_t course) {
    m.first_run = kind_run_store.size();
    m.first_target = kind_target_store.size();
    m.course = course;
    std::array<std::size_t, layout::max_rank> seg{};
    std::array<std::size_t, max_cut_accesses> at_tile{};
    std::array<std::size_t, max_cut_accesses> at_phase{};
    for (;;) {
      cut_run& r = kind_run_store.emplace_back();
      r.first_target = kind_target_store.size() - m.first_target;
      std::size_t my_phase = 0;
      at_tile.fill(q);
      at_phase.fill(0);
      for (std::size_t d = 0; d < rank_; ++d) {
        const auto& bd = kinds[d].bounds[kind[d]];
        r.lo[d] = start[d] + bd[seg[d]];
        r.hi[d] = start[d] + bd[seg[d] + 1];
        my_phase += bd[seg[d]] * strides_[d];
        const access_shift* s = &shifts[shift_at(d, kind[d], seg[d], 0)];
        for (std::size_t a = 0; a < na; ++a) {
          at_tile[a] += static_cast<std::size_t>(s[a].tiles);  // modulo 2^64: q + a shift >= 0
          at_phase[a] += s[a].phase;
        }
      }
      r.offset = course * t.volume + my_phase;
      bool local = true;
      for (std::size_t a = 0; a < na; ++a) {
        const std::size_t owner_course = by_threads.divide(at_tile[a]);
        const auto owner = static_cast<int>(at_tile[a] - owner_course * threads);
        const bool is_local = owner >= node_first && owner < node_end;
        local = local && is_local;
        cut_target& g = kind_target_store.emplace_back();
        g.owner = owner;
        g.local = is_local;
        g.offset = owner_course * t.volume + at_phase[a];
      }
      r.local = local;
      const std::size_t n = r.iterations(rank_);
      m.iterations += n;
      if (local) m.local_iterations += n;
      ++m.runs;
      std::size_t d = rank_;
      while (d-- > 0) {
        if (++seg[d] < kinds[d].segs[kind[d]]) break;
        seg[d] = 0;
      }
      if (d == static_cast<std::size_t>(-1)) return;
    }
  };
  for (;;) {
    // Along the last dimension, step straight to this thread's tiles of the row of tiles; its
    // course (storage position) grows by one per step.
    std::size_t row = 0;
    std::size_t row_kinds = 0;
    for (std::size_t d = 0; d < last; ++d) {
      row += tc[d] * tile_stride[d];
      start[d] = tc[d] * t.b[d];
      kind[d] = kinds[d].of(tc[d]);
      row_kinds += kind[d] * kind_stride[d];
    }
    const std::size_t first_q = row + tlo[last];
    std::size_t c = tlo[last] + (me + threads - first_q % threads) % threads;
    for (std::size_t course = (row + c) / threads; c <= thi[last]; c += threads, ++course) {
      start[last] = c * t.b[last];
      kind[last] = kinds[last].of(c);
      kind_runs& m = memo[row_kinds + kind[last] * kind_stride[last]];
      if (m.runs == 0) build_kind(m, row + c, course);
      // The kind's runs moved by the distance from its first tile, in one block (not built
      // aside and pushed one by one: a run's wide reload would wait on its narrow stores).
      const cut_run* from = kind_run_store.data() + m.first_run;
      std::array<std::size_t, layout::max_rank> move{};
      for (std::size_t d = 0; d < rank_; ++d)
        move[d] = start[d] + kinds[d].bounds[kind[d]][0] - from->lo[d];
      const std::size_t more = (course - m.course) * t.volume;
      const std::size_t first_run = runs_.size();
      const std::size_t first_target = targets_.size();
      runs_.insert(runs_.end(), from, from + m.runs);
      const cut_target* from_target = kind_target_store.data() + m.first_target;
      targets_.insert(targets_.end(), from_target, from_target + m.runs * na);
      cut_run* r = runs_.data() + first_run;
      for (std::size_t x = 0; x < m.runs; ++x) {
        for (std::size_t d = 0; d < rank_; ++d) {
          r[x].lo[d] += move[d];
          r[x].hi[d] += move[d];
        }
        r[x].offset += more;
        r[x].first_target += first_target;
      }
      cut_target* g = targets_.data() + first_target;
      for (std::size_t x = 0; x < m.runs * na; ++x)
        g[x].offset += more;
      iterations_ += m.iterations;
      local_iterations_ += m.local_iterations;
    }
    // The next row of tiles.
    std::size_t d = last;
    while (d-- > 0) {
      if (++tc[d] <= thi[d]) break;
      tc[d] = tlo[d];
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
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
