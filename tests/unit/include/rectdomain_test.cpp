// Tests pgas/rectdomain.hpp: the normal form (exclusive upper bound moved past the last point,
// every empty domain equal), accessors, row-major iteration, Titanium's shrink/accrete/border
// with signed 1-based directions, intersection of strided domains, permute and slice, printing,
// constant evaluation and every documented misuse (outside a job, and ending a job inside one);
// then every operation against a brute-force model (a std::set of points) on thousands of random
// strided domains of rank 1 to 3.

#include <pgas/error.hpp>
#include <pgas/rectdomain.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sync.hpp>

#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>

#include "../misuse_child.hpp"
#include "nd_model.hpp"

namespace {

using pgas::nd_index;
using pgas::point;
using pgas::rectdomain;

constexpr rectdomain<2> grid({0, 0}, {4, 6});
static_assert(grid.size() == 24);
static_assert(grid.contains({3, 5}) && !grid.contains({4, 0}));
static_assert(grid.shrink(1) == rectdomain<2>({1, 1}, {3, 5}));
static_assert(rectdomain<1>(0, 10, 3).upper() == point<1>(12));
static_assert((rectdomain<2>({0, 0}, {10, 10}, {2, 3}) * rectdomain<2>({1, 0}, {10, 10}, {3, 2})) ==
              rectdomain<2>({4, 0}, {10, 7}, {6, 6}));
static_assert(rectdomain<2>({5, 5}, {1, 9}) == rectdomain<2>());
static_assert(sizeof(rectdomain<3>) == 9 * sizeof(nd_index));

TEST_CASE("a rectdomain is normalised when made", "[rectdomain]") {
  const rectdomain<2> r({1, 1}, {5, 6}, {2, 2});
  CHECK(r.lower() == point{1, 1});
  CHECK(r.upper() == point{5, 7});
  CHECK(r.last() == point{3, 5});
  CHECK(r.stride() == point{2, 2});
  CHECK(r.extent(0) == 2);
  CHECK(r.extent(1) == 3);
  CHECK(r.extents() == point{2, 3});
  CHECK(r.size() == 6);
  CHECK_FALSE(r.empty());
  CHECK(r == rectdomain<2>({1, 1}, {4, 7}, {2, 2}));
  CHECK(r.contains({3, 5}));
  CHECK_FALSE(r.contains({2, 5}));
  CHECK_FALSE(r.contains({5, 5}));
  CHECK_FALSE(r.contains({-1, 1}));

  const rectdomain<2> e1({3, 3}, {3, 9}), e2({0, 5}, {-4, 6}, {3, 1}), e0;
  for (const auto& e : {e1, e2, e0}) {
    CHECK(e.empty());
    CHECK(e.size() == 0);
    CHECK(e.lower() == point{0, 0});
    CHECK(e.upper() == point{0, 0});
    CHECK(e.stride() == point{1, 1});
    CHECK(e == e0);
    CHECK(e.begin() == e.end());
    CHECK_FALSE(e.contains({0, 0}));
  }
  CHECK(r != e0);
  // One point along a dimension: its stride does not change the set.
  CHECK(rectdomain<2>({0, 2}, {3, 3}, {1, 7}) == rectdomain<2>({0, 2}, {3, 3}));
  CHECK(rectdomain<1>(0, 4, 4) != rectdomain<1>(0, 4, 1));
  CHECK(rectdomain<1>(0, 1, 4).upper() == point<1>(4));
}

TEST_CASE("iteration is row-major, last dimension fastest", "[rectdomain]") {
  const rectdomain<3> r({0, -1, 4}, {2, 1, 8}, {1, 1, 3});
  const std::vector<point<3>> want = {{0, -1, 4}, {0, -1, 7}, {0, 0, 4}, {0, 0, 7},
                                      {1, -1, 4}, {1, -1, 7}, {1, 0, 4}, {1, 0, 7}};
  CHECK(points_of(r) == want);
  CHECK(points_of(rectdomain<1>(-2, 3, 2)) == std::vector<point<1>>{-2, 0, 2});
  nd_index n = 0;
  for (point<3> p : r)
    n += p[2];
  CHECK(n == 44);
  static_assert(std::forward_iterator<rectdomain<2>::iterator>);
}

TEST_CASE("shrink, accrete and border take Titanium's signed 1-based directions", "[rectdomain]") {
  const rectdomain<2> r({0, 0}, {8, 10}, {1, 2});
  CHECK(r.shrink(1) == rectdomain<2>({1, 2}, {7, 8}, {1, 2}));
  CHECK(r.shrink(2, 1) == rectdomain<2>({0, 0}, {6, 10}, {1, 2}));
  CHECK(r.shrink(2, -1) == rectdomain<2>({2, 0}, {8, 10}, {1, 2}));
  CHECK(r.shrink(1, 2) == rectdomain<2>({0, 0}, {8, 8}, {1, 2}));
  CHECK(r.shrink(1, -2) == rectdomain<2>({0, 2}, {8, 10}, {1, 2}));
  CHECK(r.shrink(5).empty());
  CHECK(r.shrink(-1) == r.accrete(1));
  CHECK(r.accrete(1) == rectdomain<2>({-1, -2}, {9, 12}, {1, 2}));
  CHECK(r.accrete(3, -2) == rectdomain<2>({0, -6}, {8, 10}, {1, 2}));
  CHECK(r.accrete(1, 1) == rectdomain<2>({0, 0}, {9, 10}, {1, 2}));
  CHECK(r.shrink(5).accrete(5).empty());
  // One point with stride 4: accrete steps by the stride.
  CHECK(rectdomain<1>(0, 1, 4).accrete(1) == rectdomain<1>(-4, 5, 4));

  // r's own layers along a side, and (shift k) the ghost layers beyond it.
  CHECK(r.border(1, 1) == rectdomain<2>({7, 0}, {8, 10}, {1, 2}));
  CHECK(r.border(2, -1) == rectdomain<2>({0, 0}, {2, 10}, {1, 2}));
  CHECK(r.border(1, 2) == rectdomain<2>({0, 8}, {8, 10}, {1, 2}));
  CHECK(r.border(1, -2) == rectdomain<2>({0, 0}, {8, 2}, {1, 2}));
  CHECK(r.border(1, 1, 1) == rectdomain<2>({8, 0}, {9, 10}, {1, 2}));
  CHECK(r.border(2, -1, 2) == rectdomain<2>({-2, 0}, {0, 10}, {1, 2}));
  CHECK(r.border(1, 2, 1) == rectdomain<2>({0, 10}, {8, 12}, {1, 2}));
  CHECK(r.border(1, -2, -1) == rectdomain<2>({0, 2}, {8, 4}, {1, 2}));
  CHECK(r.border(2, 1, 3) == rectdomain<2>({9, 0}, {11, 10}, {1, 2}));
  CHECK(r.border(10, 1) == rectdomain<2>({-2, 0}, {8, 10}, {1, 2}));
  CHECK(r.border(0, 1).empty());
  CHECK(rectdomain<2>().border(1, 1).empty());
  CHECK(rectdomain<2>().accrete(1).empty());
}

TEST_CASE("intersection is exact for any strides", "[rectdomain]") {
  const rectdomain<1> a(0, 30, 4), b(1, 30, 6);  // 4k and 1 + 6m never meet (parity)
  CHECK((a * b).empty());
  const rectdomain<1> c(2, 30, 6);  // 2, 8, 14, 20, 26 ∩ 0, 4, ..., 28 = 8, 20
  CHECK(a * c == rectdomain<1>(8, 21, 12));
  CHECK(points_of(a * c) == std::vector<point<1>>{8, 20});
  const rectdomain<2> r({0, 0}, {4, 4}), s({2, 3}, {9, 9});
  CHECK(r * s == rectdomain<2>({2, 3}, {4, 4}));
  CHECK((r * rectdomain<2>({4, 0}, {5, 5})).empty());
  CHECK((r * rectdomain<2>()).empty());
  CHECK(rectdomain<2>({2, 3}, {4, 4}) <= r);
  CHECK(r >= rectdomain<2>({2, 3}, {4, 4}));
  CHECK_FALSE(s <= r);
  CHECK(rectdomain<2>() <= r);
  CHECK(rectdomain<1>(0, 9, 4) <= rectdomain<1>(0, 9, 2));
  CHECK_FALSE(rectdomain<1>(0, 9, 2) <= rectdomain<1>(0, 9, 4));
}

TEST_CASE("translate, permute and slice", "[rectdomain]") {
  const rectdomain<3> r({0, 1, 2}, {2, 4, 9}, {1, 1, 3});
  CHECK(r.translate({1, -1, 5}) == rectdomain<3>({1, 0, 7}, {3, 3, 14}, {1, 1, 3}));
  CHECK(r + point{1, -1, 5} == r.translate({1, -1, 5}));
  CHECK(r - point{1, 1, 1} == r.translate({-1, -1, -1}));
  CHECK(rectdomain<3>().translate({1, 1, 1}).empty());
  CHECK(r.permute({2, 0, 1}) == rectdomain<3>({2, 0, 1}, {9, 2, 4}, {3, 1, 1}));
  CHECK(r.slice(0) == rectdomain<2>({1, 2}, {4, 9}, {1, 3}));
  CHECK(r.slice(2) == rectdomain<2>({0, 1}, {2, 4}));
  CHECK(rectdomain<3>().slice(1).empty());
}

TEST_CASE("rectdomains print as [lower:upper:stride]", "[rectdomain]") {
  std::ostringstream os;
  os << rectdomain<2>({0, 0}, {4, 4});
  CHECK(os.str() == "[(0, 0):(4, 4):(1, 1)]");
  CHECK(pgas::to_string(rectdomain<1>(1, 6, 2)) == "[(1):(7):(2)]");
  CHECK(fmt::format("{}", rectdomain<2>({3, 3}, {0, 0})) == "[(0, 0):(0, 0):(1, 1)]");
}

TEST_CASE("rectdomain misuse outside a job throws usage_error naming the call site",
          "[rectdomain][misuse]") {
  const rectdomain<2> r({0, 0}, {4, 4});
  std::string what = misuse_text([] { (void)rectdomain<2>({0, 0}, {4, 4}, {1, 0}); });
  CHECK(what.find("pgas::rectdomain: stride (1, 0) has a component below 1") != std::string::npos);
  CHECK(what.find("rectdomain_test.cpp:") != std::string::npos);
  what = misuse_text([&] { (void)r.shrink(1, 3); });
  CHECK(what.find("pgas::rectdomain::shrink: direction 3 is out of [-2, -1] and [1, 2]") !=
        std::string::npos);
  CHECK(what.find("rectdomain_test.cpp:") != std::string::npos);
  CHECK(misuse_text([&] { (void)r.accrete(1, -3); }).find("accrete: direction -3") !=
        std::string::npos);
  CHECK(misuse_text([&] { (void)r.border(1, 0); }).find("border: direction 0") !=
        std::string::npos);
  what = misuse_text([&] { (void)r.slice(2); });
  CHECK(what.find("pgas::rectdomain::slice: dimension 2 is out of [0, 2)") != std::string::npos);
  CHECK(what.find("rectdomain_test.cpp:") != std::string::npos);
  what = misuse_text([&] { (void)r.permute({1, 1}); });
  CHECK(what.find("(1, 1) is not a permutation of 0..1") != std::string::npos);
  CHECK(what.find("rectdomain_test.cpp:") != std::string::npos);
  // Misuse of an empty domain is still misuse.
  CHECK_THROWS_AS(rectdomain<2>().shrink(1, 5), pgas::usage_error);
}

}  // namespace

namespace {

using model::nd_index;

// The normal form of the header: the empty domain is the origin's, a non-empty one ends just
// past its last point.
template <int N>
void check_normal(const rectdomain<N>& r) {
  if (r.empty()) {
    CHECK(r.lower() == point<N>());
    CHECK(r.upper() == point<N>());
    CHECK(r.stride() == point<N>::all(1));
  } else {
    CHECK(r.upper() == r.lower() + r.extents() * r.stride());
    CHECK(r.last() + r.stride() == r.upper());
  }
}

// Side dir of the coordinate lists moved outward by k layers of the stride (inward when
// k < 0). A rectangle without points stays without.
template <int N>
model::coords<N> moved_side(model::coords<N> c, const std::array<nd_index, N>& st, int dir,
                            nd_index k) {
  for (const auto& axis : c)
    if (axis.empty()) return c;
  const auto d = static_cast<std::size_t>(dir > 0 ? dir - 1 : -dir - 1);
  auto& axis = c[d];
  for (nd_index j = 0; j < k; ++j)
    if (dir > 0)
      axis.push_back(axis.back() + st[d]);
    else
      axis.insert(axis.begin(), axis.front() - st[d]);
  for (nd_index j = 0; j < -k && !axis.empty(); ++j)
    if (dir > 0)
      axis.pop_back();
    else
      axis.erase(axis.begin());
  return c;
}

template <int N>
model::set<N> border_model(model::coords<N> c, const std::array<nd_index, N>& st, nd_index k,
                           int dir, nd_index shift) {
  for (const auto& axis : c)
    if (axis.empty()) return {};
  const auto d = static_cast<std::size_t>(dir > 0 ? dir - 1 : -dir - 1);
  std::vector<nd_index> layers;
  for (nd_index j = 0; j < k; ++j)
    layers.push_back(dir > 0 ? c[d].back() + st[d] * (shift - k + 1 + j)
                             : c[d].front() - st[d] * (shift - j));
  c[d] = layers;
  return model::product<N>(c);
}

template <int N>
void check_random_rectdomains(int trials) {
  std::mt19937 rng(20261128 + N);
  std::uniform_int_distribution<int> dir_of(1, N), coin(0, 1);
  std::uniform_int_distribution<nd_index> k_of(-2, 3), shift_of(-3, 2);
  for (int t = 0; t < trials; ++t) {
    const model::raw<N> a = model::random_raw<N>(rng), b = model::random_raw<N>(rng);
    const rectdomain<N> A = a.make(), B = b.make();
    const model::set<N> ma = model::of(a), mb = model::of(b);
    INFO("A = " << A << " from " << point<N>(a.lo) << point<N>(a.hi) << point<N>(a.st)
                << ", B = " << B);
    check_normal(A);
    model::check_points(A, ma, rng);
    if (!ma.empty()) {
      CHECK(A.lower().x == *ma.begin());
      CHECK(A.last().x == *ma.rbegin());
      // The same set from another exclusive upper bound is the same domain.
      point<N> hi = A.last() + 1;
      for (int d = 0; d < N; ++d)
        hi[d] += std::uniform_int_distribution<nd_index>(0, A.stride()[d] - 1)(rng);
      CHECK(rectdomain<N>(A.lower(), hi, A.stride()) == A);
    }

    const rectdomain<N> AB = A * B;
    check_normal(AB);
    CHECK(model::iterated(AB) == model::meet(ma, mb));
    CHECK((A == B) == (ma == mb));
    CHECK((A <= B) == std::includes(mb.begin(), mb.end(), ma.begin(), ma.end()));
    CHECK((A >= B) == std::includes(ma.begin(), ma.end(), mb.begin(), mb.end()));

    const auto by = model::random_point<N>(rng);
    CHECK(model::iterated(A.translate(by)) == model::moved(ma, by));
    CHECK(A + point<N>(by) == A.translate(by));

    const int dir = coin(rng) ? dir_of(rng) : -dir_of(rng);
    const nd_index k = k_of(rng), shift = shift_of(rng);
    INFO("dir " << dir << " k " << k << " shift " << shift);
    const model::coords<N> axes = a.axes();
    check_normal(A.shrink(k, dir));
    CHECK(model::iterated(A.shrink(k, dir)) == model::product(moved_side<N>(axes, a.st, dir, -k)));
    CHECK(model::iterated(A.accrete(k, dir)) == model::product(moved_side<N>(axes, a.st, dir, k)));
    model::coords<N> all_sides = axes;
    for (int d = 1; d <= N; ++d)
      all_sides = moved_side<N>(moved_side<N>(all_sides, a.st, d, -k), a.st, -d, -k);
    CHECK(model::iterated(A.shrink(k)) == model::product(all_sides));
    CHECK(A.accrete(k) == A.shrink(-k));
    check_normal(A.border(k, dir, shift));
    CHECK(model::iterated(A.border(k, dir, shift)) == border_model<N>(axes, a.st, k, dir, shift));

    const point<N> perm = model::random_permutation<N>(rng);
    CHECK(model::iterated(A.permute(perm)) == model::permuted<N>(ma, perm));
    if constexpr (N >= 2) {
      const int d = dir_of(rng) - 1;
      model::set<N - 1> sliced;
      for (const auto& p : ma)
        sliced.insert(point<N>(p).drop(d).x);
      CHECK(model::iterated(A.slice(d)) == sliced);
    }
  }
}

TEST_CASE("every operation agrees with a set of points on random strided domains",
          "[rectdomain][model]") {
  check_random_rectdomains<1>(3000);
  check_random_rectdomains<2>(2000);
  check_random_rectdomains<3>(600);
}

}  // namespace

// Inside a job, misuse ends the job naming the thread, the call's file and line.
namespace {

void bad_stride() {
  if (pgas::mythread() == 1) {
    misuse_announce(__LINE__ + 1);
    (void)rectdomain<2>({0, 0}, {4, 4}, {2, -1});
  }
  pgas::barrier();
}

void bad_direction() {
  const rectdomain<3> r({0, 0, 0}, {4, 4, 4});
  if (pgas::mythread() == 1) {
    misuse_announce(__LINE__ + 1);
    (void)r.border(1, -4);
  }
  pgas::barrier();
}

constexpr misuse_child_case child_cases[] = {
    {"bad_stride", 2, bad_stride},
    {"bad_direction", 2, bad_direction},
};

}  // namespace

// Run only as a child of the test below (hidden: the tag starts with a dot).
TEST_CASE("rectdomain misuse child", "[.rectdomain_child]") {
  misuse_child_main(child_cases, "RECTDOMAIN_TEST_CASE");
}

TEST_CASE("rectdomain misuse inside a job ends it naming the thread and the call's line",
          "[rectdomain][misuse]") {
  for (const auto& [name, what] :
       {std::pair<std::string, std::string>{"bad_stride", "stride (2, -1) has a component below 1"},
        {"bad_direction", "pgas::rectdomain::border: direction -4 is out of [-3, -1] and [1, 3]"}})
    misuse_child_check("rectdomain_test", "rectdomain misuse child", "RECTDOMAIN_TEST_CASE", name,
                       "thread 1 of 2", what, "rectdomain_test.cpp");
}
