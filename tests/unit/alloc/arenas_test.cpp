// Tests alloc/arenas.cpp through pgas::local_alloc / pgas::free / pgas::private_alloc: blocks
// land in the caller's segment, at the alignment asked for, freed memory is reused, frees from
// other threads, sizes from 0 B to 8 MiB, contents under concurrent use, private memory bound to
// its node, and arenas given back to jemalloc at job end.
#include <jemalloc/jemalloc.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <pgas/alloc.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sync.hpp>

#include "alloc/arenas.hpp"

namespace {

pgas::run_options opts(int threads) {
  pgas::run_options o;
  o.threads = threads;
  o.bind_to = pgas::bind_policy::none;
  o.report_bindings = false;
  o.topology = "";
  return o;
}

// Runs body on `threads` threads; returns how many checks failed (Catch2 assertions are not
// thread-safe, so bodies count failures and the main thread checks the total).
template <class F>
int run_counting(int threads, F body) {
  std::atomic<int> bad{0};
  const int rc = pgas::run(opts(threads), 0, nullptr, [&](int, char**) {
    body(bad);
    return 0;
  });
  REQUIRE(rc == 0);
  return bad.load();
}

bool in_local_region(const void* p, int t) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto seg = reinterpret_cast<std::uintptr_t>(pgas::segment_base(t));
  return a >= seg + pgas::segment_size() / 2 && a < seg + pgas::segment_size();
}

bool aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(std::max_align_t) == 0;
}

unsigned narenas() {
  unsigned n = 0;
  std::size_t len = sizeof(n);
  mallctl("arenas.narenas", &n, &len, nullptr, 0);
  return n;
}

const std::size_t sizes[] = {0,   1,    7,    8,    9,     15,    16,      17,      100,
                             512, 1000, 4096, 5000, 32768, 40000, 1 << 20, 3 << 20, 8 << 20};

}  // namespace

TEST_CASE("local blocks lie in the caller's local region, aligned", "[arenas]") {
  const int bad = run_counting(3, [](std::atomic<int>& bad) {
    const int me = pgas::mythread();
    std::vector<void*> live;
    for (std::size_t n : sizes) {
      void* p = pgas::local_alloc(n);
      if (p == nullptr || pgas::owner_of(p) != me || !in_local_region(p, me) || !aligned(p)) {
        bad++;
      }
      if (p != nullptr && pgas::detail::arena_usable_size(p) < n) bad++;
      if (p != nullptr && pgas::detail::arena_usable_size(p) != pgas::detail::arena_size_class(n)) {
        bad++;
      }
      if (p != nullptr) std::memset(p, 0xA5, n);
      live.push_back(p);
    }
    for (void* p : live)
      pgas::free(p);
  });
  CHECK(bad == 0);
}

TEST_CASE("aligned local blocks start on the boundary asked for, accounted and freed", "[arenas]") {
  const int bad = run_counting(2, [](std::atomic<int>& bad) {
    const int me = pgas::mythread();
    const std::size_t before = pgas::memory_usage_of(me).allocated;
    const std::size_t alignments[] = {0, 1, 8, 32, 64, 4096, 65536, std::size_t{2} << 20};
    std::vector<void*> live;
    for (std::size_t a : alignments) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{5000},
                            std::size_t{3} << 20}) {
        void* p = pgas::local_alloc(n, a);
        const std::size_t want = std::max(a, alignof(std::max_align_t));
        if (p == nullptr || pgas::owner_of(p) != me || !in_local_region(p, me)) bad++;
        if (reinterpret_cast<std::uintptr_t>(p) % want != 0) bad++;
        if (pgas::detail::arena_usable_size(p) < n) bad++;
        std::memset(p, 0x5A, n);
        live.push_back(p);
      }
    }
    if (pgas::memory_usage_of(me).allocated < before + 8 * (5101 + (std::size_t{3} << 20))) bad++;
    for (void* p : live)
      pgas::free(p);
    if (pgas::memory_usage_of(me).allocated != before) bad++;
  });
  CHECK(bad == 0);
}

TEST_CASE("an alignment beyond what the local region holds throws, never misaligns", "[arenas]") {
  // First in a fresh job: the arena carves its first extent for this very request.
  for (const int lg : {36, 40, 47, 62, 63}) {
    const int bad = run_counting(1, [lg](std::atomic<int>& bad) {
      const std::size_t a = std::size_t{1} << lg;
      try {
        void* p = pgas::local_alloc(100, a);
        if (reinterpret_cast<std::uintptr_t>(p) % a != 0) bad++;
        pgas::free(p);
      } catch (const pgas::bad_shared_alloc& e) {
        if (std::string(e.what()).find("aligned to " + std::to_string(a)) == std::string::npos) {
          bad++;
        }
      }
    });
    INFO("alignment 2^" << lg);
    CHECK(bad == 0);
  }
}

TEST_CASE("an alignment that is not a power of two is misuse named at the call", "[arenas]") {
  const int line = __LINE__ + 2;
  try {
    (void)pgas::local_alloc(64, 48);
    FAIL("no error");
  } catch (const pgas::usage_error& e) {
    CHECK_THAT(e.what(),
               Catch::Matchers::Contains("pgas::local_alloc: alignment 48 is not a power of two"));
    CHECK_THAT(e.what(), Catch::Matchers::Contains("arenas_test.cpp:" + std::to_string(line)));
  }
}

TEST_CASE("zero-byte local allocations are unique and freeable", "[arenas]") {
  const int bad = run_counting(2, [](std::atomic<int>& bad) {
    std::set<void*> seen;
    for (int i = 0; i < 100; ++i) {
      void* p = pgas::local_alloc(0);
      if (p == nullptr || !seen.insert(p).second) bad++;
    }
    for (void* p : seen)
      pgas::free(p);
  });
  CHECK(bad == 0);
}

TEST_CASE("freed local memory is reused: the segment stops growing", "[arenas]") {
  const int bad = run_counting(2, [](std::atomic<int>& bad) {
    const int me = pgas::mythread();
    void* a = pgas::local_alloc(200);
    pgas::free(a);
    void* b = pgas::local_alloc(200);
    if (a != b) bad++;  // the owner's tcache is LIFO
    pgas::free(b);

    std::mt19937 rng(static_cast<unsigned>(me));
    auto cycle = [&] {
      const std::size_t n = sizes[rng() % std::size(sizes)];
      void* p = pgas::local_alloc(n);
      static_cast<char*>(p)[n == 0 ? 0 : n - 1] = 1;
      pgas::free(p);
    };
    for (int i = 0; i < 1000; ++i)
      cycle();
    const pgas::memory_usage before = pgas::memory_usage_of(me);
    for (int i = 0; i < 10000; ++i)
      cycle();
    const pgas::memory_usage after = pgas::memory_usage_of(me);
    if (after.committed != before.committed) bad++;
    if (after.allocated != before.allocated) bad++;
  });
  CHECK(bad == 0);
}

TEST_CASE("a block allocated on one thread can be freed on another", "[arenas]") {
  constexpr int per_thread = 2000;
  std::vector<std::atomic<void*>> slots(3 * per_thread);
  const int bad = run_counting(3, [&](std::atomic<int>& bad) {
    const int me = pgas::mythread();
    const int n = pgas::threads();
    for (int i = 0; i < per_thread; ++i) {
      const std::size_t bytes = 16 + static_cast<std::size_t>(i % 64) * 24;
      slots[static_cast<std::size_t>(me * per_thread + i)] = pgas::local_alloc(bytes);
    }
    const std::size_t used = pgas::memory_usage_of(me).allocated;
    pgas::barrier();
    // Free the next thread's blocks, then allocate the same sizes: these must still come from
    // our own segment (a foreign block must never enter our cache).
    const int next = (me + 1) % n;
    for (int i = 0; i < per_thread; ++i)
      pgas::free(slots[static_cast<std::size_t>(next * per_thread + i)].exchange(nullptr));
    for (int i = 0; i < per_thread; ++i) {
      const std::size_t bytes = 16 + static_cast<std::size_t>(i % 64) * 24;
      void* p = pgas::local_alloc(bytes);
      if (pgas::owner_of(p) != me) bad++;
      pgas::free(p);
    }
    pgas::barrier();
    if (used == 0 || pgas::memory_usage_of(me).allocated != 0) bad++;
  });
  CHECK(bad == 0);
}

TEST_CASE("any thread may allocate from another thread's arena", "[arenas]") {
  const int bad = run_counting(2, [](std::atomic<int>& bad) {
    const int other = 1 - pgas::mythread();
    for (int i = 0; i < 1000; ++i) {
      void* p = pgas::detail::arena_local_alloc(other, 64 + static_cast<std::size_t>(i));
      if (pgas::owner_of(p) != other) bad++;
      pgas::detail::arena_local_free(p);
    }
    pgas::barrier();
  });
  CHECK(bad == 0);
}

TEST_CASE("contents survive concurrent allocation from every thread", "[arenas]") {
  constexpr int blocks = 3000;
  std::vector<std::atomic<void*>> slots(4 * blocks);
  std::vector<std::atomic<std::size_t>> lengths(4 * blocks);
  const int bad = run_counting(4, [&](std::atomic<int>& bad) {
    const int me = pgas::mythread();
    std::mt19937 rng(static_cast<unsigned>(42 + me));
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < blocks; ++i) {
        const std::size_t n = rng() % 8 == 0 ? 1 + rng() % 200000 : 1 + rng() % 512;
        auto* p = static_cast<unsigned char*>(pgas::local_alloc(n));
        const auto k = static_cast<std::size_t>(me * blocks + i);
        for (std::size_t b = 0; b < n; ++b)
          p[b] = static_cast<unsigned char>(k * 31 + b);
        slots[k] = p;
        lengths[k] = n;
      }
      pgas::barrier();
      // Every thread checks and frees a quarter of everybody's blocks.
      for (std::size_t k = static_cast<std::size_t>(me); k < slots.size(); k += 4) {
        auto* p = static_cast<unsigned char*>(slots[k].load());
        for (std::size_t b = 0; b < lengths[k]; ++b) {
          if (p[b] != static_cast<unsigned char>(k * 31 + b)) {
            bad++;
            break;
          }
        }
        pgas::free(p);
      }
      pgas::barrier();
    }
  });
  CHECK(bad == 0);
}

TEST_CASE("purged local memory is reused in place", "[arenas]") {
  const int bad = run_counting(2, [](std::atomic<int>& bad) {
    const int me = pgas::mythread();
    std::vector<char*> blocks;
    for (int i = 0; i < 8; ++i) {
      auto* p = static_cast<char*>(pgas::local_alloc(1 << 20));
      std::memset(p, 0x5A, 1 << 20);
      blocks.push_back(p);
    }
    const std::size_t committed = pgas::memory_usage_of(me).committed;
    for (char* p : blocks)
      pgas::free(p);
    pgas::barrier();
    // Returns every arena's unused pages to the system through the purge hooks.
    if (me == 0 && mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0) != 0) bad++;
    pgas::barrier();
    for (int i = 0; i < 8; ++i) {
      auto* p = static_cast<char*>(pgas::local_alloc(1 << 20));
      if (pgas::owner_of(p) != me) bad++;
      std::memset(p, 0x33, 1 << 20);
      blocks[static_cast<std::size_t>(i)] = p;
    }
    if (pgas::memory_usage_of(me).committed != committed) bad++;
    for (char* p : blocks) {
      if (p[0] != 0x33 || p[(1 << 20) - 1] != 0x33) bad++;
      pgas::free(p);
    }
  });
  CHECK(bad == 0);
}

TEST_CASE("exhausting the local region throws and the job goes on", "[arenas]") {
  const int bad = run_counting(2, [](std::atomic<int>& bad) {
    try {
      pgas::local_alloc(pgas::segment_size());
      bad++;
    } catch (const pgas::bad_shared_alloc& e) {
      if (e.thread() != pgas::mythread()) bad++;
    }
    // Past the local region: the arena's extent hook finds no room, jemalloc returns null.
    if (pgas::detail::arena_local_alloc(pgas::mythread(), pgas::segment_size()) != nullptr) bad++;
    void* p = pgas::local_alloc(100);
    if (pgas::owner_of(p) != pgas::mythread()) bad++;
    pgas::free(p);
  });
  CHECK(bad == 0);
}

TEST_CASE("job end gives the arenas back, live blocks included", "[arenas]") {
  unsigned first = 0;
  for (int job = 0; job < 6; ++job) {
    const int bad = run_counting(3, [](std::atomic<int>& bad) {
      for (std::size_t n : sizes) {
        if (pgas::local_alloc(n) == nullptr) bad++;  // never freed
      }
    });
    CHECK(bad == 0);
    if (job == 0) first = narenas();
    CHECK(narenas() == first);  // destroyed arenas' indices are reused
  }
}

TEST_CASE("private memory is bound to node 0 outside a job", "[arenas][private]") {
  std::vector<void*> live;
  for (std::size_t n : sizes) {
    auto* p = static_cast<char*>(pgas::private_alloc(n));
    REQUIRE(p != nullptr);
    CHECK(aligned(p));
    CHECK(pgas::detail::arena_usable_size(p) >= n);
    CHECK(pgas::detail::arena_usable_size(p) == pgas::detail::arena_size_class(n));
    CHECK(pgas::owner_of(p) == -1);
    p[0] = 1;
    if (n > 0) p[n - 1] = 2;
    CHECK(pgas::locate(p).bound_node == 0);
    CHECK(pgas::locate(p).page_node == 0);
    live.push_back(p);
  }
  for (void* p : live)
    pgas::private_free(p);
}

TEST_CASE("private memory inside a job: bound, outside the space, freed anywhere", "[arenas]") {
  std::vector<std::atomic<void*>> slots(2 * 500);
  const int bad = run_counting(2, [&](std::atomic<int>& bad) {
    const int me = pgas::mythread();
    for (int i = 0; i < 500; ++i) {
      const std::size_t n = 1 + static_cast<std::size_t>(i) * 97;
      auto* p = static_cast<char*>(pgas::private_alloc(n));
      std::memset(p, me + 1, n);
      if (pgas::owner_of(p) != -1 || pgas::locate(p).bound_node != 0 || !aligned(p)) bad++;
      slots[static_cast<std::size_t>(me * 500 + i)] = p;
    }
    pgas::barrier();
    const int other = 1 - me;
    for (int i = 0; i < 500; ++i) {
      auto* p = static_cast<char*>(slots[static_cast<std::size_t>(other * 500 + i)].load());
      if (p[0] != other + 1) bad++;
      pgas::private_free(p);
    }
  });
  CHECK(bad == 0);
}
