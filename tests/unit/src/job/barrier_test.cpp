// Tests src/job/barrier.cpp: barrier phases, named barriers that agree, split-phase notify/wait,
// the last arriver's hook, waiters that sleep, and the memory ordering the header promises
// (plain writes before a barrier are seen after it; thread sanitizer runs of this file check
// the ordering as well).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <pgas/pgas.hpp>

#include "../../test_job.hpp"
#include "src/job/barrier.hpp"
#include "src/job/job.hpp"

namespace {}  // namespace

TEST_CASE("no thread leaves a phase before all have entered it", "[barrier]") {
  for (int n : {1, 2, 3, 4, 7}) {
    std::atomic<int> arrived{0};
    std::atomic<int> early{0};
    pgas::run(test_job(n), 0, nullptr, [&] {
      for (int phase = 1; phase <= 200; ++phase) {
        arrived.fetch_add(1, std::memory_order_relaxed);
        pgas::barrier();
        if (arrived.load(std::memory_order_relaxed) < phase * n) early++;
        pgas::barrier();
      }
    });
    INFO(n << " threads");
    CHECK(early == 0);
    CHECK(arrived == 200 * n);
  }
}

TEST_CASE("plain writes before a barrier are visible after it", "[barrier]") {
  const int n = 4;
  std::vector<long> data(static_cast<std::size_t>(n));  // deliberately not atomic
  std::atomic<int> wrong{0};
  pgas::run(test_job(n), 0, nullptr, [&] {
    const auto me = static_cast<std::size_t>(pgas::mythread());
    for (long round = 1; round <= 100; ++round) {
      data[me] = round * 1000 + static_cast<long>(me);
      pgas::barrier();
      for (std::size_t t = 0; t < data.size(); ++t) {
        if (data[t] != round * 1000 + static_cast<long>(t)) wrong++;
      }
      pgas::barrier();
    }
  });
  CHECK(wrong == 0);
}

TEST_CASE("named barriers with equal ids, and anonymous ones, match", "[barrier]") {
  std::atomic<int> done{0};
  pgas::run(test_job(3), 0, nullptr, [&] {
    for (int i = 0; i < 50; ++i) {
      pgas::barrier(i);
      // UPC: a barrier without an id matches any id.
      if (pgas::mythread() == 1) {
        pgas::barrier();
      } else {
        pgas::barrier(-i);
      }
      pgas::notify(i);
      pgas::wait(i);
    }
    done++;
  });
  CHECK(done == 3);
}

TEST_CASE("split-phase: local work between notify and wait", "[barrier]") {
  const int n = 3;
  std::vector<int> published(static_cast<std::size_t>(n), 0);
  std::atomic<int> wrong{0};
  std::atomic<long> local_work{0};
  pgas::run(test_job(n), 0, nullptr, [&] {
    const auto me = static_cast<std::size_t>(pgas::mythread());
    for (int round = 1; round <= 100; ++round) {
      published[me] = round;
      pgas::notify();
      long sum = 0;
      for (int k = 0; k < 1000; ++k)
        sum += k;  // work that needs nobody else
      local_work += sum;
      pgas::wait();
      for (std::size_t t = 0; t < published.size(); ++t) {
        if (published[t] < round) wrong++;
      }
      pgas::barrier();
    }
  });
  CHECK(wrong == 0);
  CHECK(local_work == 100L * n * 499500);
}

TEST_CASE("fence is callable anywhere", "[barrier]") {
  pgas::fence();
  pgas::run(test_job(2), 0, nullptr, [] { pgas::fence(); });
  SUCCEED();
}

TEST_CASE("oversubscribed barriers complete", "[barrier]") {
  const int n = 4 * pgas::machine::current().pu_count();
  std::atomic<int> count{0};
  std::atomic<int> wrong{0};
  pgas::run(test_job(n), 0, nullptr, [&] {
    for (int i = 1; i <= 300; ++i) {
      count.fetch_add(1);
      pgas::barrier();
      if (count.load() != i * n) wrong++;
      pgas::barrier();
    }
  });
  CHECK(wrong == 0);
}

TEST_CASE("the last arriver's hook runs after every arrival and before any thread leaves",
          "[barrier]") {
  // Phases with a hook alternate with plain ones: the hook keeps the arrival word full while it
  // runs, a plain phase's last arriver releases in its CAS.
  for (int n : {1, 2, 3, 5}) {
    struct shared_state {
      std::atomic<int> arrived{0};
      std::atomic<int> seen_by_hook{-1};  // `arrived` when the hook of the latest phase ran
      std::atomic<int> hooks{0};
    } st;
    std::atomic<int> wrong{0};
    pgas::run(test_job(n), 0, nullptr, [&] {
      pgas::detail::job& j = *pgas::detail::job_current();
      for (int phase = 1; phase <= 100; ++phase) {
        st.arrived.fetch_add(1, std::memory_order_relaxed);
        pgas::detail::barrier_op op;
        op.last = [](const void* arg) {
          auto* s = static_cast<shared_state*>(const_cast<void*>(arg));
          // Slow, so that a thread let out before the hook ends would see the old count.
          std::this_thread::sleep_for(std::chrono::microseconds(100));
          s->seen_by_hook.store(s->arrived.load(std::memory_order_relaxed),
                                std::memory_order_relaxed);
          s->hooks.fetch_add(1, std::memory_order_relaxed);
        };
        op.last_arg = &st;
        pgas::detail::barrier_arrive(j, op);
        pgas::detail::barrier_complete(j);
        if (st.hooks.load(std::memory_order_relaxed) != phase ||
            st.seen_by_hook.load(std::memory_order_relaxed) != phase * n) {
          wrong++;
        }
        pgas::barrier();
      }
    });
    INFO(n << " threads");
    CHECK(wrong == 0);
    CHECK(st.hooks == 100);
  }
}

TEST_CASE("waiters that went to sleep are woken at every phase", "[barrier]") {
  // One thread arrives late in turn, long after the others' spinning and yielding ended, so
  // they sleep on the futex; the split phases also let the late thread's wait find the phase
  // already complete.
  for (int n : {2, 3}) {
    std::atomic<int> arrived{0};
    std::atomic<int> early{0};
    pgas::run(test_job(n), 0, nullptr, [&] {
      for (int phase = 1; phase <= 12; ++phase) {
        if (pgas::mythread() == phase % n)
          std::this_thread::sleep_for(std::chrono::milliseconds(3));
        arrived.fetch_add(1, std::memory_order_relaxed);
        if (phase % 2 == 0) {
          pgas::barrier();
        } else {
          pgas::notify();
          pgas::wait();
        }
        if (arrived.load(std::memory_order_relaxed) < phase * n) early++;
        pgas::barrier();
      }
    });
    INFO(n << " threads");
    CHECK(early == 0);
    CHECK(arrived == 12 * n);
  }
}

TEST_CASE("a thread that returns right after the last phase is no deadlock", "[barrier]") {
  // The last arriver of the final phase releases it and returns at once, while the other
  // threads are still between their arrival and their look for returned threads, or wake from
  // a sleep slice: they must see the release, not report a deadlock. Jobs end one after another
  // so that thread start-up and exit shift the timing each time; oversubscribed jobs let a
  // waiter lose its processor anywhere in that window.
  const int pus = pgas::machine::current().pu_count();
  for (int n : {2, pus + 1}) {
    std::atomic<int> done{0};
    for (int job = 0; job < 150; ++job) {
      pgas::run(test_job(n), 0, nullptr, [&] {
        if (pgas::mythread() == job % n) std::this_thread::yield();
        if (job % 3 == 0) {
          pgas::lock_t l = pgas::all_lock_alloc();
          pgas::all_lock_free(l);  // a phase with a hook
        } else {
          pgas::barrier();
        }
        done.fetch_add(1, std::memory_order_relaxed);
      });
    }
    INFO(n << " threads");
    CHECK(done == 150 * n);
  }
}
