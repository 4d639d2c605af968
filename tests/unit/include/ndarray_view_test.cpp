// Tests the views of pgas::ndarray (pgas/ndarray.hpp) against an element-by-element
// reference: random chains of constrict, translate, shrink, border, permute, inject and
// project (views of views) on arrays over plain and strided domains, each step compared with
// a map from the view's points to the original array's points (the view's domain must hold
// exactly the map's points, and each point's element must be the mapped one, by address,
// through A[p], A(i, j, k), base()/memory_strides() and view()); slices down to rank 1;
// chains on the unit-stride layouts keeping their type. Every thread runs its chains on the
// next thread's piece, through global views (jobs of 1 to 3 threads). Views translated far
// from the point 0 (2^40 either way) index, in every layout, the elements their strides name.

#include <pgas/ndarray.hpp>
#include <pgas/pgas.hpp>

#include <map>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

using pgas::nd_index;
using pgas::point;
using pgas::rectdomain;

// The reference: each point of the view → the original array's point it shows.
template <int N>
using ref_map = std::map<point<N>, point<3>, pgas::lex_less>;

// Checks view V against the reference r over the original array A.
template <class V, int N>
bool same_as_reference(failures& f, const V& v, const ref_map<N>& r, const pgas::ndarray<int, 3>& A,
                       const std::string& chain) {
  const rectdomain<N> d = v.domain();
  bool ok = d.size() == r.size();
  EXPECT(f, d.size() == r.size(), chain << ": " << d.size() << " points, reference " << r.size());
  const auto mv = v.view();
  const point<N> lo = d.lower(), st = d.stride(), ms = v.memory_strides();
  for (const point<N>& q : d) {
    const auto it = r.find(q);
    if (it == r.end()) {
      EXPECT(f, false, chain << ": " << q << " is not in the reference");
      return false;
    }
    int* const want = &A[it->second];
    const point<N> k = (q - lo) / st;
    nd_index off = 0;
    for (int i = 0; i < N; ++i)
      off += k[i] * ms[i];
    const bool here = &v[q] == want && v.base() + off == want && &std::apply(mv, k.x) == want &&
                      &std::apply(v, q.x) == want;
    EXPECT(f, here, chain << ": " << q << " is not " << it->second);
    ok = ok && here;
  }
  return ok;
}

nd_index pick(std::mt19937& g, nd_index lo, nd_index hi) {  // in [lo, hi]
  return std::uniform_int_distribution<nd_index>(lo, hi)(g);
}
point<3> pick_point(std::mt19937& g, nd_index lo, nd_index hi) {
  return point<3>(pick(g, lo, hi), pick(g, lo, hi), pick(g, lo, hi));
}
int pick_dir(std::mt19937& g) {
  const int d = static_cast<int>(pick(g, 1, 3));
  return pick(g, 0, 1) ? d : -d;
}

// One random chain of views on A (strided layout), compared with the reference at each step.
void random_chain(failures& f, std::mt19937& g, const pgas::ndarray<int, 3>& A) {
  ref_map<3> r;
  for (const point<3>& p : A.domain())
    r.emplace(p, p);
  pgas::ndarray<int, 3> v = A;
  std::string chain = "A" + pgas::to_string(A.domain());
  for (int step = 0; step < 6; ++step) {
    ref_map<3> next;
    const rectdomain<3> d = v.domain();
    switch (pick(g, 0, 6)) {
      case 0: {
        const rectdomain<3> c(pick_point(g, -6, 6), pick_point(g, 4, 14), pick_point(g, 1, 3));
        chain += ".constrict(" + pgas::to_string(c) + ")";
        v = v.constrict(c);
        for (const auto& [q, p] : r)
          if (c.contains(q)) next.emplace(q, p);
        break;
      }
      case 1: {
        const point<3> t = pick_point(g, -5, 5);
        chain += ".translate(" + pgas::to_string(t) + ")";
        v = v.translate(t);
        for (const auto& [q, p] : r)
          next.emplace(q + t, p);
        break;
      }
      case 2: {
        const nd_index k = pick(g, 0, 1);
        const int dir = pick_dir(g);
        const bool all = pick(g, 0, 1) == 0;
        chain += ".shrink(" + std::to_string(k) + (all ? "" : ", " + std::to_string(dir)) + ")";
        v = all ? v.shrink(k) : v.shrink(k, dir);
        const rectdomain<3> s = all ? d.shrink(k) : d.shrink(k, dir);
        for (const auto& [q, p] : r)
          if (s.contains(q)) next.emplace(q, p);
        break;
      }
      case 3: {
        const nd_index k = pick(g, 1, 2), shift = pick(g, -2, 1);
        const int dir = pick_dir(g);
        chain += ".border(" + std::to_string(k) + ", " + std::to_string(dir) + ", " +
                 std::to_string(shift) + ")";
        v = v.border(k, dir, shift);
        const rectdomain<3> b = d.border(k, dir, shift);
        for (const auto& [q, p] : r)
          if (b.contains(q)) next.emplace(q, p);
        break;
      }
      case 4: {
        point<3> perm(0, 1, 2);
        std::shuffle(perm.x.begin(), perm.x.end(), g);
        chain += ".permute(" + pgas::to_string(perm) + ")";
        v = v.permute(perm);
        for (const auto& [q, p] : r)
          next.emplace(q.permute(perm), p);
        break;
      }
      case 5: {
        const point<3> s = pick_point(g, 1, 3);
        chain += ".inject(" + pgas::to_string(s) + ")";
        v = v.inject(s);
        for (const auto& [q, p] : r)
          next.emplace(q * s, p);
        break;
      }
      default: {
        const point<3> s = pick_point(g, 1, 3);
        bool divides = true;
        for (const auto& [q, p] : r)
          divides = divides && q / s * s == q;
        if (!divides) continue;
        chain += ".project(" + pgas::to_string(s) + ")";
        v = v.project(s);
        for (const auto& [q, p] : r)
          next.emplace(q / s, p);
        break;
      }
    }
    r = std::move(next);
    if (!same_as_reference(f, v, r, A, chain)) return;
  }
}

// Slices down to rank 1, each compared with the reference.
void slice_chain(failures& f, const pgas::ndarray<int, 3>& A) {
  const rectdomain<3> d = A.domain();
  for (int d0 = 0; d0 < 3; ++d0) {
    const nd_index v0 = d.lower()[d0] + d.stride()[d0] * (d.extent(d0) - 1);
    const auto s2 = A.slice(d0, v0);
    ref_map<2> r2;
    for (const point<3>& p : d)
      if (p[d0] == v0) r2.emplace(p.drop(d0), p);
    const std::string c2 = "A.slice(" + std::to_string(d0) + ", " + std::to_string(v0) + ")";
    if (!same_as_reference(f, s2, r2, A, c2)) return;
    for (int d1 = 0; d1 < 2; ++d1) {
      const auto t = s2.translate(point<2>(3, -2)).shrink(1, 1 + d1);
      if (t.empty()) continue;
      const nd_index v1 = t.domain().lower()[d1];
      const auto s1 = t.slice(d1, v1);
      ref_map<1> r1;
      for (const auto& [q, p] : r2) {
        const point<2> tq = q + point<2>(3, -2);
        if (t.domain().contains(tq) && tq[d1] == v1) r1.emplace(tq.drop(d1), p);
      }
      if (!same_as_reference(f, s1, r1, A, c2 + ".translate(...).shrink(...).slice(...)")) return;
    }
  }
}

// Unit-stride layouts keep their type through these views and index as the strided view does.
template <class Layout>
void unit_chain(failures& f, const pgas::ndarray<int, 3, pgas::global, Layout>& U,
                const pgas::ndarray<int, 3>& A) {
  const pgas::ndarray<int, 3, pgas::global, Layout> v =
      U.shrink(1)
          .translate(point<3>(1, -1, 2))
          .border(2, -2, -1)
          .constrict(rectdomain<3>({0, 0, 0}, {50, 50, 50}));
  const auto w = A.shrink(1)
                     .translate(point<3>(1, -1, 2))
                     .border(2, -2, -1)
                     .constrict(rectdomain<3>({0, 0, 0}, {50, 50, 50}));
  EXPECT(f, v.domain() == w.domain() && !v.empty(), v.domain() << " vs " << w.domain());
  bool same = true;
  pgas::foreach(w.domain(), [&](const point<3>& p) {
    same = same && &v[p] == &w[p] && &v(p[0], p[1], p[2]) == &w[p];
  });
  EXPECT(f, same, "unit-stride view");
}

void view_cases(failures& f, std::vector<pgas::ndarray<int, 3>>& dir) {
  const int me = pgas::mythread(), n = pgas::threads();
  // Each thread's piece: unit stride (thread 0, 2) or strided (thread 1), values unused.
  const rectdomain<3> mine = me % 2 == 0 ? rectdomain<3>({-2, 0, 1}, {5, 6, 9})
                                         : rectdomain<3>({-3, 1, 0}, {9, 10, 12}, {2, 3, 2});
  dir[static_cast<std::size_t>(me)] = pgas::ndarray<int, 3>(mine);
  pgas::barrier();
  const pgas::ndarray<int, 3> A = dir[static_cast<std::size_t>((me + 1) % n)];
  std::mt19937 g(static_cast<unsigned>(1234 + me));
  for (int c = 0; c < 150; ++c)
    random_chain(f, g, A);
  slice_chain(f, A);
  if (A.is_simple()) {
    unit_chain(f, A.as_layout<pgas::simple>(), A);
    unit_chain(f, A.as_layout<pgas::unstrided>(), A);
    const auto T = A.permute(point<3>(2, 1, 0));  // column-major, as unstrided
    unit_chain(f, T.as_layout<pgas::column_major>(), T.as_strided());
  }
  pgas::barrier();
  dir[static_cast<std::size_t>(me)] = pgas::ndarray<int, 3>();
}

}  // namespace

// Every point of V's domain, through A[p] and A(i, j, k), is the element that base() and
// memory_strides() name.
template <class V>
bool indexes_by_strides(failures& f, const V& v, const std::string& what) {
  bool ok = true;
  const point<3> lo = v.domain().lower(), ms = v.memory_strides();
  for (const point<3>& q : v.domain()) {
    const point<3> k = q - lo;
    auto* const want = v.base() + (k[0] * ms[0] + k[1] * ms[1] + k[2] * ms[2]);
    const bool here = &v[q] == want && &v(q[0], q[1], q[2]) == want;
    EXPECT(f, here, what << ": " << q << " is not the element its strides name");
    ok = ok && here;
  }
  return ok;
}

// Views whose domains lie far from the point 0 on either side: the unit-stride layouts index
// from the address of index 0, which then lies far outside the allocation (and wraps around
// the address space for a large positive lower bound).
template <class T>
void far_views(failures& f) {
  pgas::ndarray<T, 3> A(rectdomain<3>({-2, 0, 1}, {3, 4, 6}), pgas::padding{3});
  const auto S = A.template as_layout<pgas::simple>();
  const auto C = pgas::ndarray<T, 3, pgas::global, pgas::column_major>(A.domain());
  constexpr nd_index far = nd_index{1} << 40;
  for (const nd_index t : {far, -far, far + 7, -far - 5, nd_index{0}}) {
    const point<3> by(t, -t / 3, t / 5);
    const std::string what = "translate(" + pgas::to_string(by) + ")";
    if (!indexes_by_strides(f, A.translate(by), what + " strided")) return;
    if (!indexes_by_strides(f, S.translate(by), what + " simple")) return;
    if (!indexes_by_strides(f, S.translate(by).template as_layout<pgas::unstrided>(),
                            what + " unstrided")) {
      return;
    }
    if (!indexes_by_strides(f, C.translate(by), what + " column_major")) return;
    if (!indexes_by_strides(f, S.translate(by).shrink(1), what + ".shrink(1) simple")) return;
  }
}

TEST_CASE("ndarray views far from the point 0 index the elements their strides name") {
  failures f;
  REQUIRE(pgas::run(test_job(1), 0, nullptr, [&] {
            far_views<char>(f);
            far_views<int>(f);
            far_views<double>(f);
          }) == 0);
  check_no_failures(f);
}

TEST_CASE("ndarray views match an element-by-element reference, on another thread's piece") {
  for (int threads = 1; threads <= 3; ++threads) {
    INFO(threads << " threads");
    failures f;
    std::vector<pgas::ndarray<int, 3>> dir(static_cast<std::size_t>(threads));
    REQUIRE(pgas::run(test_job(threads), 0, nullptr, [&] { view_cases(f, dir); }) == 0);
    check_no_failures(f);
  }
}
