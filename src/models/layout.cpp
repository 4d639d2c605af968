// src/models/layout.cpp — building a shared array's layout (pgas/layout.hpp): validating the
// declaration, resolving [*], counting blocks and tiles, and per-thread element counts. A
// tiled layout's per-thread count is computed in closed form (layout::elements_on, with the
// lattice counting below), never by walking the tiles.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <bit>
#include <cstdint>
#include <numeric>
#include <span>
#include <stdexcept>
#include <utility>

#include <pgas/error.hpp>
#include <pgas/layout.hpp>

namespace pgas {

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument(what);
}

std::size_t mul_checked(std::size_t a, std::size_t b, const char* what) {
  std::size_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) bad(fmt::format("{} overflows 64 bits", what));
  return r;
}

void set_divider(std::size_t d, libdivide::divider<std::uint64_t>& div) {
  div = libdivide::divider<std::uint64_t>(d);
}

// ---------------------------------------------------------------------------------------------
// Counting tiles dealt to one thread without visiting them.
//
// Tile k goes to thread k mod n. The tiles whose chosen dimensions sit at their last index
// form a mixed-radix grid: a constant plus a few "groups" j·W, j in [0, J) (a group is a run
// of dimensions over their full range, so it is one contiguous range of digits). Counting
// its members congruent to u (mod n) is a linear congruence over a box; for one or two groups
// it is gcd arithmetic and one floor sum, O(log n). Every residue and weight is reduced mod n
// (n < 2^31), so products of two of them fit 64 bits; lengths are exact.

__extension__ using u128 = unsigned __int128;
__extension__ using i128 = __int128;

// Σ_{i=0}^{count-1} floor((a·i + b) / m), m >= 1: the Euclidean-like floor sum (as in the
// AtCoder Library's floor_sum). Each partial sum is at most the result.
u128 floor_sum(u128 count, u128 m, u128 a, u128 b) {
  u128 sum = 0;
  while (true) {
    if (a >= m) {
      sum += count * (count - 1) / 2 * (a / m);
      a %= m;
    }
    if (b >= m) {
      sum += count * (b / m);
      b %= m;
    }
    const u128 top = a * count + b;
    if (top < m) return sum;
    count = top / m;
    b = top % m;
    std::swap(m, a);
  }
}

// x with a·x ≡ 1 (mod m), given gcd(a, m) = 1 (0 when m = 1).
std::uint64_t inverse_mod(std::uint64_t a, std::uint64_t m) {
  std::int64_t r0 = static_cast<std::int64_t>(m);
  std::int64_t r1 = static_cast<std::int64_t>(a % m);
  std::int64_t x0 = 0;
  std::int64_t x1 = 1;
  while (r1 != 0) {
    const std::int64_t q = r0 / r1;
    r0 = std::exchange(r1, r0 - q * r1);
    x0 = std::exchange(x1, x0 - q * x1);
  }
  const auto mm = static_cast<std::int64_t>(m);
  return static_cast<std::uint64_t>(((x0 % mm) + mm) % mm);
}

// One group of a tile grid: j·weight for j in [0, length); weight reduced mod n.
struct tile_group {
  std::uint64_t length;
  std::uint64_t weight;
};

// #{j < g.length : j·g.weight ≡ u (mod n)}.
std::uint64_t count_one(tile_group g, std::uint64_t u, std::uint64_t n) {
  const std::uint64_t d = std::gcd(g.weight, n);
  if (u % d != 0) return 0;
  const std::uint64_t m = n / d;
  const std::uint64_t s = (u / d) * inverse_mod(g.weight / d, m) % m;
  return s < g.length ? (g.length - 1 - s) / m + 1 : 0;
}

// #{(i, j) in [0, a.length) × [0, b.length) : i·a.weight + j·b.weight ≡ u (mod n)}.
//
// For a given i, j is fixed mod m = n / gcd(b.weight, n) when d = gcd(b.weight, n) divides
// u - i·a.weight, which holds for i in one class mod p; along that class j's residue is
// (σ + i'·τ) mod m, so the count is Q per i' plus [(σ + i'·τ) mod m < R] (b.length = Q·m + R),
// a difference of two floor sums taken over one period of the residue.
std::uint64_t count_two(tile_group a, tile_group b, std::uint64_t u, std::uint64_t n) {
  const std::uint64_t d = std::gcd(b.weight, n);
  const std::uint64_t m = n / d;
  const std::uint64_t b_inv = inverse_mod(b.weight / d, m);
  const std::uint64_t a_mod = a.weight % d;
  const std::uint64_t h = std::gcd(a_mod, d);
  if (u % d % h != 0) return 0;
  const std::uint64_t p = d / h;
  const std::uint64_t i0 = (u % d / h) * inverse_mod(a_mod / h, p) % p;
  if (i0 >= a.length) return 0;
  const std::uint64_t count = (a.length - 1 - i0) / p + 1;
  const std::uint64_t c0 = (u + n - i0 * a.weight % n) % n / d;
  const std::uint64_t c1 = p * a.weight % n / d;
  const std::uint64_t sigma = c0 * b_inv % m;
  const std::uint64_t tau = (m - c1 * b_inv % m) % m;
  const std::uint64_t q = b.length / m;
  const std::uint64_t r = b.length % m;
  // [x mod m < r] = floor(x / m) + 1 - floor((x + m - r) / m).
  const auto hits = [&](std::uint64_t k) {
    return static_cast<std::uint64_t>(k + floor_sum(k, m, tau, sigma) -
                                      floor_sum(k, m, tau, sigma + m - r));
  };
  const std::uint64_t period = m / std::gcd(tau, m);
  const std::uint64_t partial = count / period * hits(period) + hits(count % period);
  return static_cast<std::uint64_t>(u128{count} * q + partial);
}

// #{members of Σ groups[i]·j_i ≡ u (mod n)}. Three or four groups (arrays of rank 5 and more
// with padded edges in alternate dimensions) split into a front of one or two groups and the
// last two, summed over the front's residues: O(n log n), still independent of the tiles.
std::uint64_t count_groups(std::span<const tile_group> groups, std::uint64_t u, std::uint64_t n) {
  switch (groups.size()) {
    case 0:
      return u == 0 ? 1 : 0;
    case 1:
      return count_one(groups[0], u, n);
    case 2:
      return count_two(groups[0], groups[1], u, n);
    default:
      break;
  }
  const auto front = groups.first(groups.size() - 2);
  const auto back = groups.last(2);
  std::uint64_t step = n;
  for (const tile_group& g : front)
    step = std::gcd(step, g.weight);
  std::uint64_t total = 0;
  for (std::uint64_t v = 0; v < n; v += step) {
    const std::uint64_t f = count_groups(front, v, n);
    if (f != 0) total += f * count_two(back[0], back[1], (u + n - v) % n, n);
  }
  return total;
}

}  // namespace

std::string block_spec::cyclic_problem(std::size_t b) {
  if (b <= config::max_runtime_block) return {};
  return fmt::format(
      "block size {} exceeds the largest a pointer-to-shared can hold, {} "
      "(config::max_runtime_block)",
      b, config::max_runtime_block);
}

std::string block_spec::tiles_problem(const std::vector<std::size_t>& b) {
  if (b.empty()) return "a tiled layout needs at least one tile extent";
  if (b.size() > layout::max_rank) {
    return fmt::format("{} tile extents: at most {} dimensions are supported", b.size(),
                       layout::max_rank);
  }
  for (std::size_t d = 0; d < b.size(); ++d) {
    if (b[d] == 0) return fmt::format("tile extent of dimension {} is zero", d);
  }
  return {};
}

block_spec block_spec::cyclic(std::size_t b, std::source_location where) {
  if (b == 0) return indefinite();
  if (std::string problem = cyclic_problem(b); !problem.empty()) detail::misuse(problem, where);
  block_spec s;
  s.block_ = b;
  return s;
}

block_spec block_spec::indefinite() {
  block_spec s;
  s.kind_ = kind::indefinite;
  s.block_ = 0;
  return s;
}

block_spec block_spec::star() {
  block_spec s;
  s.kind_ = kind::star;
  s.block_ = 0;
  return s;
}

block_spec block_spec::tiles(std::vector<std::size_t> b, std::source_location where) {
  if (std::string problem = tiles_problem(b); !problem.empty()) detail::misuse(problem, where);
  block_spec s;
  s.kind_ = kind::tiles;
  s.block_ = 0;
  s.tile_ = std::move(b);
  return s;
}

std::string block_spec::to_string() const {
  switch (kind_) {
    case kind::cyclic:
      return block_ == 1 ? std::string() : fmt::format("[{}]", block_);
    case kind::indefinite:
      return "[]";
    case kind::star:
      return "[*]";
    case kind::tiles:
      return fmt::format("[{}]", fmt::join(tile_, "]["));
  }
  return {};
}

layout::layout(std::vector<std::size_t> extents, block_spec spec, int threads)
    : spec_(std::move(spec)), threads_(threads) {
  if (threads < 1) bad(fmt::format("THREADS must be at least 1, not {}", threads));
  if (extents.empty()) bad("an array needs at least one dimension");
  if (extents.size() > max_rank) {
    bad(fmt::format("{} dimensions: at most {} are supported", extents.size(), max_rank));
  }
  rank_ = extents.size();
  size_ = 1;
  for (std::size_t d = 0; d < rank_; ++d) {
    if (extents[d] == 0) bad(fmt::format("extent of dimension {} is zero", d));
    extents_[d] = extents[d];
    size_ = mul_checked(size_, extents[d], "the number of elements");
  }
  const auto t = static_cast<std::size_t>(threads);
  set_divider(t, threads_div_);
  switch (spec_.which()) {
    case block_spec::kind::indefinite:
      block_ = 0;
      blocks_ = 1;
      part_ = size_;
      return;
    case block_spec::kind::star:
      block_ = size_ / t + (size_ % t != 0);
      if (block_ > config::max_runtime_block) {
        bad(
            fmt::format("[*] gives blocks of {} elements, more than the {} a pointer-to-shared "
                        "can hold (config::max_runtime_block)",
                        block_, config::max_runtime_block));
      }
      break;
    case block_spec::kind::cyclic:
      block_ = spec_.block();
      break;
    case block_spec::kind::tiles: {
      const auto& tile = spec_.tile();
      if (tile.size() != rank_) {
        bad(fmt::format("{} tile extents for an array of {} dimensions", tile.size(), rank_));
      }
      block_ = 1;
      blocks_ = 1;
      for (std::size_t d = 0; d < rank_; ++d) {
        tile_[d] = tile[d];
        tiles_[d] = extents_[d] / tile[d] + (extents_[d] % tile[d] != 0);
        block_ = mul_checked(block_, tile[d], "the tile volume");
        blocks_ = mul_checked(blocks_, tiles_[d], "the number of tiles");
        set_divider(tile[d], tile_div_[d]);
      }
      if (block_ > config::max_runtime_block) {
        bad(
            fmt::format("tiles of {} elements exceed the {} a pointer-to-shared can hold "
                        "(config::max_runtime_block)",
                        block_, config::max_runtime_block));
      }
      set_divider(block_, block_div_);
      part_ = mul_checked(blocks_ / t + (blocks_ % t != 0), block_, "the part size");
      return;
    }
  }
  blocks_ = size_ / block_ + (size_ % block_ != 0);
  set_divider(block_, block_div_);
  part_ = mul_checked(blocks_ / t + (blocks_ % t != 0), block_, "the part size");
}

std::size_t layout::elements_on(int thread) const {
  if (thread < 0 || thread >= threads_) return 0;
  const auto t = static_cast<std::size_t>(thread);
  const auto n = static_cast<std::size_t>(threads_);
  if (block_ == 0) return thread == 0 ? size_ : 0;
  if (!tiled()) {
    // Blocks t, t + n, …; only the last block of the array can be partial.
    if (t >= blocks_) return 0;
    const std::size_t mine = (blocks_ - 1 - t) / n + 1;
    std::size_t count = mine * block_;
    if ((blocks_ - 1) % n == t) count -= blocks_ * block_ - size_;
    return count;
  }
  // A tile's real volume is Π_d w_d(q_d): tile_d, or tile_d - pad_d at the last index of
  // dimension d. Expanding the product over the padded dimensions (inclusion-exclusion),
  // each subset S contributes ±Π tile_d (d ∉ S) · Π pad_d (d ∈ S) times the number of
  // thread t's tiles that sit at the last index of every dimension of S.
  std::array<std::uint64_t, max_rank> weight{};  // tiles per step of dimension d, mod n
  std::array<std::size_t, max_rank> pad{};       // padding of dimension d's last tile
  std::uint64_t w = 1 % n;
  unsigned padded = 0;
  for (std::size_t d = rank_; d-- > 0;) {
    weight[d] = w;
    w = static_cast<std::uint64_t>(u128{w} * tiles_[d] % n);
    pad[d] = (tile_[d] - extents_[d] % tile_[d]) % tile_[d];
    if (pad[d] != 0) padded |= 1u << d;
  }
  i128 count = 0;
  std::array<tile_group, max_rank> groups{};
  for (unsigned s = padded;; s = (s - 1) & padded) {
    // The tiles of S: dimensions of S at their last index, the others free. A free dimension
    // extends the group before it; a fixed one (with more than one tile) starts a new group.
    std::size_t ngroups = 0;
    std::uint64_t offset = 0;
    i128 coefficient = 1;
    for (std::size_t d = 0; d < rank_;) {
      const bool fixed = (s >> d & 1u) != 0;
      std::uint64_t low = fixed ? (tiles_[d] - 1) % n : 0;
      std::uint64_t length = fixed ? 1 : tiles_[d];
      std::size_t e = d + 1;
      for (; e < rank_ && ((s >> e & 1u) == 0 || tiles_[e] == 1); ++e) {
        low = static_cast<std::uint64_t>(u128{low} * tiles_[e] % n);
        length *= tiles_[e];
      }
      offset = (offset + static_cast<std::uint64_t>(u128{low} * weight[e - 1] % n)) % n;
      if (length > 1) groups[ngroups++] = {length, weight[e - 1]};
      d = e;
    }
    for (std::size_t d = 0; d < rank_; ++d) {
      const bool fixed = (s >> d & 1u) != 0;
      coefficient *= static_cast<i128>(fixed ? pad[d] : tile_[d]);
    }
    if (std::popcount(s) % 2 != 0) coefficient = -coefficient;
    const std::uint64_t tiles_of_s =
        count_groups(std::span(groups.data(), ngroups), (t + n - offset) % n, n);
    count += coefficient * static_cast<i128>(tiles_of_s);
    if (s == 0) break;
  }
  return static_cast<std::size_t>(count);
}

std::vector<std::size_t> layout::unlinear(std::size_t l) const {
  std::vector<std::size_t> index(rank_);
  for (std::size_t d = rank_; d-- > 0;) {
    index[d] = l % extents_[d];
    l /= extents_[d];
  }
  return index;
}

std::string layout::declaration(const std::string& type, const std::string& name) const {
  std::string dims;
  for (std::size_t d = 0; d < rank_; ++d)
    dims += fmt::format("[{}]", extents_[d]);
  const std::string b = spec_.to_string();
  return fmt::format("shared {}{}{} {}{}", b, b.empty() ? "" : " ", type, name, dims);
}

}  // namespace pgas
