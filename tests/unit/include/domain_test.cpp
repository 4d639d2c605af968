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
