// Stress test (not a benchmark): 64 and 256 threads on this 2-core machine take and release
// eight locks at random — one at a time, two at once in a fixed order, by try_lock — with a
// barrier every 32 rounds, and check that no increment made under a lock is lost. Two phases
// make waiters sleep far past the deadlock detector's threshold without a deadlock: thread 0
// holds a lock for 300 ms while everyone else asks for it, and thread 0 holds a lock across a
// barrier that every waiter has already arrived at (one thread arrives 300 ms late). A false
// report would end the process with status 1. Bounded by PGAS_TEST_STRESS_ROUNDS (default
// 2000; a job runs a tenth of that many rounds).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include <pgas/pgas.hpp>

namespace {

constexpr int lock_count = 8;

int rounds() {
  const char* r = std::getenv("PGAS_TEST_STRESS_ROUNDS");
  return (r != nullptr ? std::atoi(r) : 2000) / 10;
}

struct guarded {
  pgas::lock_t lock;
  long count = 0;  // only changed under `lock`
};

// One job of `n` threads; returns its status. `made` counts the increments the threads made.
int lock_job(int n, std::vector<guarded>& g, std::atomic<long>& made) {
  pgas::run_options o;
  o.threads = n;
  std::atomic<int> phase{0};
  return pgas::run(o, 0, nullptr, [&] {
    const int me = pgas::mythread();
    for (auto& x : g) {
      pgas::lock_t l = pgas::all_lock_alloc();
      if (me == 0) x.lock = l;
    }
    pgas::barrier();
    std::mt19937 rng(static_cast<unsigned>(97 + me));
    long mine = 0;
    for (int round = 0; round < rounds(); ++round) {
      auto i = static_cast<std::size_t>(rng() % lock_count);
      auto k = static_cast<std::size_t>(rng() % lock_count);
      switch (rng() % 3) {
        case 0: {
          std::lock_guard hold(g[i].lock);
          ++g[i].count;
          ++mine;
          break;
        }
        case 1:
          if (i != k) {
            if (k < i) std::swap(i, k);
            g[i].lock.lock();
            g[k].lock.lock();
            ++g[i].count;
            ++g[k].count;
            mine += 2;
            g[k].lock.unlock();
            g[i].lock.unlock();
          }
          break;
        default:
          if (g[i].lock.try_lock()) {
            ++g[i].count;
            ++mine;
            g[i].lock.unlock();
          }
      }
      if (round % 32 == 31) pgas::barrier();
    }
    pgas::barrier();

    // A long critical section: every other thread sleeps in the lock for 300 ms.
    if (me == 0) {
      g[0].lock.lock();
      phase.store(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      ++g[0].count;
      g[0].lock.unlock();
    } else {
      while (phase.load() < 1)
        std::this_thread::yield();
      std::lock_guard hold(g[0].lock);
      ++g[0].count;
    }
    ++mine;
    pgas::barrier();

    // A lock held across a barrier whose waiters have all arrived at it, but for one latecomer.
    if (me == 0) {
      g[1].lock.lock();
      phase.store(2);
      pgas::barrier();
      ++g[1].count;
      g[1].lock.unlock();
    } else {
      if (me == n - 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
      pgas::notify();
      while (phase.load() < 2)
        std::this_thread::yield();
      {
        std::lock_guard hold(g[1].lock);
        ++g[1].count;
      }
      pgas::wait();
    }
    ++mine;
    made += mine;
    pgas::barrier();
    for (auto& x : g)
      pgas::all_lock_free(x.lock);
  });
}

}  // namespace

TEST_CASE("lock-heavy oversubscribed jobs lose no update and report no deadlock",
          "[stress][lock]") {
  for (int n : {64, 256}) {
    INFO(n << " threads");
    std::vector<guarded> g(lock_count);
    std::atomic<long> made{0};
    const int rc = lock_job(n, g, made);
    long counted = 0;
    for (const auto& x : g)
      counted += x.count;
    CHECK(rc == 0);
    CHECK(counted == made.load());
  }
}
