// Tests pgas::ndarray's checked indexing (pgas/ndarray.hpp): built with
// -DPGAS_NDARRAY_BOUNDS_CHECK=1, the per-program switch (the checked build, config::bounds_check,
// turns the same checks on everywhere), so it runs in every build. A point outside the domain —
// by A[p] or A(i, j), of an array, a view, a strided domain's off-lattice point, the null array,
// another thread's piece — ends the job naming the thread, the file and line of the index
// expression, the point and the domain; every point inside passes.

#include <pgas/ndarray.hpp>
#include <pgas/pgas.hpp>

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../misuse_child.hpp"
#include "../test_job.hpp"

static_assert(pgas::detail::nd_checked, "built without -DPGAS_NDARRAY_BOUNDS_CHECK=1");

namespace {

using pgas::point;
using pgas::rectdomain;

const rectdomain<2> grid({0, 0}, {4, 6});

// Thread 1 runs the misuse while thread 0 waits at the barrier.
template <class F>
void on_thread1(F f) {
  if (pgas::mythread() == 1) f();
  pgas::barrier();
}

std::vector<pgas::ndarray<int, 2>> pieces(2);

constexpr misuse_child_case child_cases[] = {
    {"point", 2,
     [] {
       const pgas::ndarray<int, 2> a(grid);
       on_thread1([&] {
         misuse_announce(__LINE__ + 1);
         a[point<2>(4, 0)] = 1;
       });
     }},
    {"integers", 2,
     [] {
       const pgas::ndarray<int, 2, pgas::local, pgas::simple> a(grid);
       on_thread1([&] {
         misuse_announce(__LINE__ + 1);
         a(1, 6) = 1;
       });
     }},
    {"view", 2,
     [] {
       const pgas::ndarray<int, 2> a(grid);
       on_thread1([&] {
         const auto inner = a.shrink(1);
         misuse_announce(__LINE__ + 1);
         (void)inner(0, 2);
       });
     }},
    {"off_lattice", 2,
     [] {
       const pgas::ndarray<int, 2> s(rectdomain<2>({0, 0}, {8, 8}, {2, 2}));
       on_thread1([&] {
         misuse_announce(__LINE__ + 1);
         (void)s(2, 3);
       });
     }},
    {"null", 2,
     [] {
       on_thread1([] {
         const pgas::ndarray<double, 2> n;
         misuse_announce(__LINE__ + 1);
         (void)n(0, 0);
       });
     }},
    {"remote", 2,
     [] {
       pieces[static_cast<std::size_t>(pgas::mythread())] = pgas::ndarray<int, 2>(grid);
       pgas::barrier();
       on_thread1([] {
         const pgas::ndarray<int, 2> theirs = pieces[0].constrict(rectdomain<2>({1, 1}, {3, 3}));
         misuse_announce(__LINE__ + 1);
         theirs[point<2>(3, 1)] = 1;
       });
     }},
};

void check_misuse(const std::string& name, const std::string& what) {
  misuse_child_check("ndarray_checked_test", "ndarray checked child", "NDARRAY_CHECKED_CASE", name,
                     "thread 1 of 2", what, "ndarray_checked_test.cpp");
}

}  // namespace

// Run only as a child of check_misuse() (hidden: the tag starts with a dot).
TEST_CASE("ndarray checked child", "[.ndarray_checked_child]") {
  misuse_child_main(child_cases, "NDARRAY_CHECKED_CASE");
}

TEST_CASE("checked ndarray indexing accepts every point of the domain") {
  failures f;
  REQUIRE(pgas::run(test_job(2), 0, nullptr, [&] {
            const pgas::ndarray<int, 2> a(grid);
            const pgas::ndarray<int, 2> s(rectdomain<2>({-3, 1}, {8, 8}, {2, 3}));
            long sum = 0;
            pgas::foreach(grid, [&](const point<2>& p) { sum += a[p] + a(p[0], p[1]); });
            pgas::foreach(s.domain(), [&](const point<2>& p) { sum += s[p] + s(p[0], p[1]); });
            pgas::foreach(grid.shrink(1), [&](const point<2>& p) { sum += a.shrink(1)[p]; });
            EXPECT(f, sum == 0, "sum " << sum);
          }) == 0);
  check_no_failures(f);
}

TEST_CASE("checked ndarray indexing outside the domain names thread, line, point and domain") {
  check_misuse("point", "ndarray index (4, 0) outside the array's domain [(0, 0):(4, 6):(1, 1)]");
  check_misuse("integers",
               "ndarray index (1, 6) outside the array's domain [(0, 0):(4, 6):(1, 1)]");
  check_misuse("view", "ndarray index (0, 2) outside the array's domain [(1, 1):(3, 5):(1, 1)]");
  check_misuse("off_lattice",
               "ndarray index (2, 3) outside the array's domain [(0, 0):(8, 8):(2, 2)]");
  check_misuse("null", "ndarray index (0, 0) outside the array's domain [(0, 0):(0, 0):(1, 1)]");
  check_misuse("remote", "ndarray index (3, 1) outside the array's domain [(1, 1):(3, 3):(1, 1)]");
}
