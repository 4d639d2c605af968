// Tests pgas::foreach and pgas::foreach_n (pgas/foreach.hpp): over random rectdomains of
// ranks 1 to 4, with unit and other strides, and empty ones, both loops visit exactly the
// domain's points, each once, in row-major order (the domain's own iteration order);
// foreach over a general domain visits its points in its iteration order; the loops run
// outside a job too.

#include <pgas/foreach.hpp>

#include <random>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using pgas::nd_index;
using pgas::point;
using pgas::rectdomain;

template <int N>
point<N> random_point(std::mt19937& g, nd_index lo, nd_index hi) {
  point<N> p;
  for (int d = 0; d < N; ++d)
    p[d] = std::uniform_int_distribution<nd_index>(lo, hi)(g);
  return p;
}

template <int N>
void check_random_domains(std::mt19937& g) {
  for (int c = 0; c < 200; ++c) {
    const rectdomain<N> d(random_point<N>(g, -5, 3), random_point<N>(g, -2, 6),
                          random_point<N>(g, 1, 3));
    INFO(d);
    std::vector<point<N>> want(d.begin(), d.end());
    std::vector<point<N>> got;
    pgas::foreach(d, [&](const point<N>& p) { got.push_back(p); });
    CHECK(got == want);
    std::vector<point<N>> got_n;
    pgas::foreach_n(d, [&](auto... i) { got_n.push_back(point<N>(i...)); });
    CHECK(got_n == want);
  }
}

}  // namespace

TEST_CASE("foreach and foreach_n visit a rectdomain's points once each, in row-major order") {
  std::mt19937 g(42);
  check_random_domains<1>(g);
  check_random_domains<2>(g);
  check_random_domains<3>(g);
  check_random_domains<4>(g);
}

TEST_CASE("foreach_n passes nd_index coordinates from nested loops, last dimension innermost") {
  std::vector<std::array<nd_index, 3>> seen;
  pgas::foreach_n(rectdomain<3>({0, 1, 2}, {2, 3, 7}, {1, 1, 2}),
                  [&](nd_index i, nd_index j, nd_index k) {
                    seen.push_back({i, j, k});
                  });
  const std::vector<std::array<nd_index, 3>> want{{0, 1, 2}, {0, 1, 4}, {0, 1, 6}, {0, 2, 2},
                                                  {0, 2, 4}, {0, 2, 6}, {1, 1, 2}, {1, 1, 4},
                                                  {1, 1, 6}, {1, 2, 2}, {1, 2, 4}, {1, 2, 6}};
  CHECK(seen == want);
  int calls = 0;
  pgas::foreach_n(rectdomain<2>({0, 0}, {0, 5}), [&](nd_index, nd_index) { ++calls; });
  pgas::foreach(rectdomain<2>({3, 3}, {1, 5}), [&](const point<2>&) { ++calls; });
  CHECK(calls == 0);
}

TEST_CASE("foreach over a general domain visits its points in its iteration order") {
  const pgas::domain<2> d = rectdomain<2>({0, 0}, {4, 4}) + rectdomain<2>({2, 2}, {6, 7}, {1, 2}) -
                            rectdomain<2>({1, 1}, {2, 3});
  std::vector<point<2>> want(d.begin(), d.end());
  std::vector<point<2>> got;
  pgas::foreach(d, [&](const point<2>& p) { got.push_back(p); });
  CHECK(got == want);
  CHECK(got.size() == d.size());
  std::vector<point<2>> none;
  pgas::foreach(pgas::domain<2>(), [&](const point<2>& p) { none.push_back(p); });
  CHECK(none.empty());
}
