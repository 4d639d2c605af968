// Tests src/job/lock.cpp: mutual exclusion, try_lock, collective and non-collective creation,
// freeing, and use through std::lock_guard / std::scoped_lock.
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>

#include <pgas/pgas.hpp>

#include "../../test_job.hpp"

namespace {}  // namespace

TEST_CASE("a lock gives mutual exclusion to plain data", "[lock]") {
  for (int n : {1, 2, 4, 6}) {
    long counter = 0;  // protected only by the lock
    pgas::run(test_job(n), 0, nullptr, [&] {
      pgas::lock_t l = pgas::all_lock_alloc();
      for (int i = 0; i < 5000; ++i) {
        std::lock_guard g(l);
        ++counter;
      }
      pgas::barrier();
      pgas::all_lock_free(l);
    });
    INFO(n << " threads");
    CHECK(counter == 5000L * n);
  }
}

TEST_CASE("all_lock_alloc hands every thread the same lock", "[lock]") {
  std::atomic<int> differ{0};
  pgas::run(test_job(4), 0, nullptr, [&] {
    static pgas::lock_t first;
    for (int round = 0; round < 10; ++round) {
      pgas::lock_t l = pgas::all_lock_alloc();
      if (pgas::mythread() == 0) first = l;
      pgas::barrier();
      if (!(l == first) || !l) differ++;
      pgas::barrier();
      pgas::all_lock_free(l);
    }
  });
  CHECK(differ == 0);
}

TEST_CASE("global_lock_alloc makes a lock one thread can share", "[lock]") {
  long counter = 0;
  pgas::lock_t shared;
  pgas::run(test_job(3), 0, nullptr, [&] {
    if (pgas::mythread() == 1) shared = pgas::global_lock_alloc();
    pgas::barrier();
    for (int i = 0; i < 2000; ++i) {
      shared.lock();
      ++counter;
      shared.unlock();
    }
    pgas::barrier();
    if (pgas::mythread() == 1) pgas::lock_free(shared);
  });
  CHECK(counter == 6000);
}

TEST_CASE("try_lock fails while another thread holds the lock", "[lock]") {
  std::atomic<int> result{-1};
  std::atomic<int> holder_seen{-2};
  pgas::run(test_job(2), 0, nullptr, [&] {
    pgas::lock_t l = pgas::all_lock_alloc();
    if (pgas::mythread() == 0) l.lock();
    pgas::barrier();
    if (pgas::mythread() == 1) {
      result = l.try_lock() ? 1 : 0;
      holder_seen = l.holder();
    }
    pgas::barrier();
    if (pgas::mythread() == 0) l.unlock();
    pgas::barrier();
    if (pgas::mythread() == 1) {
      CHECK(l.try_lock());
      CHECK(l.holder() == 1);
      l.unlock();
      CHECK(l.holder() == -1);
    }
    pgas::barrier();
    pgas::all_lock_free(l);
  });
  CHECK(result == 0);
  CHECK(holder_seen == 0);
}

TEST_CASE("locks work with std::scoped_lock over several locks", "[lock]") {
  long a = 0, b = 0;
  pgas::run(test_job(3), 0, nullptr, [&] {
    pgas::lock_t la = pgas::all_lock_alloc();
    pgas::lock_t lb = pgas::all_lock_alloc();
    for (int i = 0; i < 1000; ++i) {
      if (pgas::mythread() % 2 == 0) {
        std::scoped_lock g(la, lb);
        ++a;
        ++b;
      } else {
        std::scoped_lock g(lb, la);  // opposite order: scoped_lock avoids the deadlock
        ++a;
        ++b;
      }
    }
    pgas::barrier();
    pgas::all_lock_free(la);
    pgas::all_lock_free(lb);
  });
  CHECK(a == 3000);
  CHECK(b == 3000);
}

TEST_CASE("locks can be used outside a job", "[lock]") {
  pgas::lock_t l = pgas::global_lock_alloc();
  REQUIRE(l);
  CHECK(l.try_lock());
  CHECK_FALSE(l.try_lock());
  l.unlock();
  pgas::lock_free(l);
  CHECK_FALSE(pgas::lock_t{});
}
