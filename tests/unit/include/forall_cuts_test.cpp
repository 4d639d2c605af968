// Tests pgas::forall_cuts (pgas/cuts.hpp) in jobs of 1 to 3 threads: on tiled arrays of ranks
// 1–3 and a block-cyclic vector, each thread writes exactly its iterations of the box, with
// Out(i) = Σ_a (a + 1) · In(i + k_a) equal to the element-by-element reference through In(…);
// runs are local at one thread and both kinds run at more; every output array of the loop is
// written; a plan built once and looped over (the plan overload) gives the same, also over
// another array of the plan's layout; and misuse (an access leaving the array, arrays of
// different layouts, a plan of another thread or layout) ends the job naming the thread, the
// line and which array; a body of the wrong arity is told apart at compile time
// (cuts_body_callable, the static_assert's condition) and an e[a] beyond the offsets is misuse
// in the checked build and faults in others, instead of reading another array.

#include <pgas/pgas.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../misuse_child.hpp"
#include "../test_job.hpp"

namespace {

double value_at(std::size_t l) {
  return static_cast<double>(l % 97) + 0.25;
}

struct counts {
  std::atomic<long> local{0};
  std::atomic<long> remote{0};
};

// Fills In, runs the loop on every thread, and has thread 0 compare Out with the reference.
template <std::size_t Rank>
void run_case(failures& f, counts& c, const std::array<std::size_t, Rank>& ext,
              pgas::block_spec spec, const std::vector<pgas::interval>& dims,
              const std::vector<std::vector<std::ptrdiff_t>>& ks, bool planned) {
  pgas::shared_array<double, Rank> In(ext, spec);
  pgas::shared_array<double, Rank> Out(ext, spec);
  pgas::shared_array<int, Rank> Mark(ext, spec);
  const pgas::layout& l = In.layout();
  In.for_each_mine([&](double& e, const auto& idx) { e = value_at(l.linear(idx)); });
  pgas::barrier();
  long local = 0;
  long remote = 0;
  const auto body = [&](auto e, auto&&... rest) {
    // rest: the Rank indices, then Out's and Mark's elements.
    auto refs = std::forward_as_tuple(rest...);
    double s = 0;
    for (std::size_t a = 0; a < ks.size(); ++a)
      s += static_cast<double>(a + 1) * e[a];
    std::get<Rank>(refs) = s;
    std::get<Rank + 1>(refs) += 1;
    if constexpr (decltype(e)::local)
      ++local;
    else
      ++remote;
  };
  if (planned) {
    const pgas::cut_plan plan(In.layout(), pgas::box(dims), pgas::offsets(ks), pgas::mythread());
    pgas::forall_cuts(plan, In, body, Out, Mark);
  } else {
    pgas::forall_cuts(In, pgas::box(dims), pgas::offsets(ks), body, Out, Mark);
  }
  c.local += local;
  c.remote += remote;
  pgas::barrier();
  if (pgas::mythread() == 0) {
    for (std::size_t x = 0; x < l.size(); ++x) {
      const std::vector<std::size_t> i = l.unlinear(x);
      bool inside = true;
      for (std::size_t d = 0; d < Rank; ++d)
        inside = inside && static_cast<std::ptrdiff_t>(i[d]) >= dims[d].lo &&
                 static_cast<std::ptrdiff_t>(i[d]) < dims[d].hi;
      std::array<std::size_t, Rank> ia{};
      for (std::size_t d = 0; d < Rank; ++d)
        ia[d] = i[d];
      const int mark = std::apply([&](auto... v) { return Mark(v...); }, ia);
      EXPECT(f, mark == (inside ? 1 : 0), "iteration " << x << " ran " << mark << " times");
      if (!inside) continue;
      double want = 0;
      for (std::size_t a = 0; a < ks.size(); ++a) {
        std::array<std::size_t, Rank> at{};
        for (std::size_t d = 0; d < Rank; ++d)
          at[d] = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i[d]) + ks[a][d]);
        want += static_cast<double>(a + 1) * std::apply([&](auto... v) { return In(v...); }, at);
      }
      const double got = std::apply([&](auto... v) { return Out(v...); }, ia);
      EXPECT(f, got == want, "element " << x << ": " << got << " instead of " << want);
    }
  }
  pgas::barrier();
}

void all_cases(failures& f, counts& c, bool planned) {
  run_case<2>(f, c, {13, 11}, pgas::block_spec::tiles({4, 3}), {{1, 12}, {1, 10}},
              {{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {0, 0}}, planned);
  run_case<2>(f, c, {8, 9}, pgas::block_spec::tiles({2, 3}), {{0, 7}, {0, 6}}, {{1, 2}}, planned);
  run_case<1>(f, c, {40}, pgas::block_spec::tiles({5}), {{2, 38}}, {{-2}, {2}, {1}}, planned);
  run_case<1>(f, c, {40}, pgas::block_spec::cyclic(3), {{2, 38}}, {{-2}, {0}, {1}}, planned);
  run_case<3>(f, c, {6, 7, 5}, pgas::block_spec::tiles({2, 3, 2}), {{1, 5}, {0, 5}, {1, 4}},
              {{-1, 2, 0}, {1, 0, 1}, {0, 1, -1}}, planned);
}

TEST_CASE("forall_cuts runs each thread's iterations with the reference's values") {
  for (int threads = 1; threads <= 3; ++threads) {
    INFO(threads << " threads");
    failures f;
    counts c;
    REQUIRE(pgas::run(test_job(threads), 0, nullptr, [&] {
              all_cases(f, c, false);
              all_cases(f, c, true);
            }) == 0);
    check_no_failures(f);
    CHECK(c.local > 0);
    if (threads == 1)
      CHECK(c.remote == 0);
    else
      CHECK(c.remote > 0);
  }
}

void access_outside() {
  pgas::shared_array<double, 2> A({8, 9}, pgas::block_spec::tiles({2, 3}));
  misuse_announce(__LINE__ + 1);
  pgas::forall_cuts(A, pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 1}},
                    [](auto, std::size_t, std::size_t) {});
}

void layouts_differ() {
  pgas::shared_array<double, 2> A({8, 9}, pgas::block_spec::tiles({2, 3}));
  pgas::shared_array<double, 2> B({8, 9}, pgas::block_spec::tiles({3, 3}));
  misuse_announce(__LINE__ + 1);
  const pgas::box all{{0, 8}, {0, 9}};
  pgas::forall_cuts(
      A, all, pgas::offsets{{0, 0}}, [](auto, std::size_t, std::size_t, double&) {}, B);
}

void plan_of_another_thread() {
  pgas::shared_array<double, 2> A({8, 9}, pgas::block_spec::tiles({2, 3}));
  const pgas::cut_plan plan(A.layout(), pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 0}},
                            1 - pgas::mythread());
  misuse_announce(__LINE__ + 1);
  pgas::forall_cuts(plan, A, [](auto, std::size_t, std::size_t) {});
}

void plan_of_another_layout_in() {
  pgas::shared_array<double, 2> A({8, 9}, pgas::block_spec::tiles({2, 3}));
  pgas::shared_array<double, 2> B({8, 9}, pgas::block_spec::tiles({4, 3}));
  const pgas::cut_plan plan(A.layout(), pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 0}},
                            pgas::mythread());
  misuse_announce(__LINE__ + 1);
  pgas::forall_cuts(plan, B, [](auto, std::size_t, std::size_t) {});
}

// A body written for more accesses than the loop has: e[1] of a one-offset loop.
void access_beyond_offsets() {
  pgas::shared_array<double, 2> A({8, 9}, pgas::block_spec::tiles({2, 3}));
  pgas::shared_array<double, 2> B({8, 9}, pgas::block_spec::tiles({2, 3}));
  const pgas::cut_plan plan(A.layout(), pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 0}},
                            pgas::mythread());
  volatile std::size_t one = 1;  // an index the compiler cannot see
  misuse_announce(__LINE__ + 1);
  pgas::forall_cuts(
      plan, A, [&](auto e, std::size_t, std::size_t, double& out) { out = e[one]; }, B);
}

void plan_of_another_layout() {
  pgas::shared_array<double, 2> A({8, 9}, pgas::block_spec::tiles({2, 3}));
  pgas::shared_array<double, 2> B({8, 9}, pgas::block_spec::tiles({2, 3}));
  pgas::shared_array<double, 2> C({8, 10}, pgas::block_spec::tiles({2, 3}));
  const pgas::cut_plan plan(A.layout(), pgas::box{{0, 8}, {0, 9}}, pgas::offsets{{0, 0}},
                            pgas::mythread());
  misuse_announce(__LINE__ + 1);
  pgas::forall_cuts(
      plan, B, [](auto, std::size_t, std::size_t, double&) {}, C);
}

constexpr misuse_child_case child_cases[] = {
    {"access_outside", 2, access_outside},
    {"layouts_differ", 2, layouts_differ},
    {"plan_of_another_thread", 2, plan_of_another_thread},
    {"plan_of_another_layout", 2, plan_of_another_layout},
    {"plan_of_another_layout_in", 2, plan_of_another_layout_in},
    {"access_beyond_offsets", 2, access_beyond_offsets},
};

void check_misuse(const std::string& name, const std::string& what) {
  misuse_child_check("forall_cuts_test", "forall_cuts misuse child", "FORALL_CUTS_TEST_CASE", name,
                     "of 2", what, "forall_cuts_test.cpp");
}

}  // namespace

// Run only as a child of check_misuse() (hidden: the tag starts with a dot).
TEST_CASE("forall_cuts misuse child", "[.forall_cuts_child]") {
  misuse_child_main(child_cases, "FORALL_CUTS_TEST_CASE");
}

TEST_CASE("forall_cuts misuse ends the job naming the thread and the box's line") {
  check_misuse("access_outside", "access 0 (offset (0, 1)) leaves the array at iteration (0, 8)");
  check_misuse("layouts_differ",
               "output array 1 (argument 1 after the body) is shared [3][3] T "
               "Out1[8][9], but the loop array is shared [2][3] T In[8][9]");
  check_misuse("plan_of_another_thread", "runs the loop: each thread builds its own plan");
  check_misuse("plan_of_another_layout",
               "output array 1 (argument 1 after the body) is shared "
               "[2][3] T Out1[8][10], but the plan built at ");
  check_misuse("plan_of_another_layout_in",
               "the loop array (the accesses' array, before the body) is shared [4][3] T "
               "In[8][9], but the plan built at ");
}

TEST_CASE("forall_cuts over a plan runs over any array of the plan's layout, a new one too") {
  // A plan keeps the layout, not the array: ping-pong between two arrays (Jacobi), and a plan
  // that outlives its array, used on a new one of the same layout.
  failures f;
  REQUIRE(pgas::run(test_job(2), 0, nullptr, [&] {
            const std::size_t n = 10;
            const auto spec = pgas::block_spec::tiles({3, 4});
            const pgas::box inner{{1, n - 1}, {1, n - 1}};
            const pgas::offsets k{{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
            const auto body = [](auto e, std::size_t, std::size_t, double& out) {
              out = e[0] + e[1] + e[2] + e[3];
            };
            std::optional<pgas::cut_plan> plan;
            {
              pgas::shared_array<double, 2> Old({n, n}, spec);
              plan.emplace(Old.layout(), inner, k, pgas::mythread());
            }
            pgas::shared_array<double, 2> X({n, n}, spec);
            pgas::shared_array<double, 2> Y({n, n}, spec);
            X.for_each_mine([](double& e, const auto& i) { e = double(i[0] * 16 + i[1]); });
            Y.for_each_mine([](double& e, const auto&) { e = 0; });
            pgas::barrier();
            pgas::forall_cuts(*plan, X, body, Y);  // Y = 4 X inside: X is linear
            pgas::barrier();
            pgas::forall_cuts(*plan, Y, body, X);  // X = 16 X0 inside, Y's border 0 around it
            pgas::barrier();
            if (pgas::mythread() == 0) {
              for (std::size_t i = 2; i + 2 < n; ++i)
                for (std::size_t j = 2; j + 2 < n; ++j)
                  EXPECT(f, X(i, j) == 16.0 * double(i * 16 + j),
                         "X(" << i << ", " << j << ") is " << X(i, j));
              EXPECT(f, X(1, 1) == 4.0 * (double(1 * 16 + 2) + double(2 * 16 + 1)),
                     "X(1, 1) is " << X(1, 1));
            }
            pgas::barrier();
          }) == 0);
  check_no_failures(f);
}

TEST_CASE("forall_cuts tells a body of the wrong arity apart at compile time") {
  const auto two = [](auto, std::size_t, std::size_t, double&) {};
  using pgas::detail::cuts_body_callable;
  STATIC_REQUIRE(cuts_body_callable<decltype(two), double, 2, double>);
  STATIC_REQUIRE(!cuts_body_callable<decltype(two), double, 2>);                  // no output array
  STATIC_REQUIRE(!cuts_body_callable<decltype(two), double, 2, double, double>);  // two
  STATIC_REQUIRE(!cuts_body_callable<decltype(two), double, 3, double>);          // a 3-D array
  STATIC_REQUIRE(!cuts_body_callable<decltype(two), double, 1, double>);          // a 1-D array
  const auto any = [](auto, auto&&...) {};
  STATIC_REQUIRE(cuts_body_callable<decltype(any), double, 3, double, int>);
}

TEST_CASE("forall_cuts: an access beyond the offsets is misuse (checked) or faults") {
  if constexpr (pgas::config::bounds_check) {
    check_misuse("access_beyond_offsets",
                 "forall_cuts: the body read e[1], but the loop has 1 offset (e[0] to e[0])");
  } else {
    const misuse_child_result r =
        misuse_child_run("forall_cuts_test", "forall_cuts misuse child", "FORALL_CUTS_TEST_CASE",
                         "access_beyond_offsets");
    INFO(r.err);
    CHECK(r.status != 0);
    CHECK_THAT(r.err, Catch::Matchers::Contains("of 2: fatal signal SIG"));
  }
}
