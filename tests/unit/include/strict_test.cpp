// Unit tests of pgas/strict.hpp: strict loads and stores through element references, proxies
// and pointers-to-shared, for atomic and non-atomic types; and the store-buffering litmus test
// (Dekker): each of two threads stores its flag, then loads the other's. With strict accesses
// no run may see both loads return 0; with relaxed accesses (what plain shared accesses compile
// to) x86's store buffer lets both loads pass the stores, and the test shows it happening.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <thread>
#include <vector>

#include <pgas/collectives.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sptr.hpp>
#include <pgas/static_shared.hpp>
#include <pgas/strict.hpp>
#include <pgas/sync.hpp>
#include <pgas/upc.hpp>

#include "../test_job.hpp"

#if defined(__SANITIZE_THREAD__)
constexpr bool under_tsan = true;
#else
constexpr bool under_tsan = false;
#endif

namespace {

struct pair16 {
  alignas(16) std::int64_t a, b;
};
struct wide {
  std::int32_t v[9];
};

static_assert(pgas::strict_is_atomic<int>);
static_assert(pgas::strict_is_atomic<double>);
static_assert(!pgas::strict_is_atomic<wide>);

enum class access { strict, relaxed };

// One store-buffering round per i on flags x[i], y[i] (all 0 before): thread 0 stores x[i] = 1
// and loads y[i]; thread 1 stores y[i] = 1 and loads x[i]. Both threads start each round
// together (a spin on a shared counter) so that their accesses overlap. Returns, on thread 0,
// the rounds where both loads saw 0. The relaxed form uses relaxed atomics: on x86 they are the
// plain movs a relaxed shared access compiles to, without being a data race in C++.
long store_buffering(access kind, int rounds) {
  long both_zero = 0;
  const int rc = pgas::run(test_job(2), 0, nullptr, [&] {
    pgas::shared_array<int, 1, pgas::indefinite> x({static_cast<std::size_t>(rounds)});
    pgas::shared_array<int, 1, pgas::indefinite> y({static_cast<std::size_t>(rounds)});
    std::vector<int> seen(static_cast<std::size_t>(rounds));
    static std::atomic<long> arrived{0};
    arrived.store(0);
    pgas::barrier();
    const int me = pgas::mythread();
    auto& mine = me == 0 ? x : y;
    auto& other = me == 0 ? y : x;
    for (int i = 0; i < rounds; ++i) {
      const long target = 2L * (i + 1);
      arrived.fetch_add(1);
      while (arrived.load() < target)
        pgas::poll();
      if (kind == access::strict) {
        pgas::strict(mine[i]) = 1;
        seen[static_cast<std::size_t>(i)] = pgas::strict(other[i]);
      } else {
        std::atomic_ref<int>(mine[i]).store(1, std::memory_order_relaxed);
        seen[static_cast<std::size_t>(i)] =
            std::atomic_ref<int>(other[i]).load(std::memory_order_relaxed);
      }
    }
    // Both loads saw 0 where the OR of the two threads' results is 0.
    pgas::allreduce(std::span(seen), std::bit_or<>{});
    long zeros = 0;
    for (const int s : seen)
      zeros += s == 0;
    if (me == 0) both_zero = zeros;
  });
  REQUIRE(rc == 0);
  return both_zero;
}

}  // namespace

// UPC `strict shared int ready;`, ported as a static scalar.
pgas::static_scalar<int> ready;

TEST_CASE("strict accesses to a shared scalar: pgas::strict(x) as UPC's strict shared T x",
          "[strict]") {
  const int rc = pgas::run(test_job(2), 0, nullptr, [] {
    if (pgas::mythread() == 0) {
      pgas::strict(ready) = 40;
      pgas::strict(ready) += 3;  // UPC's compound assignment on a strict object
      --pgas::strict(ready);
      const int before = pgas::strict(ready)++;
      pgas::strict(ready) -= before == 42 ? 1 : 100;
    }
    pgas::barrier();
    const int seen = pgas::strict(ready);
    pgas::barrier();
    return seen == 42 && *ready == 42 ? 0 : 1;
  });
  REQUIRE(rc == 0);
}

// UPC `shared void *strict shared head;` and `shared int *strict shared tail;`: shared
// pointers-to-shared read strictly.
pgas::static_scalar<pgas::sptr<void>> head;
pgas::static_scalar<pgas::sptr<int>> tail;

TEST_CASE("a strict read of a shared pointer-to-shared reads the pointer, not its target",
          "[strict]") {
  const int rc = pgas::run(test_job(2), 0, nullptr, [] {
    pgas::shared_array<pgas::sptr<int>> slots({2});
    int bad = 0;
    bad += pgas::strict(head) ? 1 : 0;  // null at the start of the job
    bad += !pgas::strict(tail) ? 0 : 1;
    bad += pgas::strict(slots[0]).load() ? 1 : 0;
    pgas::barrier();
    if (pgas::mythread() == 0) {
      pgas::strict(head) = upc_alloc(sizeof(int));
      pgas::strict(tail) = static_cast<pgas::sptr<int>>(upc_alloc(sizeof(int)));
      pgas::strict(slots[1]) = pgas::strict(tail).load();
    }
    pgas::barrier();
    const pgas::sptr<void> h = pgas::strict(head).load();
    const pgas::sptr<int> t = pgas::strict(tail).load();
    bad += h && pgas::strict(head) && !!pgas::strict(head) && h.thread() == 0 ? 0 : 1;
    bad += t && pgas::strict(tail) && pgas::strict(slots[1]).load() == t ? 0 : 1;
    bad += pgas::strict(slots.ptr(1)).load() == t ? 0 : 1;
    bad += head && !!tail && !!head ? 0 : 1;  // relaxed reads of the pointers themselves
    pgas::barrier();
    if (pgas::mythread() == 0) {
      upc_free(pgas::strict(head));
      upc_free(tail);
      pgas::strict(head) = nullptr;
      pgas::strict(tail) = nullptr;
    }
    pgas::barrier();
    bad += !pgas::strict(head) && !pgas::strict(tail) ? 0 : 1;
    return bad;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("strict loads and stores of private and shared elements", "[strict]") {
  int i = 0;
  pgas::strict(i) = 5;
  REQUIRE(pgas::strict_load(i) == 5);
  const int copy = pgas::strict(i);
  REQUIRE(copy == 5);
  pgas::strict_store(i, 7);
  REQUIRE(i == 7);
  pgas::strict(i) *= 3;
  pgas::strict(i) <<= 1;
  pgas::strict(i) %= 8;
  REQUIRE(i == 2);
  REQUIRE(pgas::strict(i)-- == 2);
  REQUIRE(i == 1);
  double d = 1.5;
  pgas::strict(d) /= 0.5;
  REQUIRE(d == 3.0);

  pair16 p{1, 2};
  pgas::strict_store(p, pair16{3, 4});
  REQUIRE(pgas::strict_load(p).b == 4);

  wide w{};
  pgas::strict(w) = wide{{1, 2, 3, 4, 5, 6, 7, 8, 9}};
  const wide r = pgas::strict(w);
  REQUIRE(r.v[8] == 9);

  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    pgas::shared_array<long> a({6});
    const int me = pgas::mythread();
    // Each thread writes the elements it owns strictly, through the three spellings.
    pgas::strict(a[static_cast<std::size_t>(me)]) = 10 + me;
    pgas::strict_store(a.ptr(static_cast<std::size_t>(me + 3)), 20 + me);
    pgas::barrier();
    long sum = 0;
    for (std::size_t k = 0; k < 6; ++k)
      sum += pgas::strict_load(a.ptr(k)) + pgas::strict(a(k)).load() - pgas::strict(a.ptr(k));
    return sum == 10 + 11 + 12 + 20 + 21 + 22 ? 0 : 1;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("store buffering: strict accesses never let both loads see 0", "[strict][litmus]") {
  const int rounds = under_tsan ? 2000 : 20000;
  const long strict_both_zero = store_buffering(access::strict, rounds);
  // The reordering needs the two threads' accesses to overlap, which a loaded machine makes
  // rarer: a few more tries before concluding that it does not happen.
  long relaxed_both_zero = 0;
  for (int attempt = 0; attempt < 5 && relaxed_both_zero == 0; ++attempt)
    relaxed_both_zero += store_buffering(access::relaxed, rounds);
  std::printf("store buffering over %d rounds: both loads 0 in %ld strict rounds, %ld relaxed\n",
              rounds, strict_both_zero, relaxed_both_zero);
  CHECK(strict_both_zero == 0);
  // Relaxed accesses may be reordered, and on x86 with two idle cores they are, in a good
  // fraction of rounds whose accesses overlap. But the overlap is the scheduler's to give: on a
  // busy machine the two threads can run in turn for every round, and under the thread
  // sanitizer relaxed atomics are sequentially consistent. So the relaxed outcome shows that
  // the litmus can see a reordering when the machine lets it, and is recorded, never asserted.
  if (!under_tsan && relaxed_both_zero == 0)
    WARN("no relaxed round saw both loads 0: the two threads' accesses never overlapped");
}
