// Unit tests of pgas/upc.hpp: every UPC name the header defines (the map of pgas(7)) is used
// here as a UPC program spells it — MYTHREAD and THREADS in expressions and printf, upc_barrier
// with and without an id, `upc_lock_t *` handles — and each one does what the pgas call it
// stands for does, checked against values computed here. tools/upc_names.py checks that every
// UPC name of the manual page appears in this file.
#include <catch2/catch.hpp>

#include <pgas/shared_array.hpp>
#include <pgas/upc.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../test_job.hpp"

TEST_CASE("MYTHREAD and THREADS read as int expressions", "[upc]") {
  STATIC_REQUIRE(std::is_same_v<decltype(MYTHREAD), int>);
  STATIC_REQUIRE(std::is_same_v<decltype(THREADS), int>);
  REQUIRE(MYTHREAD == 0);
  REQUIRE(THREADS == 1);
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    int mine = 0;
    for (int i = MYTHREAD; i < 10 * THREADS; i += THREADS)
      ++mine;
    bad += mine != 10;
    bad += THREADS * 4 != 12;
    std::vector<int> v(THREADS);
    bad += v.size() != 3;
    char line[64];
    std::snprintf(line, sizeof line, "%d of %d", MYTHREAD, THREADS);
    bad += std::string(line) != std::to_string(pgas::mythread()) + " of 3";
    bad += UPC_MAX_BLOCK_SIZE != pgas::config::max_block;
    return bad;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("upc_barrier, upc_notify and upc_wait are statements with or without an id", "[upc]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    pgas::shared_array<int, 1, 1> a({static_cast<std::size_t>(THREADS)});
    int bad = 0;
    for (int round = 1; round <= 4; ++round) {
      a[MYTHREAD] = round;
      switch (round) {
        case 1:
          upc_barrier;
          break;
        case 2:
          upc_barrier(7);
          break;
        case 3:
          upc_notify;
          upc_wait;
          break;
        default:
          upc_notify(round);
          upc_wait(round);
      }
      for (int t = 0; t < THREADS; ++t)
        bad += a[t] != round;
      upc_barrier;  // nobody writes the next round before everyone has read this one
    }
    upc_fence;
    upc_poll();
    return bad;
  });
  REQUIRE(rc == 0);
  // Outside a job the barrier statement reports misuse by the exception.
  REQUIRE_THROWS_AS(upc_barrier(1), pgas::usage_error);
  REQUIRE_THROWS_AS(upc_barrier, pgas::usage_error);
}

TEST_CASE("upc_lock_t pointers are lock handles", "[upc]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    upc_lock_t* l = upc_all_lock_alloc();
    // A handle made by one thread travels through shared memory as UPC's `upc_lock_t *shared`.
    pgas::shared_array<upc_lock_t*, 1, 1> handle({1});
    if (MYTHREAD == 1) handle[0] = upc_global_lock_alloc();
    pgas::shared_array<long, 1, 1> counter({2});  // counter[0] under l, counter[1] under g
    upc_barrier;
    upc_lock_t* g = handle[0];
    for (int i = 0; i < 1000; ++i) {
      upc_lock(i % 2 == 0 ? l : g);
      counter[i % 2] += 1;
      upc_unlock(i % 2 == 0 ? l : g);
    }
    upc_barrier;
    bad += counter[0] != 1500 || counter[1] != 1500;
    if (MYTHREAD == 0) bad += upc_lock_attempt(l) != 1;
    upc_barrier;
    if (MYTHREAD == 1) bad += upc_lock_attempt(l) != 0;  // held by thread 0
    upc_barrier;
    if (MYTHREAD == 0) upc_unlock(l);
    upc_barrier;
    if (MYTHREAD == 2) upc_lock_free(g);
    upc_all_lock_free(l);
    return bad;
  });
  REQUIRE(rc == 0);
}

// A port's `upc_lock_t *lk;` that every thread assigns upc_all_lock_alloc() (README, porting).
pgas::static_lock ported_lock;

TEST_CASE("a static lock is used by the UPC lock calls as written", "[upc]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    pgas::shared_array<long, 1, 1> counter({1});
    upc_barrier;
    for (int i = 0; i < 500; ++i) {
      upc_lock(ported_lock);
      counter[0] += 1;
      upc_unlock(ported_lock);
    }
    upc_barrier;
    int bad = counter[0] != 1500;
    if (MYTHREAD == 0) bad += upc_lock_attempt(ported_lock) != 1;
    upc_barrier;
    if (MYTHREAD == 1) bad += upc_lock_attempt(ported_lock) != 0;  // held by thread 0
    upc_lock_t* same = ported_lock;
    bad += same != static_cast<upc_lock_t*>(ported_lock);
    upc_barrier;
    if (MYTHREAD == 0) upc_unlock(ported_lock);
    return bad;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("upc_all_alloc, upc_global_alloc and upc_alloc give pointers upc_free takes back",
          "[upc]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    // shared [2] int *p = upc_all_alloc(THREADS, 2 * sizeof(int));
    auto p = (pgas::sptr<int, 2>)upc_all_alloc(THREADS, 2 * sizeof(int));
    for (int i = 0; i < 2 * THREADS; ++i) {
      bad += upc_threadof(p + i) != (i / 2) % THREADS;
      bad += upc_phaseof(p + i) != static_cast<std::size_t>(i % 2);
      bad += upc_addrfield(p + i) != upc_addrfield(p) + (i % 2) * sizeof(int);
      bad += upc_phaseof(upc_resetphase(p + i)) != 0;
      bad += upc_threadof(upc_resetphase(p + i)) != upc_threadof(p + i);
    }
    p[2 * MYTHREAD] = MYTHREAD;
    p[2 * MYTHREAD + 1] = -MYTHREAD;
    upc_barrier;
    for (int t = 0; t < THREADS; ++t)
      bad += p[2 * t] != t || p[2 * t + 1] != -t;
    upc_barrier;
    upc_all_free(p);
    upc_all_free(nullptr);

    // A global allocation made by one thread and freed by another (UPC allows either).
    // (UPC's `shared void *shared box`; the pointer travels as its word until pointers-to-shared
    // are shared data.)
    pgas::shared_array<std::uint64_t, 1, 1> box({1});
    if (MYTHREAD == 0) box[0] = upc_global_alloc(THREADS, sizeof(double)).word();
    upc_barrier;
    auto d = (pgas::sptr<double>)pgas::sptr<void>::from_word(box[0]);
    d[MYTHREAD] = 0.5 * MYTHREAD;
    bad += upc_threadof(d + MYTHREAD) != MYTHREAD;
    upc_barrier;
    if (MYTHREAD == THREADS - 1) upc_free(d);

    // upc_alloc: the calling thread's memory.
    auto mine = (pgas::sptr<long, 0>)upc_alloc(4 * sizeof(long));
    bad += upc_threadof(mine) != MYTHREAD;
    for (int i = 0; i < 4; ++i)
      mine[i] = i;
    bad += mine[3] != 3;
    upc_free(mine);
    upc_free(nullptr);
    bad += upc_alloc(0) != nullptr;
    bad += upc_affinitysize(10 * sizeof(int), 4 * sizeof(int), 2) != 2 * sizeof(int);
    return bad;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("upc_localsizeof, upc_blocksizeof and upc_elemsizeof of a shared array", "[upc]") {
  const int rc = pgas::run(test_job(2), 0, nullptr, [] {
    // shared [3] double A[10]: blocks 0-2, 3-5, 6-8, 9 on threads 0 1 0 1: parts of 6.
    pgas::shared_array<double, 1, 3> a({10});
    int bad = 0;
    bad += upc_localsizeof(a) != 6 * sizeof(double);
    bad += upc_blocksizeof(a) != 3;
    bad += upc_elemsizeof(a) != sizeof(double);
    return bad;
  });
  REQUIRE(rc == 0);
}

namespace {
// A ported program's file-scope `shared [4] int S[10*THREADS]` and `shared [4] int
// C[2*THREADS][4]`.
pgas::static_array<int, 1, 4> S(pgas::per_thread(10));
pgas::static_array<int, 2, 4> C({pgas::per_thread(2), 4});
}  // namespace

TEST_CASE("the size queries and a 2-D array as shared void * work on static arrays", "[upc]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    // 30 elements in blocks of 4: 8 blocks over 3 threads, at most 3 blocks (12 ints) each.
    bad += upc_localsizeof(S) != 12 * sizeof(int);
    bad += upc_blocksizeof(S) != 4;
    bad += upc_elemsizeof(S) != sizeof(int);
    bad += upc_blocksizeof(C) != 4;
    upc_barrier;
    // UPC's upc_memset(C, …): the array is &C[0][0].
    if (MYTHREAD == 0) upc_memset(C, 7, sizeof(int));
    upc_barrier;
    bad += C(0, 0) != 0x07070707 || C(0, 1) != 0;
    return bad;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("upc_mem* and their non-blocking forms move the bytes", "[upc]") {
  const int rc = pgas::run(test_job(2), 0, nullptr, [] {
    int bad = 0;
    pgas::shared_array<int, 1, 8> a({16});  // 8 ints per thread
    pgas::shared_array<int, 1, 8> b({16});
    const int other = (MYTHREAD + 1) % THREADS;
    int buf[8];
    for (int i = 0; i < 8; ++i)
      buf[i] = 100 * MYTHREAD + i;
    upc_memput(a.ptr(8 * MYTHREAD), buf, sizeof buf);
    upc_barrier;
    upc_memcpy(b.ptr(8 * MYTHREAD), a.ptr(8 * other), sizeof buf);
    int got[8];
    upc_memget(got, b.ptr(8 * MYTHREAD), sizeof got);
    for (int i = 0; i < 8; ++i)
      bad += got[i] != 100 * other + i;
    upc_memset(b.ptr(8 * MYTHREAD), 0, sizeof got);
    bad += b[8 * MYTHREAD + 7] != 0;

    upc_handle_t h = upc_memcpy_nb(b.ptr(8 * MYTHREAD), a.ptr(8 * other), sizeof buf);
    upc_sync(h);
    bad += b[8 * MYTHREAD + 5] != 100 * other + 5;
    upc_handle_t g = upc_memget_nb(got, a.ptr(8 * MYTHREAD), sizeof got);
    while (upc_sync_attempt(g) == 0) {
    }
    bad += got[2] != 100 * MYTHREAD + 2;
    upc_handle_t s = upc_memset_nb(b.ptr(8 * MYTHREAD), 0, sizeof got);
    upc_sync(s);
    upc_handle_t q = upc_memput_nb(b.ptr(8 * MYTHREAD), buf, sizeof buf);
    upc_sync(q);
    bad += b[8 * MYTHREAD + 1] != 100 * MYTHREAD + 1;
    upc_handle_t done = UPC_COMPLETE_HANDLE;
    bad += !(done == UPC_COMPLETE_HANDLE);
    upc_sync(done);

    upc_barrier;  // the other thread has read this thread's part of a; now it may change
    upc_memset_nbi(b.ptr(8 * MYTHREAD), 0, sizeof got);
    upc_synci();
    upc_memput_nbi(b.ptr(8 * MYTHREAD), buf, sizeof buf);
    upc_synci();
    upc_memcpy_nbi(a.ptr(8 * MYTHREAD), b.ptr(8 * MYTHREAD), sizeof buf);
    upc_memget_nbi(got, b.ptr(8 * MYTHREAD), sizeof got);
    while (upc_synci_attempt() == 0) {
    }
    bad += got[4] != 100 * MYTHREAD + 4;
    upc_barrier;
    return bad;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("upc_handle_t is a plain value: kept in malloc'd memory, copied, synced once", "[upc]") {
  STATIC_REQUIRE(std::is_trivially_copyable_v<upc_handle_t>);
  STATIC_REQUIRE(std::is_trivially_default_constructible_v<upc_handle_t>);
  STATIC_REQUIRE(sizeof(upc_handle_t) == 8);
  // Small copies complete in the call; a threshold of 4 KiB sends these to the copy engines.
  struct restore {
    ~restore() { ::unsetenv("PGAS_NB_THRESHOLD"); }
  } restore_env;
  ::setenv("PGAS_NB_THRESHOLD", "4k", 1);
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    constexpr std::size_t n = 4, bytes = 16384, ints = bytes / sizeof(int);
    pgas::shared_array<int, 1, ints * n> a({ints * n * static_cast<std::size_t>(THREADS)});
    const std::size_t next = static_cast<std::size_t>((MYTHREAD + 1) % THREADS);
    for (std::size_t i = 0; i < ints * n; ++i)
      a[ints * n * static_cast<std::size_t>(MYTHREAD) + i] = static_cast<int>(i * 7 + 1);
    upc_barrier;
    // Handles in a block of recycled memory: whatever it held before is never read.
    auto* handles = static_cast<upc_handle_t*>(std::malloc(n * sizeof(upc_handle_t)));
    std::memset(handles, 0xa5, n * sizeof(upc_handle_t));
    std::vector<int> got(ints * n);
    const auto source = [&](std::size_t k) { return a.ptr(ints * (n * next + k)); };
    for (std::size_t k = 0; k < n; ++k)
      handles[k] = upc_memget_nb(&got[ints * k], source(k), bytes);
    for (std::size_t k = 0; k < n; ++k)
      bad += handles[k] == UPC_COMPLETE_HANDLE;  // each went to an engine
    const upc_handle_t copy = handles[1];        // a copy completes the transfer as well
    upc_sync(copy);
    while (upc_sync_attempt(handles[3]) == 0) {
    }
    upc_sync(handles[0]);
    upc_sync(handles[2]);
    for (std::size_t k = 0; k < n * ints; ++k)
      bad += got[k] != static_cast<int>(k * 7 + 1);
    // UPC_COMPLETE_HANDLE is a value: synced and tested any number of times, as an rvalue too.
    upc_sync(UPC_COMPLETE_HANDLE);
    bad += upc_sync_attempt(UPC_COMPLETE_HANDLE) != 1;
    upc_handle_t small = upc_memget_nb(&got[0], source(0), 8);  // below the threshold
    bad += small != UPC_COMPLETE_HANDLE;
    upc_sync(small);
    upc_sync(small);
    std::free(handles);
    upc_barrier;
    return bad;
  });
  REQUIRE(rc == 0);
}

namespace {
// A typed reduction of src[i] = i + 1 over n elements on 3 threads, with block 2; the sum and
// the prefix sums come back as doubles.
template <class T, class Reduce, class Prefix>
int check_reduce(Reduce reduce, Prefix prefix) {
  constexpr std::size_t n = 9;
  pgas::shared_array<T, 1, 2> src({n});
  pgas::shared_array<T, 1, 2> pre({n});
  pgas::shared_array<T, 1, 1> dst({1});
  for (std::size_t i = 0; i < n; ++i)
    if (upc_threadof(src.ptr(i)) == MYTHREAD) src[i] = static_cast<T>(i + 1);
  const upc_flag_t sync = UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC;
  reduce(dst.ptr(0), src.ptr(0), UPC_ADD, n, 2, nullptr, sync);
  prefix(pre.ptr(0), src.ptr(0), UPC_ADD, n, 2, nullptr, sync);
  int bad = dst[0] != static_cast<T>(45);
  for (std::size_t i = 0; i < n; ++i)
    bad += pre[i] != static_cast<T>((i + 1) * (i + 2) / 2);
  upc_barrier;
  return bad;
}
long long_max(long a, long b) {
  return a > b ? a : b;
}
}  // namespace

TEST_CASE("the UPC collectives: relocalisation and the eleven typed reductions", "[upc]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    bad += check_reduce<signed char>([](auto... a) { upc_all_reduceC(a...); },
                                     [](auto... a) { upc_all_prefix_reduceC(a...); });
    bad += check_reduce<unsigned char>([](auto... a) { upc_all_reduceUC(a...); },
                                       [](auto... a) { upc_all_prefix_reduceUC(a...); });
    bad += check_reduce<short>([](auto... a) { upc_all_reduceS(a...); },
                               [](auto... a) { upc_all_prefix_reduceS(a...); });
    bad += check_reduce<unsigned short>([](auto... a) { upc_all_reduceUS(a...); },
                                        [](auto... a) { upc_all_prefix_reduceUS(a...); });
    bad += check_reduce<int>([](auto... a) { upc_all_reduceI(a...); },
                             [](auto... a) { upc_all_prefix_reduceI(a...); });
    bad += check_reduce<unsigned>([](auto... a) { upc_all_reduceUI(a...); },
                                  [](auto... a) { upc_all_prefix_reduceUI(a...); });
    bad += check_reduce<long>([](auto... a) { upc_all_reduceL(a...); },
                              [](auto... a) { upc_all_prefix_reduceL(a...); });
    bad += check_reduce<unsigned long>([](auto... a) { upc_all_reduceUL(a...); },
                                       [](auto... a) { upc_all_prefix_reduceUL(a...); });
    bad += check_reduce<float>([](auto... a) { upc_all_reduceF(a...); },
                               [](auto... a) { upc_all_prefix_reduceF(a...); });
    bad += check_reduce<double>([](auto... a) { upc_all_reduceD(a...); },
                                [](auto... a) { upc_all_prefix_reduceD(a...); });
    bad += check_reduce<long double>([](auto... a) { upc_all_reduceLD(a...); },
                                     [](auto... a) { upc_all_prefix_reduceLD(a...); });

    // Every other operation constant reaches the operation it names.
    pgas::shared_array<long, 1, 1> v({6});  // 1..6, two per thread
    pgas::shared_array<long, 1, 1> r({1});
    if (MYTHREAD == 0)
      for (int i = 0; i < 6; ++i)
        v[i] = i + 1;
    const struct {
      upc_op_t op;
      long want;
    } cases[] = {{UPC_MULT, 720}, {UPC_AND, 0},         {UPC_OR, 7},     {UPC_XOR, 7},
                 {UPC_MIN, 1},    {UPC_MAX, 6},         {UPC_LOGAND, 1}, {UPC_LOGOR, 1},
                 {UPC_FUNC, 6},   {UPC_NONCOMM_FUNC, 6}};
    for (const auto& c : cases) {
      upc_all_reduceL(r.ptr(0), v.ptr(0), c.op, 6, 1, long_max, UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
      bad += r[0] != c.want;
    }

    // Relocalisation: each thread contributes 2 ints.
    pgas::shared_array<int, 1, 2> mine({static_cast<std::size_t>(2 * THREADS)});
    pgas::shared_array<int, 1, 6> all({static_cast<std::size_t>(6 * THREADS)});
    pgas::shared_array<int, 1, 2> out({static_cast<std::size_t>(2 * THREADS)});
    pgas::shared_array<int, 1, 1> perm({static_cast<std::size_t>(THREADS)});
    mine[2 * MYTHREAD] = 10 * MYTHREAD;
    mine[2 * MYTHREAD + 1] = 10 * MYTHREAD + 1;
    perm[MYTHREAD] = (MYTHREAD + 1) % THREADS;
    upc_all_gather_all(all.ptr(0), mine.ptr(0), 2 * sizeof(int), UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
    for (int t = 0; t < THREADS; ++t)
      bad += all[6 * MYTHREAD + 2 * t] != 10 * t;
    upc_all_broadcast(out.ptr(0), mine.ptr(2), 2 * sizeof(int), UPC_IN_MYSYNC | UPC_OUT_MYSYNC);
    bad += out[2 * MYTHREAD + 1] != 11;
    upc_all_gather(all.ptr(0), mine.ptr(0), 2 * sizeof(int), UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
    upc_all_scatter(out.ptr(0), all.ptr(0), 2 * sizeof(int), UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
    bad += out[2 * MYTHREAD] != 10 * MYTHREAD;
    upc_all_permute(out.ptr(0), mine.ptr(0), perm.ptr(0), 2 * sizeof(int),
                    UPC_IN_ALLSYNC | UPC_OUT_NOSYNC);
    upc_barrier;
    bad += out[2 * MYTHREAD] != 10 * ((MYTHREAD + THREADS - 1) % THREADS);
    // Exchange: block j of thread i's src (all: 10 t, 10 t + 1 for every t after gather_all)
    // goes to block i of thread j's dst.
    pgas::shared_array<int, 1, 6> ex({static_cast<std::size_t>(6 * THREADS)});
    upc_all_gather_all(all.ptr(0), mine.ptr(0), 2 * sizeof(int), UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
    upc_all_exchange(ex.ptr(0), all.ptr(0), 2 * sizeof(int), UPC_IN_NOSYNC | UPC_OUT_ALLSYNC);
    for (int t = 0; t < THREADS; ++t)
      bad += ex[6 * MYTHREAD + 2 * t] != 10 * MYTHREAD;
    upc_barrier;
    return bad;
  });
  REQUIRE(rc == 0);
  // An operation of the atomics only is misuse in a collective (outside a job: the exception).
  REQUIRE_THROWS_AS(upc_all_reduceI(nullptr, nullptr, UPC_FADD, 1, 1, nullptr, 0),
                    pgas::usage_error);
}

TEST_CASE(
    "a UPC collective or allocation is reported by its UPC name and agrees with its pgas "
    "spelling",
    "[upc]") {
  // Misuse names the UPC function, and the name does not outlive the call.
  REQUIRE_THROWS_WITH(upc_all_broadcast(nullptr, nullptr, 4, 0),
                      Catch::Contains("upc_all_broadcast called outside pgas::run()"));
  REQUIRE_THROWS_WITH(upc_all_reduceD(nullptr, nullptr, UPC_ADD, 1, 1, nullptr, 0),
                      Catch::Contains("upc_all_reduceD"));
  REQUIRE_THROWS_WITH(pgas::all_broadcast(nullptr, nullptr, 4, 0),
                      Catch::Contains("pgas::all_broadcast called outside pgas::run()"));
  REQUIRE_THROWS_WITH(upc_all_alloc(1, 4),
                      Catch::Contains("upc_all_alloc called outside pgas::run()"));
  REQUIRE_THROWS_WITH(upc_global_alloc(1, 4),
                      Catch::Contains("upc_global_alloc called outside pgas::run()"));
  // Thread 0 spells the call in UPC, the others in pgas: one collective, no mismatch.
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    pgas::shared_array<int, 1, 1> src({static_cast<std::size_t>(THREADS)});
    pgas::shared_array<int, 1, 1> dst({static_cast<std::size_t>(THREADS)});
    if (MYTHREAD == 0) src[0] = 42;
    int bad = 0;
    for (int round = 0; round < 3; ++round) {
      if (MYTHREAD == 0) {
        upc_all_broadcast(dst.ptr(0), src.ptr(0), sizeof(int), UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
      } else {
        pgas::all_broadcast(dst.ptr(0), src.ptr(0), sizeof(int),
                            pgas::in_allsync | pgas::out_allsync);
      }
      bad += dst[MYTHREAD] != 42;
    }
    return bad;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("UPC bulk copies, non-blocking copies and locks are reported by their UPC names",
          "[upc]") {
  char buf[8] = {};
  const pgas::sptr<const void> null_src;
  const pgas::sptr<void> null_dst;
  // Every build (outside a job any bulk call of n != 0 bytes is misuse).
  REQUIRE_THROWS_WITH(upc_memget(buf, null_src, 4), Catch::Contains("upc_memget source"));
  REQUIRE_THROWS_WITH(upc_memput(null_dst, buf, 4), Catch::Contains("upc_memput destination"));
  REQUIRE_THROWS_WITH(upc_memset(null_dst, 0, 4), Catch::Contains("upc_memset destination"));
  REQUIRE_THROWS_WITH(upc_memcpy(null_dst, null_src, 4), Catch::Contains("upc_memcpy source"));
  REQUIRE_THROWS_WITH(pgas::memget(buf, null_src, 4), Catch::Contains("pgas::memget source"));
  REQUIRE_THROWS_WITH(upc_lock(nullptr), Catch::Contains("upc_lock on a null upc_lock_t*"));
  REQUIRE_THROWS_WITH(upc_unlock(nullptr), Catch::Contains("upc_unlock on a null upc_lock_t*"));
  REQUIRE_THROWS_WITH(upc_lock_attempt(nullptr), Catch::Contains("upc_lock_attempt on a null"));
  // The name does not outlive the call.
  REQUIRE_THROWS_WITH(pgas::lock_t{}.lock(), Catch::Contains("pgas::lock_t::lock on a null "
                                                             "pgas::lock_t"));
  // The non-blocking forms.
  REQUIRE_THROWS_WITH(upc_memget_nb(buf, null_src, 4),
                      Catch::Contains("upc_memget_nb called outside pgas::run()"));
  REQUIRE_THROWS_WITH(upc_memcpy_nb(null_dst, null_src, 4),
                      Catch::Contains("upc_memcpy_nb called outside pgas::run()"));
  REQUIRE_THROWS_WITH(upc_memput_nbi(null_dst, buf, 4),
                      Catch::Contains("upc_memput_nbi called outside pgas::run()"));
  REQUIRE_THROWS_WITH(upc_memset_nbi(null_dst, 0, 4),
                      Catch::Contains("upc_memset_nbi called outside pgas::run()"));
  REQUIRE_THROWS_WITH(pgas::memget_nbi(buf, null_src, 4),
                      Catch::Contains("pgas::memget_nbi called outside pgas::run()"));
}

TEST_CASE("the UPC atomics: domains, strict and relaxed operations", "[upc]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    upc_atomicdomain_t* d = upc_all_atomicdomain_alloc(
        UPC_LONG, UPC_ADD | UPC_FADD | UPC_GET | UPC_SET | UPC_CSWAP, UPC_ATOMIC_HINT_DEFAULT);
    pgas::shared_array<long, 1, 1> c({1});
    const long one = 1;
    long old = 0;
    for (int i = 0; i < 100; ++i) {
      if (i % 2 == 0) {
        upc_atomic_relaxed(d, nullptr, UPC_ADD, c.ptr(0), &one, nullptr);
      } else {
        upc_atomic_strict(d, &old, UPC_FADD, c.ptr(0), &one, nullptr);
        bad += old < 0 || old >= 300;
      }
    }
    upc_barrier;
    long now = 0;
    upc_atomic_strict(d, &now, UPC_GET, c.ptr(0), nullptr, nullptr);
    bad += now != 300;
    bad += upc_atomic_isfast(UPC_LONG, UPC_FADD, c.ptr(0)) != 1;
    upc_barrier;
    upc_all_atomicdomain_free(d);
    // Every type constant makes a domain of its type.
    for (upc_type_t t : {UPC_INT, UPC_UINT, UPC_LONG, UPC_ULONG, UPC_INT32, UPC_UINT32, UPC_INT64,
                         UPC_UINT64, UPC_FLOAT, UPC_DOUBLE}) {
      upc_atomicdomain_t* e = upc_all_atomicdomain_alloc(
          t,
          UPC_SUB | UPC_MULT | UPC_INC | UPC_DEC | UPC_MIN | UPC_MAX | UPC_FSUB | UPC_FMULT |
              UPC_FINC | UPC_FDEC | UPC_FMIN | UPC_FMAX,
          UPC_ATOMIC_HINT_LATENCY);
      upc_all_atomicdomain_free(e);
    }
    const upc_atomichint_t hint = UPC_ATOMIC_HINT_THROUGHPUT;
    upc_atomicdomain_t* bits = upc_all_atomicdomain_alloc(
        UPC_UINT, UPC_AND | UPC_OR | UPC_XOR | UPC_FAND | UPC_FOR | UPC_FXOR, hint);
    upc_all_atomicdomain_free(bits);
    return bad;
  });
  REQUIRE(rc == 0);
  REQUIRE_THROWS_AS(upc_all_atomicdomain_alloc(UPC_INT, UPC_LOGAND, 0), pgas::usage_error);
  REQUIRE_THROWS_AS(upc_all_atomicdomain_alloc(99, UPC_ADD, 0), pgas::usage_error);
}

TEST_CASE("UPC_PTS: atomics on `shared void *shared` with GET, SET and CSWAP", "[upc]") {
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    upc_atomicdomain_t* d = upc_all_atomicdomain_alloc(UPC_PTS, UPC_GET | UPC_SET | UPC_CSWAP, 0);
    pgas::shared_array<int, 1, 1> data({(size_t)THREADS});
    pgas::shared_array<pgas::sptr<void>, 1, 1> head({1});  // shared void *shared head
    // Each thread links its element in once: a CSWAP loop, as a lock-free list push would.
    pgas::sptr<void> old = nullptr, seen = nullptr;
    const pgas::sptr<void> mine = data.ptr(MYTHREAD);
    upc_atomic_relaxed(d, &old, UPC_GET, head.ptr(0), nullptr, nullptr);
    for (;;) {
      upc_atomic_strict(d, &seen, UPC_CSWAP, head.ptr(0), &old, &mine);
      if (seen == old) break;
      old = seen;
    }
    upc_barrier;
    // Every thread's pointer went in once, so the last one in is some thread's element.
    pgas::sptr<void> last = nullptr;
    upc_atomic_strict(d, &last, UPC_GET, head.ptr(0), nullptr, nullptr);
    bad += last == nullptr || upc_threadof(last) >= THREADS;
    upc_barrier;
    if (MYTHREAD == 0) upc_atomic_strict(d, nullptr, UPC_SET, head.ptr(0), &mine, nullptr);
    upc_barrier;
    upc_atomic_relaxed(d, &last, UPC_GET, head.ptr(0), nullptr, nullptr);
    bad += last != data.ptr(0);
    bad += upc_atomic_isfast(UPC_PTS, UPC_CSWAP, head.ptr(0)) != 1;
    bad += upc_atomic_isfast(UPC_PTS, UPC_FADD, head.ptr(0)) != 0;
    upc_barrier;
    upc_all_atomicdomain_free(d);
    return bad;
  });
  REQUIRE(rc == 0);
  REQUIRE_THROWS_WITH(upc_all_atomicdomain_alloc(UPC_PTS, UPC_GET | UPC_ADD, 0),
                      Catch::Contains("ADD is not defined for shared void * (UPC_PTS)"));
}

TEST_CASE("upc_cast, upc_thread_info and the tick counter", "[upc]") {
  REQUIRE(upc_cast(nullptr) == nullptr);
  const int rc = pgas::run(test_job(2), 0, nullptr, [] {
    int bad = 0;
    pgas::shared_array<int, 1, 1> a({4});
    bad += upc_cast(a.ptr(3)) != static_cast<void*>(&a[3]);
    const upc_thread_info_t info = upc_thread_info(1);
    bad += info.guaranteed_castable != UPC_CASTABLE_ALL;
    bad += (UPC_CASTABLE_ALL & UPC_CASTABLE_ALL_ALLOC & UPC_CASTABLE_GLOBAL_ALLOC &
            UPC_CASTABLE_ALLOC & UPC_CASTABLE_STATIC) != 0;
    const upc_tick_t t0 = upc_ticks_now();
    const upc_tick_t t1 = upc_ticks_now();
    bad += t1 < t0 || upc_ticks_to_ns(t1 - t0) != t1 - t0 || UPC_TICK_MAX != pgas::tick_max;
    return bad;
  });
  REQUIRE(rc == 0);
  // upc_global_exit ends the job (tests/integration has global_exit); here it only compiles.
  [[maybe_unused]] void (*exit_call)(int, std::source_location) noexcept = &upc_global_exit;
}
