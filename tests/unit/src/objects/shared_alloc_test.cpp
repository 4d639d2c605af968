// Tests src/objects/shared_alloc.cpp and alloc/space.cpp through <pgas/alloc.hpp>: segment
// geometry, real NUMA placement (get_mempolicy / move_pages), symmetric offsets, the distributed
// layout, global_alloc, exhaustion and recovery, accounting, and local allocation reuse.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include <pgas/pgas.hpp>

#include "../../test_job.hpp"

namespace {}  // namespace

TEST_CASE("segments are equal powers of two, one per thread, back to back", "[alloc]") {
  std::atomic<int> bad{0};
  pgas::run(test_job(3), 0, nullptr, [&] {
    const std::size_t s = pgas::segment_size();
    if (s == 0 || (s & (s - 1)) != 0 || s < (std::size_t{64} << 20)) bad++;
    for (int t = 0; t < pgas::threads(); ++t) {
      auto* base = static_cast<char*>(pgas::segment_base(t));
      if (base != static_cast<char*>(pgas::segment_base(0)) + s * static_cast<std::size_t>(t))
        bad++;
      if (pgas::owner_of(base) != t || pgas::owner_of(base + s - 1) != t) bad++;
    }
    if (pgas::owner_of(&bad) != -1) bad++;
  });
  CHECK(bad == 0);
  CHECK(pgas::segment_size() == 0);  // no space outside a job
}

TEST_CASE("bound segments are bound to the owner's node and pages land there", "[alloc][numa]") {
  std::atomic<int> checked{0};
  std::vector<pgas::memory_location> where(2);
  std::vector<int> expected(2, -1);
  pgas::run(test_job(2, pgas::bind_policy::core), 0, nullptr, [&] {
    pgas::shared_alloc a = pgas::all_alloc(2 * pgas::threads(), 1 << 16);
    const auto me = static_cast<std::size_t>(pgas::mythread());
    auto* part = static_cast<char*>(a.part(pgas::mythread()));
    std::memset(part, 1, a.part_bytes());
    where[me] = pgas::locate(part);
    const auto& m = pgas::job_machine();
    expected[me] = m.pus()[static_cast<std::size_t>(pgas::job_placement()[me].pu)].numa;
    checked++;
    pgas::barrier();
    pgas::all_free(a);
  });
  REQUIRE(checked == 2);
  for (std::size_t t = 0; t < 2; ++t) {
    INFO("thread " << t);
    CHECK(where[t].bound_node == expected[t]);
    CHECK(where[t].page_node == expected[t]);
  }
}

TEST_CASE("unbound jobs leave the default policy; untouched pages are nowhere", "[alloc][numa]") {
  pgas::memory_location touched, untouched;
  pgas::run(test_job(1), 0, nullptr, [&] {
    // global_alloc does not touch (all_alloc has the owner touch every page of its part).
    pgas::shared_alloc a = pgas::global_alloc(1, std::size_t{8} << 20);
    auto* p = static_cast<char*>(a.part(0));
    p[0] = 1;
    touched = pgas::locate(p);
    untouched = pgas::locate(p + (std::size_t{6} << 20));
    pgas::free(a);
  });
  CHECK(touched.bound_node == -1);
  CHECK(touched.page_node == 0);
  CHECK(untouched.page_node == -1);
}

TEST_CASE("all_alloc faults its part in on the owner's node, without writing", "[alloc][numa]") {
  std::vector<pgas::memory_location> first(2), last(2);
  std::atomic<int> nonzero{0};
  pgas::run(test_job(2), 0, nullptr, [&] {
    pgas::shared_alloc a = pgas::all_alloc(2, std::size_t{3} << 20);  // 3 MiB per thread
    const auto me = static_cast<std::size_t>(pgas::mythread());
    const auto* part = static_cast<const char*>(a.part(pgas::mythread()));
    first[me] = pgas::locate(part);
    last[me] = pgas::locate(part + a.part_bytes() - 1);
    for (std::size_t i = 0; i < a.part_bytes(); i += 4096)
      if (part[i] != 0) nonzero++;
    pgas::barrier();
    pgas::all_free(a);
  });
  CHECK(nonzero == 0);
  for (std::size_t t = 0; t < 2; ++t) {
    INFO("thread " << t);
    CHECK(first[t].page_node == 0);
    CHECK(last[t].page_node == 0);
  }
}

TEST_CASE("all_alloc is symmetric and laid out block-cyclically", "[alloc]") {
  const int n = 3;
  std::atomic<int> bad{0};
  pgas::run(test_job(n), 0, nullptr, [&] {
    static pgas::shared_alloc first;
    pgas::shared_alloc a = pgas::all_alloc(10, 100);  // 10 blocks of 100 bytes over 3 threads
    if (pgas::mythread() == 0) first = a;
    pgas::barrier();
    if (!(a == first)) bad++;
    if (a.part_bytes() != 4 * 100) bad++;  // ceil(10 / 3) blocks per thread
    for (std::size_t i = 0; i < 10; ++i) {
      const int owner = static_cast<int>(i % n);
      if (pgas::owner_of(a.block(i)) != owner) bad++;
      auto* expect = static_cast<char*>(pgas::segment_base(owner)) + a.offset() + (i / n) * 100;
      if (a.block(i) != expect) bad++;
    }
    // Everyone writes its own blocks; everyone reads all of them.
    for (std::size_t i = static_cast<std::size_t>(pgas::mythread()); i < 10; i += n) {
      std::memset(a.block(i), static_cast<int>(i), 100);
    }
    pgas::barrier();
    for (std::size_t i = 0; i < 10; ++i) {
      if (static_cast<unsigned char*>(a.block(i))[99] != i) bad++;
    }
    pgas::barrier();
    pgas::all_free(a);
  });
  CHECK(bad == 0);
}

TEST_CASE("global_alloc by one thread is usable by all, with all_alloc's layout", "[alloc]") {
  std::atomic<int> bad{0};
  pgas::run(test_job(4), 0, nullptr, [&] {
    static pgas::shared_alloc g;
    if (pgas::mythread() == 2) g = pgas::global_alloc(8, 256);
    pgas::barrier();
    if (g.part_bytes() != 2 * 256) bad++;
    for (std::size_t i = 0; i < 8; ++i) {
      if (pgas::owner_of(g.block(i)) != static_cast<int>(i % 4)) bad++;
    }
    *static_cast<int*>(g.part(pgas::mythread())) = pgas::mythread();
    pgas::barrier();
    for (int t = 0; t < 4; ++t) {
      if (*static_cast<int*>(g.part(t)) != t) bad++;
    }
    pgas::barrier();
    if (pgas::mythread() == 0) pgas::free(g);
  });
  CHECK(bad == 0);
}

TEST_CASE("freed distributed space is reused", "[alloc]") {
  // Allocating and freeing the same size over and over stays within the first allocation's
  // bytes and one colour window (alloc/symmetric.hpp): the freed space is taken again.
  std::atomic<int> bad{0};
  pgas::run(test_job(2), 0, nullptr, [&] {
    pgas::shared_alloc a = pgas::all_alloc(2, 4096);
    const std::size_t offset = a.offset();
    pgas::all_free(a);
    for (int round = 0; round < 100; ++round) {
      pgas::shared_alloc b = pgas::all_alloc(2, 4096);
      if (b.offset() + b.part_bytes() > offset + 2 * 4096) bad++;
      pgas::all_free(b);
    }
  });
  CHECK(bad == 0);
}

TEST_CASE("equal-size allocations in a row start at different cache colours", "[alloc][colour]") {
  // The guarantee of alloc/symmetric.hpp, through every collective way in: consecutive
  // allocations of parts >= 64 KiB never start at the same address modulo 4 KiB or 64 KiB, in
  // any thread's segment, and keep their 64-byte alignment.
  std::atomic<int> bad{0};
  std::atomic<int> checked{0};
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const auto distinct = [&](const void* p, const void* q) {
      const auto a = reinterpret_cast<std::uintptr_t>(p);
      const auto b = reinterpret_cast<std::uintptr_t>(q);
      if (a % 64 != 0 || b % 64 != 0 || a % 4096 == b % 4096 || a % 65536 == b % 65536) bad++;
      checked++;
    };
    constexpr std::size_t n = std::size_t{1} << 20;  // doubles: 4 MiB per thread
    pgas::shared_alloc x = pgas::all_alloc(2, n / 2 * sizeof(double));
    pgas::shared_alloc y = pgas::all_alloc(2, n / 2 * sizeof(double));
    distinct(x.part(me), y.part(me));
    {
      pgas::shared_array<double> u({n}, pgas::block_spec::cyclic(n / 2));
      pgas::shared_array<double> v({n}, pgas::block_spec::cyclic(n / 2));
      pgas::shared_array<double> w({n}, pgas::block_spec::cyclic(n / 2));
      distinct(u.local_part().data(), v.local_part().data());
      distinct(v.local_part().data(), w.local_part().data());
      distinct(u.local_part().data(), w.local_part().data());
    }
    if (me == 0) {
      pgas::shared_alloc g = pgas::global_alloc(2, n / 2 * sizeof(double));
      pgas::shared_alloc h = pgas::global_alloc(2, n / 2 * sizeof(double));
      distinct(g.part(1), h.part(1));
      pgas::free(g);
      pgas::free(h);
    }
    pgas::barrier();
    pgas::all_free(y);
    pgas::all_free(x);
  });
  CHECK(checked == 2 * 4 + 1);
  CHECK(bad == 0);
}

TEST_CASE("all_free has released the space on every thread when any returns", "[alloc]") {
  // Each part takes most of a thread's 1 MiB: a second live one does not fit, so the global
  // allocation right after all_free succeeds only if the collective one is already gone.
  ::setenv("PGAS_SHARED_HEAP_SIZE", "1m", 1);
  std::atomic<int> bad{0};
  pgas::run(test_job(2), 0, nullptr, [&] {
    const std::size_t before = pgas::memory_usage_of(pgas::mythread()).allocated;
    pgas::barrier();  // thread 0 allocates for everyone as soon as it gets there
    for (int round = 0; round < 200; ++round) {
      pgas::shared_alloc a = pgas::all_alloc(2, 768 << 10);
      pgas::all_free(a);
      // Thread 1, which does not allocate collective space, must find it gone at once.
      if (pgas::mythread() == 1) {
        if (pgas::memory_usage_of(1).allocated != before) bad++;
        try {
          pgas::free(pgas::global_alloc(2, 768 << 10));
        } catch (const pgas::bad_shared_alloc&) {
          bad++;
        }
      }
      pgas::barrier();
    }
  });
  ::unsetenv("PGAS_SHARED_HEAP_SIZE");
  CHECK(bad == 0);
}

TEST_CASE("exhaustion throws bad_shared_alloc on every thread, and the job recovers", "[alloc]") {
  ::setenv("PGAS_SHARED_HEAP_SIZE", "1m", 1);
  std::atomic<int> caught{0};
  std::atomic<int> recovered{0};
  std::atomic<int> local_caught{0};
  pgas::run(test_job(2), 0, nullptr, [&] {
    try {
      (void)pgas::all_alloc(2, std::size_t{2} << 20);
    } catch (const pgas::bad_shared_alloc& e) {
      if (e.requested() == (std::size_t{2} << 20) && std::strstr(e.what(), "thread") != nullptr) {
        caught++;
      }
    }
    try {
      (void)pgas::local_alloc(std::size_t{4} << 20);
    } catch (const std::bad_alloc&) {  // bad_shared_alloc is a std::bad_alloc
      local_caught++;
    }
    pgas::shared_alloc ok = pgas::all_alloc(2, 1024);
    if (ok) recovered++;
    pgas::barrier();
    pgas::all_free(ok);
  });
  ::unsetenv("PGAS_SHARED_HEAP_SIZE");
  CHECK(caught == 2);
  CHECK(local_caught == 2);
  CHECK(recovered == 2);
}

TEST_CASE("accounting follows allocations and frees", "[alloc]") {
  std::atomic<int> bad{0};
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const std::size_t before = pgas::memory_usage_of(me).allocated;
    // Thread 0's all_alloc accounts for every thread: read the baseline first everywhere.
    pgas::barrier();
    pgas::shared_alloc a = pgas::all_alloc(4, 1000);  // 2 blocks per thread
    if (pgas::memory_usage_of(me).allocated < before + 2000) bad++;
    if (pgas::memory_usage_of(me).committed < 2000) bad++;
    void* p = pgas::local_alloc(5000);
    if (pgas::memory_usage_of(me).allocated < before + 7000) bad++;
    pgas::free(p);
    pgas::barrier();
    pgas::all_free(a);
    pgas::barrier();
    if (pgas::memory_usage_of(me).allocated != before) bad++;
    if (pgas::memory_usage_of(me).limit == 0) bad++;
  });
  CHECK(bad == 0);
}

TEST_CASE("empty allocations are empty", "[alloc]") {
  std::atomic<int> bad{0};
  pgas::run(test_job(2), 0, nullptr, [&] {
    if (pgas::all_alloc(0, 100)) bad++;
    if (pgas::all_alloc(5, 0)) bad++;
    void* z = pgas::local_alloc(0);
    if (z == nullptr) bad++;
    pgas::free(z);
    pgas::free(nullptr);
  });
  CHECK(bad == 0);
}

namespace {

// all_alloc / global_alloc results converted to sptr<T, B> (UPC's shared void * assigned to a
// `shared [B] T *`): thread 0, phase 0, addrfield offset(); element m then lies where the
// allocation's block-cyclic layout of B-element blocks puts it — block m / B, at m % B.
template <class T, std::size_t B>
int typed_view_errors(const pgas::shared_alloc& a, std::size_t elements) {
  int bad = 0;
  const pgas::sptr<T, B> p = a;
  if (p.thread() != 0 || p.phase() != 0 || p.addrfield() != a.offset()) bad++;
  const pgas::sptr<void> g = a;
  if (g.word() != p.word()) bad++;
  for (std::size_t m = 0; m < elements; ++m) {
    const pgas::sptr<T, B> q = p + static_cast<std::ptrdiff_t>(m);
    const std::size_t b = B == 0 ? 0 : m / B;
    const std::size_t in = B == 0 ? m : m % B;
    T* const want = static_cast<T*>(a.block(b)) + in;
    if (q.get() != want) bad++;
    if (q.thread() != pgas::owner_of(want)) bad++;
    if (q.phase() != (B <= 1 ? 0 : in)) bad++;
  }
  return bad;
}

}  // namespace

TEST_CASE("allocations convert to typed pointers-to-shared as UPC's shared void * does",
          "[alloc][convert]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    std::atomic<int> bad{0};
    pgas::run(test_job(n), 0, nullptr, [&] {
      const auto threads = static_cast<std::size_t>(n);
      // shared int *p = upc_all_alloc(3 * THREADS, sizeof(int)): one int per block.
      pgas::shared_alloc a1 = pgas::all_alloc(3 * threads, sizeof(int));
      bad += typed_view_errors<int, 1>(a1, 3 * threads);
      pgas::sptr<int> p = pgas::all_alloc(threads, sizeof(int));  // the one line
      p[pgas::mythread()] = pgas::mythread();
      pgas::barrier();
      for (int t = 0; t < n; ++t)
        if (p[t] != t || (p + t).thread() != t) bad++;
      // shared [4] double: blocks of 4 doubles, 7 blocks, and shared [3] char.
      pgas::shared_alloc a4 = pgas::all_alloc(7, 4 * sizeof(double));
      bad += typed_view_errors<double, 4>(a4, 28);
      pgas::shared_alloc a3 = pgas::global_alloc(11, 3);
      bad += typed_view_errors<char, 3>(a3, 33);
      // shared [] long: everything in block 0, on thread 0.
      pgas::shared_alloc a0 = pgas::all_alloc(1, 16 * sizeof(long));
      bad += typed_view_errors<long, pgas::indefinite>(a0, 16);
      // An empty allocation gives the null pointer-to-shared.
      const pgas::sptr<int> none = pgas::all_alloc(0, 4);
      if (none) bad++;
      pgas::barrier();
      pgas::free(a3);
      pgas::all_free(a0);
      pgas::all_free(a4);
      pgas::all_free(pgas::shared_alloc(a1));
    });
    CHECK(bad == 0);
  }
}

TEST_CASE("local_alloc_shared is upc_alloc: a shared void * with affinity to the caller",
          "[alloc][convert]") {
  for (int n : {1, 3, 5}) {
    INFO(n << " threads");
    std::atomic<int> bad{0};
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const std::size_t before = pgas::memory_usage_of(me).allocated;
      const pgas::sptr<void> g = pgas::local_alloc_shared(100 * sizeof(int));
      const pgas::sptr<int, pgas::indefinite> p = g;
      auto* const base = static_cast<char*>(pgas::segment_base(me));
      if (p.thread() != me || p.phase() != 0 || g.thread() != me) bad++;
      if (p.addrfield() != static_cast<std::size_t>(static_cast<char*>(g.get()) - base)) bad++;
      if (p.addrfield() < pgas::segment_size() / 2) bad++;  // the local region
      for (int k = 0; k < 100; ++k)
        p[k] = k * me;
      for (int k = 0; k < 100; ++k)
        if ((p + k).get() != static_cast<int*>(g.get()) + k || p[k] != k * me) bad++;
      // shared int *q = upc_alloc(…): block 1 walks to the next thread at the same address
      // (from the last thread, to thread 0 at the next one).
      const pgas::sptr<int> q = g;
      const bool last = me + 1 == n;
      if ((q + 1).thread() != (last ? 0 : me + 1) ||
          (q + 1).addrfield() != p.addrfield() + (last ? sizeof(int) : 0))
        bad++;
      if (pgas::memory_usage_of(me).allocated <= before) bad++;
      pgas::free(p);
      if (pgas::memory_usage_of(me).allocated != before) bad++;
      pgas::free(pgas::sptr<int>());  // the null pointer-to-shared is ignored
    });
    CHECK(bad == 0);
  }
  CHECK_THROWS_AS(pgas::local_alloc_shared(8), pgas::usage_error);
}
