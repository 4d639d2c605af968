// Tests pgas/domain.hpp: general domains as unions of disjoint rectdomains — union,
// intersection and difference (exact for strided rectangles), equality of point sets,
// bounding_box, translate and permute, row-major iteration of the whole set, printing and
// misuse.

#include <pgas/domain.hpp>
#include <pgas/error.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>

#include "nd_model.hpp"

namespace {

using pgas::domain;
using pgas::nd_index;
using pgas::point;
using pgas::rectdomain;

TEST_CASE("the ring of a box is the box minus its interior", "[domain]") {
  const rectdomain<2> box({0, 0}, {8, 8});
  const domain<2> ring = box - box.shrink(1);
  CHECK(ring.size() == 28);
  CHECK(ring.contains({0, 5}));
  CHECK(ring.contains({7, 7}));
  CHECK_FALSE(ring.contains({1, 1}));
  CHECK(ring.bounding_box() == box);
  CHECK(ring + box.shrink(1) == domain<2>(box));
  CHECK((ring * box.shrink(1)).empty());
  CHECK(ring <= box);
  CHECK_FALSE(domain<2>(box) <= ring);
  const std::vector<point<2>> pts = points_of(ring);
  REQUIRE(pts.size() == 28);
  CHECK(pts[0] == point{0, 0});
  CHECK(pts[8] == point{1, 0});
  CHECK(pts[9] == point{1, 7});
  CHECK(pts[27] == point{7, 7});
}

TEST_CASE("the difference of strided rectangles is exact", "[domain]") {
  const domain<1> d = rectdomain<1>(0, 20) - rectdomain<1>(2, 20, 5);
  std::vector<point<1>> want;
  for (nd_index i = 0; i < 20; ++i)
    if (i < 2 || (i - 2) % 5 != 0) want.push_back(i);
  CHECK(points_of(d) == want);
  CHECK(d.size() == 16);
  const domain<1> e = rectdomain<1>(0, 100, 2) - rectdomain<1>(0, 100, 6);  // 2, 4, 8, 10, ...
  CHECK(e.size() == 33);
  CHECK(e.rects().size() == 2);  // two lattices of stride 6
}

TEST_CASE("neighbouring rectangles merge into one", "[domain]") {
  domain<2> row;
  for (nd_index j = 99; j >= 0; --j)  // one point at a time, backwards
    row += rectdomain<2>({3, j}, {4, j + 1});
  REQUIRE(row.rects().size() == 1);
  CHECK(row.rects()[0] == rectdomain<2>({3, 0}, {4, 100}));
  domain<2> grid;
  for (nd_index i = 0; i < 10; ++i)
    for (nd_index j = 0; j < 10; ++j)
      grid += rectdomain<2>({2 * i, j}, {2 * i + 1, j + 1});
  REQUIRE(grid.rects().size() == 1);
  CHECK(grid.rects()[0] == rectdomain<2>({0, 0}, {20, 10}, {2, 1}));
  CHECK((grid - rectdomain<2>({0, 0}, {20, 10}, {2, 1})).empty());
}

TEST_CASE("empty domains are equal whatever made them", "[domain]") {
  const domain<2> a, b = rectdomain<2>({1, 1}, {0, 0});
  const domain<2> c = rectdomain<2>({0, 0}, {3, 3}) - rectdomain<2>({-1, -1}, {5, 5});
  CHECK(a.empty());
  CHECK(b.empty());
  CHECK(c.empty());
  CHECK(a == b);
  CHECK(a == c);
  CHECK(a.begin() == a.end());
  CHECK(a.bounding_box().empty());
  CHECK(a.size() == 0);
}

TEST_CASE("translate and permute move every rectangle", "[domain]") {
  const domain<2> d = rectdomain<2>({0, 0}, {2, 2}) + rectdomain<2>({5, 0}, {6, 9}, {1, 3});
  CHECK(d.size() == 7);
  CHECK(d.translate({1, 1}) ==
        rectdomain<2>({1, 1}, {3, 3}) + rectdomain<2>({6, 1}, {7, 10}, {1, 3}));
  CHECK(d + point{1, 1} == d.translate({1, 1}));
  CHECK(d.translate({1, 1}) - point{1, 1} == d);
  CHECK(d.permute({1, 0}) == rectdomain<2>({0, 0}, {2, 2}) + rectdomain<2>({0, 5}, {9, 6}, {3, 1}));
}

TEST_CASE("domains print as {rect, ...}", "[domain]") {
  std::ostringstream os;
  os << domain<1>(rectdomain<1>(0, 2)) + rectdomain<1>(5, 6);
  CHECK(os.str() == "{[(0):(2):(1)], [(5):(6):(1)]}");
  CHECK(pgas::to_string(domain<2>()) == "{}");
  CHECK(fmt::format("{}", domain<1>(rectdomain<1>(0, 3))) == "{[(0):(3):(1)]}");
}

TEST_CASE("domain misuse outside a job throws usage_error naming the call site",
          "[domain][misuse]") {
  const domain<2> d = rectdomain<2>({0, 0}, {2, 2});
  try {
    (void)d.permute({0, 2});
    FAIL("no usage_error");
  } catch (const pgas::usage_error& e) {
    const std::string what = e.what();
    CHECK(what.find("(0, 2) is not a permutation of 0..1") != std::string::npos);
    CHECK(what.find("domain_test.cpp:") != std::string::npos);
  }
}

}  // namespace

namespace {

using model::nd_index;

// A random domain of one to four random rectangles joined, cut and intersected, with its
// model.
template <int N>
std::pair<domain<N>, model::set<N>> random_domain(std::mt19937& rng) {
  const model::raw<N> first = model::random_raw<N>(rng);
  domain<N> d = first.make();
  model::set<N> m = model::of(first);
  const int steps = std::uniform_int_distribution<int>(0, 3)(rng);
  for (int s = 0; s < steps; ++s) {
    const model::raw<N> r = model::random_raw<N>(rng);
    switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
      case 0:
      case 1:
        d += r.make();
        m = model::join(m, model::of(r));
        break;
      case 2:
        d -= r.make();
        m = model::minus(m, model::of(r));
        break;
      default:
        d *= r.make();
        m = model::meet(m, model::of(r));
    }
  }
  return {d, m};
}

// The representation the header promises: disjoint non-empty rectangles sorted by lower bound.
template <int N>
void check_rects(const domain<N>& d) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < d.rects().size(); ++i) {
    CHECK_FALSE(d.rects()[i].empty());
    total += d.rects()[i].size();
    if (i > 0) CHECK(pgas::lex_less()(d.rects()[i - 1].lower(), d.rects()[i].lower()));
    for (std::size_t j = 0; j < i; ++j)
      CHECK((d.rects()[i] * d.rects()[j]).empty());
  }
  CHECK(total == d.size());
}

// The smallest strided box around a set of points, computed from the points.
template <int N>
rectdomain<N> box_of(const model::set<N>& m) {
  if (m.empty()) return {};
  point<N> lo = *m.begin(), last = lo, st;
  for (const auto& p : m)
    lo = min(lo, point<N>(p)), last = max(last, point<N>(p));
  for (const auto& p : m)
    for (int d = 0; d < N; ++d)
      st[d] = std::gcd(st[d], p[d] - lo[d]);
  for (int d = 0; d < N; ++d)
    if (st[d] == 0) st[d] = 1;
  return rectdomain<N>(lo, last + 1, st);
}

template <int N>
void check_random_domains(int trials) {
  std::mt19937 rng(1128 + N);
  for (int t = 0; t < trials; ++t) {
    const auto [D, md] = random_domain<N>(rng);
    const auto [E, me] = random_domain<N>(rng);
    INFO("D = " << D << ", E = " << E);
    check_rects(D);
    model::check_points(D, md, rng);
    CHECK(D.bounding_box() == box_of<N>(md));

    const domain<N> u = D + E, i = D * E, dm = D - E, em = E - D;
    check_rects(u);
    check_rects(i);
    check_rects(dm);
    CHECK(model::iterated(u) == model::join(md, me));
    CHECK(model::iterated(i) == model::meet(md, me));
    CHECK(model::iterated(dm) == model::minus(md, me));
    CHECK(model::iterated(em) == model::minus(me, md));
    CHECK((D == E) == (md == me));
    CHECK((D <= E) == std::includes(me.begin(), me.end(), md.begin(), md.end()));
    CHECK((D >= E) == std::includes(md.begin(), md.end(), me.begin(), me.end()));

    // Rectangles on either side, and rectangle with rectangle.
    const model::raw<N> a = model::random_raw<N>(rng), b = model::random_raw<N>(rng);
    const model::set<N> ma = model::of(a), mb = model::of(b);
    CHECK(model::iterated(a.make() + b.make()) == model::join(ma, mb));
    CHECK(model::iterated(a.make() - b.make()) == model::minus(ma, mb));
    CHECK(model::iterated(a.make() - D) == model::minus(ma, md));
    CHECK(model::iterated(D - a.make()) == model::minus(md, ma));
    CHECK(model::iterated(a.make() * D) == model::meet(ma, md));
    CHECK(model::iterated(D + a.make()) == model::join(md, ma));

    const auto by = model::random_point<N>(rng);
    CHECK(model::iterated(D.translate(by)) == model::moved(md, by));
    CHECK(D + point<N>(by) - point<N>(by) == D);
    const point<N> perm = model::random_permutation<N>(rng);
    CHECK(model::iterated(D.permute(perm)) == model::permuted<N>(md, perm));
  }
}

TEST_CASE("the domain algebra agrees with sets of points on random strided domains",
          "[domain][model]") {
  check_random_domains<1>(1500);
  check_random_domains<2>(800);
  check_random_domains<3>(250);
}

}  // namespace
