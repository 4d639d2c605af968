// Unit tests of pgas/coalesce.hpp: downloaded values equal direct reads for random index sets
// (duplicates and own elements included) over block-cyclic, tiled 2-D and pointer-to-shared
// ranges; downloads of runs of elements that keep the elements put and not uploaded; the
// plan's owner batches; uploads visible after a barrier under the last, min and max rules;
// reuse across iterations without replanning and a new plan after a new hint; one trace
// record per owner batch; and each misuse with its message (in a child process, since misuse
// inside a job ends the process).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <pgas/alloc.hpp>
#include <pgas/coalesce.hpp>
#include <pgas/config.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sync.hpp>

#include "../job_failures.hpp"
#include "../misuse_child.hpp"
#include "../test_job.hpp"

namespace {

using pgas::upload_combine;

// A value no two elements share.
int value_of(std::size_t k) {
  return static_cast<int>(k * 7 + 3);
}

// `count` random indices below n, duplicates likely, for thread `me`.
std::vector<std::size_t> random_indices(std::size_t n, std::size_t count, int me) {
  std::mt19937 gen(1234u + static_cast<unsigned>(me));
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  std::vector<std::size_t> v(count);
  for (std::size_t& i : v)
    i = pick(gen);
  return v;
}

}  // namespace

TEST_CASE("downloaded values are the elements' values, over a block-cyclic array", "[coalesce]") {
  for (const int nt : {1, 3}) {
    failures f;
    pgas::run(test_job(nt), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const std::size_t n = 301;
      pgas::shared_array<int> A({n}, pgas::block_spec::cyclic(3));
      if (me == 0)
        for (std::size_t i = 0; i < n; ++i)
          A[i] = value_of(i);
      pgas::barrier();
      pgas::access_schedule s(A);
      const std::vector<std::size_t> idx = random_indices(n, 400, me);
      for (const std::size_t i : idx)
        s.hint(i);
      s.start_download();
      s.finish_download();
      std::set<int> owners;
      std::size_t others = 0;
      for (const std::size_t i : std::set<std::size_t>(idx.begin(), idx.end())) {
        const int t = static_cast<int>((i / 3) % static_cast<std::size_t>(nt));
        if (t != me) owners.insert(t), ++others;
      }
      for (const std::size_t i : idx)
        EXPECT(f, s.get(i) == value_of(i), "index " << i);
      const pgas::schedule_stats st = s.stats();
      EXPECT(f, st.plans == 1, st.plans);
      EXPECT(f, st.downloads == 1, st.downloads);
      EXPECT(f, st.read_elements == others, st.read_elements << " vs " << others);
      EXPECT(f, st.read_batches == owners.size(), st.read_batches);
      EXPECT(f, st.downloaded == others, st.downloaded);
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("downloaded values over tiled 2-D arrays and a pointer-to-shared range", "[coalesce]") {
  failures f;
  pgas::run(test_job(4), 0, nullptr, [&] {
    const int me = pgas::mythread();
    pgas::shared_array<double, 2> M({9, 10}, pgas::block_spec::tiles({2, 3}));
    pgas::shared_array<int, 2> C({7, 5}, pgas::block_spec::cyclic(5));
    const pgas::shared_alloc a = pgas::all_alloc(9, 4 * sizeof(long));
    const pgas::sptr<long, 4> p = a;
    if (me == 0) {
      for (std::size_t i = 0; i < 9; ++i)
        for (std::size_t j = 0; j < 10; ++j)
          M(i, j) = static_cast<double>(i * 100 + j);
      for (std::size_t i = 0; i < 7; ++i)
        for (std::size_t j = 0; j < 5; ++j)
          C(i, j) = value_of(i * 5 + j);
      for (int k = 0; k < 36; ++k)
        p[k] = 1000 + k;
    }
    pgas::barrier();
    pgas::access_schedule sm(M);
    pgas::access_schedule sc(C);
    pgas::access_schedule sp(p + 3, 30);  // starts mid-block
    const std::vector<std::size_t> r = random_indices(90, 120, me);
    for (const std::size_t k : r) {
      sm.hint(k / 10, k % 10);
      sc.hint(k % 7, k % 5);
      sp.hint(k % 30);
    }
    sm.start_download();
    sc.start_download();
    sp.start_download();
    sm.finish_download();
    sc.finish_download();
    sp.finish_download();
    for (const std::size_t k : r) {
      EXPECT(f, sm.get(k / 10, k % 10) == static_cast<double>((k / 10) * 100 + k % 10), k);
      EXPECT(f, sc.get(k % 7, k % 5) == value_of((k % 7) * 5 + k % 5), k);
      EXPECT(f, sp.get(k % 30) == 1000 + 3 + static_cast<long>(k % 30), k);
    }
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("puts are visible after the upload and a barrier; own puts at once", "[coalesce]") {
  failures f;
  pgas::run(test_job(3), 0, nullptr, [&] {
    const int me = pgas::mythread(), nt = pgas::threads();
    const std::size_t n = 60;
    pgas::shared_array<int> A({n}, pgas::block_spec::cyclic(2));
    pgas::access_schedule s(A);
    // Thread t writes the elements i with i % 3 == t: some its own, most another's.
    for (std::size_t i = static_cast<std::size_t>(me); i < n; i += static_cast<std::size_t>(nt)) {
      s.hint_write(i);
      s.hint_write(i);  // a duplicate
    }
    for (std::size_t i = static_cast<std::size_t>(me); i < n; i += static_cast<std::size_t>(nt)) {
      s.put(i, value_of(i));
      EXPECT(f, s.get(i) == value_of(i), "a put element reads back " << i);
      if (A.ptr(i).thread() == me) EXPECT(f, A[i] == value_of(i), "own at once " << i);
    }
    s.start_upload();
    s.finish_upload();
    pgas::barrier();
    for (std::size_t i = 0; i < n; ++i)
      EXPECT(f, A[i] == value_of(i), "index " << i);
    EXPECT(f, s.stats().uploads == 1, s.stats().uploads);
    EXPECT(f, s.stats().uploaded == s.stats().write_elements, s.stats().uploaded);
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("several writers: the min and max rules keep the extreme, last keeps one of them",
          "[coalesce]") {
  for (const upload_combine rule :
       {upload_combine::min, upload_combine::max, upload_combine::last}) {
    failures f;
    pgas::run(test_job(4), 0, nullptr, [&] {
      const int me = pgas::mythread(), nt = pgas::threads();
      pgas::shared_array<long> A({8});  // block 1: element e on thread e % 4
      const long start = rule == upload_combine::min ? 50 : 0;
      for (std::size_t e = 0; e < 8; ++e)
        if (A.ptr(e).thread() == me) A[e] = start;
      pgas::barrier();
      pgas::access_schedule s(A, {.combine = rule});
      for (std::size_t e = 0; e < 8; ++e)
        s.hint_write(e);
      for (int round = 0; round < 2; ++round) {
        for (std::size_t e = 0; e < 8; ++e) {
          s.put(e, 10 * me + static_cast<long>(e));
          s.put(e, 10 * me + static_cast<long>(e) + 1);  // min keeps the first, max the second
        }
        s.start_upload();
        s.finish_upload();
        pgas::barrier();
        for (std::size_t e = 0; e < 8; ++e) {
          const long got = A[e], lo = static_cast<long>(e), hi = 10 * (nt - 1) + lo + 1;
          if (rule == upload_combine::min) EXPECT(f, got == lo, e << ": " << got);
          if (rule == upload_combine::max) EXPECT(f, got == hi, e << ": " << got);
          if (rule == upload_combine::last) EXPECT(f, got % 10 == lo + 1 && got < 40, got);
        }
        pgas::barrier();
      }
      EXPECT(f, s.stats().plans == 1, s.stats().plans);
    });
    check_no_failures(f);
  }
}

TEST_CASE("a download reads whole runs of elements, skipping those put and not uploaded",
          "[coalesce]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const std::size_t n = 200;
    pgas::shared_array<int> A({n});
    for (std::size_t i = 0; i < n; ++i)
      if (A.ptr(i).thread() == me) A[i] = value_of(i);
    pgas::barrier();
    // Every element but those a multiple of 10 (runs of 9 between gaps), own ones included;
    // every third element hinted for writing too.
    pgas::access_schedule s(A);
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 10 != 0) s.hint(i);
      if (i % 3 == 0) s.hint_write(i);
    }
    s.start_download();
    s.finish_download();
    for (std::size_t i = 0; i < n; ++i)
      if (i % 10 != 0) EXPECT(f, s.get(i) == value_of(i), "index " << i);
    // Other threads' elements put here stay as put through the next download; the rest of
    // each run reads the owner's new values, as do the own elements.
    for (std::size_t i = 0; i < n; i += 3)
      if (A.ptr(i).thread() != me) s.put(i, -1);
    pgas::barrier();
    for (std::size_t i = 0; i < n; ++i)
      if (A.ptr(i).thread() == me) A[i] = value_of(i) + 1;
    pgas::barrier();
    s.start_download();
    s.finish_download();
    for (std::size_t i = 0; i < n; ++i) {
      if (i % 10 == 0) continue;
      const bool put = i % 3 == 0 && A.ptr(i).thread() != me;
      const int want = put ? -1 : value_of(i) + 1;
      EXPECT(f, s.get(i) == want, "index " << i << ": " << s.get(i) << " vs " << want);
    }
    s.clear();
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("a schedule is reused across iterations; a new hint after a cycle replans",
          "[coalesce]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const std::size_t n = 16;
    pgas::shared_array<int> A({n});
    for (std::size_t i = 0; i < n; ++i)
      if (A.ptr(i).thread() == me) A[i] = 0;
    pgas::barrier();
    pgas::access_schedule s(A);
    // Each thread increments the other thread's elements through the schedule.
    std::vector<std::size_t> theirs;
    for (std::size_t i = 0; i < n; ++i)
      if (A.ptr(i).thread() != me) theirs.push_back(i);
    for (const std::size_t i : theirs) {
      s.hint(i);
      s.hint_write(i);
    }
    for (int it = 0; it < 5; ++it) {
      s.start_download();
      s.finish_download();
      for (const std::size_t i : theirs) {
        EXPECT(f, s.get(i) == it, "iteration " << it << " index " << i << ": " << s.get(i));
        s.put(i, s.get(i) + 1);
      }
      s.start_upload();
      s.finish_upload();
      pgas::barrier();
    }
    pgas::schedule_stats st = s.stats();
    EXPECT(f, st.plans == 1, st.plans);
    EXPECT(f, st.downloads == 5 && st.uploads == 5, st.downloads << " " << st.uploads);
    EXPECT(f, st.read_batches == 1 && st.write_batches == 1, st.read_batches);
    // A new index set: element 0 only (thread 0's).
    s.hint(0);
    s.start_download();
    s.finish_download();
    EXPECT(f, s.get(0) == 5, s.get(0));  // thread 1 incremented it 5 times
    st = s.stats();
    EXPECT(f, st.plans == 2, st.plans);
    EXPECT(f, st.read_elements == (me == 0 ? 0u : 1u), st.read_elements);
    // Nothing of the first set is left: the new set hints nothing for writing.
    EXPECT(f, st.write_elements == 0, st.write_elements);
    s.clear();
    EXPECT(f, s.stats().read_elements == 0, s.stats().read_elements);
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("under tracing, each owner's batch of a download or an upload is one record",
          "[coalesce][trace]") {
  const std::string file = "coalesce_test." + std::to_string(getpid()) + ".trace";
  REQUIRE(setenv("PGAS_TRACE", file.c_str(), 1) == 0);
  failures f;
  pgas::run(test_job(3), 0, nullptr, [&] {
    pgas::shared_array<int> A({30});  // block 1: element i on thread i % 3
    pgas::barrier();
    if (pgas::mythread() == 0) {
      pgas::access_schedule s(A);
      for (const std::size_t i : {1, 2, 4, 5, 7, 4, 0, 3})  // thread 1: 3, thread 2: 2
        s.hint(i);
      for (const std::size_t i : {1, 2, 5})  // thread 1: 1, thread 2: 2
        s.hint_write(i);
      for (int round = 0; round < 2; ++round) {
        s.start_download();
        s.finish_download();
      }
      for (const std::size_t i : {1, 2, 5})
        s.put(i, 9);
      s.start_upload();
      s.finish_upload();
    }
    pgas::barrier();
  });
  unsetenv("PGAS_TRACE");
  check_no_failures(f);
  std::ifstream in(file);
  REQUIRE(in.good());
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::remove(file.c_str());
  // (direction, owner) -> (calls, bytes)
  std::map<std::pair<std::string, int>, std::pair<std::uint64_t, std::uint64_t>> got;
  for (const auto& a : doc.at("accesses")) {
    if (a.at("kind") != "schedule") continue;
    CHECK(a.at("from") == 0);
    auto& [calls, bytes] = got[{a.at("dir").get<std::string>(), a.at("to").get<int>()}];
    calls += a.at("calls").get<std::uint64_t>();
    bytes += a.at("bytes").get<std::uint64_t>();
  }
  using row = std::pair<std::uint64_t, std::uint64_t>;
  CHECK(got.size() == 4);
  CHECK(got[{"read", 1}] == row{2, 24});
  CHECK(got[{"read", 2}] == row{2, 16});
  CHECK(got[{"write", 1}] == row{1, 4});
  CHECK(got[{"write", 2}] == row{1, 8});
}

// --- misuse ----------------------------------------------------------------------------------

namespace {

void get_not_hinted() {
  pgas::shared_array<int> A({8});
  pgas::access_schedule s(A);
  s.hint(1);
  s.start_download();
  s.finish_download();
  if (pgas::mythread() == 1) {
    misuse_announce(__LINE__ + 1);
    (void)s.get(3);
  }
  pgas::barrier();
}

void get_unhinted_in_span() {
  pgas::shared_array<int> A({8});
  pgas::access_schedule s(A);
  s.hint(1);
  s.hint(5);
  s.start_download();
  s.finish_download();
  if (pgas::mythread() == 0) {
    misuse_announce(__LINE__ + 1);
    (void)s.get(3);
  }
  pgas::barrier();
}

void get_before_download() {
  pgas::shared_array<int> A({8});
  pgas::access_schedule s(A);
  s.hint(1);
  if (pgas::mythread() == 0) {
    misuse_announce(__LINE__ + 1);
    (void)s.get(1);
  }
  pgas::barrier();
}

void get_during_download() {
  pgas::shared_array<int> A({8});
  pgas::access_schedule s(A);
  s.hint(1);
  s.start_download();
  if (pgas::mythread() == 0) {
    misuse_announce(__LINE__ + 1);
    (void)s.get(1);
  }
  pgas::barrier();
}

void put_not_hinted() {
  pgas::shared_array<int, 2> A({4, 4});
  pgas::access_schedule s(A);
  s.hint(1, 2);
  if (pgas::mythread() == 1) {
    misuse_announce(__LINE__ + 1);
    s.put(1, 2, 7);
  }
  pgas::barrier();
}

void put_during_upload() {
  pgas::shared_array<int> A({8});
  pgas::access_schedule s(A);
  s.hint_write(1);
  s.start_upload();
  if (pgas::mythread() == 0) {
    misuse_announce(__LINE__ + 1);
    s.put(1, 7);
  }
  pgas::barrier();
}

void finish_without_start() {
  pgas::shared_array<int> A({8});
  pgas::access_schedule s(A);
  s.hint(1);
  misuse_announce(__LINE__ + 1);
  s.finish_download();
}

void start_twice() {
  pgas::shared_array<int> A({8});
  pgas::access_schedule s(A);
  s.hint(1);
  s.start_upload();
  misuse_announce(__LINE__ + 1);
  s.start_download();
}

void hint_with_puts() {
  pgas::shared_array<int> A({8});
  pgas::access_schedule s(A);
  s.hint_write(1);
  s.put(1, 4);
  misuse_announce(__LINE__ + 1);
  s.hint(2);
}

void wrong_thread() {
  static std::atomic<pgas::access_schedule<int>*> made{nullptr};
  pgas::shared_array<int> A({8});
  std::optional<pgas::access_schedule<int>> s;
  if (pgas::mythread() == 0) {
    s.emplace(A);
    made.store(&*s);
  }
  pgas::barrier();
  if (pgas::mythread() == 1) {
    misuse_announce(__LINE__ + 1);
    made.load()->hint(0);
  }
  pgas::barrier();
}

void index_out_of_range() {
  const pgas::shared_alloc a = pgas::all_alloc(2, sizeof(int));
  const pgas::sptr<int> p = a;
  pgas::access_schedule s(p, 2);
  misuse_announce(__LINE__ + 1);
  s.hint(2);
}

struct triple {
  int a, b, c;
};

void combine_unsupported() {
  pgas::shared_array<triple> A({8});
  misuse_announce(__LINE__ + 1);
  pgas::access_schedule s(A, {.combine = upload_combine::min});
}

void destroyed_with_puts() {
  pgas::shared_array<int> A({8});
  misuse_announce(__LINE__ + 1);
  pgas::access_schedule s(A);
  s.hint_write(1);
  s.put(1, 3);
}

constexpr misuse_child_case child_cases[] = {
    {"get_not_hinted", 2, get_not_hinted},
    {"get_unhinted_in_span", 2, get_unhinted_in_span},
    {"get_before_download", 2, get_before_download},
    {"get_during_download", 2, get_during_download},
    {"put_not_hinted", 2, put_not_hinted},
    {"put_during_upload", 2, put_during_upload},
    {"finish_without_start", 1, finish_without_start},
    {"start_twice", 1, start_twice},
    {"hint_with_puts", 2, hint_with_puts},
    {"wrong_thread", 2, wrong_thread},
    {"index_out_of_range", 2, index_out_of_range},
    {"combine_unsupported", 1, combine_unsupported},
    {"destroyed_with_puts", 2, destroyed_with_puts},
};

void check_misuse(const std::string& name, const std::string& thread, const std::string& what) {
  misuse_child_check("coalesce_test", "coalesce misuse child", "COALESCE_TEST_CASE", name, thread,
                     what, "coalesce_test.cpp");
}

}  // namespace

// Run only as a child of check_misuse() (hidden: the tag starts with a dot).
TEST_CASE("coalesce misuse child", "[.coalesce_child]") {
  misuse_child_main(child_cases, "COALESCE_TEST_CASE");
}

TEST_CASE("misuse: get of an element not hinted, before or during the download",
          "[coalesce][misuse]") {
  check_misuse("get_not_hinted", "thread 1 of 2", "get(3) of an element that was not hinted");
  // Inside the hinted span, only the checked build tests the element (a byte per get).
  if constexpr (pgas::config::bounds_check)
    check_misuse("get_unhinted_in_span", "thread 0 of 2",
                 "get(3) of an element that was not hinted");
  check_misuse("get_before_download", "thread 0 of 2",
               "get(1) of another thread's element before finish_download()");
  check_misuse("get_during_download", "thread 0 of 2",
               "get(1) between start_download() and finish_download()");
}

TEST_CASE("misuse: put of an element not hinted for writing, or during an upload",
          "[coalesce][misuse]") {
  check_misuse("put_not_hinted", "thread 1 of 2",
               "put(1, 2) of an element that was not hinted for writing");
  check_misuse("put_during_upload", "thread 0 of 2",
               "put(1) while start_upload() has not been finished by finish_upload()");
}

TEST_CASE("misuse: steps out of order, a hint with puts pending, a destroyed schedule's puts",
          "[coalesce][misuse]") {
  check_misuse("finish_without_start", "thread 0 of 1",
               "finish_download() while no start_download() is open");
  check_misuse("start_twice", "thread 0 of 1",
               "start_download() while start_upload() has not been finished");
  check_misuse("hint_with_puts", "thread 0 of 2", "hint() while 1 put element(s) wait");
  check_misuse("destroyed_with_puts", "of 2", "destroyed with 1 put element(s) not uploaded");
}

TEST_CASE("misuse: another thread, an index out of range, a combine rule without one",
          "[coalesce][misuse]") {
  check_misuse("wrong_thread", "thread 1 of 2", "made on thread 0 at");
  check_misuse("index_out_of_range", "of 2", "index 2 outside the range [0, 2)");
  check_misuse("combine_unsupported", "thread 0 of 1",
               "upload_combine::min needs an element type of 1, 2, 4 or 8 bytes");
}
