// Locality cuts (pgas/cut_model.hpp, described in pgas/cuts.hpp): cut_plan splits a thread's
// iterations of a loop box over a tiled layout into runs in which every access A(i + k) has one
// owner, by Barton et al.'s observation that a tile shifted by k spans at most two tiles per
// dimension, split at b − k mod b. cut_formula_of computes the paper's Cut_i, Cut^Upper and
// Cut^Lower for tools. Block-cyclic layouts whose blocks are tiles of the row-major order are
// modelled as tiles.

#include <fmt/format.h>

#include <algorithm>
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
      const std::ptrdiff_t first = static_cast<std::ptrdiff_t>(lo[d]) + k[a][d];
      const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(hi[d]) - 1 + k[a][d];
      if (first >= 0 && last < static_cast<std::ptrdiff_t>(t.ext[d])) continue;
      std::vector<std::ptrdiff_t> iter(rank_);
      std::vector<std::ptrdiff_t> at(rank_);
      for (std::size_t e = 0; e < rank_; ++e)
        iter[e] = static_cast<std::ptrdiff_t>(lo[e]);
      iter[d] =
          first < 0 ? static_cast<std::ptrdiff_t>(lo[d]) : static_cast<std::ptrdiff_t>(hi[d]) - 1;
      for (std::size_t e = 0; e < rank_; ++e)
        at[e] = iter[e] + k[a][e];
      detail::misuse(
          fmt::format("locality cuts: access {} (offset {}) leaves the array at iteration {}: "
                      "it reads {}, outside the extents [{}]",
                      a, index_text(k[a]), index_text(iter), index_text(at),
                      fmt::join(l.extents(), "][")),
          where);
    }
  }
  const int tpn = options.threads_per_node;
  // The calling thread's node as a range of threads (no division per access).
  const int node_first = thread / tpn * tpn;
  const int node_end = node_first + tpn;
  // The tiles that meet the box, as tile coordinates [tlo, thi].
  std::array<std::size_t, layout::max_rank> tlo{};
  std::array<std::size_t, layout::max_rank> thi{};
  for (std::size_t d = 0; d < rank_; ++d) {
    tlo[d] = lo[d] / t.b[d];
    thi[d] = (hi[d] - 1) / t.b[d];
  }
  const std::size_t last = rank_ - 1;
  const std::size_t me = static_cast<std::size_t>(thread) % t.threads;
  if (static_cast<std::size_t>(thread) >= t.threads) return;  // indefinite: thread 0 owns all
  std::array<std::size_t, layout::max_rank> tc = tlo;
  // Per dimension d, the tile's segments [bounds[d][s], bounds[d][s + 1]) and, per segment and
  // access, the tile coordinate and in-tile position of the segment's first index shifted by
  // the access's offset: computed once per tile, so that a run's targets cost no division but
  // one by THREADS per access.
  const std::size_t na = k.size();
  const std::size_t max_segs = na + 1;
  std::array<std::array<std::size_t, max_cut_accesses + 2>, layout::max_rank> bounds{};
  std::array<std::size_t, layout::max_rank> segs{};
  std::vector<std::size_t> shifted_tile(rank_ * max_segs * na);
  std::vector<std::size_t> shifted_pos(rank_ * max_segs * na);
  std::array<std::size_t, layout::max_rank> tile_stride{};  // tiles, row-major
  tile_stride[last] = 1;
  for (std::size_t d = last; d-- > 0;)
    tile_stride[d] = tile_stride[d + 1] * t.n[d + 1];
  const libdivide::divider<std::uint64_t> by_threads(t.threads);
  std::array<std::size_t, layout::max_rank> seg{};
  // Each offset as whole tiles and a remainder, k = whole · b + rest with 0 <= rest < b, so that
  // the tiles see no division: a position p in [0, b) shifted by k is in tile whole (+1 when
  // p + rest >= b).
  std::vector<std::ptrdiff_t> whole(rank_ * na);
  std::vector<std::size_t> rest(rank_ * na);
  for (std::size_t d = 0; d < rank_; ++d) {
    for (std::size_t a = 0; a < na; ++a) {
      rest[d * na + a] = positive_mod(k[a][d], t.b[d]);
      whole[d * na + a] = (k[a][d] - static_cast<std::ptrdiff_t>(rest[d * na + a])) /
                          static_cast<std::ptrdiff_t>(t.b[d]);
    }
  }
  // Room for every run: the thread's tiles in the box times the most segments a tile can have.
  std::size_t box_tiles = 1;
  std::size_t most_runs = 1;
  for (std::size_t d = 0; d < rank_; ++d) {
    box_tiles *= thi[d] - tlo[d] + 1;
    std::array<std::size_t, max_cut_accesses> cuts{};  // distinct cuts inside a tile
    std::size_t nc = 0;
    for (std::size_t a = 0; a < na; ++a) {
      const std::size_t m = rest[d * na + a];
      if (m != 0 && std::find(cuts.begin(), cuts.begin() + nc, m) == cuts.begin() + nc)
        cuts[nc++] = m;
    }
    most_runs *= nc + 1;
  }
  const std::size_t my_tiles = box_tiles / t.threads + 1;
  runs_.reserve(my_tiles * most_runs);
  targets_.reserve(my_tiles * most_runs * na);
  for (;;) {
    // Along the last dimension, step straight to this thread's tiles of the row of tiles.
    std::size_t row = 0;
    for (std::size_t d = 0; d < last; ++d)
      row = row * t.n[d] + tc[d];
    row *= t.n[last];
    const std::size_t first_q = row + tlo[last];
    const std::size_t skip = (me + t.threads - first_q % t.threads) % t.threads;
    for (std::size_t c = tlo[last] + skip; c <= thi[last]; c += t.threads) {
      tc[last] = c;
      const std::size_t my_base = ((row + c) / t.threads) * t.volume;
      // This tile's part of the box, split along each dimension at every access's cut.
      for (std::size_t d = 0; d < rank_; ++d) {
        const std::size_t start = tc[d] * t.b[d];
        const std::size_t a0 = std::max(start, lo[d]);
        const std::size_t a1 = std::min(start + t.b[d], hi[d]);
        auto& bd = bounds[d];
        std::size_t nb = 1;
        bd[0] = a0;
        for (std::size_t a = 0; a < na; ++a) {
          const std::size_t cut = start + t.b[d] - rest[d * na + a];
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
        segs[d] = nb;
        seg[d] = 0;
        for (std::size_t sg = 0; sg < nb; ++sg) {
          for (std::size_t a = 0; a < na; ++a) {
            const std::size_t p = bd[sg] - start + rest[d * na + a];
            const bool next = p >= t.b[d];
            const std::size_t x = (d * max_segs + sg) * na + a;
            shifted_tile[x] = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(tc[d]) +
                                                       whole[d * na + a] + (next ? 1 : 0));
            shifted_pos[x] = next ? p - t.b[d] : p;
          }
        }
      }
      for (;;) {
        cut_run r;
        bool local = true;
        r.first_target = targets_.size();
        std::size_t my_phase = 0;
        for (std::size_t d = 0; d < rank_; ++d) {
          r.lo[d] = bounds[d][seg[d]];
          r.hi[d] = bounds[d][seg[d] + 1];
          my_phase += (r.lo[d] - tc[d] * t.b[d]) * strides_[d];
        }
        r.offset = my_base + my_phase;
        for (std::size_t a = 0; a < na; ++a) {
          std::size_t q = 0;
          std::size_t phase = 0;
          for (std::size_t d = 0; d < rank_; ++d) {
            const std::size_t x = (d * max_segs + seg[d]) * na + a;
            q += shifted_tile[x] * tile_stride[d];
            phase += shifted_pos[x] * strides_[d];
          }
          const std::size_t course = by_threads.divide(q);
          const auto owner = static_cast<int>(q - course * t.threads);
          const bool is_local = owner >= node_first && owner < node_end;
          local = local && is_local;
          targets_.push_back({owner, is_local, course * t.volume + phase});
        }
        r.local = local;
        const std::size_t n = r.iterations(rank_);
        iterations_ += n;
        if (local) local_iterations_ += n;
        runs_.push_back(r);
        std::size_t d = rank_;
        while (d-- > 0) {
          if (++seg[d] < segs[d]) break;
          seg[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1)) break;
      }
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
