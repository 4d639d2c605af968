// Stress test (not a benchmark): UPC collectives right after barriers, at 2 threads (the
// barrier's spinning mode, where a waiter leaves as soon as it sees the release) and at 3, with
// a busy thread outside the job taking the processors away at random moments. Every call with
// NOSYNC, MYSYNC and ALLSYNC flags must agree across threads and deliver its bytes; a false
// mismatch report would end the process with status 1. Bounded by PGAS_TEST_STRESS_ROUNDS
// (default 2000; each job runs ten times that many calls).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <pgas/pgas.hpp>

namespace {

int rounds() {
  const char* r = std::getenv("PGAS_TEST_STRESS_ROUNDS");
  return r != nullptr ? std::atoi(r) : 2000;
}

}  // namespace

TEST_CASE("UPC collectives after barriers never report a false mismatch", "[stress][collectives]") {
  std::atomic<bool> stop{false};
  // Competes for the processors, so that a thread can lose its one between two stores.
  std::thread busy([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      for (int i = 0; i < 20000; ++i)
        asm volatile("");  // a busy loop the compiler keeps
      std::this_thread::yield();
    }
  });
  for (int n : {2, 3}) {
    INFO(n << " threads");
    std::atomic<int> wrong{0};
    pgas::run_options o;
    o.threads = n;
    pgas::run(o, 0, nullptr, [&] {
      const pgas::shared_alloc src = pgas::all_alloc(1, 8);
      const pgas::shared_alloc dst = pgas::all_alloc(static_cast<std::size_t>(n), 8);
      const auto s = pgas::sptr<const unsigned char>::from_parts(0, src.offset());
      const auto d = pgas::sptr<unsigned char>::from_parts(0, dst.offset());
      const int me = pgas::mythread();
      const pgas::coll_flags flags[] = {pgas::in_nosync | pgas::out_nosync,
                                        pgas::in_mysync | pgas::out_mysync,
                                        pgas::in_allsync | pgas::out_allsync};
      for (int i = 0; i < rounds() * 10; ++i) {
        const auto v = static_cast<unsigned char>(i);
        if (me == 0) *static_cast<unsigned char*>(src.part(0)) = v;
        pgas::barrier();
        pgas::all_broadcast(d, s, 1, flags[i % 3]);
        pgas::barrier();
        if (*static_cast<const unsigned char*>(dst.part(me)) != v) wrong.fetch_add(1);
      }
      pgas::all_free(dst);
      pgas::all_free(src);
    });
    CHECK(wrong.load() == 0);
  }
  stop.store(true);
  busy.join();
}
