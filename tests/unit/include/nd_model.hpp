// tests/unit/include/nd_model.hpp — what the tests of the N-D headers (point, rectdomain,
// domain) share: the text of a misuse outside a job, the points a domain iterates, and a
// brute-force model of domains: a std::set of index arrays (whose order is row-major), built
// from a rectangle's raw arguments one coordinate list per dimension, never through the
// normalisation or the algebra under test.
#pragma once

#include <pgas/domain.hpp>
#include <pgas/error.hpp>
#include <pgas/rectdomain.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

// The what() of the usage_error f throws (a test failure when it throws none).
template <class F>
std::string misuse_text(F f) {
  try {
    f();
  } catch (const pgas::usage_error& e) {
    return e.what();
  }
  FAIL("no usage_error");
  return "";
}

// The points of a domain, in its iteration order.
template <class D>
auto points_of(const D& d) {
  return std::vector(d.begin(), d.end());
}

namespace model {

using pgas::nd_index;

template <int N>
using set = std::set<std::array<nd_index, N>>;

// The coordinates a rectangle takes along each dimension, in increasing order.
template <int N>
using coords = std::array<std::vector<nd_index>, N>;

// A rectangle as the user wrote it: lower, exclusive upper and stride, not normalised.
template <int N>
struct raw {
  std::array<nd_index, N> lo{}, hi{}, st{};

  pgas::rectdomain<N> make() const { return pgas::rectdomain<N>(lo, hi, st); }
  coords<N> axes() const {
    coords<N> c;
    for (std::size_t d = 0; d < N; ++d)
      for (nd_index v = lo[d]; v < hi[d]; v += st[d])
        c[d].push_back(v);
    return c;
  }
};

// Every point of the product of the coordinate lists (empty when one list is).
template <std::size_t N>
std::set<std::array<nd_index, N>> product(const std::array<std::vector<nd_index>, N>& c) {
  std::set<std::array<nd_index, N>> s;
  for (const auto& axis : c)
    if (axis.empty()) return s;
  std::array<std::size_t, N> at{};
  for (;;) {
    std::array<nd_index, N> p;
    for (std::size_t d = 0; d < N; ++d)
      p[d] = c[d][at[d]];
    s.insert(p);
    std::size_t d = N;
    while (d > 0 && ++at[d - 1] == c[d - 1].size())
      at[--d] = 0;
    if (d == 0) return s;
  }
}

template <int N>
set<N> of(const raw<N>& r) {
  return product<N>(r.axes());
}

// The points a domain iterates, checking that none comes twice and that they come in
// row-major order.
template <class D>
auto iterated(const D& d) {
  constexpr int N = D::rank;
  set<N> s;
  std::vector<std::array<nd_index, N>> order;
  for (const pgas::point<N>& p : d)
    order.push_back(p.x);
  s.insert(order.begin(), order.end());
  CHECK(s.size() == order.size());
  CHECK(std::is_sorted(order.begin(), order.end()));
  return s;
}

template <class S>
S meet(const S& a, const S& b) {
  S r;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(r, r.end()));
  return r;
}
template <class S>
S join(const S& a, const S& b) {
  S r = a;
  r.insert(b.begin(), b.end());
  return r;
}
template <class S>
S minus(const S& a, const S& b) {
  S r;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(r, r.end()));
  return r;
}
template <class S, class A>
S moved(const S& a, const A& by) {
  S r;
  for (auto p : a) {
    for (std::size_t d = 0; d < p.size(); ++d)
      p[d] += by[d];
    r.insert(p);
  }
  return r;
}

// Small random rectangles: negative bounds, strides 1 to 4, about one in six empty.
template <int N>
raw<N> random_raw(std::mt19937& rng) {
  std::uniform_int_distribution<nd_index> lo(-6, 6), len(-1, 9), st(1, 4);
  raw<N> r;
  for (std::size_t d = 0; d < N; ++d) {
    r.lo[d] = lo(rng);
    r.hi[d] = r.lo[d] + len(rng);
    r.st[d] = std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 1 : st(rng);
  }
  return r;
}

// A random position, mostly near the rectangles random_raw makes.
template <int N>
std::array<nd_index, N> random_point(std::mt19937& rng) {
  std::uniform_int_distribution<nd_index> v(-12, 18);
  std::array<nd_index, N> p;
  for (auto& x : p)
    x = v(rng);
  return p;
}

// A random permutation of 0..N-1, and a set's points permuted by one (point::permute).
template <int N>
pgas::point<N> random_permutation(std::mt19937& rng) {
  pgas::point<N> perm;
  std::iota(perm.x.begin(), perm.x.end(), 0);
  std::shuffle(perm.x.begin(), perm.x.end(), rng);
  return perm;
}
template <int N>
set<N> permuted(const set<N>& a, const pgas::point<N>& perm) {
  set<N> r;
  for (const auto& p : a) {
    std::array<nd_index, N> q;
    for (std::size_t d = 0; d < N; ++d)
      q[d] = p[static_cast<std::size_t>(perm.x[d])];
    r.insert(q);
  }
  return r;
}

// What a domain (rectdomain or domain) says about its points agrees with the model: its
// iteration, size, emptiness, and contains() on every point and on random others.
template <class D, class S>
void check_points(const D& d, const S& m, std::mt19937& rng) {
  CHECK(iterated(d) == m);
  CHECK(d.size() == m.size());
  CHECK(d.empty() == m.empty());
  for (const auto& p : m)
    CHECK(d.contains(p));
  for (int i = 0; i < 20; ++i) {
    const auto p = random_point<D::rank>(rng);
    CHECK(d.contains(p) == (m.count(p) == 1));
  }
}

}  // namespace model
