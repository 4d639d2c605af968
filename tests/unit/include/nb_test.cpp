// Tests pgas/nb.hpp — the non-blocking transfers of UPC <upc_nb.h> — in jobs of 1 to 4 threads:
// every form moves exactly the bytes of its blocking twin (checked byte for byte against a
// model, with the bytes around the range untouched), below the threshold in the call (complete
// handle) and above it through a copy engine; many handles outstanding at once; the rules of
// sync and test (a handle is spent once completed); implicit transfers with synci and testi;
// a handle left at the end of a job; the threshold setting; and calls outside a job.

#include <pgas/pgas.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

using pgas::nb_handle;
using pgas::sptr;

// A byte that depends on the thread, the position and a salt, with no short period (an
// off-by-a-piece copy shows up).
unsigned char pattern(int thread, std::size_t k, unsigned salt) {
  std::uint64_t x = (static_cast<std::uint64_t>(k) + 1) * 0x9E3779B97F4A7C15ull;
  x ^= (static_cast<std::uint64_t>(thread) << 40) ^ (static_cast<std::uint64_t>(salt) << 52);
  x ^= x >> 29;
  return static_cast<unsigned char>(x * 0xBF58476D1CE4E5B9ull >> 56);
}

void fill(unsigned char* p, std::size_t n, int thread, unsigned salt) {
  for (std::size_t k = 0; k < n; ++k)
    p[k] = pattern(thread, k, salt);
}

// Large: past the 1 MiB default threshold and not a whole number of 1 MiB pieces.
constexpr std::size_t part_bytes = (3u << 20) + 4096;
constexpr std::size_t large = part_bytes - 40;
constexpr std::size_t small = 1000;
constexpr std::size_t off = 17;  // where transfers start in a part
constexpr std::size_t dst_off = 23;

sptr<char, pgas::indefinite> at(const pgas::shared_alloc& s, int thread, std::size_t k) {
  return sptr<char, pgas::indefinite>::from_parts(thread, s.offset() + k);
}

unsigned char* part(const pgas::shared_alloc& s, int thread) {
  return static_cast<unsigned char*>(s.part(thread));
}

// `got` equals the model: `before` everywhere except [from, from + n), which holds `inside`.
bool matches(const unsigned char* got, const std::vector<unsigned char>& before, std::size_t from,
             const unsigned char* inside, std::size_t n) {
  if (std::memcmp(got, before.data(), from) != 0) return false;
  if (std::memcmp(got + from, inside, n) != 0) return false;
  return std::memcmp(got + from + n, before.data() + from + n, before.size() - from - n) == 0;
}

}  // namespace

TEST_CASE("explicit transfers move exactly the bytes of their blocking twins", "[nb]") {
  for (int n : {1, 2, 3, 4}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const int next = (me + 1) % n;
      const pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(n), part_bytes);
      const pgas::shared_alloc b = pgas::all_alloc(static_cast<std::size_t>(n), part_bytes);
      std::vector<unsigned char> before(part_bytes), mine(part_bytes), got(part_bytes);
      for (std::size_t bytes : {small, large}) {
        const bool engine = bytes >= pgas::nb_threshold();
        // Every part of a and b holds its thread's pattern; mine is a private pattern.
        fill(part(a, me), part_bytes, me, 1);
        fill(part(b, me), part_bytes, me, 2);
        fill(mine.data(), part_bytes, me, 3);
        pgas::barrier();

        // memput_nb: my private bytes into the next thread's part of a.
        nb_handle h = pgas::memput_nb(at(a, next, dst_off), mine.data() + off, bytes);
        EXPECT(f, (h == pgas::complete_handle) == !engine, "memput_nb handle, " << bytes);
        pgas::sync(h);
        EXPECT(f, h.spent() || !engine, "");
        pgas::barrier();
        {
          const int prev = (me + n - 1) % n;
          fill(before.data(), part_bytes, me, 1);
          std::vector<unsigned char> sent(part_bytes);
          fill(sent.data(), part_bytes, prev, 3);
          EXPECT(f, matches(part(a, me), before, dst_off, sent.data() + off, bytes),
                 "memput_nb into thread " << me << ", " << bytes << " bytes");
        }
        pgas::barrier();

        // memget_nb: the next thread's part of b into private memory.
        std::memset(got.data(), 0xEE, part_bytes);
        h = pgas::memget_nb(got.data() + dst_off, at(b, next, off), bytes);
        EXPECT(f, (h == pgas::complete_handle) == !engine, "memget_nb handle");
        while (!pgas::test(h)) {
        }
        EXPECT(f, h.spent() || !engine, "");
        {
          std::vector<unsigned char> expect(part_bytes), blank(part_bytes, 0xEE);
          fill(expect.data(), part_bytes, next, 2);
          EXPECT(f, matches(got.data(), blank, dst_off, expect.data() + off, bytes),
                 "memget_nb, " << bytes << " bytes");
        }
        pgas::barrier();

        // memcpy_nb: from the next thread's part of b to my part of a (a third party's data
        // between two segments).
        fill(part(a, me), part_bytes, me, 1);
        pgas::barrier();
        h = pgas::memcpy_nb(at(a, me, dst_off), at(b, next, off), bytes);
        pgas::sync(std::move(h));
        {
          std::vector<unsigned char> expect(part_bytes);
          fill(before.data(), part_bytes, me, 1);
          fill(expect.data(), part_bytes, next, 2);
          EXPECT(f, matches(part(a, me), before, dst_off, expect.data() + off, bytes),
                 "memcpy_nb, " << bytes << " bytes");
        }
        pgas::barrier();

        // memset_nb: (unsigned char) c into the next thread's part of b.
        h = pgas::memset_nb(at(b, next, off), 0x1A5, bytes);
        pgas::sync(h);
        pgas::barrier();
        {
          fill(before.data(), part_bytes, me, 2);
          const std::vector<unsigned char> value(bytes, 0xA5);
          EXPECT(f, matches(part(b, me), before, off, value.data(), bytes),
                 "memset_nb, " << bytes << " bytes");
        }
        pgas::barrier();
      }
      pgas::all_free(a);
      pgas::all_free(b);
    });
    check_no_failures(f);
  }
}

TEST_CASE("implicit transfers complete together at synci or a successful testi", "[nb]") {
  for (int n : {1, 2, 4}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const int next = (me + 1) % n;
      EXPECT(f, pgas::testi(), "nothing outstanding");
      pgas::synci();
      const pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(n), part_bytes);
      const pgas::shared_alloc b = pgas::all_alloc(static_cast<std::size_t>(n), part_bytes);
      fill(part(a, me), part_bytes, me, 5);
      std::memset(part(b, me), 0, part_bytes);
      std::vector<unsigned char> got(part_bytes, 0), mine(part_bytes);
      fill(mine.data(), part_bytes, me, 6);
      pgas::barrier();
      // Four transfers at once, large and small, to disjoint places; an explicit one beside them.
      const std::size_t half = part_bytes / 2;
      pgas::memget_nbi(got.data(), at(a, next, 0), half);
      pgas::memget_nbi(got.data() + half, at(a, next, half), small);
      pgas::memput_nbi(at(b, next, 0), mine.data(), half);
      pgas::memset_nbi(at(b, next, half), 7, small);
      nb_handle h = pgas::memcpy_nb(at(b, next, half + small), at(a, me, 0), half - small);
      if (me % 2 == 0) {
        pgas::synci();
      } else {
        while (!pgas::testi()) {
        }
      }
      EXPECT(f, pgas::testi(), "all completed");
      // synci() did not complete the explicit transfer: its handle still needs (and takes) sync.
      EXPECT(f, !h.spent(), "");
      pgas::sync(h);
      std::vector<unsigned char> expect(part_bytes);
      fill(expect.data(), part_bytes, next, 5);
      EXPECT(f, std::memcmp(got.data(), expect.data(), half + small) == 0, "memget_nbi");
      pgas::barrier();
      const int prev = (me + n - 1) % n;
      fill(expect.data(), part_bytes, prev, 6);
      EXPECT(f, std::memcmp(part(b, me), expect.data(), half) == 0, "memput_nbi");
      EXPECT(f, part(b, me)[half] == 7 && part(b, me)[half + small - 1] == 7, "memset_nbi");
      fill(expect.data(), part_bytes, prev, 5);
      EXPECT(f, std::memcmp(part(b, me) + half + small, expect.data(), half - small) == 0,
             "memcpy_nb");
      pgas::barrier();
      pgas::all_free(a);
      pgas::all_free(b);
    });
    check_no_failures(f);
  }
}

TEST_CASE("many handles outstanding at once complete in any order", "[nb]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const int other = 1 - me;
    constexpr std::size_t count = 24;
    constexpr std::size_t each = (1u << 20) + 333;  // every one through the engine
    const pgas::shared_alloc a = pgas::all_alloc(2, count * each);
    fill(part(a, me), count * each, me, 9);
    pgas::barrier();
    std::vector<unsigned char> got(count * each, 0);
    std::vector<nb_handle> handles;
    std::vector<unsigned char> firsts(count);
    for (std::size_t i = 0; i < count; ++i) {
      handles.push_back(pgas::memget_nb(got.data() + i * each, at(a, other, i * each), each));
      // Small ones between them complete at once.
      nb_handle s = pgas::memget_nb(&firsts[i], at(a, other, i * each), 1);
      EXPECT(f, s == pgas::complete_handle, "");
      EXPECT(f, firsts[i] == pattern(other, i * each, 9), "");
    }
    // Odd ones by test, even ones by sync, from the last to the first.
    for (std::size_t i = count; i-- > 0;) {
      if (i % 2 == 1) {
        while (!pgas::test(handles[i])) {
        }
      } else {
        pgas::sync(handles[i]);
      }
      EXPECT(f, handles[i].spent(), "handle " << i);
    }
    std::vector<unsigned char> expect(count * each);
    fill(expect.data(), count * each, other, 9);
    EXPECT(f, got == expect, "");
    pgas::barrier();
    pgas::all_free(a);
  });
  check_no_failures(f);
}

TEST_CASE("the complete handle may be synced and tested any number of times", "[nb]") {
  nb_handle h;
  REQUIRE(h == pgas::complete_handle);
  pgas::sync(h);
  pgas::sync(h);
  REQUIRE(pgas::test(h));
  REQUIRE(pgas::test(h));
  REQUIRE(h == pgas::complete_handle);
  REQUIRE_FALSE(h.spent());
  nb_handle g = pgas::complete_handle;
  nb_handle moved = std::move(g);
  REQUIRE(moved == pgas::complete_handle);
  REQUIRE(g.spent());  // NOLINT(bugprone-use-after-move): moved-from handles are spent
}

TEST_CASE("outside a job, n == 0 is complete and anything else is a usage error", "[nb]") {
  char buf[8] = {};
  REQUIRE(pgas::memget_nb(buf, sptr<const char>(), 0) == pgas::complete_handle);
  REQUIRE(pgas::memset_nb(sptr<char>(), 1, 0) == pgas::complete_handle);
  pgas::memcpy_nbi(sptr<void>(), sptr<const void>(), 0);
  REQUIRE(pgas::testi());
  pgas::synci();
  REQUIRE_THROWS_AS(pgas::memget_nbi(buf, sptr<const char>(), 8), pgas::usage_error);
  REQUIRE_THROWS_AS((void)pgas::memput_nb(sptr<char>(), buf, 8), pgas::usage_error);
  nb_handle h;
  nb_handle g = std::move(h);
  REQUIRE_THROWS_WITH(pgas::sync(h),
                      Catch::Contains("already completed") && Catch::Contains("moved from"));
  REQUIRE(pgas::nb_threshold() == (1u << 20));
}

TEST_CASE("a handle destroyed while an exception unwinds waits for its transfer", "[nb]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const pgas::shared_alloc a = pgas::all_alloc(2, part_bytes);
    fill(part(a, me), part_bytes, me, 4);
    pgas::barrier();
    std::vector<unsigned char> got(part_bytes, 0);
    try {
      nb_handle h = pgas::memget_nb(got.data(), at(a, 1 - me, 0), part_bytes);
      throw std::runtime_error("leaving the handle's scope");
    } catch (const std::runtime_error&) {
    }
    std::vector<unsigned char> expect(part_bytes);
    fill(expect.data(), part_bytes, 1 - me, 4);
    EXPECT(f, got == expect, "");
    pgas::barrier();
    pgas::all_free(a);
  });
  check_no_failures(f);
}

TEST_CASE("transfers left at the end of a job are completed; their handles may go later", "[nb]") {
  std::vector<unsigned char> got(part_bytes, 0);
  std::optional<nb_handle> kept;  // outlives the job: reported, never synced
  pgas::run(test_job(2), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const pgas::shared_alloc a = pgas::all_alloc(2, part_bytes);
    fill(part(a, me), part_bytes, me, 8);
    pgas::barrier();
    if (me == 0) {
      kept = pgas::memget_nb(got.data(), at(a, 1, 0), part_bytes);
      static std::vector<unsigned char> sink(part_bytes);
      pgas::memget_nbi(sink.data(), at(a, 1, 0), part_bytes);  // never synci'd
    }
    pgas::barrier();
  });
  std::vector<unsigned char> expect(part_bytes);
  fill(expect.data(), part_bytes, 1, 8);
  REQUIRE(got == expect);
  REQUIRE(kept.has_value());
  REQUIRE_FALSE(*kept == pgas::complete_handle);
  kept.reset();  // releases the transfer quietly
}

TEST_CASE("PGAS_NB_THRESHOLD decides which transfers go to an engine", "[nb]") {
  struct restore {
    ~restore() { ::unsetenv("PGAS_NB_THRESHOLD"); }
  } restore_env;
  for (const char* value : {"4k", "off"}) {
    INFO("PGAS_NB_THRESHOLD=" << value);
    ::setenv("PGAS_NB_THRESHOLD", value, 1);
    const bool off = std::strcmp(value, "off") == 0;
    failures f;
    pgas::run(test_job(2), 0, nullptr, [&] {
      const int me = pgas::mythread();
      EXPECT(f, pgas::nb_threshold() == (off ? SIZE_MAX : 4096u), pgas::nb_threshold());
      const pgas::shared_alloc a = pgas::all_alloc(2, 1u << 16);
      fill(part(a, me), 1u << 16, me, 3);
      pgas::barrier();
      std::vector<unsigned char> got(1u << 16);
      nb_handle below = pgas::memget_nb(got.data(), at(a, 1 - me, 0), 4095);
      nb_handle above = pgas::memget_nb(got.data() + 4095, at(a, 1 - me, 4095), (1u << 16) - 4095);
      EXPECT(f, below == pgas::complete_handle, "");
      EXPECT(f, (above == pgas::complete_handle) == off, "");
      pgas::sync(below);
      pgas::sync(above);
      std::vector<unsigned char> expect(1u << 16);
      fill(expect.data(), 1u << 16, 1 - me, 3);
      EXPECT(f, got == expect, "");
      pgas::barrier();
      pgas::all_free(a);
    });
    check_no_failures(f);
  }
}
