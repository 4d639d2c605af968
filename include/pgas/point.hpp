// pgas/point.hpp — points of an N-dimensional index space: the indices of the local-view N-D
// arrays (pgas/ndarray.hpp) and the elements of their domains (pgas/rectdomain.hpp,
// pgas/domain.hpp), after Titanium's and UPC++'s Point<N>.
//
//   pgas::point<3> p(-1, 3, 2);                   // or pgas::point{-1, 3, 2}, point<3>{{-1, 3, 2}}
//   auto q = p + pgas::point<3>::direction(2);     // (-1, 4, 2)
//   auto r = q * 2 / 3;                           // (-1, 2, 1): division rounds toward -infinity
//   bool inside = pgas::point<3>::all(0) <= r;    // false: <= must hold in every dimension
//
// A point<N> is a value: N indices of type pgas::nd_index (std::ptrdiff_t) in a public
// std::array `x`. Everything here is constexpr and inline; a point costs what N integers cost.
//
// Differs from Titanium: dimensions are numbered from 0 (p[0] is the first index), except in
// direction(), whose signed 1-based numbering is Titanium's (it names a side of a box, and the
// sign is its point: -2 is the low side of dimension 1). Comparisons < <= > >= hold only when
// they hold in every dimension (Titanium's), so they are not an order: use pgas::lex_less to
// sort points or key a std::set/std::map (row-major order, the order domains iterate in).
//
// Contract.
//   * Collective: nothing here is; nothing needs a job, nothing touches shared memory.
//   * Errors (pgas/error.hpp's model): a dimension out of [0, N) given to drop() or replace(),
//     a direction out of [-N, -1] ∪ [1, N] and a permutation that is not one of 0..N-1 are
//     misuse, named at the call site (the source_location default argument): inside a job the
//     job ends, outside one pgas::usage_error is thrown. Dividing by a point with a zero
//     index is misuse too, reported with the calling thread's backtrace (an operator has no
//     call site to name). operator[] is unchecked, except in the checked build
//     (config::bounds_check), where a dimension out of [0, N) is misuse in the same way. Arithmetic
//     that overflows nd_index is undefined, as for the integers themselves.
//   * Thread safety: a value type; distinct objects may be used by any threads at once.
//   * Printing: operator<< and (when <fmt/core.h> is available) an fmt formatter write
//     "(1, 2, 3)"; pgas::to_string(p) returns the same text.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <ostream>
#include <source_location>
#include <string>
#include <type_traits>

#include <pgas/config.hpp>
#include <pgas/error.hpp>

#if __has_include(<fmt/core.h>)
#include <fmt/core.h>
#define PGASI_HAVE_FMT 1
#endif

namespace pgas {

/// The index type of points, domains and N-D arrays.
using nd_index = std::ptrdiff_t;

namespace detail {

/// Floor division (rounds toward -infinity), as Titanium's point division.
constexpr nd_index nd_floor_div(nd_index a, nd_index b) noexcept {
  nd_index q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// The misuse checks every N-D header shares: constexpr tests whose failure (never constant)
// goes to the error door out of line.
[[noreturn, gnu::cold, gnu::noinline]] inline void nd_bad_dim(int d, int n, const char* call,
                                                              const std::source_location& where) {
  misuse(std::string(call) + ": dimension " + std::to_string(d) + " is out of [0, " +
             std::to_string(n) + ")",
         where);
}

[[noreturn, gnu::cold, gnu::noinline]] inline void nd_bad_dir(int dir, int n, const char* call,
                                                              const std::source_location& where) {
  misuse(std::string(call) + ": direction " + std::to_string(dir) + " is out of [-" +
             std::to_string(n) + ", -1] and [1, " + std::to_string(n) +
             "] (directions are signed and 1-based)",
         where);
}

constexpr void nd_check_dim(int d, int n, const char* call, const std::source_location& where) {
  if (d < 0 || d >= n) nd_bad_dim(d, n, call, where);
}

constexpr void nd_check_dir(int dir, int n, const char* call, const std::source_location& where) {
  if (dir == 0 || dir < -n || dir > n) nd_bad_dir(dir, n, call, where);
}

/// The dimension a signed 1-based direction names (0-based).
constexpr int nd_dir_dim(int dir) noexcept {
  return dir > 0 ? dir - 1 : -dir - 1;
}

}  // namespace detail

/// A point of Z^N (N >= 1). See the top of this file.
template <int N>
struct point {
  static_assert(N >= 1, "pgas::point<N> needs N >= 1");

  /// The indices; public, so `point<2>{{1, 2}}` and structured code over x work.
  std::array<nd_index, N> x{};

  static constexpr int rank = N;

  /// The origin (every index zero).
  constexpr point() = default;

  /// The point (v0, v1, ..., vN-1): exactly N integers.
  template <std::integral... V>
  requires(sizeof...(V) == static_cast<std::size_t>(N)) constexpr point(V... v) noexcept
      : x{static_cast<nd_index>(v)...} {}

  /// The point of these indices: `point<2>{{1, 2}}`, `point<3> p = {{-1, 3, 2}}`.
  constexpr point(const std::array<nd_index, N>& v) noexcept : x(v) {}

  /// The point with every index v.
  static constexpr point all(nd_index v) noexcept {
    point p;
    p.x.fill(v);
    return p;
  }

  /// Titanium's unit vector: v in dimension |dir| - 1, signed as dir; zero elsewhere. dir is
  /// signed and 1-based: direction(-1) is (-1, 0, ...), direction(2) is (0, 1, 0, ...).
  /// Misuse: dir out of [-N, -1] ∪ [1, N].
  static constexpr point direction(int dir, nd_index v = 1,
                                   std::source_location where = std::source_location::current()) {
    detail::nd_check_dir(dir, N, "pgas::point::direction", where);
    point p;
    p.x[static_cast<std::size_t>(detail::nd_dir_dim(dir))] = dir > 0 ? v : -v;
    return p;
  }

  /// Index d (0-based). Unchecked, except in the checked build.
  constexpr nd_index& operator[](int d) {
    if constexpr (config::bounds_check)
      if (d < 0 || d >= N) index_out_of_range(d);
    return x[static_cast<std::size_t>(d)];
  }
  constexpr const nd_index& operator[](int d) const {
    if constexpr (config::bounds_check)
      if (d < 0 || d >= N) index_out_of_range(d);
    return x[static_cast<std::size_t>(d)];
  }

  /// This point with index d replaced by v. Misuse: d out of [0, N).
  constexpr point replace(int d, nd_index v,
                          std::source_location where = std::source_location::current()) const {
    detail::nd_check_dim(d, N, "pgas::point::replace", where);
    point p = *this;
    p.x[static_cast<std::size_t>(d)] = v;
    return p;
  }

  /// This point without dimension d (N >= 2): (x0, .., xd-1, xd+1, .., xN-1).
  /// Misuse: d out of [0, N).
  constexpr point<N - 1> drop(int d,
                              std::source_location where = std::source_location::current()) const
      requires(N >= 2) {
    detail::nd_check_dim(d, N, "pgas::point::drop", where);
    point<N - 1> p;
    for (int i = 0, j = 0; i < N; ++i)
      if (i != d) p.x[static_cast<std::size_t>(j++)] = x[static_cast<std::size_t>(i)];
    return p;
  }

  /// The point whose index d is this one's index perm[d]. Misuse: perm is not a permutation
  /// of 0..N-1.
  constexpr point permute(const point& perm,
                          std::source_location where = std::source_location::current()) const {
    check_permutation(perm, where);
    point p;
    for (std::size_t d = 0; d < N; ++d)
      p.x[d] = x[static_cast<std::size_t>(perm.x[d])];
    return p;
  }

  /// Misuse unless perm is a permutation of 0..N-1 (used by every permute of the N-D headers).
  static constexpr void check_permutation(const point& perm, const std::source_location& where) {
    std::array<bool, N> seen{};
    for (nd_index v : perm.x) {
      if (v < 0 || v >= N || seen[static_cast<std::size_t>(v)]) not_a_permutation(perm, where);
      seen[static_cast<std::size_t>(v)] = true;
    }
  }

  /// "(x0, x1, ...)".
  static std::string to_text(const point& p) {
    std::string s = "(";
    for (std::size_t d = 0; d < N; ++d) {
      if (d) s += ", ";
      s += std::to_string(p.x[d]);
    }
    return s + ")";
  }

  // Element-wise arithmetic, point with point and point with scalar (either side).
  // Division rounds toward -infinity (Titanium's); a zero divisor is misuse.
  friend constexpr point operator-(const point& p) noexcept {
    point r;
    for (std::size_t d = 0; d < N; ++d)
      r.x[d] = -p.x[d];
    return r;
  }
#define PGASI_POINT_OP(op, expr)                                       \
  friend constexpr point operator op(const point& p, const point& q) { \
    point r;                                                           \
    for (std::size_t d = 0; d < N; ++d) {                              \
      const nd_index a = p.x[d], b = q.x[d];                           \
      r.x[d] = expr;                                                   \
    }                                                                  \
    return r;                                                          \
  }                                                                    \
  friend constexpr point operator op(const point& p, nd_index s) {     \
    return p op all(s);                                                \
  }                                                                    \
  friend constexpr point operator op(nd_index s, const point& p) {     \
    return all(s) op p;                                                \
  }                                                                    \
  constexpr point& operator op##=(const point& q) {                    \
    return *this = *this op q;                                         \
  }                                                                    \
  constexpr point& operator op##=(nd_index s) {                        \
    return *this = *this op all(s);                                    \
  }
  PGASI_POINT_OP(+, a + b)
  PGASI_POINT_OP(-, a - b)
  PGASI_POINT_OP(*, a* b)
  PGASI_POINT_OP(/, (b == 0 ? divide_by_zero(p, q) : detail::nd_floor_div(a, b)))
#undef PGASI_POINT_OP

  /// Equal in every dimension.
  friend constexpr bool operator==(const point& p, const point& q) noexcept = default;

  /// True iff the relation holds in EVERY dimension (Titanium's); not an order: use lex_less.
  friend constexpr bool operator<(const point& p, const point& q) noexcept {
    return all_of(p, q, [](nd_index a, nd_index b) { return a < b; });
  }
  friend constexpr bool operator<=(const point& p, const point& q) noexcept {
    return all_of(p, q, [](nd_index a, nd_index b) { return a <= b; });
  }
  friend constexpr bool operator>(const point& p, const point& q) noexcept {
    return q < p;
  }
  friend constexpr bool operator>=(const point& p, const point& q) noexcept {
    return q <= p;
  }

  /// Element-wise minimum and maximum.
  friend constexpr point min(const point& p, const point& q) noexcept {
    point r;
    for (std::size_t d = 0; d < N; ++d)
      r.x[d] = std::min(p.x[d], q.x[d]);
    return r;
  }
  friend constexpr point max(const point& p, const point& q) noexcept {
    point r;
    for (std::size_t d = 0; d < N; ++d)
      r.x[d] = std::max(p.x[d], q.x[d]);
    return r;
  }

  friend std::ostream& operator<<(std::ostream& os, const point& p) {
    return os << to_text(p);
  }

 private:
  template <class F>
  static constexpr bool all_of(const point& p, const point& q, F f) noexcept {
    for (std::size_t d = 0; d < N; ++d)
      if (!f(p.x[d], q.x[d])) return false;
    return true;
  }
  [[noreturn]] static nd_index divide_by_zero(const point& p, const point& q) {
    detail::misuse_here("pgas::point: division of " + to_text(p) + " by " + to_text(q) +
                        ", which has a zero index");
  }
  [[noreturn]] static void index_out_of_range(int d) {
    detail::misuse_here("pgas::point[]: dimension " + std::to_string(d) + " is out of [0, " +
                        std::to_string(N) + ")");
  }
  [[noreturn]] static void not_a_permutation(const point& perm, const std::source_location& where) {
    detail::misuse(
        "pgas::permute: " + to_text(perm) + " is not a permutation of 0.." + std::to_string(N - 1),
        where);
  }
};

template <std::integral... V>
point(V...) -> point<static_cast<int>(sizeof...(V))>;

/// Row-major (lexicographic) order of points: the order rectdomain and domain iterate in; a
/// strict weak order for sorting and for std::set/std::map keys.
struct lex_less {
  template <int N>
  constexpr bool operator()(const point<N>& p, const point<N>& q) const noexcept {
    return p.x < q.x;
  }
};

/// "(x0, x1, ...)", as operator<< prints it.
template <int N>
std::string to_string(const point<N>& p) {
  return point<N>::to_text(p);
}

}  // namespace pgas

namespace pgas::detail {
/// The N-D types fmt prints with their static to_text (each header adds its own).
template <class T>
struct nd_printable : std::false_type {};
template <int N>
struct nd_printable<point<N>> : std::true_type {};
}  // namespace pgas::detail

#ifdef PGASI_HAVE_FMT
/// fmt prints the N-D types as pgas::to_string does. No format spec ("{}" only); the text is
/// copied out, so fmt/core.h serves alone (no libfmt symbol).
template <class T>
struct fmt::formatter<T, char, std::enable_if_t<pgas::detail::nd_printable<T>::value>> {
  constexpr auto parse(fmt::format_parse_context& ctx) {
    auto it = ctx.begin();
    if (it != ctx.end() && *it != '}') {
#if FMT_VERSION >= 110000
      fmt::report_error("pgas N-D types take no format spec");
#else
      ctx.on_error("pgas N-D types take no format spec");
#endif
    }
    return it;
  }
  template <class Context>
  auto format(const T& v, Context& ctx) const {
    const std::string s = T::to_text(v);
    return std::copy(s.begin(), s.end(), ctx.out());
  }
};
#endif
