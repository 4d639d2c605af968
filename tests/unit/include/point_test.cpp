// Tests pgas/point.hpp: construction (variadic, braces, deduction guide, all, direction),
// element-wise arithmetic with Titanium's floor division, the every-dimension comparisons and
// the row-major lex_less, min/max, permute/replace/drop, printing (operator<<, to_string, fmt),
// constant evaluation, and every documented misuse outside a job (usage_error naming the call).

#include <pgas/error.hpp>
#include <pgas/point.hpp>

#include <set>
#include <sstream>
#include <string>
#include <type_traits>

#include <fmt/core.h>
#include <catch2/catch.hpp>

#include "nd_model.hpp"

namespace {

using pgas::nd_index;
using pgas::point;

// Everything is usable in constant expressions.
static_assert(point<3>().x == std::array<nd_index, 3>{0, 0, 0});
static_assert(point{1, 2} + point{3, 4} == point{4, 6});
static_assert(point<2>{{1, 2}}.x[1] == 2);
static_assert(std::is_same_v<decltype(point(1, 2, 3)), point<3>>);
static_assert(point<3>::direction(-2, 5) == point{0, -5, 0});
static_assert(point<2>::all(7) == point{7, 7});
static_assert(point<1>::rank == 1 && point<4>::rank == 4);
static_assert(point{-7, 7, 6, -6} / 2 == point{-4, 3, 3, -3});
static_assert(point{1, 2, 3}.permute({2, 0, 1}) == point{3, 1, 2});
static_assert(point{1, 2, 3}.drop(1) == point{1, 3});
static_assert(sizeof(point<3>) == 3 * sizeof(nd_index));

TEST_CASE("points are made from N integers, braces, all() and direction()", "[point]") {
  point<3> p(-1, 3, 2);
  CHECK(p[0] == -1);
  CHECK(p[1] == 3);
  CHECK(p[2] == 2);
  point<3> q = {{-1, 3, 2}};
  CHECK(p == q);
  point<1> one = 5;  // a point of rank 1 converts from an integer
  CHECK(one[0] == 5);
  unsigned char small = 200;
  CHECK(point<2>(small, 3L) == point{200, 3});
  CHECK(point<2>::direction(1) == point{1, 0});
  CHECK(point<2>::direction(-1) == point{-1, 0});
  CHECK(point<2>::direction(2, 3) == point{0, 3});
  p[1] = 9;
  CHECK(p == point{-1, 9, 2});
}

TEST_CASE("arithmetic is element-wise; division rounds toward -infinity", "[point]") {
  const point<2> p(7, -7), q(2, 3);
  CHECK(p + q == point{9, -4});
  CHECK(p - q == point{5, -10});
  CHECK(p * q == point{14, -21});
  CHECK(p / q == point{3, -3});
  CHECK(-p == point{-7, 7});
  CHECK(p + 1 == point{8, -6});
  CHECK(1 - p == point{-6, 8});
  CHECK(p * 2 == point{14, -14});
  CHECK(p / -2 == point{-4, 3});
  CHECK(point{-1, 1} / point{3, -3} == point{-1, -1});
  CHECK(point{6, -6} / point{3, -3} == point{2, 2});
  point<2> r = p;
  r += q;
  r -= 1;
  r *= point{1, 2};
  r /= 2;
  CHECK(r == point{4, -5});
}

TEST_CASE("comparisons hold in every dimension; lex_less orders row-major", "[point]") {
  const point<2> a(1, 1), b(2, 2), c(0, 3);
  CHECK(a < b);
  CHECK(a <= b);
  CHECK(b > a);
  CHECK(b >= a);
  CHECK(a <= a);
  CHECK_FALSE(a < a);
  CHECK_FALSE(a < c);  // neither is below the other
  CHECK_FALSE(c < a);
  CHECK(a != c);
  CHECK(min(a, c) == point{0, 1});
  CHECK(max(a, c) == point{1, 3});
  pgas::lex_less less;
  CHECK(less(c, a));
  CHECK(less(a, point{1, 2}));
  CHECK_FALSE(less(a, a));
  std::set<point<2>, pgas::lex_less> s{b, a, c, a};
  CHECK(s.size() == 3);
  CHECK(*s.begin() == c);
}

TEST_CASE("permute, replace and drop", "[point]") {
  const point<4> p(10, 11, 12, 13);
  CHECK(p.permute({3, 2, 1, 0}) == point{13, 12, 11, 10});
  CHECK(p.permute({0, 1, 2, 3}) == p);
  CHECK(p.replace(2, -1) == point{10, 11, -1, 13});
  CHECK(p.drop(0) == point{11, 12, 13});
  CHECK(p.drop(3) == point{10, 11, 12});
  CHECK(point{4, 5}.drop(1) == point<1>(4));
}

TEST_CASE("points print as (x0, x1, ...)", "[point]") {
  std::ostringstream os;
  os << point{1, -2, 3};
  CHECK(os.str() == "(1, -2, 3)");
  CHECK(pgas::to_string(point<1>(4)) == "(4)");
  CHECK(fmt::format("{} and {}", point{0, 0}, point{-1, 5}) == "(0, 0) and (-1, 5)");
}

TEST_CASE("misuse outside a job throws usage_error naming the call site", "[point][misuse]") {
  const point<3> p(1, 2, 3);
  std::string what = misuse_text([&] { (void)point<3>::direction(4); });
  CHECK(what.find("direction 4 is out of [-3, -1] and [1, 3]") != std::string::npos);
  CHECK(what.find("point_test.cpp:") != std::string::npos);
  CHECK(misuse_text([&] { (void)point<3>::direction(0); }).find("direction 0") !=
        std::string::npos);
  what = misuse_text([&] { (void)p.permute({0, 0, 1}); });
  CHECK(what.find("(0, 0, 1) is not a permutation of 0..2") != std::string::npos);
  CHECK(what.find("point_test.cpp:") != std::string::npos);
  CHECK(misuse_text([&] {
          (void)p.permute({0, 1, 3});
        }).find("not a permutation") != std::string::npos);
  what = misuse_text([&] { (void)p.drop(3); });
  CHECK(what.find("pgas::point::drop: dimension 3 is out of [0, 3)") != std::string::npos);
  CHECK(what.find("point_test.cpp:") != std::string::npos);
  CHECK(misuse_text([&] { (void)p.replace(-1, 0); }).find("dimension -1") != std::string::npos);
  CHECK(misuse_text([&] {
          (void)(p / point{1, 0, 1});
        }).find("division of (1, 2, 3) by (1, 0, 1), which has a zero index") != std::string::npos);
}

}  // namespace
