// Tests src/job/lock.cpp: mutual exclusion, try_lock, collective and non-collective creation,
// freeing, use through std::lock_guard / std::scoped_lock, and waits long enough to run the
// deadlock detector (src/job/wait_graph.cpp) that must not be reported.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

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

// A false deadlock report would end the test process with status 1.
TEST_CASE("long lock waits that will end are not deadlocks", "[lock]") {
  std::atomic<int> phase{0};
  long counter = 0;
  pgas::run(test_job(4), 0, nullptr, [&] {
    const int me = pgas::mythread();
    pgas::lock_t l = pgas::all_lock_alloc();
    pgas::barrier();
    // The holder runs (sleeps) for longer than the detector's threshold while all others wait.
    if (me == 0) {
      l.lock();
      phase = 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      ++counter;
      l.unlock();
    } else {
      while (phase < 1)
        std::this_thread::yield();
      std::lock_guard g(l);
      ++counter;
    }
    pgas::barrier();
    // The holder waits at a barrier every lock waiter has already arrived at (split phase);
    // thread 3 arrives late, so the waits outlast the threshold.
    if (me == 0) {
      l.lock();
      phase = 2;
      pgas::barrier();
      l.unlock();
    } else {
      if (me == 3) std::this_thread::sleep_for(std::chrono::milliseconds(250));
      pgas::notify();
      while (phase < 2)
        std::this_thread::yield();
      {
        std::lock_guard g(l);
        ++counter;
      }
      pgas::wait();
    }
    pgas::barrier();
    pgas::all_lock_free(l);
  });
  CHECK(counter == 7);
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
