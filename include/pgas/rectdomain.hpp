// pgas/rectdomain.hpp — rectangular domains: the index spaces of the local-view N-D arrays
// (pgas/ndarray.hpp), after Titanium's RectDomain<N> and UPC++'s rdomain<N>.
//
//   pgas::rectdomain<2> rd({1, 1}, {5, 5}, {2, 2});   // {(1,1), (1,3), (3,1), (3,3)}
//   for (pgas::point<2> p : rd) ...                   // row-major: last dimension fastest
//   auto interior = grid.shrink(1);                   // one layer less on every side
//   auto edge = grid.border(1, -1);                   // its first layer along dimension 0
//   auto ghost = grid.border(1, -1, 1);               // the layer just below that
//   pgas::domain<2> u = rd + rd.translate({1, 1});    // union: a general domain
//
// A rectdomain<N> is the set of points p with lo <= p < hi and p - lo a multiple of the
// stride in every dimension: the lower bound is inclusive, the upper bound EXCLUSIVE (C++'s
// half-open ranges; Titanium's upper bound is inclusive), strides are >= 1.
//
// Normal form. A domain is normalised when it is made, so that a domain equals another iff
// they hold the same points:
//   * empty (some hi[d] <= lo[d]): every empty domain becomes [(0,..,0) : (0,..,0) : (1,..,1)]
//     — lower() == upper() == the origin, stride() all ones, size() 0 — and all empty domains
//     are equal (Titanium's rule). An operation on an empty domain gives the empty domain
//     (accrete and border too: an empty domain has no sides), except translate, which keeps
//     it empty as well.
//   * otherwise upper() is lower() + extents() * stride(): the bound just past the last
//     point (rectdomain({0}, {10}, {3}) is {0, 3, 6, 9} with upper() (12)).
// The stride of a dimension with one point is kept as given (accrete uses it) but does not
// matter to ==, which compares the point sets.
//
// Differs from Titanium: dimensions are numbered from 0 (slice(0) drops the first one);
// shrink/accrete/border take Titanium's signed 1-based directions (-1 is the low side of
// dimension 0, +N the high side of dimension N-1); the upper bound is exclusive.
//
// Cost. A rectdomain is a value of 3 N integers, meant to be passed by value in loops:
// contains(), size(), extent() and iteration are inline (a modulo per strided dimension in
// contains(), none when the stride is 1), intersection is O(N) (a gcd per strided dimension),
// union and difference (+, - : pgas/domain.hpp) are O(N) rectangles at most, plus the
// strides' ratios when the strides differ.
//
// Contract.
//   * Collective: nothing here is; nothing needs a job or touches shared memory.
//   * Errors (pgas/error.hpp's model): a stride < 1, a direction out of [-N, -1] ∪ [1, N], a
//     dimension out of [0, N) and a permutation that is not one of 0..N-1 are misuse named at
//     the call site (the source_location default argument): inside a job the job ends,
//     outside one pgas::usage_error is thrown. Arithmetic past the range of nd_index is
//     undefined.
//   * Thread safety: a value type; any number of threads may read one at once.
//   * Printing: operator<<, pgas::to_string and (when <fmt/core.h> is available) fmt write
//     "[(0, 0):(4, 4):(1, 1)]": lower, exclusive upper and stride; an empty domain prints
//     "[(0, 0):(0, 0):(1, 1)]" (its normal form).
#pragma once

#include <cstddef>
#include <iterator>
#include <numeric>
#include <ostream>
#include <source_location>
#include <string>

#include <pgas/point.hpp>

namespace pgas {

template <int N>
class domain;

namespace detail {

/// Ceiling division for b > 0.
constexpr nd_index nd_ceil_div(nd_index a, nd_index b) noexcept {
  return -nd_floor_div(-a, b);
}

/// The intersection of two 1-D lattices {a + k sa} ∩ {b + m sb} (sa, sb >= 1): empty, or the
/// lattice {x0 + j l} with l = lcm(sa, sb) and x0 the solution of the two congruences nearest
/// above `from` (Chinese remainder theorem, by the extended Euclid algorithm).
struct nd_lattice {
  bool empty;
  nd_index first;
  nd_index stride;
};
constexpr nd_lattice nd_lattice_meet(nd_index a, nd_index sa, nd_index b, nd_index sb,
                                     nd_index from) noexcept {
  if (sa == 1 && sb == 1) return {false, from, 1};
  // g = gcd(sa, sb) = u sa + v sb.
  nd_index r0 = sa, r1 = sb, u0 = 1, u1 = 0;
  while (r1 != 0) {
    const nd_index q = r0 / r1;
    const nd_index r2 = r0 - q * r1, u2 = u0 - q * u1;
    r0 = r1, r1 = r2, u0 = u1, u1 = u2;
  }
  const nd_index g = r0;
  const nd_index diff = b - a;
  if (diff % g != 0) return {true, 0, 1};
  const nd_index m = sb / g;  // x = a + sa * t, t ≡ (diff / g) u (mod m)
  const nd_index l = sa * m;
  __extension__ using wide = __int128;  // (diff / g mod m) (u0 mod m) may pass 64 bits
  const auto t =
      static_cast<nd_index>(((static_cast<wide>(diff / g) % m) * (static_cast<wide>(u0) % m)) % m);
  const nd_index x = a + sa * t;  // one solution; move it to the first one >= from
  return {false, x + nd_ceil_div(from - x, l) * l, l};
}

}  // namespace detail

/// A rectangular, possibly strided, set of points of Z^N. See the top of this file.
template <int N>
class rectdomain {
 public:
  static constexpr int rank = N;

  /// The empty domain.
  constexpr rectdomain() noexcept = default;

  /// The points lo + k * stride (k >= 0) below hi in every dimension. hi is exclusive; any
  /// hi[d] <= lo[d] gives the empty domain. Misuse: a stride component < 1.
  constexpr rectdomain(const point<N>& lo, const point<N>& hi,
                       const point<N>& stride = point<N>::all(1),
                       std::source_location where = std::source_location::current())
      : lo_(lo), hi_(hi), st_(stride) {
    for (std::size_t d = 0; d < N; ++d)
      if (stride.x[d] < 1) bad_stride(stride, where);
    normalise();
  }

  /// The first point (row-major); the origin when empty.
  constexpr const point<N>& lower() const noexcept { return lo_; }
  /// The exclusive upper bound, lower() + extents() * stride(); the origin when empty.
  constexpr const point<N>& upper() const noexcept { return hi_; }
  constexpr const point<N>& stride() const noexcept { return st_; }
  /// The last point (row-major): upper() - stride(). Meaningless when empty.
  constexpr point<N> last() const noexcept { return hi_ - st_; }

  /// Points along dimension d (0-based; unchecked but in the checked build).
  constexpr nd_index extent(int d) const {
    const nd_index span = hi_[d] - lo_[d];
    return st_[d] == 1 ? span : span / st_[d];
  }
  constexpr point<N> extents() const noexcept {
    point<N> e;
    for (int d = 0; d < N; ++d)
      e.x[d] = extent(d);
    return e;
  }
  constexpr std::size_t size() const noexcept {
    std::size_t n = 1;
    for (int d = 0; d < N; ++d)
      n *= static_cast<std::size_t>(extent(d));
    return n;
  }
  constexpr bool empty() const noexcept { return hi_.x[0] == lo_.x[0]; }

  constexpr bool contains(const point<N>& p) const noexcept {
    for (std::size_t d = 0; d < N; ++d) {
      if (p.x[d] < lo_.x[d] || p.x[d] >= hi_.x[d]) return false;
      if (st_.x[d] != 1 && (p.x[d] - lo_.x[d]) % st_.x[d] != 0) return false;
    }
    return true;
  }

  /// Intersection: exact for any strides (per dimension, the lattices' meet: its stride is
  /// the lcm of the two strides).
  friend constexpr rectdomain operator*(const rectdomain& a, const rectdomain& b) noexcept {
    if (a.empty() || b.empty()) return {};
    rectdomain r;
    for (std::size_t d = 0; d < N; ++d) {
      const nd_index from = std::max(a.lo_.x[d], b.lo_.x[d]);
      const nd_index to = std::min(a.hi_.x[d], b.hi_.x[d]);
      if (to <= from) return {};
      const detail::nd_lattice m =
          detail::nd_lattice_meet(a.lo_.x[d], a.st_.x[d], b.lo_.x[d], b.st_.x[d], from);
      if (m.empty || m.first >= to) return {};
      r.lo_.x[d] = m.first, r.hi_.x[d] = to, r.st_.x[d] = m.stride;
    }
    r.normalise();
    return r;
  }
  constexpr rectdomain& operator*=(const rectdomain& b) noexcept { return *this = *this * b; }

  /// The domain shifted by p (every point plus p). An empty domain stays empty.
  constexpr rectdomain translate(const point<N>& p) const noexcept {
    if (empty()) return {};
    rectdomain r = *this;
    r.lo_ += p, r.hi_ += p;
    return r;
  }
  friend constexpr rectdomain operator+(const rectdomain& a, const point<N>& p) noexcept {
    return a.translate(p);
  }
  friend constexpr rectdomain operator-(const rectdomain& a, const point<N>& p) noexcept {
    return a.translate(-p);
  }

  /// k layers (of the stride) fewer on every side; a negative k accretes. Empty when nothing
  /// is left.
  constexpr rectdomain shrink(nd_index k) const noexcept {
    if (empty()) return {};
    rectdomain r = *this;
    r.lo_ += st_ * k, r.hi_ -= st_ * k;
    r.normalise();
    return r;
  }
  /// k layers fewer on side dir (signed, 1-based: -1 the low side of dimension 0, +1 its high
  /// side). Misuse: dir out of [-N, -1] ∪ [1, N].
  constexpr rectdomain shrink(nd_index k, int dir,
                              std::source_location where = std::source_location::current()) const {
    detail::nd_check_dir(dir, N, "pgas::rectdomain::shrink", where);
    return move_side(dir, -k);
  }
  /// k layers (of the stride) more on every side: shrink(-k). The empty domain stays empty.
  constexpr rectdomain accrete(nd_index k) const noexcept { return shrink(-k); }
  /// k layers more on side dir (signed, 1-based). Misuse: dir out of [-N, -1] ∪ [1, N].
  constexpr rectdomain accrete(nd_index k, int dir,
                               std::source_location where = std::source_location::current()) const {
    detail::nd_check_dir(dir, N, "pgas::rectdomain::accrete", where);
    return move_side(dir, k);
  }

  /// Titanium's border: the slab of k layers (of the stride) that ends at side dir — the
  /// domain's own k outermost layers on that side (the whole domain and more when k exceeds
  /// its extent there) — moved `shift` layers outward (inward when shift < 0). So
  /// border(k, dir) is the k layers a neighbour needs from this side, and border(k, dir, k)
  /// the ghost zone of width k just beyond it. k <= 0 or an empty domain gives the empty
  /// domain. Misuse: dir out of [-N, -1] ∪ [1, N].
  constexpr rectdomain border(nd_index k, int dir, nd_index shift = 0,
                              std::source_location where = std::source_location::current()) const {
    detail::nd_check_dir(dir, N, "pgas::rectdomain::border", where);
    if (empty() || k <= 0) return {};
    const auto d = static_cast<std::size_t>(detail::nd_dir_dim(dir));
    rectdomain r = *this;
    const nd_index s = st_.x[d];
    if (dir > 0) {
      r.hi_.x[d] = hi_.x[d] + shift * s;
      r.lo_.x[d] = r.hi_.x[d] - k * s;
    } else {
      r.lo_.x[d] = lo_.x[d] - shift * s;
      r.hi_.x[d] = r.lo_.x[d] + k * s;
    }
    return r;
  }

  /// The domain with dimensions reordered as point::permute: dimension d of the result is
  /// dimension perm[d] of this one. Misuse: perm is not a permutation of 0..N-1.
  constexpr rectdomain permute(const point<N>& perm,
                               std::source_location where = std::source_location::current()) const {
    point<N>::check_permutation(perm, where);
    if (empty()) return {};
    rectdomain r;
    r.lo_ = lo_.permute(perm, where), r.hi_ = hi_.permute(perm, where);
    r.st_ = st_.permute(perm, where);
    return r;
  }

  /// The domain without dimension d (0-based; N >= 2): its projection on the others. The
  /// empty domain gives the empty domain. Misuse: d out of [0, N).
  constexpr rectdomain<N - 1> slice(
      int d, std::source_location where = std::source_location::current()) const requires(N >= 2) {
    detail::nd_check_dim(d, N, "pgas::rectdomain::slice", where);
    if (empty()) return {};
    return rectdomain<N - 1>(lo_.drop(d, where), hi_.drop(d, where), st_.drop(d, where), where);
  }

  /// Same points (see "Normal form" above).
  friend constexpr bool operator==(const rectdomain& a, const rectdomain& b) noexcept {
    for (int d = 0; d < N; ++d)
      if (!a.same_in(b, d)) return false;
    return true;
  }
  /// The same points along dimension d: lower bound, extent, and stride unless one point.
  constexpr bool same_in(const rectdomain& b, int d) const noexcept {
    const nd_index e = extent(d);
    return lo_[d] == b.lo_[d] && e == b.extent(d) && (e == 1 || st_[d] == b.st_[d]);
  }
  /// Every point of this domain is in b (the empty domain is a subset of every domain).
  constexpr bool is_subset_of(const rectdomain& b) const noexcept {
    return empty() || *this * b == *this;
  }
  /// Subset and superset.
  friend constexpr bool operator<=(const rectdomain& a, const rectdomain& b) noexcept {
    return a.is_subset_of(b);
  }
  friend constexpr bool operator>=(const rectdomain& a, const rectdomain& b) noexcept {
    return b.is_subset_of(a);
  }

  /// Moves p, a point of this domain, to the next one in row-major order (last dimension
  /// fastest). Past the last point p becomes (upper()[0], lower()[1], ..., lower()[N-1]), what
  /// end() holds, and advance() returns false.
  constexpr bool advance(point<N>& p) const noexcept {
    for (std::size_t d = N - 1; d > 0; --d) {
      p.x[d] += st_.x[d];
      if (p.x[d] < hi_.x[d]) return true;
      p.x[d] = lo_.x[d];
    }
    p.x[0] += st_.x[0];
    return p.x[0] < hi_.x[0];
  }

  /// Row-major iteration (last dimension fastest) over the points, each once.
  class iterator {
   public:
    using iterator_concept = std::forward_iterator_tag;
    using iterator_category = std::input_iterator_tag;
    using value_type = point<N>;
    using difference_type = std::ptrdiff_t;
    using reference = point<N>;

    constexpr iterator() = default;
    constexpr point<N> operator*() const noexcept { return p_; }
    constexpr iterator& operator++() noexcept {
      r_.advance(p_);
      return *this;
    }
    constexpr iterator operator++(int) noexcept {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend constexpr bool operator==(const iterator& a, const iterator& b) noexcept {
      return a.p_ == b.p_;
    }

   private:
    friend class rectdomain;
    constexpr iterator(const rectdomain& r, const point<N>& p) noexcept : r_(r), p_(p) {}
    rectdomain r_;
    point<N> p_;
  };
  constexpr iterator begin() const noexcept { return iterator(*this, lo_); }
  /// Past the last point: (upper()[0], lower()[1], ..., lower()[N-1]).
  constexpr iterator end() const noexcept {
    point<N> e = lo_;
    e.x[0] = hi_.x[0];
    return iterator(*this, e);
  }

  friend std::ostream& operator<<(std::ostream& os, const rectdomain& r) {
    return os << to_text(r);
  }
  /// "[lower:upper:stride]", as operator<< prints it.
  static std::string to_text(const rectdomain& r) {
    std::string s = "[";  // appended, not "[" + ...: g++ 12 warns wrongly on that (-Wrestrict)
    s += to_string(r.lo_);
    s += ':';
    s += to_string(r.hi_);
    s += ':';
    s += to_string(r.st_);
    return s += ']';
  }

 private:
  template <int M>
  friend class rectdomain;

  // Empty if any dimension is; otherwise upper bounds moved to just past the last point.
  constexpr void normalise() noexcept {
    for (std::size_t d = 0; d < N; ++d)
      if (hi_.x[d] <= lo_.x[d]) {
        *this = rectdomain();
        return;
      }
    for (std::size_t d = 0; d < N; ++d)
      if (st_.x[d] != 1)
        hi_.x[d] = lo_.x[d] + detail::nd_ceil_div(hi_.x[d] - lo_.x[d], st_.x[d]) * st_.x[d];
  }
  // Side dir moved outward by k layers (inward when k < 0).
  constexpr rectdomain move_side(int dir, nd_index k) const noexcept {
    if (empty()) return {};
    const auto d = static_cast<std::size_t>(detail::nd_dir_dim(dir));
    rectdomain r = *this;
    if (dir > 0)
      r.hi_.x[d] += k * st_.x[d];
    else
      r.lo_.x[d] -= k * st_.x[d];
    r.normalise();
    return r;
  }
  [[noreturn]] static void bad_stride(const point<N>& stride, const std::source_location& where) {
    detail::misuse("pgas::rectdomain: stride " + to_string(stride) +
                       " has a component below 1 (strides are >= 1)",
                   where);
  }

  point<N> lo_;
  point<N> hi_;
  point<N> st_ = point<N>::all(1);
};

/// "[lower:upper:stride]", as operator<< prints it.
template <int N>
std::string to_string(const rectdomain<N>& r) {
  return rectdomain<N>::to_text(r);
}

}  // namespace pgas

namespace pgas::detail {
template <int N>
struct nd_printable<rectdomain<N>> : std::true_type {};  // fmt prints it (pgas/point.hpp)
}  // namespace pgas::detail

// Union and difference give general domains.
#include <pgas/domain.hpp>
