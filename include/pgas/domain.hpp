// pgas/domain.hpp — general domains: any finite set of points of Z^N, as a union of disjoint
// rectangular domains (pgas/rectdomain.hpp), after Titanium's Domain<N> and UPC++'s domain<N>.
//
//   pgas::rectdomain<2> box({0, 0}, {8, 8});
//   pgas::domain<2> ring = box - box.shrink(1);         // the 28 points of the outer layer
//   pgas::domain<2> both = ring + box.translate({4, 4});
//   for (pgas::point<2> p : ring) ...                    // row-major order of the whole set
//
// Domain algebra. + is union, * intersection, - difference, each exact for any strides,
// between domains and rectdomains on either side (a rectdomain converts to a domain; the
// rectdomain-only forms rectdomain * rectdomain -> rectdomain and rectdomain + point live in
// rectdomain.hpp). A difference of strided rectangles may need several rectangles: A - B
// keeps the points of A whose index in some dimension is off B's lattice or bounds, split per
// dimension into the part below B, the part above it, and the points between B's (as
// min(gaps, stride ratio - 1) lattices), so a difference of two rectangles of rank N has at
// most N (2 + that count) pieces.
//
// Representation. rects() lists disjoint, non-empty rectdomains, sorted by lower bound in
// row-major order, with two rectangles merged where one continues the other's lattice along
// one dimension (same stride, the next lattice point on). Rectangles that interleave stay
// apart: the even rows and the odd rows are two rectangles of stride 2, not one of stride 1,
// and a loop over rects() runs one strided loop for each. Two domains holding the same points
// may still list different rectangles: == compares the point sets, never the lists.
// All empty domains are equal.
//
// Cost. size() and contains() walk the rectangles (O(R)); union, intersection and difference
// cost O(R1 R2) rectangle operations; iteration merges the rectangles' row-major walks: a
// comparison per point while the walk stays in one rectangle, O(R) when it moves to another. A
// domain owns a std::vector: copying it allocates.
//
// Contract.
//   * Collective: nothing here is; nothing needs a job or touches shared memory.
//   * Errors (pgas/error.hpp's model): a permutation that is not one of 0..N-1 is misuse
//     named at the call site (inside a job the job ends; outside one pgas::usage_error);
//     std::bad_alloc when memory runs out.
//   * Thread safety: as a standard container: const calls from any number of threads at once;
//     a domain being modified must not be read by another thread. Iterators refer to their
//     domain, which must outlive them and stay unmodified.
//   * Printing: operator<<, pgas::to_string and (when <fmt/core.h> is available) fmt write
//     the rectangles as "{[(0, 0):(1, 8):(1, 1)], [(7, 0):(8, 8):(1, 1)]}"; empty: "{}".
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <numeric>
#include <ostream>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include <pgas/point.hpp>
#include <pgas/rectdomain.hpp>

namespace pgas {

namespace detail {

/// Appends to `out` the disjoint rectangles whose union is a - b (exact for any strides).
template <int N>
void nd_rect_difference(const rectdomain<N>& a, const rectdomain<N>& b,
                        std::vector<rectdomain<N>>& out) {
  const rectdomain<N> c = a * b;
  if (c.empty()) {
    if (!a.empty()) out.push_back(a);
    return;
  }
  // cur: a restricted to c's lattice in the dimensions before d. In dimension d, the points of
  // cur off c's lattice become pieces, and cur keeps those on it. c is a sublattice of a, so
  // c's stride is a multiple of cur's and c's first point is one of cur's.
  point<N> lo = a.lower(), hi = a.upper(), st = a.stride();
  auto piece = [&](int d, nd_index from, nd_index to, nd_index stride) {
    if (to <= from) return;
    point<N> l = lo, h = hi, s = st;
    l[d] = from, h[d] = to, s[d] = stride;
    out.push_back(rectdomain<N>(l, h, s));
  };
  for (int d = 0; d < N; ++d) {
    const nd_index sa = st[d], c0 = c.lower()[d], sc = c.stride()[d];
    const nd_index clast = c.last()[d];
    piece(d, lo[d], c0, sa);          // below c
    piece(d, clast + sa, hi[d], sa);  // above c
    if (clast > c0 && sc != sa) {     // between c's points
      const nd_index gaps = c.extent(d) - 1, ratio = sc / sa;
      if (gaps < ratio - 1) {
        for (nd_index g = 0; g < gaps; ++g)
          piece(d, c0 + g * sc + sa, c0 + (g + 1) * sc, sa);
      } else {
        for (nd_index r = 1; r < ratio; ++r)
          piece(d, c0 + r * sa, clast, sc);
      }
    }
    lo[d] = c0, hi[d] = c.upper()[d], st[d] = sc;
  }
}

}  // namespace detail

/// A finite set of points of Z^N. See the top of this file.
template <int N>
class domain {
 public:
  static constexpr int rank = N;

  /// The empty domain.
  domain() = default;
  /// The points of r.
  domain(const rectdomain<N>& r) {  // NOLINT(google-explicit-constructor): Titanium's promotion
    if (!r.empty()) rects_.push_back(r);
  }

  /// The disjoint rectangles whose union is this domain (see "Representation").
  std::span<const rectdomain<N>> rects() const noexcept { return rects_; }

  std::size_t size() const noexcept {
    std::size_t n = 0;
    for (const rectdomain<N>& r : rects_)
      n += r.size();
    return n;
  }
  bool empty() const noexcept { return rects_.empty(); }
  bool contains(const point<N>& p) const noexcept {
    return std::any_of(rects_.begin(), rects_.end(),
                       [&](const rectdomain<N>& r) { return r.contains(p); });
  }

  /// The smallest rectdomain holding every point: per dimension, from the least index to the
  /// greatest, with the largest stride that reaches all of them (the gcd of the rectangles'
  /// strides and of their offsets from the least). Empty for the empty domain.
  rectdomain<N> bounding_box() const {
    if (empty()) return {};
    point<N> lo = rects_[0].lower(), last = rects_[0].last();
    for (const rectdomain<N>& r : rects_)
      lo = min(lo, r.lower()), last = max(last, r.last());
    point<N> st;
    for (const rectdomain<N>& r : rects_)
      for (int d = 0; d < N; ++d) {
        st[d] = std::gcd(st[d], r.lower()[d] - lo[d]);
        if (r.extent(d) > 1) st[d] = std::gcd(st[d], r.stride()[d]);
      }
    for (int d = 0; d < N; ++d)
      if (st[d] == 0) st[d] = 1;
    return rectdomain<N>(lo, last + 1, st);
  }

  /// Union, intersection and difference; exact for any strides.
  friend domain operator+(const domain& a, const domain& b) {
    domain r = a;
    r += b;
    return r;
  }
  friend domain operator*(const domain& a, const domain& b) {
    domain r;
    for (const rectdomain<N>& x : a.rects_)
      for (const rectdomain<N>& y : b.rects_) {
        const rectdomain<N> m = x * y;
        if (!m.empty()) r.rects_.push_back(m);
      }
    r.tidy();
    return r;
  }
  friend domain operator-(const domain& a, const domain& b) {
    domain r;
    for (const rectdomain<N>& x : a.rects_) {
      std::vector<rectdomain<N>> left = minus(x, b);
      r.rects_.insert(r.rects_.end(), left.begin(), left.end());
    }
    r.tidy();
    return r;
  }
  domain& operator+=(const domain& b) {
    const std::size_t mine = rects_.size();
    for (const rectdomain<N>& y : b.rects_) {
      std::vector<rectdomain<N>> added = minus(y, *this);  // b's rectangles are disjoint
      rects_.insert(rects_.end(), added.begin(), added.end());
    }
    tidy(mine);
    return *this;
  }
  domain& operator*=(const domain& b) { return *this = *this * b; }
  domain& operator-=(const domain& b) { return *this = *this - b; }

  /// Every point shifted by p.
  domain translate(const point<N>& p) const {
    domain r = *this;
    for (rectdomain<N>& x : r.rects_)
      x = x.translate(p);
    return r;
  }
  friend domain operator+(const domain& a, const point<N>& p) { return a.translate(p); }
  friend domain operator-(const domain& a, const point<N>& p) { return a.translate(-p); }

  /// Dimensions reordered as point::permute. Misuse: perm is not a permutation of 0..N-1.
  domain permute(const point<N>& perm,
                 std::source_location where = std::source_location::current()) const {
    point<N>::check_permutation(perm, where);
    domain r = *this;
    for (rectdomain<N>& x : r.rects_)
      x = x.permute(perm, where);
    r.tidy();
    return r;
  }

  /// The same points.
  friend bool operator==(const domain& a, const domain& b) {
    return a.size() == b.size() && (a - b).empty();
  }
  /// Every point of this domain is in b.
  bool is_subset_of(const domain& b) const { return (*this - b).empty(); }
  friend bool operator<=(const domain& a, const domain& b) { return a.is_subset_of(b); }
  friend bool operator>=(const domain& a, const domain& b) { return b.is_subset_of(a); }

  /// Row-major iteration over the whole set, each point once.
  class iterator {
   public:
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    using value_type = point<N>;
    using difference_type = std::ptrdiff_t;
    using reference = point<N>;

    iterator() = default;
    point<N> operator*() const noexcept { return at_[static_cast<std::size_t>(pick_)]; }
    iterator& operator++() {
      const auto i = static_cast<std::size_t>(pick_);
      // Most steps stay in the rectangle just picked: until it passes the next rectangle's
      // point (bound_), one row-major comparison per point.
      if (of_->rects_[i].advance(at_[i]) && (!bounded_ || lex_less()(at_[i], bound_))) return *this;
      choose();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept {
      if (a.pick_ < 0 || b.pick_ < 0) return a.pick_ == b.pick_;
      return *a == *b;
    }

   private:
    friend class domain;
    explicit iterator(const domain& d) : of_(&d) {
      for (const rectdomain<N>& r : d.rects_)
        at_.push_back(r.lower());
      choose();
    }
    bool done(std::size_t i) const noexcept { return at_[i].x[0] >= of_->rects_[i].upper().x[0]; }
    // The rectangle whose next point comes first in row-major order (-1: none left), and the
    // first of the other rectangles' next points (bounded_: there is one).
    void choose() noexcept {
      pick_ = -1;
      for (std::size_t i = 0; i < at_.size(); ++i)
        if (!done(i) && (pick_ < 0 || lex_less()(at_[i], at_[static_cast<std::size_t>(pick_)])))
          pick_ = static_cast<int>(i);
      bounded_ = false;
      for (std::size_t i = 0; i < at_.size(); ++i)
        if (static_cast<int>(i) != pick_ && !done(i) && (!bounded_ || lex_less()(at_[i], bound_)))
          bound_ = at_[i], bounded_ = true;
    }
    const domain* of_ = nullptr;
    std::vector<point<N>> at_;  // each rectangle's next point
    int pick_ = -1;
    bool bounded_ = false;
    point<N> bound_;
  };
  iterator begin() const { return iterator(*this); }
  iterator end() const noexcept { return iterator(); }

  friend std::ostream& operator<<(std::ostream& os, const domain& d) { return os << to_text(d); }
  /// "{rect, rect, ...}", as operator<< prints it.
  static std::string to_text(const domain& d) {
    std::string s = "{";
    for (std::size_t i = 0; i < d.rects_.size(); ++i) {
      if (i) s += ", ";
      s += to_string(d.rects_[i]);
    }
    return s + "}";
  }

 private:
  // x minus every rectangle of d, as disjoint rectangles.
  static std::vector<rectdomain<N>> minus(const rectdomain<N>& x, const domain& d) {
    std::vector<rectdomain<N>> left{x}, next;
    for (const rectdomain<N>& y : d.rects_) {
      next.clear();
      for (const rectdomain<N>& l : left)
        detail::nd_rect_difference(l, y, next);
      left.swap(next);
      if (left.empty()) break;
    }
    return left;
  }

  // Two disjoint rectangles that are one: the same points in every dimension but d, and in d
  // b's lattice continuing a's. The merged rectangle, or the empty one.
  static rectdomain<N> joined(const rectdomain<N>& a, const rectdomain<N>& b) {
    int along = -1;
    for (int d = 0; d < N; ++d) {
      if (a.same_in(b, d)) continue;
      if (along >= 0) return {};
      along = d;
    }
    if (along < 0) return {};
    const nd_index ea = a.extent(along), eb = b.extent(along);
    const nd_index s = ea > 1   ? a.stride()[along]
                       : eb > 1 ? b.stride()[along]
                                : b.lower()[along] - a.lower()[along];
    if (s < 1 || (eb > 1 && b.stride()[along] != s) || b.lower()[along] != a.last()[along] + s)
      return {};
    point<N> st = a.stride();
    st[along] = s;
    return rectdomain<N>(a.lower(), (a.last() + 1).replace(along, b.last()[along] + 1), st);
  }

  // Merges rectangles that form one, and sorts them by lower bound (row-major). The first
  // `fresh` rectangles are known to have no pair that merges (a domain's own, before +=), so
  // only the others are matched: each against the settled ones, a merged pair going back to
  // be matched again (a merge removes a rectangle, so this ends).
  void tidy(std::size_t fresh = 0) {
    auto by_lower = [](const rectdomain<N>& p, const rectdomain<N>& q) {
      return lex_less()(p.lower(), q.lower());
    };
    std::vector<rectdomain<N>> pending(rects_.begin() + static_cast<std::ptrdiff_t>(fresh),
                                       rects_.end());
    rects_.resize(fresh);
    while (!pending.empty()) {
      rectdomain<N> r = pending.back();
      pending.pop_back();
      bool merged = false;
      for (std::size_t k = 0; k < rects_.size() && !merged; ++k) {
        const bool first = by_lower(rects_[k], r);
        const rectdomain<N> m = first ? joined(rects_[k], r) : joined(r, rects_[k]);
        if (m.empty()) continue;
        rects_[k] = rects_.back();
        rects_.pop_back();
        pending.push_back(m);
        merged = true;
      }
      if (!merged) rects_.push_back(r);
    }
    std::sort(rects_.begin(), rects_.end(), by_lower);
  }

  std::vector<rectdomain<N>> rects_;
};

/// Union and difference of two rectangles (their intersection, a rectdomain, is in
/// rectdomain.hpp).
template <int N>
domain<N> operator+(const rectdomain<N>& a, const rectdomain<N>& b) {
  return domain<N>(a) + domain<N>(b);
}
template <int N>
domain<N> operator-(const rectdomain<N>& a, const rectdomain<N>& b) {
  return domain<N>(a) - domain<N>(b);
}

/// "{rect, rect, ...}", as operator<< prints it.
template <int N>
std::string to_string(const domain<N>& d) {
  return domain<N>::to_text(d);
}

}  // namespace pgas

namespace pgas::detail {
template <int N>
struct nd_printable<domain<N>> : std::true_type {};  // fmt prints it (pgas/point.hpp)
}  // namespace pgas::detail
