// Unit tests of pgas/castable.hpp: cast() of any thread's element gives the address through
// which that thread's own accesses go, and nullptr for the null pointer-to-shared;
// thread_info() reports everything castable for every thread and rejects other numbers.
#include <catch2/catch.hpp>

#include <pgas/alloc.hpp>
#include <pgas/castable.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sync.hpp>

#include "../test_job.hpp"

TEST_CASE("cast gives a usable address for every thread's element", "[castable]") {
  REQUIRE(pgas::cast(pgas::sptr<int>()) == nullptr);
  REQUIRE(pgas::cast(pgas::sptr<void>()) == nullptr);
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    pgas::shared_array<int> a({9});
    const int me = pgas::mythread();
    // Every thread writes through cast() into the elements of the next thread.
    for (std::size_t i = 0; i < 9; ++i) {
      const auto p = a.ptr(i);
      if (p.thread() == (me + 1) % 3) *pgas::cast(p) = static_cast<int>(i) * 10;
    }
    pgas::barrier();
    int bad = 0;
    for (std::size_t i = 0; i < 9; ++i) {
      bad += a(i) != static_cast<int>(i) * 10;
      bad += pgas::cast(a.ptr(i)) != &a(i);
      bad += pgas::cast(pgas::sptr<void>(a.ptr(i))) != static_cast<void*>(&a(i));
    }
    for (int t = 0; t < 3; ++t) {
      const pgas::thread_info_t info = pgas::thread_info(t);
      bad += info.guaranteed_castable != pgas::castable_all;
      bad += info.probably_castable != pgas::castable_all;
    }
    return bad;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("thread_info of a thread outside the job is misuse", "[castable]") {
  REQUIRE(pgas::thread_info(0).guaranteed_castable == pgas::castable_all);
  REQUIRE_THROWS_AS(pgas::thread_info(1), pgas::usage_error);
  REQUIRE_THROWS_AS(pgas::thread_info(-1), pgas::usage_error);
}
