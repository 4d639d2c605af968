// Tests pgas/static_shared.hpp (and src/job/static_registry.cpp, src/objects/static_shared.cpp)
// and pgas/shared_storable.hpp: namespace-scope arrays with per_thread, fixed and callable
// extents, scalars and locks created in jobs of 1 to 4 threads and in jobs run one after
// another with other THREADS (fresh, zeroed, sized for each job), freed after the bodies (the
// shared memory every thread holds is back to zero), used outside a job (usage_error naming
// the declaration); pointers-to-shared and lock handles as shared data (a ring of pointers
// followed by every thread, a shared array of locks under contention with exact counts) and
// which types may be shared data.

#include <pgas/pgas.hpp>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

// What a job's shared memory held, per thread, seen by `probe` below.
struct memory_seen {
  std::atomic<std::size_t> at_create[8];
  std::atomic<std::size_t> at_destroy[8];
  std::atomic<int> destroyed{0};
};
memory_seen seen;

// A static shared object declared before the others: it is created first and freed last, so
// it sees every thread's shared memory before the others exist and after they are all freed.
class memory_probe final : public pgas::detail::static_object {
 public:
  memory_probe() : static_object("memory probe", std::source_location::current()) {}
  void job_begin(int) override {}
  void thread_create() override {
    seen.at_create[pgas::mythread()] = pgas::memory_usage_of(pgas::mythread()).allocated;
    pgas::barrier();  // before any thread creates the next object
  }
  void thread_destroy() noexcept override {
    pgas::barrier();  // every thread has freed its part of every other object
    std::size_t sum = 0;
    for (int t = 0; t < pgas::threads(); ++t)
      sum += pgas::memory_usage_of(t).allocated;
    seen.at_destroy[pgas::mythread()] = sum;
    ++seen.destroyed;
  }
  void job_end() noexcept override {}
};
memory_probe probe;

// shared [4] int A[10*THREADS]
pgas::static_array<int, 1, 4> A(pgas::per_thread(10));
// shared [3] double M[6][2*THREADS]
pgas::static_array<double, 2> M({6, pgas::per_thread(2)}, pgas::block_spec::cyclic(3));
// shared long H[2*THREADS+1]
pgas::static_array<long> H([](int threads) { return 2 * threads + 1; });
// shared long counter;
pgas::static_scalar<long> counter;
// One dimension in braces, as for shared_array; and a 1-D array and a scalar used as UPC uses
// them where pointers-to-shared are expected.
pgas::static_array<int, 1, 4> braced({12});
pgas::static_array<int> braced_dynamic({9}, pgas::block_spec::cyclic(2));
pgas::static_scalar<double> sum_of_parts;
pgas::static_array<double, 1, 1> parts(pgas::per_thread(1));
pgas::static_lock lk;
// shared int answer = 42; shared double none = 0.0; (UPC's initialised shared scalars)
pgas::static_scalar<int> answer = 42;
pgas::static_scalar<double> none = 0.0;

// shared int *shared ring[THREADS]; shared int ring_data[THREADS];
pgas::static_array<pgas::sptr<int>, 1, 1> ring(pgas::per_thread(1));
pgas::static_array<int, 1, 1> ring_data(pgas::per_thread(1));

// A struct holding a pointer-to-shared, and one holding a lock handle.
struct node {
  pgas::sptr<node> next;
  long key;
};
struct guarded {
  pgas::lock_t lock;
  long count;
  pgas::sptr<long, pgas::dynamic_block> where;
};
pgas::static_array<node, 1, 1> nodes(pgas::per_thread(1));

constexpr std::size_t scalar_bytes = 0;  // thread 0's scalar is counted in its segment only

static_assert(pgas::is_shared_storable_v<int> && pgas::is_shared_storable_v<double[3]>);
static_assert(pgas::is_shared_storable_v<pgas::sptr<int>>);
static_assert(pgas::is_shared_storable_v<pgas::sptr<const double, 4>>);
static_assert(pgas::is_shared_storable_v<pgas::sptr<int, pgas::dynamic_block>>);
static_assert(pgas::is_shared_storable_v<pgas::sptr<void>>);
static_assert(pgas::is_shared_storable_v<pgas::lock_t>);
static_assert(pgas::is_shared_storable_v<node> && pgas::is_shared_storable_v<guarded>);
static_assert(pgas::is_shared_storable_v<pgas::sptr<int>[4]>);
struct with_array {
  pgas::sptr<int> p[40];
  guarded g[2];
};
static_assert(pgas::is_shared_storable_v<with_array>);
// Really unsafe: owns memory, or a default that zero bytes are not, or not copyable by bytes.
struct owns {
  pgas::sptr<int> p;
  std::string name;
};
struct set_by_constructor {
  set_by_constructor() : v(7) {}
  int v;
};
struct counts_copies {
  counts_copies() = default;
  counts_copies(const counts_copies&) {}
  int v;
};
static_assert(!pgas::is_shared_storable_v<std::string>);
static_assert(!pgas::is_shared_storable_v<owns>);
static_assert(!pgas::is_shared_storable_v<set_by_constructor>);
static_assert(!pgas::is_shared_storable_v<counts_copies>);
static_assert(!pgas::is_shared_storable_v<std::vector<int>>);

// Every static object has the shape its declaration gives for THREADS = n, and starts zeroed.
void check_shapes_and_zeros(failures& f) {
  const int n = pgas::threads();
  const int me = pgas::mythread();
  EXPECT(f, A.size() == 10u * n, A.size());
  EXPECT(f, A->blocksizeof() == 4, A->blocksizeof());
  EXPECT(f, M.extent(0) == 6 && M.extent(1) == 2u * n, M.extent(1));
  EXPECT(f, M->blocksizeof() == 3, M->blocksizeof());
  EXPECT(f, H.size() == 2u * n + 1, H.size());
  EXPECT(f, ring.size() == static_cast<std::size_t>(n), ring.size());
  for (int x : A->local_part())
    EXPECT(f, x == 0, x);
  for (double x : M->local_part())
    EXPECT(f, x == 0.0, x);
  for (long x : H->local_part())
    EXPECT(f, x == 0, x);
  EXPECT(f, !ring[me], "ring pointer not null at start");
  EXPECT(f, !nodes[me].next && nodes[me].key == 0, "node not zero at start");
  EXPECT(f, *counter == 0, *counter);
  EXPECT(f, static_cast<bool>(lk.get()) && lk.holder() == -1, lk.holder());
  // Every thread reaches its own array object, and all index the same memory.
  EXPECT(f, A.get().layout().threads() == n, "layout threads");
  EXPECT(f, &A(3) == &A.get()(3) && A.ptr(5) == A.get().ptr(5), "A(i) is the array's");
  EXPECT(f, counter.ptr().thread() == 0, counter.ptr().thread());
  EXPECT(f, braced.size() == 12 && braced->blocksizeof() == 4, braced.size());
  EXPECT(f, braced_dynamic.size() == 9 && braced_dynamic->blocksizeof() == 2,
         braced_dynamic.size());
  // UPC's array-to-pointer conversion and &x.
  const pgas::sptr<int, 4> first = braced;
  const pgas::sptr<const void> generic = braced;
  EXPECT(f, first == braced.ptr(0) && first.phase() == 0 && generic == braced.ptr(0),
         "static_array converts to &A[0]");
  const pgas::sptr<long> counter_ptr = &counter;
  EXPECT(f, counter_ptr == counter.ptr() && counter_ptr.get() == &*counter, "&counter");
  parts[me] = me + 1.0;
  pgas::all_reduce<double>(&sum_of_parts, parts, pgas::reduce_op::add, static_cast<std::size_t>(n),
                           1, nullptr, pgas::in_allsync | pgas::out_allsync);
  EXPECT(f, *sum_of_parts == n * (n + 1) / 2.0, *sum_of_parts);
  // UPC's compound assignments on a shared scalar (thread 0 alone: they are not atomic).
  pgas::barrier();
  if (me == 0) {
    sum_of_parts = 1.0;
    sum_of_parts += 4.0;
    sum_of_parts *= 3.0;
    sum_of_parts -= 1.0;
    sum_of_parts /= 2.0;
    const double before = sum_of_parts++;
    ++sum_of_parts;
    --sum_of_parts;
    EXPECT(f, before == 7.0 && *sum_of_parts == 8.0, *sum_of_parts);
  }
  pgas::barrier();
}

// Owners write, everyone reads after a barrier; counter incremented under the static lock.
void check_writes(failures& f, int rounds) {
  const int n = pgas::threads();
  const int me = pgas::mythread();
  for (std::size_t i = 0; i < A.size(); ++i) {
    if (A.ptr(i).thread() == me) A[i] = static_cast<int>(i * 7 + 1);
  }
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < M.extent(1); ++j) {
      if (M.ptr(i, j).thread() == me) M(i, j) = static_cast<double>(i * 100 + j);
    }
  }
  for (int r = 0; r < rounds; ++r) {
    const std::lock_guard g(lk);
    counter = counter.load() + 1;
  }
  pgas::barrier();
  for (std::size_t i = 0; i < A.size(); ++i)
    EXPECT(f, A[i] == static_cast<int>(i * 7 + 1), i);
  for (std::size_t i = 0; i < 6; ++i) {
    for (std::size_t j = 0; j < M.extent(1); ++j)
      EXPECT(f, M(i, j) == static_cast<double>(i * 100 + j), i << "," << j);
  }
  EXPECT(f, *counter == static_cast<long>(rounds) * n, *counter);
  pgas::barrier();
}

// The number of bytes of shared memory all static arrays hold, summed over threads.
std::size_t static_bytes(int n) {
  return sizeof(int) * 10 * n + sizeof(double) * 6 * 2 * n + sizeof(long) * (2 * n + 1) +
         scalar_bytes + sizeof(pgas::sptr<int>) * n + sizeof(int) * n + sizeof(node) * n;
}

}  // namespace

TEST_CASE("static shared objects are created for each job with its THREADS, zeroed", "[static]") {
  // 3 again at the end: the second job with 3 threads sees zeros, not the first one's data.
  for (int n : {1, 2, 3, 4, 3}) {
    failures f;
    std::atomic<std::size_t> held{0};
    seen.destroyed = 0;
    REQUIRE(pgas::run(test_job(n), 0, nullptr, [&](int, char**) {
              check_shapes_and_zeros(f);
              pgas::barrier();
              if (pgas::mythread() == 0) {
                for (int t = 0; t < pgas::threads(); ++t)
                  held += pgas::memory_usage_of(t).allocated;
              }
              check_writes(f, 500);
              return 0;
            }) == 0);
    INFO("threads " << n);
    check_no_failures(f);
    // Before any array existed, and after all were freed, no thread held shared memory; in
    // between, at least the arrays' bytes.
    CHECK(seen.destroyed.load() == n);
    for (int t = 0; t < n; ++t) {
      CHECK(seen.at_create[t].load() == 0);
      CHECK(seen.at_destroy[t].load() == 0);
    }
    CHECK(held.load() >= static_bytes(n));
  }
}

TEST_CASE("an initialised static scalar holds its value at the start of every job", "[static]") {
  for (int n : {1, 3, 2}) {
    failures f;
    REQUIRE(pgas::run(test_job(n), 0, nullptr, [&] {
              EXPECT(f, *answer == 42, *answer);
              EXPECT(f, *none == 0.0, *none);
              pgas::barrier();
              if (pgas::mythread() == 0) answer = 7;  // the next job starts at 42 again
              pgas::barrier();
              EXPECT(f, *answer == 7, *answer);
            }) == 0);
    INFO("threads " << n);
    check_no_failures(f);
  }
}

TEST_CASE("static shared objects are usage errors outside a job, naming the declaration",
          "[static]") {
  const std::string where_a = "static_shared_test.cpp:" + std::to_string(A.declared_at().line());
  using Catch::Matchers::Contains;
  CHECK_THROWS_AS(A(0), pgas::usage_error);
  CHECK_THROWS_WITH(A[1], Contains("pgas::static_array declared here is used outside "
                                   "pgas::run()") &&
                              Contains(where_a));
  CHECK_THROWS_WITH(A.get(), Contains(where_a));
  CHECK_THROWS_WITH(*counter, Contains("pgas::static_scalar") &&
                                  Contains("static_shared_test.cpp:" +
                                           std::to_string(counter.declared_at().line())));
  CHECK_THROWS_WITH(lk.lock(), Contains("pgas::static_lock"));
  // And after a job has run.
  REQUIRE(pgas::run(test_job(2), 0, nullptr, [](int, char**) { return A[0]; }) == 0);
  CHECK_THROWS_WITH(A.ptr(0), Contains(where_a));
}

TEST_CASE("a ring of pointers-to-shared in shared memory: each thread writes its own, all follow",
          "[static][sptr]") {
  for (int n : {1, 2, 4}) {
    failures f;
    REQUIRE(pgas::run(test_job(n), 0, nullptr, [&](int, char**) {
              const int me = pgas::mythread();
              const int next = (me + 1) % n;
              ring_data[me] = 100 + me;
              ring[me] = ring_data.ptr(next);  // shared int *shared ring[THREADS]
              nodes[me].key = 10 * (me + 1);
              nodes[me].next = nodes.ptr(next);
              pgas::barrier();
              for (int t = 0; t < n; ++t) {
                EXPECT(f, ring[t].thread() == (t + 1) % n, t);
                EXPECT(f, *ring[t] == 100 + (t + 1) % n, t);
              }
              // Around the list of nodes, from mine back to mine.
              pgas::sptr<node> p = nodes.ptr(me);
              long sum = 0;
              for (int k = 0; k < n; ++k) {
                sum += p->key;
                p = p->next;
              }
              EXPECT(f, p == nodes.ptr(me), "the walk returns to its start");
              EXPECT(f, sum == 10L * n * (n + 1) / 2, sum);
              // Run-time-block pointers (word and divider) in a shared array made in the body.
              pgas::shared_array<pgas::sptr<long, pgas::dynamic_block>> dyn({std::size_t(n)});
              pgas::shared_array<long> target({std::size_t(4 * n)}, pgas::block_spec::cyclic(4));
              EXPECT(f, !dyn[me], "zeroed run-time-block pointer is null");
              EXPECT(f, dyn[me].block() == 1, dyn[me].block());
              target[4 * me + 3] = me + 1;
              dyn[me] = target.ptr(4 * next);
              pgas::barrier();
              const auto q = dyn[(me + n - 1) % n];
              EXPECT(f, q.block() == 4 && (q + 3).thread() == me && q[3] == me + 1, q.block());
              pgas::barrier();
              return 0;
            }) == 0);
    INFO("threads " << n);
    check_no_failures(f);
  }
}

TEST_CASE("a shared array of lock handles guards counters under contention, exactly",
          "[static][lock]") {
  for (int n : {1, 2, 4}) {
    constexpr int rounds = 300;
    failures f;
    REQUIRE(pgas::run(test_job(n), 0, nullptr, [&](int, char**) {
              const int me = pgas::mythread();
              // upc_lock_t *shared locks[THREADS]: each thread allocates one and publishes it.
              pgas::shared_array<pgas::lock_t> locks({std::size_t(n)});
              pgas::shared_array<guarded> cells({std::size_t(n)});
              EXPECT(f, !locks[me] && !cells[me].lock, "lock handles start null");
              locks[me] = pgas::global_lock_alloc();
              cells[me].lock = locks[me];
              pgas::barrier();
              for (int r = 0; r < rounds; ++r) {
                for (int k = 0; k < n; ++k) {
                  const int c = (k + me) % n;
                  pgas::lock_t l = (r % 2 == 0) ? locks[c] : cells[c].lock;
                  l.lock();
                  cells[c].count = cells[c].count + 1;
                  l.unlock();
                }
              }
              pgas::barrier();
              for (int c = 0; c < n; ++c)
                EXPECT(f, cells[c].count == static_cast<long>(rounds) * n, cells[c].count);
              pgas::barrier();
              pgas::lock_free(locks[me]);
              return 0;
            }) == 0);
    INFO("threads " << n);
    check_no_failures(f);
  }
}
