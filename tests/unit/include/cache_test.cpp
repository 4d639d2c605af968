// Unit tests of pgas/cache.hpp: exact hit and miss counts on a known pattern, visibility of
// cached writes after a barrier, no stale read after one, write-back at fence, lock, unlock and
// flush(), the three winner policies with every thread writing one element of an array and of
// a range (and a loser's or winner's early flush in the same phase), N-D arrays and pointer ranges,
// the tiling helper staying under the capacity, and each misuse with its message (in a child
// process, since misuse inside a job ends the process).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include <pgas/alloc.hpp>
#include <pgas/cache.hpp>
#include <pgas/forall.hpp>
#include <pgas/lock.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sync.hpp>

#include "../job_failures.hpp"
#include "../misuse_child.hpp"
#include "../test_job.hpp"

namespace {

using pgas::cache_winner;

// Waits (10 s at most) until `flag` holds at least `value`; false on the deadline.
bool wait_for(const std::atomic<int>& flag, int value) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (flag.load(std::memory_order_acquire) < value) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace

TEST_CASE("a line of another thread is fetched once, then hit; own elements are neither",
          "[cache]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    // Block 1: thread 1 holds the odd elements, 32 ints of its part in two 64-byte lines.
    pgas::shared_array<int> A({64});
    for (auto i : A.my_range())
      A[i] = static_cast<int>(i) * 3;
    pgas::barrier();
    if (pgas::mythread() == 0) {
      pgas::cache c(A, {.capacity = 64});
      for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < 64; ++i)
          EXPECT(f, c.read(i) == i * 3, "i " << i);
      }
      const pgas::cache_stats s = c.stats();
      EXPECT(f, s.misses == 2, s.misses);
      EXPECT(f, s.hits == 62, s.hits);
      EXPECT(f, s.written_back_bytes == 0, s.written_back_bytes);
      EXPECT(f, c.capacity_lines() == 4, c.capacity_lines());
      EXPECT(f, decltype(c)::line_elements == 16, "");
    }
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("cached writes are written back at the barrier and no read is stale after one",
          "[cache]") {
  for (int n : {2, 3, 4}) {
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const std::size_t len = static_cast<std::size_t>(8 * n);
      pgas::shared_array<long> A({len});  // block 1
      pgas::cache c(A, {.capacity = 256});
      // Every thread writes the next thread's elements through its cache (dirty copies), and
      // reads back its own writes in the same phase.
      for (std::size_t i = 0; i < len; ++i) {
        if (static_cast<int>(i % static_cast<std::size_t>(n)) == (me + 1) % n)
          c.write(i, 1000 + me);
      }
      for (std::size_t i = 0; i < len; ++i) {
        if (static_cast<int>(i % static_cast<std::size_t>(n)) == (me + 1) % n)
          EXPECT(f, c.read(i) == 1000 + me, "own write, i " << i);
      }
      pgas::barrier();
      // Visible to the owner after the barrier.
      for (auto i : A.my_range())
        EXPECT(f, A[i] == 1000 + (me + n - 1) % n, "i " << i);
      pgas::barrier();
      // The owner changes its elements; the cache read them before: no stale copy survives.
      for (auto i : A.my_range())
        A[i] = 7 * static_cast<long>(i);
      pgas::barrier();
      for (std::size_t i = 0; i < len; ++i)
        EXPECT(f, c.read(i) == 7 * static_cast<long>(i), "after the barrier, i " << i);
      EXPECT(f, c.stats().written_back_bytes == 8 * sizeof(long), c.stats().written_back_bytes);
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("a cache writes back at notify, fence, lock, unlock and flush()", "[cache]") {
  for (const char* how : {"notify", "fence", "lock", "unlock", "flush"}) {
    failures f;
    static std::atomic<int> done{0};
    done.store(0);
    pgas::run(test_job(2), 0, nullptr, [&] {
      pgas::shared_array<int> A({32});  // block 1: A[0] on thread 0
      pgas::lock_t l = pgas::all_lock_alloc();
      if (pgas::mythread() == 1) {
        pgas::cache c(A, {.capacity = 16});
        c.write(0, 42);
        c.write(2, 43);
        const std::string h = how;
        if (h == "notify") {
          pgas::notify();  // written back before the arrival
        } else if (h == "fence") {
          pgas::fence();
        } else if (h == "lock") {
          l.lock();  // written back once held
        } else if (h == "unlock") {
          l.lock();
          c.write(4, 44);
          l.unlock();  // written back before the release
        } else {
          c.flush();
        }
        EXPECT(f, c.stats().flushes >= 1, how);
        done.store(1, std::memory_order_release);
        if (h == "lock") l.unlock();
        if (h == "notify") pgas::wait();
      } else {
        EXPECT(f, wait_for(done, 1), how << ": thread 1 never signalled");
        EXPECT(f, A[0] == 42 && A[2] == 43, how << ": " << A[0] << " " << A[2]);
        if (std::string(how) == "unlock") EXPECT(f, A[4] == 44, A[4]);
        if (std::string(how) == "notify") {
          pgas::notify();
          pgas::wait();
        }
      }
      pgas::barrier();
      pgas::all_lock_free(l);
    });
    check_no_failures(f);
  }
}

TEST_CASE("lines fetched while other threads write back into them (no data race under TSan)",
          "[cache]") {
  failures f;
  pgas::run(test_job(4), 0, nullptr, [&] {
    const int me = pgas::mythread();
    pgas::shared_array<int> A({64}, pgas::block_spec::cyclic(16));  // one line per thread
    for (auto i : A.my_range())
      A[i] = 1000 + static_cast<int>(i);
    pgas::barrier();
    if (me != 0) {
      // Threads 1-3 each write their own element of thread 0's line and write it back at once,
      // while reading the line's last elements, which nobody writes, through fresh fetches.
      pgas::cache c(A, {.capacity = 16});
      for (int round = 0; round < 300; ++round) {
        c.write(static_cast<std::size_t>(me), round);
        EXPECT(f, c.read(15) == 1015, "round " << round);
        c.flush();
      }
    }
    pgas::barrier();
    if (me == 0) {
      for (int t = 1; t < 4; ++t)
        EXPECT(f, A[t] == 299, "A[" << t << "] " << A[t]);
    }
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("winner policies: several threads write one element in one phase", "[cache]") {
  for (cache_winner w :
       {cache_winner::any, cache_winner::lowest_thread, cache_winner::highest_thread}) {
    for (int n : {2, 4}) {
      failures f;
      pgas::run(test_job(n), 0, nullptr, [&] {
        const int me = pgas::mythread();
        pgas::shared_array<int> A({static_cast<std::size_t>(4 * n)});  // block 1
        // A range too: [p + 1, p + 2n) of blocks of 2, whose element 2 is p[3], on thread 1.
        const pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(n), 2 * sizeof(int));
        const pgas::sptr<int, 2> p = a;
        {
          pgas::cache c(A, {.capacity = 64, .winner = w});
          pgas::cache r(p + 1, static_cast<std::size_t>(2 * n - 1), {.capacity = 16, .winner = w});
          for (int round = 0; round < 6; ++round) {
            // Element 1 (thread 1's) and element 0 (thread 0's: its owner writes it directly).
            for (int e : {0, 1})
              c.write(e, 100 * round + 10 * e + me);
            r.write(2, 100 * round + 50 + me);
            // A loser (under lowest) or the winner (under highest) writes back early, in the same
            // phase: the phase's winner must not depend on it.
            if (round % 2 == 1 && me == n - 1) c.flush();
            if (round % 3 == 2 && me == 0) pgas::fence();
            pgas::barrier();
            // Thread t wrote base + t: the winner's value, or any writer's.
            const auto check = [&](int v, int base, const char* what) {
              const int want = w == cache_winner::lowest_thread ? base : base + n - 1;
              if (w == cache_winner::any)
                EXPECT(f, v >= base && v < base + n, "round " << round << " " << what << ": " << v);
              else
                EXPECT(f, v == want, "round " << round << " " << what << ": " << v);
            };
            check(A[0], 100 * round, "A[0]");
            check(A[1], 100 * round + 10, "A[1]");
            check(p[3], 100 * round + 50, "p[3]");
            pgas::barrier();
          }
        }
        pgas::all_free(a);
      });
      INFO("winner " << static_cast<int>(w) << ", " << n << " threads");
      check_no_failures(f);
    }
  }
}

TEST_CASE("2-D and tiled arrays and pointer ranges are cached by their own indices", "[cache]") {
  failures f;
  pgas::run(test_job(3), 0, nullptr, [&] {
    const int me = pgas::mythread();
    pgas::shared_array<double, 2> M({9, 10}, pgas::block_spec::cyclic(10));  // rows
    pgas::shared_array<short, 2> T({7, 8}, pgas::block_spec::tiles({2, 3}));
    for (auto [i, j] : M.my_range())
      M(i, j) = static_cast<double>(i * 100 + j);
    for (auto [i, j] : T.my_range())
      T(i, j) = static_cast<short>(i * 10 + j);
    const pgas::shared_alloc a = pgas::all_alloc(9, 4 * sizeof(int));
    const pgas::sptr<int, 4> p = a;
    // The range [p + 3, p + 3 + 30): starts mid-block, on every thread.
    for (int k = 0; k < 36; ++k)
      if ((p + k).thread() == me) p[k] = k;
    pgas::barrier();
    {
      pgas::cache cm(M, {.capacity = 90});
      pgas::cache ct(T, {.capacity = 56});
      pgas::cache cp(p + 3, 30, {.capacity = 64});
      for (std::size_t i = 0; i < 9; ++i)
        for (std::size_t j = 0; j < 10; ++j)
          EXPECT(f, cm.read(i, j) == static_cast<double>(i * 100 + j), i << "," << j);
      for (std::size_t i = 0; i < 7; ++i)
        for (std::size_t j = 0; j < 8; ++j)
          EXPECT(f, ct.read(i, j) == static_cast<short>(i * 10 + j), i << "," << j);
      for (std::size_t k = 0; k < 30; ++k)
        EXPECT(f, cp.read(k) == static_cast<int>(k + 3), k);
      pgas::barrier();
      // Each thread writes the rows and range elements of the next thread.
      const int next = (me + 1) % 3;
      for (std::size_t i = 0; i < 9; ++i)
        for (std::size_t j = 0; j < 10; ++j)
          if (M.ptr(i, j).thread() == next) cm.write(i, j, -1.0);
      for (std::size_t k = 0; k < 30; ++k)
        if ((p + 3 + static_cast<std::ptrdiff_t>(k)).thread() == next)
          cp.write(k, -static_cast<int>(k));
      pgas::barrier();
      for (auto [i, j] : M.my_range())
        EXPECT(f, M(i, j) == -1.0, i << "," << j);
      for (int k = 3; k < 33; ++k)
        if ((p + k).thread() == me) EXPECT(f, p[k] == -(k - 3), k);
      pgas::barrier();
    }
    pgas::all_free(a);
  });
  check_no_failures(f);
}

TEST_CASE("tiled_for keeps each tile under the capacity and flushes between tiles", "[cache]") {
  for (int n : {1, 2, 4}) {
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      constexpr long len = 2048;
      pgas::shared_array<int> In({len}), Out({len});  // block 1: both neighbours are remote
      for (auto i : In.my_range())
        In[i] = static_cast<int>(i);
      pgas::barrier();
      // Four lines: a 2-point stencil touches at most two lines per iteration, so tiles of two
      // iterations; without tiling the loop would need hundreds of lines.
      pgas::cache c(In, {.capacity = 4 * decltype(pgas::cache(In))::line_elements});
      long tiles = 0;
      pgas::tiled_for(1L, len - 1, c, 2, [&](long b, long e) {
        ++tiles;
        pgas::forall(b, e, Out, [&](long i) { Out[i] = c.read(i - 1) + c.read(i + 1); });
      });
      EXPECT(f, tiles == (len - 2 + 1) / 2, tiles);
      EXPECT(f, c.stats().flushes >= static_cast<std::uint64_t>(tiles), c.stats().flushes);
      pgas::barrier();
      for (auto i : Out.my_range())
        if (i >= 1 && i + 1 < static_cast<std::size_t>(len))
          EXPECT(f, Out[i] == static_cast<int>(2 * i), "i " << i);
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("under tracing, fills, write-backs and each flush's counts reach the trace",
          "[cache][trace]") {
  const std::string file = "cache_test." + std::to_string(getpid()) + ".trace";
  REQUIRE(setenv("PGAS_TRACE", file.c_str(), 1) == 0);
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    pgas::shared_array<int> A({64});  // block 1: thread 1's 32 ints are two 64-byte lines
    pgas::barrier();
    if (pgas::mythread() == 0) {
      pgas::cache c(A, {.capacity = 64});
      int sum = 0;
      for (int i = 1; i < 64; i += 2)
        sum += c.read(i);  // 2 misses, 30 hits
      for (int i : {1, 3, 5})
        c.write(i, i);  // 3 hits, one run of 12 bytes
      EXPECT(f, sum == 0, sum);
      pgas::barrier();
    } else {
      pgas::barrier();
    }
  });
  unsetenv("PGAS_TRACE");
  check_no_failures(f);
  std::ifstream in(file);
  REQUIRE(in.good());
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::remove(file.c_str());
  std::uint64_t hits = 0, misses = 0, written = 0;
  for (const auto& c : doc.at("cache")) {
    CHECK(c.at("thread") == 0);
    hits += c.at("hits").get<std::uint64_t>();
    misses += c.at("misses").get<std::uint64_t>();
    written += c.at("written_back").get<std::uint64_t>();
  }
  CHECK(hits == 33);
  CHECK(misses == 2);
  CHECK(written == 12);
  std::uint64_t read_calls = 0, read_bytes = 0, write_calls = 0, write_bytes = 0;
  for (const auto& a : doc.at("accesses")) {
    if (a.at("kind") != "cache") continue;
    CHECK(a.at("from") == 0);
    CHECK(a.at("to") == 1);
    if (a.at("dir") == "read") {
      read_calls += a.at("calls").get<std::uint64_t>();
      read_bytes += a.at("bytes").get<std::uint64_t>();
    } else {
      CHECK(a.at("dir") == "write");
      write_calls += a.at("calls").get<std::uint64_t>();
      write_bytes += a.at("bytes").get<std::uint64_t>();
    }
  }
  CHECK(read_calls == 2);
  CHECK(read_bytes == 128);
  CHECK(write_calls == 1);
  CHECK(write_bytes == 12);
}

// Misuse ends the job: each case runs its job in a child process (tests/unit/misuse_child.hpp)
// whose stderr comes back here.
namespace {

void wrong_thread() {
  static std::atomic<pgas::cache<int>*> shared{nullptr};
  pgas::shared_array<int> A({8});
  std::optional<pgas::cache<int>> c;
  if (pgas::mythread() == 0) {
    c.emplace(A);
    shared.store(&*c);
  }
  pgas::barrier();
  if (pgas::mythread() == 1) {
    misuse_announce(__LINE__ + 1);
    (void)shared.load()->read(0);
  }
  pgas::barrier();
}

void unseen_barrier() {
  pgas::shared_array<int> A({8});
  pgas::barrier();
  // Made on a thread the job did not start (whose synchronisation points are not thread 0's),
  // then used on thread 0, which has passed barriers the cache never saw.
  std::unique_ptr<pgas::cache<int>> c;
  if (pgas::mythread() == 0) {
    std::thread([&] { c = std::make_unique<pgas::cache<int>>(A); }).join();
    misuse_announce(__LINE__ + 1);
    (void)c->read(1);
  }
  pgas::barrier();
}

void array_index() {
  pgas::shared_array<int, 2> A({4, 5});
  pgas::cache c(A);
  if (pgas::mythread() == 1) {
    misuse_announce(__LINE__ + 1);
    c.write(1, 5, 3);
  }
  pgas::barrier();
}

void range_index() {
  pgas::sptr<int> p = pgas::all_alloc(2, sizeof(int));
  pgas::cache c(p, 2);
  if (pgas::mythread() == 0) {
    misuse_announce(__LINE__ + 1);
    (void)c.read(2);
  }
  pgas::barrier();
}

void capacity_exceeded() {
  pgas::shared_array<int> A({256});    // block 1: thread 0's 128 ints are 8 lines
  pgas::cache c(A, {.capacity = 32});  // 2 lines
  if (pgas::mythread() == 1) {
    (void)c.read(0);
    (void)c.read(32);
    c.flush();  // a flush empties it
    (void)c.read(64);
    (void)c.read(96);
    misuse_announce(__LINE__ + 1);
    (void)c.read(128);
  }
  pgas::barrier();
}

void capacity_zero() {
  pgas::shared_array<int> A({8});
  misuse_announce(__LINE__ + 1);
  pgas::cache c(A, {.capacity = 0});
}

void tile_zero() {
  pgas::shared_array<int> A({8});
  pgas::cache c(A);
  misuse_announce(__LINE__ + 1);
  pgas::tiled_for(0L, 8L, c, 0, [](long, long) {});
}

constexpr misuse_child_case child_cases[] = {
    {"wrong_thread", 2, wrong_thread},
    {"unseen_barrier", 2, unseen_barrier},
    {"array_index", 2, array_index},
    {"range_index", 2, range_index},
    {"capacity_exceeded", 2, capacity_exceeded},
    {"capacity_zero", 1, capacity_zero},
    {"tile_zero", 1, tile_zero},
};

void check_misuse(const std::string& name, const std::string& thread, const std::string& what) {
  misuse_child_check("cache_test", "cache misuse child", "CACHE_TEST_CASE", name, thread, what,
                     "cache_test.cpp");
}

}  // namespace

// Run only as a child of check_misuse() (hidden: the tag starts with a dot).
TEST_CASE("cache misuse child", "[.cache_child]") {
  misuse_child_main(child_cases, "CACHE_TEST_CASE");
}

TEST_CASE("misuse: a cache used on another thread", "[cache][misuse]") {
  check_misuse("wrong_thread", "thread 1 of 2", "made on thread 0 at");
  check_misuse("wrong_thread", "thread 1 of 2", "used on thread 1");
}

TEST_CASE("misuse: a cache used across a barrier it did not see", "[cache][misuse]") {
  check_misuse("unseen_barrier", "thread 0 of 2", "used across a barrier it did not see");
}

TEST_CASE("misuse: an index out of range", "[cache][misuse]") {
  check_misuse("array_index", "thread 1 of 2", "index (1, 5) is out of range");
  check_misuse("range_index", "thread 0 of 2", "index 2 outside the range [0, 2)");
}

TEST_CASE("misuse: the capacity exceeded in one phase, a capacity of 0, a tile of 0 lines",
          "[cache][misuse]") {
  check_misuse("capacity_exceeded", "thread 1 of 2",
               "capacity of 2 lines (32 elements) exceeded in one phase");
  check_misuse("capacity_zero", "thread 0 of 1", "with capacity 0");
  check_misuse("tile_zero", "thread 0 of 1", "lines_per_iteration must be at least 1");
}
