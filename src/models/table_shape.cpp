// src/models/table_shape.cpp — the pure model of inter-thread privatization tables
// (pgas/table_model.hpp): which layouts have a table, how many pointers each level holds (Serres
// et al. eq. 1, with the dimension sorting of section IV.B.3), and which threads share a replica.
// Entry points: table_shape's constructor, table_shape::why_not and plan_replicas. Both the
// runtime and `pgas-tables` compute sizes here, so their figures cannot disagree.

#include <fmt/format.h>

#include <pgas/table_model.hpp>

#include <algorithm>
#include <map>
#include <numeric>

namespace pgas {

namespace {

[[noreturn]] void too_many_pointers(const layout& l) {
  throw table_error(
      fmt::format("the table of {} would hold more than 2^64 pointers", l.declaration("T", "A")));
}

std::size_t checked_mul(std::size_t a, std::size_t b, const layout& l) {
  std::size_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) too_many_pointers(l);
  return r;
}

std::size_t checked_add(std::size_t a, std::size_t b, const layout& l) {
  std::size_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) too_many_pointers(l);
  return r;
}

// The block a layout deals in, for the reason texts: "B = 8" or "[*] (B = 8 with 4 threads)".
std::string block_words(const layout& l) {
  if (l.which() == block_spec::kind::star) {
    return fmt::format("[*] blocks of {} elements with {} threads", l.block_elements(),
                       l.threads());
  }
  return fmt::format("blocks of {} elements", l.block_elements());
}

}  // namespace

replicate parse_replicate(std::string_view word) {
  if (word == "single") return replicate::single;
  if (word == "per-numa") return replicate::per_numa;
  if (word == "per-socket") return replicate::per_socket;
  if (word == "per-l3") return replicate::per_l3;
  if (word == "per-thread") return replicate::per_thread;
  if (word == "auto") return replicate::automatic;
  throw table_error(
      fmt::format("unknown replication policy '{}' (expected single, per-numa, per-socket, per-l3, "
                  "per-thread or auto)",
                  word));
}

std::string_view to_string(replicate r) noexcept {
  switch (r) {
    case replicate::single:
      return "single";
    case replicate::per_numa:
      return "per-numa";
    case replicate::per_socket:
      return "per-socket";
    case replicate::per_l3:
      return "per-l3";
    case replicate::per_thread:
      return "per-thread";
    case replicate::automatic:
      return "auto";
  }
  return "?";
}

table_levels parse_table_levels(std::string_view word) {
  if (word == "one") return table_levels::one;
  if (word == "n-1") return table_levels::n_minus_1;
  throw table_error(fmt::format("unknown table levels '{}' (expected one or n-1)", word));
}

std::string_view to_string(table_levels l) noexcept {
  return l == table_levels::one ? "one" : "n-1";
}

std::string_view table_shape::to_string(kind k) noexcept {
  switch (k) {
    case kind::rows_in_blocks:
      return "rows in blocks";
    case kind::blocks_in_rows:
      return "blocks in rows";
    case kind::tile_rows:
      return "tile rows";
  }
  return "?";
}

std::string table_shape::why_not(const layout& l) {
  if (l.tiled() || l.block_elements() == 0) return {};
  const std::size_t d = l.extent(l.rank() - 1);
  const std::size_t b = l.block_elements();
  const std::size_t rows = l.size() / d;
  if (l.size() <= b || b % d == 0 || rows == 1 || d % b == 0) return {};
  // A block boundary falls inside some row: the first one is at element b (when b > d) or the
  // second row starts inside a block (when b < d).
  std::size_t row = 0;
  std::size_t column = 0;
  if (b > d) {
    row = b / d;
    column = b % d;
  } else {
    row = 1;
    column = b - d % b;  // row 1 starts at phase d % b; its next block starts this far in
  }
  const std::size_t first = row * d;  // linear position of the row's first element
  const int from = l.place_linear(first).thread;
  const int to = l.place_linear(first + column).thread;
  const std::string crossing =
      from != to ? fmt::format("from thread {}'s block into thread {}'s", from, to)
                 : std::string("from one block into the next");
  return fmt::format(
      "no table applies to {}: rows of {} elements and {} — neither a multiple of the other — "
      "so row {} crosses {} at column {}; a table needs "
      "every row inside one block (a block size that is a multiple of {}) or every block "
      "inside one row (a row length that is a multiple of the block size)",
      l.declaration("T", "A"), d, block_words(l), row, crossing, column, d);
}

table_shape::table_shape(const layout& l, table_levels levels, bool sort_dims)
    : levels_(levels), sorted_(sort_dims && levels == table_levels::n_minus_1) {
  if (std::string why = why_not(l); !why.empty()) throw table_error(why);
  const std::size_t n = l.rank();
  const std::size_t d = l.extent(n - 1);
  const std::size_t b = l.block_elements();
  if (l.tiled()) {
    kind_ = kind::tile_rows;
    segment_ = l.spec().tile()[n - 1];
  } else if (b == 0 || l.size() <= b || b % d == 0) {
    kind_ = kind::rows_in_blocks;
    segment_ = d;
  } else {
    kind_ = kind::blocks_in_rows;
    segment_ = b;
  }
  per_row_ = segment_ >= d ? 1 : (d + segment_ - 1) / segment_;

  for (std::size_t k = 0; k + 1 < n; ++k)
    index_.push_back(l.extent(k));
  if (per_row_ > 1) index_.push_back(per_row_);
  order_.resize(index_.size());
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  if (index_.empty()) {
    entries_ = 0;  // the array variable itself is the row pointer (Serres et al. eq. 1 for n = 1)
    return;
  }
  if (levels == table_levels::one) {
    std::size_t e = 1;
    for (std::size_t x : index_)
      e = checked_mul(e, x, l);
    level_entries_ = {e};
    entries_ = e;
    return;
  }
  if (sorted_) {
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t c) { return index_[a] < index_[c]; });
  }
  // Paper eq. 1: level m holds the product of the first m (ordered) extents.
  std::size_t product = 1;
  std::size_t total = 0;
  for (std::size_t k : order_) {
    product = checked_mul(product, index_[k], l);
    level_entries_.push_back(product);
    total = checked_add(total, product, l);
  }
  entries_ = total;
}

std::size_t table_shape::bytes(std::size_t pointer_size) const {
  std::size_t r = 0;
  if (__builtin_mul_overflow(entries_, pointer_size, &r)) {
    throw table_error(fmt::format("a table of {} pointers of {} bytes overflows 64 bits", entries_,
                                  pointer_size));
  }
  return r;
}

replica_plan plan_replicas(const machine& m, const std::vector<thread_place>& placement,
                           replicate policy) {
  const auto& pus = m.pus();
  auto pu_of = [&](std::size_t t) -> const pu_info& {
    return pus.at(static_cast<std::size_t>(placement[t].pu));
  };
  // Group keys: the domain a thread's home PU belongs to (package when the level is missing).
  auto key_of = [&](replicate p, std::size_t t) -> long {
    const pu_info& pu = pu_of(t);
    switch (p) {
      case replicate::single:
        return 0;
      case replicate::per_thread:
        return static_cast<long>(t);
      case replicate::per_socket:
        return pu.package;
      case replicate::per_numa:
        return pu.numa >= 0 ? pu.numa : -1 - static_cast<long>(pu.package);
      case replicate::per_l3:
        return pu.l3 >= 0 ? pu.l3 : -1 - static_cast<long>(pu.package);
      case replicate::automatic:
        break;
    }
    return 0;
  };
  replica_plan plan;
  plan.policy = policy;
  if (policy == replicate::automatic) {
    // NUMA nodes only: a machine that reports none is one memory domain, whatever its packages.
    std::map<long, int> nodes;
    for (std::size_t t = 0; t < placement.size(); ++t)
      nodes.emplace(pu_of(t).numa, 0);
    plan.policy = nodes.size() > 1 ? replicate::per_numa : replicate::single;
  }
  std::map<long, int> replica_of_key;
  plan.replica_of.resize(placement.size());
  for (std::size_t t = 0; t < placement.size(); ++t) {
    const long key = key_of(plan.policy, t);
    auto [it, fresh] = replica_of_key.emplace(key, plan.count());
    if (fresh) {
      plan.filler.push_back(static_cast<int>(t));
      plan.node.push_back(home_node(m, placement, static_cast<int>(t)));
    }
    plan.replica_of[t] = it->second;
  }
  return plan;
}

}  // namespace pgas
