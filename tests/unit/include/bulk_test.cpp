// Tests pgas/bulk.hpp — memget, memput, memcpy and memset (UPC upc_memget, upc_memput,
// upc_memcpy, upc_memset) — between threads of jobs of 1 to 4 threads: data arrives, only the
// n bytes at the pointer's address in ONE thread's memory are touched whatever the pointer's
// block size and phase, n == 0 does nothing, and whole parts (up to the allocation's last byte)
// copy without complaint in checked builds, and an exact self-copy does nothing.

#include <pgas/pgas.hpp>
#include <pgas/upc.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

using pgas::block_spec;
using pgas::shared_array;
using pgas::sptr;

std::uint32_t pattern(int thread, std::size_t k) {
  return static_cast<std::uint32_t>(thread) * 1000003u + static_cast<std::uint32_t>(k) * 7u + 1u;
}

}  // namespace

TEST_CASE("memput and memget move whole parts between threads", "[bulk]") {
  for (int n : {1, 2, 3, 4}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const int next = (me + 1) % n;
      const int prev = (me + n - 1) % n;
      // shared [100] uint32_t A[100 * THREADS]: one block per thread.
      shared_array<std::uint32_t> a({100 * static_cast<std::size_t>(n)}, block_spec::cyclic(100));
      const std::size_t bytes = a.localsizeof();
      EXPECT(f, bytes == 400, "");
      std::vector<std::uint32_t> mine(100), got(100, 0);
      for (std::size_t k = 0; k < 100; ++k)
        mine[k] = pattern(me, k);
      // Put my pattern into the next thread's block (the whole part, to its last byte).
      pgas::memput(a.ptr(100 * static_cast<std::size_t>(next)), mine.data(), bytes);
      pgas::barrier();
      // My block holds the previous thread's pattern.
      for (std::size_t k = 0; k < 100; ++k) {
        EXPECT(f, a(100 * static_cast<std::size_t>(me) + k) == pattern(prev, k), "element " << k);
      }
      // Get the next thread's block: it holds mine.
      pgas::memget(got.data(), a.ptr(100 * static_cast<std::size_t>(next)), bytes);
      EXPECT(
          f,
          got == std::vector<std::uint32_t>(a.local_part(next).begin(), a.local_part(next).end()),
          "memget equals the part");
      EXPECT(f, got[99] == pattern(next == 0 ? n - 1 : next - 1, 99), "");
      // Through a const pointer, a generic one and a run-time-block one.
      const sptr<const std::uint32_t, pgas::dynamic_block> cp =
          a.ptr(100 * static_cast<std::size_t>(prev) + 10);
      std::uint32_t four[4] = {};
      pgas::memget(four, cp, sizeof four);
      EXPECT(f, four[0] == pattern(prev == 0 ? n - 1 : prev - 1, 10), "const source");
      pgas::memget(four, sptr<const void>(cp), 4);
      EXPECT(f, four[0] == pattern(prev == 0 ? n - 1 : prev - 1, 10), "generic source");
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("bulk calls touch n bytes at the pointer's address, on one thread", "[bulk]") {
  failures f;
  pgas::run(test_job(3), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const int n = pgas::threads();
    // shared [4] int A[48]: every thread has 4 blocks of 4 ints (16 per thread).
    shared_array<int, 1, 4> a({48});
    pgas::barrier();
    if (me == 0) {
      // From &A[6] (thread 1, phase 2), 10 ints: bytes of thread 1's part, in its storage order
      // (A[6], A[7], then its next block A[16], A[17], ...), never another thread's elements.
      std::vector<int> v(10);
      for (int k = 0; k < 10; ++k)
        v[static_cast<std::size_t>(k)] = 100 + k;
      pgas::memput(a.ptr(6), v.data(), v.size() * sizeof(int));
    }
    pgas::barrier();
    const auto part1 = a.local_part(1);
    for (std::size_t k = 0; k < 16; ++k) {
      const int expected = k >= 2 && k < 12 ? 100 + static_cast<int>(k) - 2 : 0;
      EXPECT(f, part1[k] == expected, "thread 1's part, element " << k);
    }
    for (int t : {0, 2}) {
      for (int e : a.local_part(t))
        EXPECT(f, e == 0, "thread " << t << " was touched");
    }
    EXPECT(f, a(6) == 100 && a(7) == 101 && a(16) == 102 && a(8) == 0 && a(12) == 0, "");
    pgas::barrier();

    // memset: (unsigned char) c, exactly n bytes.
    if (me == n - 1) pgas::memset(a.ptr(5), 0x1A5, 3);  // thread 1, phase 1: 3 bytes of A[5]
    pgas::barrier();
    std::uint32_t bits = 0;
    std::memcpy(&bits, &a(5), 4);
    const std::uint32_t low3 = 0xA5A5A5u;
    EXPECT(f, (bits & 0xFFFFFFu) == low3, std::hex << bits);
    EXPECT(f, a(4) == 0 && a(6) == 100, "neighbours untouched");
    pgas::barrier();

    // memcpy between two other threads' parts, by a third: from &A[4] (the start of thread 1's
    // part) to &A[20] (the second block of thread 2's).
    if (me == 0) pgas::memcpy(a.ptr(20), a.ptr(4), 8 * sizeof(int));
    pgas::barrier();
    for (std::size_t k = 0; k < 8; ++k)
      EXPECT(f, a.local_part(2)[k + 4] == a.local_part(1)[k], "memcpy element " << k);
    EXPECT(f, a.local_part(2)[12] == 0 && a.local_part(2)[3] == 0, "memcpy stayed in range");
    pgas::barrier();

    // n == 0 touches nothing, even through the null pointer-to-shared.
    int dummy = 7;
    pgas::memget(&dummy, sptr<const int>(), 0);
    pgas::memput(sptr<int>(), &dummy, 0);
    pgas::memcpy(sptr<void>(), sptr<const void>(), 0);
    pgas::memset(sptr<char>(), 1, 0);
    EXPECT(f, dummy == 7, "");
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("bulk calls reach local allocations and every thread's part of all_alloc", "[bulk]") {
  failures f;
  std::vector<void*> published(4, nullptr);
  pgas::run(test_job(4), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const int n = pgas::threads();
    // A local allocation of each thread, written by its right-hand neighbour with memput.
    auto* mine = pgas::local_alloc_of<char>(256);
    std::memset(mine, 0, 256);
    published[static_cast<std::size_t>(me)] = mine;
    pgas::barrier();
    auto* theirs = static_cast<char*>(published[static_cast<std::size_t>((me + 1) % n)]);
    const std::string text = "from thread " + std::to_string(me);
    pgas::memput(pgas::sptr_from(theirs + 10), text.c_str(), text.size() + 1);
    pgas::barrier();
    const std::string expected = "from thread " + std::to_string((me + n - 1) % n);
    EXPECT(f, std::string(mine + 10) == expected, mine + 10);
    // memset all of a neighbour's buffer, then read it back with memget.
    pgas::barrier();
    pgas::memset(pgas::sptr_from(theirs), 'x', 256);
    pgas::barrier();
    char back[256];
    pgas::memget(back, pgas::sptr_from(static_cast<const char*>(mine)), 256);
    EXPECT(f, std::string(back, 256) == std::string(256, 'x'), "");
    pgas::barrier();
    // all_alloc: every part, by sptr made from its parts.
    const pgas::shared_alloc s = pgas::all_alloc(static_cast<std::size_t>(n), 64);
    std::memset(s.part(me), 0, s.part_bytes());
    pgas::barrier();
    for (int t = 0; t < n; ++t) {
      if (t == me) continue;
      const auto p = sptr<char, pgas::indefinite>::from_parts(t, s.offset());
      pgas::memset(p + me, static_cast<int>('a' + me), 1);
    }
    pgas::barrier();
    const char* part = static_cast<const char*>(s.part(me));
    for (int t = 0; t < n; ++t)
      EXPECT(f, part[t] == (t == me ? 0 : 'a' + t), "byte " << t);
    pgas::barrier();
    pgas::all_free(s);
    pgas::free(mine);
  });
  check_no_failures(f);
}

TEST_CASE("an exact self-copy is a no-op, blocking or not, as in every UPC runtime", "[bulk]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    shared_array<std::uint32_t> a({128}, block_spec::cyclic(64));
    auto* mine = &a[static_cast<std::size_t>(me) * 64];
    for (std::size_t k = 0; k < 64; ++k)
      mine[k] = pattern(me, k);
    // Thread me's own block in an all-to-all loop: source and destination are one range.
    const auto block = a.ptr(static_cast<std::size_t>(me) * 64);
    const std::size_t bytes = 64 * sizeof(std::uint32_t);
    upc_memcpy(block, block, bytes);
    pgas::memcpy(block, block, bytes);
    pgas::memget(mine, block, bytes);
    pgas::memput(block, mine, bytes);
    upc_handle_t h = upc_memcpy_nb(block, block, bytes);
    upc_sync(h);
    pgas::sync(pgas::memget_nb(mine, block, bytes));
    pgas::memput_nbi(block, mine, bytes);
    pgas::synci();
    for (std::size_t k = 0; k < 64; ++k)
      EXPECT(f, mine[k] == pattern(me, k), "element " << k);
  });
  check_no_failures(f);
}

TEST_CASE("outside a job a bulk call of n != 0 bytes throws usage_error in every build", "[bulk]") {
  int x = 5;
  const auto null = sptr<int>::from_word(0);
  // There is no shared memory outside a job: even a null pointer-to-shared has nowhere to go.
  CHECK_THROWS_AS(pgas::memput(null, &x, sizeof x), pgas::usage_error);
  CHECK_THROWS_WITH(pgas::memget(&x, sptr<const int>(null), sizeof x),
                    Catch::Contains("pgas::memget source: no job is running"));
  CHECK_THROWS_AS(pgas::memset(null, 0, 1), pgas::usage_error);
  CHECK_THROWS_AS(pgas::memcpy(null, sptr<const int>(null), 4), pgas::usage_error);
  // n == 0 still does nothing.
  CHECK_NOTHROW(pgas::memget(&x, sptr<const int>(null), 0));
  CHECK(x == 5);
}

TEST_CASE("the last bytes of a thread's segment copy like any others once allocated", "[bulk]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    // Thread 1 fills its local region, the end of its segment, with local allocations (they
    // commit address space only: nothing is touched), largest first.
    std::vector<void*> blocks;
    char* last = nullptr;
    std::size_t last_size = 0;
    std::size_t last_end = 0;
    if (me == 1) {
      for (std::size_t size = std::size_t{1} << 36; size >= 64; size /= 2) {
        for (;;) {
          void* got = nullptr;
          try {
            got = pgas::local_alloc(size);
          } catch (const pgas::bad_shared_alloc&) {
          }
          if (got == nullptr) break;
          blocks.push_back(got);
          const std::size_t end = pgas::sptr_from(static_cast<char*>(got)).addrfield() + size;
          if (end > last_end) {
            last_end = end;
            last = static_cast<char*>(got);
            last_size = size;
          }
        }
      }
      EXPECT(f, last_end == pgas::detail::geometry.segment,
             "the highest block ends at " << last_end);
    }
    pgas::barrier();
    if (me == 1 && last_end == pgas::detail::geometry.segment) {
      // The last n bytes of the segment, through every bulk call, blocking or not.
      const std::size_t n = std::min<std::size_t>(last_size, 64);
      const auto tail = pgas::sptr_from(last + last_size - n);
      std::vector<char> buf(n, 'x');
      pgas::memput(tail, buf.data(), n);
      upc_memset(tail, 'y', n);
      upc_memget(buf.data(), tail, n);
      EXPECT(f, buf == std::vector<char>(n, 'y'), "");
      pgas::sync(pgas::memget_nb(buf.data(), tail, n));
      pgas::sync(pgas::memset_nb(tail, 'z', n));
      pgas::memcpy(pgas::sptr_from(last), tail, n);
      EXPECT(f, last[0] == 'z', "");
    }
    pgas::barrier();
    for (void* b : blocks)
      pgas::free(b);
  });
  check_no_failures(f);
}
