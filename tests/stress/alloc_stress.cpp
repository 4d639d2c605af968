// Stress test (not a benchmark): 8 threads on this 2-core machine allocate, fill, verify and
// free shared memory at once — local blocks of random sizes (some freed by another thread),
// collective all_alloc/all_free rounds and global_alloc from random threads — and check that
// no byte is ever seen corrupted and that accounting returns to zero. Bounded by
// PGAS_TEST_STRESS_ROUNDS (default 2000). A second case starts the most threads a job may have
// (-Dmax_threads), each allocating, so that limit is known to be reachable.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <pgas/pgas.hpp>

namespace {

int rounds() {
  const char* r = std::getenv("PGAS_TEST_STRESS_ROUNDS");
  return r != nullptr ? std::atoi(r) : 2000;
}

struct block {
  unsigned char* p = nullptr;
  std::size_t n = 0;
  unsigned char tag = 0;
};

bool intact(const block& b) {
  for (std::size_t i = 0; i < b.n; ++i) {
    if (b.p[i] != b.tag) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("allocation from many threads at once never corrupts memory", "[stress][alloc]") {
  const int n = 8;
  std::atomic<long> corrupt{0};
  std::atomic<long> misplaced{0};
  std::atomic<long> leaked{0};
  // Blocks handed to the next thread to free (cross-thread upc_free).
  std::vector<std::vector<block>> handoff(n);
  pgas::run_options o;
  o.threads = n;
  const int rc = pgas::run(o, 0, nullptr, [&] {
    const int me = pgas::mythread();
    std::mt19937 rng(static_cast<unsigned>(1234 + me));
    std::vector<block> mine;
    for (int round = 0; round < rounds(); ++round) {
      for (int k = 0; k < 20; ++k) {
        block b;
        b.n = 1 + rng() % (rng() % 8 == 0 ? 200000 : 2000);
        b.p = static_cast<unsigned char*>(pgas::local_alloc(b.n));
        b.tag = static_cast<unsigned char>(rng());
        if (pgas::owner_of(b.p) != me) misplaced++;
        std::memset(b.p, b.tag, b.n);
        mine.push_back(b);
      }
      // Free a random half, verifying first.
      for (std::size_t i = 0; i < mine.size();) {
        if (rng() % 2 == 0) {
          if (!intact(mine[i])) corrupt++;
          pgas::free(mine[i].p);
          mine[i] = mine.back();
          mine.pop_back();
        } else {
          ++i;
        }
      }
      // A collective round: every thread writes its part, reads everyone's.
      pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(n) * 3, 512);
      for (std::size_t i = static_cast<std::size_t>(me); i < a.nblocks(); i += n) {
        std::memset(a.block(i), static_cast<int>((i + round) & 0xff), 512);
      }
      // Hand some blocks to the next thread, which frees them after the barrier.
      const auto next = static_cast<std::size_t>((me + 1) % n);
      if (!mine.empty() && round % 3 == 0) {
        handoff[next].push_back(mine.back());
        mine.pop_back();
      }
      pgas::barrier();
      for (std::size_t i = 0; i < a.nblocks(); ++i) {
        if (static_cast<unsigned char*>(a.block(i))[511] != ((i + round) & 0xff)) corrupt++;
      }
      for (const block& b : handoff[static_cast<std::size_t>(me)]) {
        if (!intact(b)) corrupt++;
        pgas::free(b.p);
      }
      handoff[static_cast<std::size_t>(me)].clear();
      if (round % 10 == me) {
        pgas::shared_alloc g = pgas::global_alloc(static_cast<std::size_t>(n), 4096);
        std::memset(g.part(me), 7, 4096);
        pgas::free(g);
      }
      pgas::barrier();
      pgas::all_free(a);
    }
    for (const block& b : mine) {
      if (!intact(b)) corrupt++;
      pgas::free(b.p);
    }
    pgas::barrier();
    if (pgas::memory_usage_of(me).allocated != 0) leaked++;
  });
  CHECK(rc == 0);
  CHECK(corrupt == 0);
  CHECK(misplaced == 0);
  CHECK(leaked == 0);
}

TEST_CASE("the thread limit is reachable: every one of max_threads threads allocates",
          "[stress][alloc][limit]") {
  // config::max_threads threads, far more than this machine's PUs, each with its own jemalloc
  // arena and tcache: each allocates locally (in its own segment) and privately, hands a local
  // block to its neighbour to check, and frees.
  const int n = pgas::config::max_threads;
  std::vector<unsigned char*> blocks(static_cast<std::size_t>(n), nullptr);
  std::atomic<long> misplaced{0};
  std::atomic<long> corrupt{0};
  pgas::run_options o;
  o.threads = n;
  const int rc = pgas::run(o, 0, nullptr, [&] {
    const int me = pgas::mythread();
    auto* p = static_cast<unsigned char*>(pgas::local_alloc(256));
    if (pgas::owner_of(p) != me) misplaced++;
    std::memset(p, me % 251, 256);
    auto* q = static_cast<unsigned char*>(pgas::private_alloc(64));
    std::memset(q, 1, 64);
    blocks[static_cast<std::size_t>(me)] = p;
    pgas::barrier();
    const int next = (me + 1) % n;
    const unsigned char* theirs = blocks[static_cast<std::size_t>(next)];
    if (theirs[0] != next % 251 || theirs[255] != next % 251) corrupt++;
    pgas::barrier();
    pgas::free(p);
    pgas::private_free(q);
  });
  CHECK(rc == 0);
  CHECK(misplaced == 0);
  CHECK(corrupt == 0);
}
