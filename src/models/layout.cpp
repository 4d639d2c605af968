// src/models/layout.cpp — building a shared array's layout (pgas/layout.hpp): validating the
// declaration, resolving [*], counting blocks and tiles, and per-thread element counts.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <stdexcept>

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

}  // namespace

block_spec block_spec::cyclic(std::size_t b) {
  if (b == 0) return indefinite();
  if (b > config::max_block) {
    bad(
        fmt::format("block size {} exceeds the largest a pointer-to-shared can hold, {} "
                    "(built with -Dsptr_phase_bits={})",
                    b, config::max_block, config::sptr_phase_bits));
  }
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

block_spec block_spec::tiles(std::vector<std::size_t> b) {
  if (b.empty()) bad("a tiled layout needs at least one tile extent");
  if (b.size() > layout::max_rank) {
    bad(fmt::format("{} tile extents: at most {} dimensions are supported", b.size(),
                    layout::max_rank));
  }
  for (std::size_t d = 0; d < b.size(); ++d) {
    if (b[d] == 0) bad(fmt::format("tile extent of dimension {} is zero", d));
  }
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
      if (block_ > config::max_block) {
        bad(
            fmt::format("[*] gives blocks of {} elements, more than the {} a pointer-to-shared "
                        "can hold (-Dsptr_phase_bits={})",
                        block_, config::max_block, config::sptr_phase_bits));
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
      if (block_ > config::max_block) {
        bad(
            fmt::format("tiles of {} elements exceed the {} a pointer-to-shared can hold "
                        "(-Dsptr_phase_bits={})",
                        block_, config::max_block, config::sptr_phase_bits));
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
  // Tiles t, t + n, …: count each one's real extent (edge tiles are partial).
  std::size_t count = 0;
  for (std::size_t k = t; k < blocks_; k += n) {
    std::size_t rest = k;
    std::size_t volume = 1;
    for (std::size_t d = rank_; d-- > 0;) {
      const std::size_t q = rest % tiles_[d];
      rest /= tiles_[d];
      const std::size_t lo = q * tile_[d];
      volume *= std::min(tile_[d], extents_[d] - lo);
    }
    count += volume;
  }
  return count;
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
