// Tests pgas/privatize.hpp (src/privatize.cpp, alloc/replicas.cpp) and the automatic tables of
// pgas/shared_array.hpp in jobs of 1 to 4 threads (3 and 4 oversubscribe a small machine, which
// is fine), some planned on a synthetic machine of four NUMA nodes so that a job has several
// replicas. The property test creates thousands of random arrays (rank 1–4; cyclic layouts with
// B = 1, small and large, indefinite, [*] and tiles), privatizes each with random levels,
// sorting and replication, and checks that every element reached through the table — by
// t.address(), t(i, …) and t.row() — has exactly the address of the generic pointer-to-shared
// path A.ptr(i, …) and of A(i, …); that layouts without a table throw table_error on every
// thread and the job goes on; and that the accounting agrees with table_shape and
// plan_replicas. Further cases: replicas are distinct, page-aligned, read-only pages shared
// by exactly their plan's threads; automatic tables are used when they pay and not otherwise;
// moved arrays and handles keep working; tables are freed with their last handle (a thousand
// tables in a loop leave no memory mapped).

#include <pgas/pgas.hpp>

#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <tuple>  // std::apply
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

using pgas::block_spec;
using pgas::replicate;
using pgas::shared_array;
using pgas::table_error;
using pgas::table_levels;
using pgas::table_options;
using pgas::table_shape;
using sizes = std::vector<std::size_t>;

struct s12 {
  int a, b, c;
};

constexpr replicate all_policies[] = {replicate::single,     replicate::per_numa,
                                      replicate::per_socket, replicate::per_l3,
                                      replicate::per_thread, replicate::automatic};

// A job planned on a machine of four NUMA nodes (two packages), threads dealt over the nodes:
// thread t on node t % 4. Nothing is bound (the plan is only used to count replicas).
pgas::run_options four_node_job(int threads) {
  pgas::run_options o = test_job(threads);
  o.topology = "synthetic:package:2 numa:2 core:1 pu:1";
  o.map_by = pgas::map_policy::numa;
  return o;
}

std::size_t page_size() {
  return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::size_t pages_for(std::size_t bytes) {
  return (bytes + page_size() - 1) / page_size() * page_size();
}

template <std::size_t R>
std::string show(const std::array<std::size_t, R>& idx) {
  std::string s = "(";
  for (std::size_t d = 0; d < R; ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + ")";
}

template <std::size_t R>
bool next_index(std::array<std::size_t, R>& idx, const pgas::layout& l) {
  for (std::size_t d = R; d-- > 0;) {
    if (++idx[d] < l.extent(d)) return true;
    idx[d] = 0;
  }
  return false;
}

// The generic translation: the pointer-to-shared to the element, made a plain pointer.
// (.get() rather than static_cast: a null pointer-to-shared word casts to nullptr.)
template <class Array, std::size_t R>
auto* generic_address(const Array& a, const std::array<std::size_t, R>& idx) {
  return std::apply([&](auto... i) { return a.ptr(i...).get(); }, idx);
}

template <class Array, std::size_t R>
auto* array_address(const Array& a, const std::array<std::size_t, R>& idx) {
  return std::apply([&](auto... i) { return &a(i...); }, idx);
}

template <class T, std::size_t R, std::size_t... K>
T* row_of(const pgas::table<T, R>& t, const std::array<std::size_t, R>& idx,
          std::index_sequence<K...>) {
  return t.row(idx[K]...);
}

// The state of /proc/self/maps for the mapping holding `p`: its permissions ("r--p"), or "".
std::string protection_of(const void* p) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  while (std::getline(maps, line)) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%lx-%lx %7s", &lo, &hi, perms) == 3 && a >= lo && a < hi)
      return perms;
  }
  return "";
}

// Bytes of address space this process has mapped (VmSize).
std::size_t mapped_now() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoul(line.substr(7)) * 1024;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// The property test.

struct config {
  sizes extents;
  block_spec spec;
  table_options options;
  bool wide = false;  // s12 elements instead of int
  std::string text;   // for messages
};

block_spec random_spec(std::mt19937_64& rng, const sizes& ext, std::size_t size) {
  switch (rng() % 10) {
    case 0:
      return block_spec::indefinite();
    case 1:
      return block_spec::star();
    case 2:
    case 3: {
      sizes tile;
      for (std::size_t x : ext)
        tile.push_back(1 + rng() % (x + 2));
      return block_spec::tiles(tile);
    }
    case 4:
      return block_spec::cyclic(1);
    case 5:
      return block_spec::cyclic(1000 + rng() % 5000);  // larger than any array here
    case 6:
      return block_spec::cyclic(ext.back() * (1 + rng() % 3));
    case 7: {
      const std::size_t d = ext.back();
      sizes divisors;
      for (std::size_t b = 1; b <= d; ++b)
        if (d % b == 0) divisors.push_back(b);
      return block_spec::cyclic(divisors[rng() % divisors.size()]);
    }
    default:
      return block_spec::cyclic(1 + rng() % (size + 3));
  }
}

config random_config(std::mt19937_64& rng) {
  config c;
  const std::size_t rank = 1 + rng() % 4;
  const std::size_t max_extent[] = {0, 40, 9, 5, 4};
  std::size_t size = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    c.extents.push_back(1 + rng() % max_extent[rank]);
    size *= c.extents.back();
  }
  c.spec = random_spec(rng, c.extents, size);
  c.options.levels = rng() % 2 ? table_levels::one : table_levels::n_minus_1;
  c.options.sort_dims = rng() % 2 == 0;
  c.options.replicas = all_policies[rng() % 6];
  c.wide = rng() % 4 == 0;
  return c;
}

// Counts of what the property test saw, summed over threads.
struct coverage {
  std::atomic<int> tables{0}, refused{0}, elements{0}, rows{0}, automatic{0};
  std::atomic<int> kinds[3] = {0, 0, 0};
  std::atomic<int> multi_replica{0}, n_minus_1{0};
};

template <class T, std::size_t R>
void check_config(const config& c, failures& f, coverage& seen) {
  std::array<std::size_t, R> ext{};
  for (std::size_t d = 0; d < R; ++d)
    ext[d] = c.extents[d];
  const shared_array<T, R> a(ext, c.spec);
  const pgas::layout& l = a.layout();
  const std::string what = l.declaration(c.wide ? "s12" : "int", "A") + ", levels " +
                           std::string(pgas::to_string(c.options.levels)) +
                           (c.options.sort_dims ? " sorted" : "") + ", replicas " +
                           std::string(pgas::to_string(c.options.replicas));
  if (a.uses_table()) ++seen.automatic;

  // A(i, …) (automatic table or not) against the generic path, everywhere.
  std::array<std::size_t, R> idx{};
  do {
    EXPECT(f, array_address(a, idx) == generic_address(a, idx), what << " A" << show(idx));
  } while (next_index(idx, l));

  // Views index as A(i, …) does: view() always, and visit() / with_views() give the test-free
  // view exactly when the automatic table has whole rows.
  const bool whole =
      a.uses_table() && table_shape::why_not(l).empty() && table_shape(l).segments_per_row() == 1;
  const auto check_view = [&](const auto& v, const char* name) {
    std::array<std::size_t, R> i{};
    do {
      EXPECT(f, array_address(v, i) == generic_address(a, i), what << " " << name << show(i));
    } while (next_index(i, l));
  };
  check_view(a.view(), "view");
  a.visit([&](auto v) {
    EXPECT(f, decltype(v)::whole_rows == whole, what << ": visit gave whole_rows " << !whole);
    check_view(v, "visit");
  });
  pgas::with_views(
      [&](auto v, auto w) {
        EXPECT(f, decltype(v)::whole_rows == whole && decltype(w)::whole_rows == whole,
               what << ": with_views picked the wrong views");
        check_view(v, "with_views");
      },
      a, a);

  const std::string why = table_shape::why_not(l);
  if (!why.empty()) {
    bool threw = false;
    try {
      auto t = pgas::privatize(a, c.options);
      (void)t;
    } catch (const table_error& e) {
      threw = std::string(e.what()) == why;
    }
    EXPECT(f, threw, what << ": privatize did not throw table_error(why_not)");
    ++seen.refused;
    pgas::barrier();  // the job goes on: every thread gets here
    return;
  }

  const pgas::table<T, R> t = pgas::privatize(a, c.options);
  ++seen.tables;
  const table_shape shape(l, c.options.levels, c.options.sort_dims);
  ++seen.kinds[static_cast<int>(shape.which())];
  if (shape.levels() == table_levels::n_minus_1 && shape.level_entries().size() > 1)
    ++seen.n_minus_1;

  // Every element through the table.
  idx = {};
  do {
    T* const expected = generic_address(a, idx);
    EXPECT(f, t.address(idx) == expected, what << " t.address" << show(idx));
    EXPECT(f, std::apply([&](auto... i) { return &t(i...); }, idx) == expected,
           what << " t" << show(idx));
    ++seen.elements;
  } while (next_index(idx, l));

  // Rows: contiguous when each row is one segment; refused otherwise.
  if (shape.segments_per_row() == 1) {
    idx = {};
    do {
      if (idx[R - 1] == 0) {
        T* const row = row_of(t, idx, std::make_index_sequence<R - 1>{});
        for (std::size_t j = 0; j < l.extent(R - 1); ++j) {
          std::array<std::size_t, R> e = idx;
          e[R - 1] = j;
          EXPECT(f, row + j == generic_address(a, e),
                 what << " t.row" << show(idx) << "[" << j << "]");
        }
        ++seen.rows;
      }
    } while (next_index(idx, l));
  } else {
    bool threw = false;
    try {
      (void)t.rows();
    } catch (const table_error&) {
      threw = true;
    }
    EXPECT(f, threw, what << ": t.rows() did not throw on a table of segments");
  }
  // The plain row pointers: one-level tables of whole rows of 2-D and higher arrays.
  if (shape.segments_per_row() == 1 && shape.levels() == table_levels::one && R > 1 &&
      shape.entries() > 0) {
    T* const* rows = t.rows();
    idx = {};
    do {
      std::size_t e = 0;
      for (std::size_t d = 0; d + 1 < R; ++d)
        e = e * l.extent(d) + idx[d];
      EXPECT(f, rows[e] + idx[R - 1] == generic_address(a, idx), what << " t.rows()" << show(idx));
    } while (next_index(idx, l));
  } else if (shape.segments_per_row() == 1) {
    bool threw = false;
    try {
      (void)t.rows();
    } catch (const table_error&) {
      threw = true;
    }
    EXPECT(f, threw || shape.entries() == 0, what << ": t.rows() did not throw");
  }
  if (shape.segments_per_row() != 1) {
    bool threw = false;
    try {
      (void)row_of(t, idx, std::make_index_sequence<R - 1>{});
    } catch (const table_error&) {
      threw = true;
    }
    EXPECT(
        f, threw,
        what << ": t.row() did not throw with " << shape.segments_per_row() << " segments per row");
  }

  // Accounting.
  const pgas::replica_plan plan =
      pgas::plan_replicas(pgas::job_machine(), pgas::job_placement(), c.options.replicas);
  EXPECT(f, static_cast<bool>(t), what);
  EXPECT(f, t.shape().entries() == shape.entries(), what);
  EXPECT(f, t.shape().level_entries() == shape.level_entries(), what);
  EXPECT(f, t.shape().which() == shape.which(), what);
  EXPECT(f, t.bytes() == shape.bytes(), what << ": " << t.bytes() << " bytes");
  EXPECT(f, t.replicas() == plan.count(), what << ": " << t.replicas() << " replicas");
  EXPECT(f, t.replica() == plan.replica_of[static_cast<std::size_t>(pgas::mythread())], what);
  EXPECT(f, t.policy() == plan.policy, what);
  EXPECT(f, t.policy() != replicate::automatic, what);
  EXPECT(f, t.total_bytes() == shape.bytes() * static_cast<std::size_t>(plan.count()), what);
  EXPECT(f, t.mapped_bytes() == pages_for(shape.bytes()) * static_cast<std::size_t>(plan.count()),
         what << ": " << t.mapped_bytes() << " bytes mapped");
  EXPECT(f, t.mapped_bytes() % page_size() == 0, what);
  if (plan.count() > 1) ++seen.multi_replica;
}

template <class T>
void check_config_rank(const config& c, failures& f, coverage& seen) {
  switch (c.extents.size()) {
    case 1:
      check_config<T, 1>(c, f, seen);
      break;
    case 2:
      check_config<T, 2>(c, f, seen);
      break;
    case 3:
      check_config<T, 3>(c, f, seen);
      break;
    default:
      check_config<T, 4>(c, f, seen);
      break;
  }
}

void property_job(const pgas::run_options& options, int configs, std::uint64_t seed,
                  coverage& seen) {
  failures f;
  pgas::run(options, 0, nullptr, [&] {
    std::mt19937_64 rng(seed);  // the same arrays, in the same order, on every thread
    for (int k = 0; k < configs; ++k) {
      const config c = random_config(rng);
      if (c.wide) {
        check_config_rank<s12>(c, f, seen);
      } else {
        check_config_rank<int>(c, f, seen);
      }
    }
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("every element through a table has the address of the generic path", "[privatize]") {
  coverage seen;
  for (int n : {1, 2, 3, 4}) {
    INFO(n << " threads");
    property_job(test_job(n), 1000, 1000 + static_cast<std::uint64_t>(n), seen);
  }
  for (int n : {2, 3, 4}) {
    INFO(n << " threads planned on four NUMA nodes");
    property_job(four_node_job(n), 500, 2000 + static_cast<std::uint64_t>(n), seen);
  }
  // The generator reaches every case.
  INFO("tables " << seen.tables << ", refused " << seen.refused << ", elements " << seen.elements
                 << ", rows " << seen.rows << ", automatic " << seen.automatic << ", kinds "
                 << seen.kinds[0] << "/" << seen.kinds[1] << "/" << seen.kinds[2]
                 << ", multi-replica " << seen.multi_replica << ", n-1 " << seen.n_minus_1);
  CHECK(seen.refused > 100);
  CHECK(seen.tables > 1000);
  CHECK(seen.rows > 1000);
  CHECK(seen.automatic > 10);
  CHECK(seen.kinds[0] > 200);
  CHECK(seen.kinds[1] > 200);
  CHECK(seen.kinds[2] > 200);
  CHECK(seen.multi_replica > 200);
  CHECK(seen.n_minus_1 > 200);
}

// ---------------------------------------------------------------------------------------------
// Replicas.

TEST_CASE("replicas are read-only pages of their own, one per group of the plan", "[privatize]") {
  for (const replicate policy : all_policies) {
    for (int n : {1, 2, 4}) {
      INFO(n << " threads on four NUMA nodes, replicas " << pgas::to_string(policy));
      failures f;
      std::vector<const void*> roots(static_cast<std::size_t>(n));
      pgas::run(four_node_job(n), 0, nullptr, [&] {
        const shared_array<int, 2> a({12, 8}, block_spec::cyclic(8));
        const pgas::layout& l = a.layout();
        const table_shape shape(l);
        const pgas::replica_plan plan =
            pgas::plan_replicas(pgas::job_machine(), pgas::job_placement(), policy);
        const int me = pgas::mythread();
        // The library's own entry point, for the replica's address (a table handle keeps it
        // private).
        const pgas::detail::table_ref r = pgas::detail::table_build(
            l, sizeof(int), reinterpret_cast<char*>(a.local_part(0).data()), shape, policy, false,
            nullptr, std::source_location::current());
        roots[static_cast<std::size_t>(me)] = r.root;
        EXPECT(f, pgas::detail::table_replicas(r.state) == plan.count(), "");
        EXPECT(f, pgas::detail::table_replica_of(r.state, me) == plan.replica_of[me], "");
        EXPECT(f, pgas::detail::table_policy(r.state) == plan.policy, "");
        EXPECT(f,
               pgas::detail::table_mapped_bytes(r.state) ==
                   pages_for(shape.bytes()) * static_cast<std::size_t>(plan.count()),
               "");
        // One level of row pointers: entry i is row i's first element.
        for (std::size_t i = 0; i < 12; ++i)
          EXPECT(f, r.root[i] == static_cast<const void*>(a.ptr(i, 0).get()), "row " << i);
        EXPECT(f, reinterpret_cast<std::uintptr_t>(r.root) % page_size() == 0, "not page-aligned");
        const std::string prot = protection_of(r.root);
        EXPECT(f, prot.size() >= 3 && prot[0] == 'r' && prot[1] == '-',
               "replica mapped '" << prot << "'");
        pgas::barrier();
        // Threads share a replica exactly when the plan says so.
        for (int u = 0; u < n; ++u) {
          const bool same = plan.replica_of[static_cast<std::size_t>(u)] == plan.replica_of[me];
          EXPECT(f, (roots[static_cast<std::size_t>(u)] == r.root) == same,
                 "threads " << me << " and " << u);
        }
        pgas::barrier();
        pgas::detail::table_release(r.state);
      });
      check_no_failures(f);
    }
  }
}

TEST_CASE("replicas on this machine: bound to their readers' node and resident there",
          "[privatize]") {
  // Threads bound to cores on the real machine: each replica's pages must be bound (MPOL_BIND,
  // read back with get_mempolicy) to the NUMA node of its readers, and already on it (move_pages)
  // since its filler touched them.
  for (int n : {1, 2}) {
    INFO(n << " threads, a replica per thread");
    failures f;
    pgas::run(test_job(n, pgas::bind_policy::core), 0, nullptr, [&] {
      const shared_array<int, 2> a({16, 64}, block_spec::cyclic(64));
      const pgas::layout& l = a.layout();
      const table_shape shape(l);
      const pgas::replica_plan plan =
          pgas::plan_replicas(pgas::job_machine(), pgas::job_placement(), replicate::per_thread);
      const pgas::detail::table_ref r = pgas::detail::table_build(
          l, sizeof(int), reinterpret_cast<char*>(a.local_part(0).data()), shape,
          replicate::per_thread, false, nullptr, std::source_location::current());
      const int me = pgas::mythread();
      const int node = plan.node[static_cast<std::size_t>(plan.replica_of[me])];
      const pgas::memory_location where = pgas::locate(r.root);
      if (node >= 0) {
        EXPECT(f, where.bound_node == node, "bound to " << where.bound_node << ", plan " << node);
        EXPECT(f, where.page_node == node, "page on " << where.page_node << ", plan " << node);
      }
      EXPECT(f, where.page_node >= 0, "the filler did not touch its replica");
      pgas::barrier();
      pgas::detail::table_release(r.state);
    });
    check_no_failures(f);
  }
}

TEST_CASE("per-numa tables on four nodes: four replicas, same addresses", "[privatize]") {
  failures f;
  pgas::run(four_node_job(4), 0, nullptr, [&] {
    const shared_array<double, 3> a({4, 6, 8}, block_spec::cyclic(48));
    for (const bool sorted : {false, true}) {
      const auto t = pgas::privatize(a, {.replicas = replicate::per_numa,
                                         .levels = table_levels::n_minus_1,
                                         .sort_dims = sorted});
      EXPECT(f, t.replicas() == 4, t.replicas());
      EXPECT(f, t.replica() == pgas::mythread(), t.replica());
      EXPECT(f, t.policy() == replicate::per_numa, "");
      // Level sizes (eq. 1): 4 + 4·6 unsorted, the same sorted (4 < 6 already).
      EXPECT(f, t.shape().level_entries() == (sizes{4, 24}), "");
      EXPECT(f, t.bytes() == 28 * sizeof(void*), t.bytes());
      EXPECT(f, t.total_bytes() == 4 * 28 * sizeof(void*), t.total_bytes());
      for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 6; ++j)
          for (std::size_t k = 0; k < 8; ++k)
            EXPECT(f, &t(i, j, k) == a.ptr(i, j, k).get(), i << "," << j << "," << k);
    }
    // auto on four nodes is per-numa.
    const auto t = pgas::privatize(a);
    EXPECT(f, t.policy() == replicate::per_numa, "");
    EXPECT(f, t.replicas() == 4, "");
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("writes through one thread's table are read through another's", "[privatize]") {
  failures f;
  pgas::run(four_node_job(4), 0, nullptr, [&] {
    const shared_array<int, 2> a({16, 12}, block_spec::cyclic(4));  // blocks in rows
    const auto t = pgas::privatize(a, {.replicas = replicate::per_thread});
    const int me = pgas::mythread();
    // Thread t writes rows t, t + 4, …, wherever their elements live.
    for (std::size_t i = static_cast<std::size_t>(me); i < 16; i += 4)
      for (std::size_t j = 0; j < 12; ++j)
        t(i, j) = static_cast<int>(i * 100 + j);
    pgas::barrier();
    for (std::size_t i = 0; i < 16; ++i)
      for (std::size_t j = 0; j < 12; ++j) {
        EXPECT(f, t(i, j) == static_cast<int>(i * 100 + j), i << "," << j);
        EXPECT(f, a(i, j) == static_cast<int>(i * 100 + j), i << "," << j);
      }
    pgas::barrier();
  });
  check_no_failures(f);
}

// ---------------------------------------------------------------------------------------------
// Automatic tables.

template <class Array>
void check_automatic(const Array& a, bool expected, const std::string& what, failures& f) {
  EXPECT(f, a.uses_table() == expected, what << ": uses_table() is " << a.uses_table());
  constexpr std::size_t R = Array::rank;
  // Every element once over the threads: thread t takes leading indices t, t + THREADS, …
  std::array<std::size_t, R> idx{};
  std::size_t checked = 0;
  const auto me = static_cast<std::size_t>(pgas::mythread());
  const auto n = static_cast<std::size_t>(pgas::threads());
  do {
    if (idx[0] % n != me) continue;
    if (array_address(a, idx) != generic_address(a, idx)) {
      EXPECT(f, false, what << " A" << show(idx));
      return;
    }
    ++checked;
  } while (next_index(idx, a.layout()));
  (void)checked;
}

TEST_CASE("automatic tables: used when one applies and pays, A(i, j) unchanged", "[privatize]") {
  for (int n : {1, 2, 4}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      // The paper's matrices: 1024 row pointers for 4 MiB of data.
      check_automatic(shared_array<int, 2>({1024, 1024}, block_spec::cyclic(1024)), true,
                      "shared [1024] int A[1024][1024]", f);
      check_automatic(shared_array<int, 2, 1024>({256, 1024}), true,
                      "shared [1024] int A[256][1024] (compile-time block)", f);
      // Blocks in rows with a compile-time block: 4 × 4 segment pointers for 4 KiB.
      check_automatic(shared_array<int, 2, 64>({4, 256}), true, "shared [64] int A[4][256]", f);
      check_automatic(shared_array<int, 2>({4, 256}, block_spec::cyclic(64)), true,
                      "shared [64] int A[4][256] (run-time block)", f);
      check_automatic(shared_array<int, 3>({8, 16, 64}, block_spec::cyclic(128)), true,
                      "shared [128] int A[8][16][64]", f);
      // Tile rows: 64 rows of 2 segments for 32 KiB.
      check_automatic(shared_array<double, 2>({64, 64}, block_spec::tiles({16, 32})), true,
                      "shared [16][32] double A[64][64]", f);
      check_automatic(shared_array<int, 2>({256, 256}, block_spec::indefinite()), true,
                      "shared [] int A[256][256]", f);
      // A single row in one block needs no pointers: the array is its own row pointer.
      check_automatic(shared_array<int>({1000}, block_spec::indefinite()), true,
                      "shared [] int A[1000]", f);
      check_automatic(shared_array<int, 1, 4096>({1000}), true, "shared [4096] int A[1000]", f);

      // 1-D blocks in rows: one pointer per block, the last one partial.
      check_automatic(shared_array<int>({4096}, block_spec::cyclic(64)), true,
                      "shared [64] int A[4096]", f);
      check_automatic(shared_array<int, 1, 128>({4100}), true, "shared [128] int A[4100]", f);
      check_automatic(shared_array<int>({4100}, block_spec::cyclic(128)), true,
                      "shared [128] int A[4100] (run-time block)", f);
      check_automatic(shared_array<int, 1, 64>({4100}), false, "shared [64] int A[4100]", f);

      // Tables that would cost more than 1/32 of the data.
      check_automatic(shared_array<int>({4096}), false, "shared int A[4096]", f);
      check_automatic(shared_array<int, 1, 1>({4096}), false, "shared [1] int A[4096]", f);
      // Exactly 1/32 pays (64 pointers of 8 bytes, 32 times, for 16 KiB of data); half the
      // data does not.
      check_automatic(shared_array<int, 2>({64, 64}, block_spec::cyclic(64)), true,
                      "shared [64] int A[64][64]", f);
      check_automatic(shared_array<int, 2>({64, 32}, block_spec::cyclic(32)), false,
                      "shared [32] int A[64][32]", f);
      check_automatic(shared_array<int, 2>({256, 256}, block_spec::cyclic(8)), false,
                      "shared [8] int A[256][256]", f);
      // No table applies.
      check_automatic(shared_array<int, 2>({40, 30}, block_spec::cyclic(50)), false,
                      "shared [50] int A[40][30]", f);
      check_automatic(shared_array<int, 2>({300, 300}, block_spec::cyclic(7)), false,
                      "shared [7] int A[300][300]", f);
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

// Arrays large enough for automatic tables to pay, with random layouts around the 1/32 limit:
// whether A(i, …) goes through a table or not, its address is the generic path's.
template <std::size_t R>
void check_random_automatic(std::mt19937_64& rng, failures& f, int& with_table) {
  std::array<std::size_t, R> ext{};
  constexpr std::size_t row_lengths[] = {64, 96, 100, 128, 256, 320};
  ext[R - 1] = row_lengths[rng() % 6];
  for (std::size_t d = 0; d + 1 < R; ++d)
    ext[d] = 1 + rng() % (R == 2 ? 64 : 12);
  const std::size_t d = ext[R - 1];
  block_spec spec;
  switch (rng() % 5) {
    case 0:
      spec = block_spec::cyclic(d * (1 + rng() % 4));
      break;   // rows in blocks
    case 1: {  // blocks in rows
      std::vector<std::size_t> divisors;
      for (std::size_t b : {d / 2, d / 4, std::size_t{16}, std::size_t{32}})
        if (b > 0 && d % b == 0) divisors.push_back(b);
      spec = block_spec::cyclic(divisors[rng() % divisors.size()]);
      break;
    }
    case 2:
      spec = block_spec::cyclic(48);
      break;  // a table only when 48 divides the row
    case 3:
      spec = block_spec::star();
      break;
    default: {
      std::vector<std::size_t> tile(R);
      for (std::size_t k = 0; k + 1 < R; ++k)
        tile[k] = 1 + rng() % 4;
      tile[R - 1] = 16 * (1 + rng() % 24);
      spec = block_spec::tiles(tile);
    }
  }
  const shared_array<int, R> a(ext, spec);
  const std::string what = a.layout().declaration("int", "A");
  // Whether a table is used follows the documented rule.
  const pgas::layout& l = a.layout();
  bool expected = false;
  if (table_shape::why_not(l).empty()) {
    const table_shape shape(l);
    const pgas::replica_plan plan =
        pgas::plan_replicas(pgas::job_machine(), pgas::job_placement(), replicate::automatic);
    expected = shape.entries() == 0 ||
               shape.entries() * sizeof(void*) * static_cast<std::size_t>(plan.count()) * 32 <=
                   l.size() * sizeof(int);
  }
  check_automatic(a, expected, what, f);
  if (a.uses_table()) ++with_table;
}

TEST_CASE("random large arrays: automatic tables agree with the generic path", "[privatize]") {
  // On four NUMA nodes an automatic table has a replica per node the threads use, so fewer pay.
  for (const auto& [n, four_nodes] :
       {std::pair{1, false}, std::pair{2, false}, std::pair{3, false}, std::pair{4, true}}) {
    INFO(n << " threads" << (four_nodes ? " planned on four NUMA nodes" : ""));
    failures f;
    int with_table = 0;
    pgas::run(four_nodes ? four_node_job(n) : test_job(n), 0, nullptr, [&] {
      std::mt19937_64 rng(77 + static_cast<std::uint64_t>(n));
      int mine = 0;
      for (int k = 0; k < 60; ++k) {
        switch (rng() % 3) {
          case 0:
            check_random_automatic<2>(rng, f, mine);
            break;
          case 1:
            check_random_automatic<3>(rng, f, mine);
            break;
          default:
            check_random_automatic<1>(rng, f, mine);
            break;
        }
      }
      if (pgas::mythread() == 0) with_table = mine;
      pgas::barrier();
    });
    check_no_failures(f);
    CHECK(with_table > (four_nodes ? 5 : 15));
  }
}

TEST_CASE("moved arrays and moved table handles keep working", "[privatize]") {
  for (int n : {1, 3}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      shared_array<int, 2> a({512, 256}, block_spec::cyclic(256));
      EXPECT(f, a.uses_table(), "");
      shared_array<int, 2> b(std::move(a));
      EXPECT(f, !a.uses_table(), "a moved-from array has no table");
      check_automatic(b, true, "moved-to array", f);
      shared_array<int, 2> c({64, 64}, block_spec::cyclic(3));
      EXPECT(f, !c.uses_table(), "");
      c = std::move(b);  // collective: frees c's array
      EXPECT(f, !b.uses_table(), "");
      check_automatic(c, true, "move-assigned array", f);

      auto t = pgas::privatize(c, {.replicas = replicate::per_thread});
      pgas::table<int, 2> u(std::move(t));
      EXPECT(f, !t, "a moved-from handle is empty");
      EXPECT(f, t.replicas() == 0, "");
      EXPECT(f, static_cast<bool>(u), "");
      pgas::table<int, 2> v;
      EXPECT(f, !v, "");
      v = std::move(u);
      EXPECT(f, !u, "");
      for (std::size_t i = 0; i < 512; i += 7)
        for (std::size_t j = 0; j < 256; j += 5)
          EXPECT(f, &v(i, j) == c.ptr(i, j).get(), i << "," << j);
      EXPECT(f, v.row(100) == c.ptr(100, 0).get(), "");
      EXPECT(f, v.replicas() == pgas::threads(), "");
      // Assigning over a live handle releases the old table.
      v = pgas::privatize(c, {.levels = table_levels::n_minus_1});
      EXPECT(f, v.shape().levels() == table_levels::n_minus_1, "");
      EXPECT(f, &v(511, 255) == c.ptr(511, 255).get(), "");
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("a table lives until its last handle goes, then its replicas are unmapped",
          "[privatize]") {
  for (int n : {1, 2, 4}) {
    INFO(n << " threads");
    failures f;
    std::size_t before = 0;
    std::size_t after = 0;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const shared_array<int, 2> a({8, 16}, block_spec::cyclic(16));
      const shared_array<int, 1> b({64}, block_spec::cyclic(4));
      const int me = pgas::mythread();
      // Warm up once (allocator caches, thread-local strings) before measuring.
      { auto t = pgas::privatize(a, {.replicas = replicate::per_thread}); }
      pgas::barrier();
      if (me == 0) before = mapped_now();
      pgas::barrier();
      for (int k = 0; k < 1000; ++k) {
        const int keeper = k % pgas::threads();
        auto t = pgas::privatize(a, {.replicas = replicate::per_thread});
        auto u =
            pgas::privatize(b, {.replicas = replicate::single, .levels = table_levels::n_minus_1});
        if (me != keeper) {
          t = {};  // every thread but the keeper lets go
          u = {};
        }
        pgas::barrier();
        if (me == keeper) {
          // The keeper's handles still reach every element.
          if (&t(7, 15) != a.ptr(7, 15).get() || &u(63) != b.ptr(63).get() ||
              &t(k % 8, k % 16) != a.ptr(k % 8, k % 16).get()) {
            EXPECT(f, false, "iteration " << k);
          }
        }
        pgas::barrier();
      }
      if (me == 0) after = mapped_now();
      pgas::barrier();
    });
    check_no_failures(f);
    INFO("VmSize before " << before << ", after " << after);
    // A leak would keep 1000 × THREADS pages of one table and 1000 of the other: 8 MiB and more.
    CHECK(after <= before + 1024 * 1024);
  }
}

}  // namespace
