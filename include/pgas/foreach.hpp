// pgas/foreach.hpp — loops over the points of a domain (Titanium's foreach): foreach() hands each
// point to a function, foreach_n() hands the point's coordinates as N integers from N plain nested
// for-loops, the form GCC vectorises.
//
//   pgas::foreach(A.domain().shrink(1), [&](pgas::point<3> p) { B[p] = A[p] * 2; });
//   pgas::foreach_n(A.domain().shrink(1), [&](nd_index i, nd_index j, nd_index k) {
//     B(i, j, k) = A(i - 1, j, k) + A(i + 1, j, k);
//   });
//
// Contract.
//   * Order: row-major (the last dimension varies fastest), each point exactly once; a
//     rectdomain's stride is the loops' step. foreach over a general pgas::domain visits its
//     points in the domain's own iteration order (row-major over the whole set). An empty
//     domain calls nothing.
//   * The loops are sequential and run on the calling thread only: not collective, no
//     synchronisation, callable outside a job. An exception thrown by the function leaves the
//     loop (there is no `break`: return early from an enclosing function instead).
//   * Performance: each loop's variable is the coordinate itself, stepped by the dimension's
//     stride up to the domain's upper bound (lower() + extents() * stride() in a rectdomain's
//     normal form, so the step never overflows), both read once into locals so that stores
//     made by the function cannot change them; GCC's -O3 versions the innermost loop for a
//     unit stride. With the coordinate as the induction variable GCC sets up each row of a
//     unit-stride ndarray's 7-point stencil in fewer instructions than when the loop counted
//     points and handed lower + t·stride (0.84-0.86 of hand-written indexing became 0.91 on a
//     32^3 grid). The function is called from exactly one place, so the compiler inlines it
//     whatever its size (a second call site, e.g. a separate unit-stride loop, made GCC call a
//     large loop body per point: 10-20x slower). Measured figures: README, "N-D arrays, views
//     and loops" (kernels/micro/ndarray_bench.cpp).
//   * Thread safety: as safe as the function; the domain is read, never written.
#pragma once

#include <cstddef>
#include <utility>

#include <pgas/domain.hpp>
#include <pgas/point.hpp>
#include <pgas/rectdomain.hpp>

namespace pgas {

namespace detail {

// One dimension D of foreach's nest; p holds the coordinates of the outer dimensions.
template <int D, int N, class F>
[[gnu::always_inline]] inline void foreach_dim(point<N>& p, const point<N>& lo, const point<N>& hi,
                                               const point<N>& st, F& f) {
  const nd_index l = lo[D], h = hi[D], s = st[D];
  for (nd_index x = l; x < h; x += s) {
    p[D] = x;
    if constexpr (D == N - 1) {
      f(std::as_const(p));
    } else {
      foreach_dim<D + 1>(p, lo, hi, st, f);
    }
  }
}

// One dimension D of foreach_n's nest; i... are the coordinates of the outer dimensions.
template <int D, int N, class F, class... I>
[[gnu::always_inline]] inline void foreach_n_dim(const point<N>& lo, const point<N>& hi,
                                                 const point<N>& st, F& f, I... i) {
  const nd_index l = lo[D], h = hi[D], s = st[D];
  for (nd_index x = l; x < h; x += s) {
    if constexpr (D == N - 1) {
      f(i..., x);
    } else {
      foreach_n_dim<D + 1>(lo, hi, st, f, i..., x);
    }
  }
}

}  // namespace detail

/// Calls f(p) for every point p of d, as `const point<N>&`, in row-major order.
template <int N, class F>
void foreach(const rectdomain<N>& d, F&& f) {
  if (d.empty()) return;
  const point<N> lo = d.lower(), hi = d.upper(), st = d.stride();
  point<N> p = lo;
  detail::foreach_dim<0>(p, lo, hi, st, f);
}

/// Calls f(p) for every point p of the general domain d, in d's iteration order.
template <int N, class F>
void foreach(const domain<N>& d, F&& f) {
  for (const point<N>& p : d)
    f(p);
}

/// Calls f(i0, …, iN-1) (each an nd_index) for every point of d, from N nested for-loops in
/// row-major order (the last dimension innermost).
template <int N, class F>
void foreach_n(const rectdomain<N>& d, F&& f) {
  if (d.empty()) return;
  const point<N> lo = d.lower(), hi = d.upper(), st = d.stride();
  detail::foreach_n_dim<0>(lo, hi, st, f);
}

}  // namespace pgas
