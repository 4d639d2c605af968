// Tests pgas/sptr.hpp and src/objects/sptr.cpp, pointers-to-shared: a reference model of a UPC
// pointer (its position in the block-cyclic order, from which thread, phase, course and address
// follow) is compared with sptr after random walks of ++, --, += and -= for compile-time,
// indefinite and run-time blocks and several element sizes, in jobs of 1 to 8 threads; plus
// difference and ordering, == ignoring the phase, casts, resetphase, the null pointer, word sizes,
// is_local, sptr_from, and thread_distance on synthetic machines.

#include <pgas/pgas.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

// Steps of random walks checked against the model (so a walk that silently did nothing fails).
std::atomic<long> steps_checked{0};

using pgas::dynamic_block;
using pgas::indefinite;
using pgas::sptr;

struct s24 {
  double a, b, c;
};
static_assert(sizeof(s24) == 24);

// Word sizes (one 64-bit word; a run-time block adds a pointer to its divider).
static_assert(sizeof(sptr<int>) == 8);
static_assert(sizeof(sptr<char, 3>) == 8);
static_assert(sizeof(sptr<s24, 1000>) == 8);
static_assert(sizeof(sptr<double, indefinite>) == 8);
static_assert(sizeof(sptr<void>) == 8);
static_assert(sizeof(sptr<const void>) == 8);
static_assert(sizeof(sptr<int, dynamic_block>) == 16);
static_assert(std::is_trivially_copyable_v<sptr<int, 4>>);
static_assert(std::is_trivially_copyable_v<sptr<int, dynamic_block>>);

// Implicit conversions that lose nothing, and only those (the must-not-compile tests in
// tests/neg/ show the diagnostics; these are the same rules seen from the type system).
static_assert(std::is_convertible_v<sptr<int, 4>, sptr<const int, 4>>);
static_assert(std::is_convertible_v<sptr<int, 4>, sptr<int, dynamic_block>>);
static_assert(std::is_convertible_v<sptr<int, 4>, sptr<const int, dynamic_block>>);
static_assert(std::is_convertible_v<sptr<int, 4>, sptr<void>>);
static_assert(std::is_convertible_v<sptr<const int, 4>, sptr<const void>>);
static_assert(std::is_convertible_v<sptr<void>, sptr<const void>>);
static_assert(!std::is_convertible_v<sptr<const int, 4>, sptr<int, 4>>);
static_assert(!std::is_convertible_v<sptr<const int, 4>, sptr<void>>);
static_assert(!std::is_convertible_v<sptr<const void>, sptr<void>>);
static_assert(!std::is_convertible_v<sptr<int, 4>, sptr<int, 1>>);
// A run-time block converts to a compile-time one, checked at run time (UPC: shared int *p =
// &A[i] for a `shared int A[N]` declared without a block).
static_assert(std::is_convertible_v<sptr<int, dynamic_block>, sptr<int, 4>>);
static_assert(std::is_convertible_v<sptr<int, dynamic_block>, sptr<const int>>);
static_assert(!std::is_convertible_v<sptr<const int, dynamic_block>, sptr<int>>);
static_assert(!std::is_convertible_v<sptr<int, dynamic_block>, sptr<char>>);
static_assert(!std::is_convertible_v<sptr<int, 4>, sptr<char, 4>>);
// The generic pointer converts to a typed one as UPC's shared void * does, unless it drops const.
static_assert(std::is_convertible_v<sptr<void>, sptr<int>>);
static_assert(std::is_convertible_v<sptr<void>, sptr<const double, 8>>);
static_assert(std::is_convertible_v<sptr<const void>, sptr<const int>>);
static_assert(!std::is_convertible_v<sptr<const void>, sptr<int>>);
static_assert(!std::is_convertible_v<sptr<void>, sptr<int, dynamic_block>>);
// An allocation is UPC's shared void *: it converts to compile-time blocks.
static_assert(std::is_convertible_v<pgas::shared_alloc, sptr<int>>);
static_assert(std::is_convertible_v<pgas::shared_alloc, sptr<double, 4>>);
static_assert(std::is_convertible_v<pgas::shared_alloc, sptr<void>>);
static_assert(!std::is_convertible_v<pgas::shared_alloc, sptr<int, dynamic_block>>);
static_assert(!std::is_convertible_v<int*, sptr<int>>);
static_assert(!std::is_convertible_v<sptr<int>, int*>);
static_assert(std::is_constructible_v<sptr<int, 1>, sptr<int, 4>>);
static_assert(std::is_constructible_v<sptr<int, 4>, sptr<int, dynamic_block>>);
static_assert(std::is_constructible_v<sptr<int>, sptr<void>>);
static_assert(std::is_constructible_v<sptr<int, 4>, sptr<const int, 4>>);
static_assert(std::is_constructible_v<int*, sptr<int>>);

// UPC's pointer-to-shared as the specification describes it: the element at position L of the
// block-cyclic order that starts at (thread 0, phase 0, address a0) — or, for an indefinite
// block, the L-th element after a0 on thread t0.
struct model {
  std::int64_t block;    // 0: indefinite
  std::int64_t threads;  // THREADS
  std::int64_t size;     // bytes per element
  std::int64_t a0;       // address in segment of position 0
  int t0 = 0;            // the thread of an indefinite pointer

  int thread(std::int64_t l) const {
    return block == 0 ? t0 : static_cast<int>((l / block) % threads);
  }
  std::size_t phase(std::int64_t l) const {
    return block == 0 ? 0 : static_cast<std::size_t>(l % block);
  }
  std::size_t addr(std::int64_t l) const {
    if (block == 0) return static_cast<std::size_t>(a0 + l * size);
    return static_cast<std::size_t>(a0 + ((l / block) / threads * block + l % block) * size);
  }
};

// The typed operations under test, behind plain function pointers: each (T, B) instantiates
// only these small functions, and the random walks that drive them are ordinary code (one
// copy, instead of one per type — which kept this file's sanitizer build slow).
using divider = pgas::detail::block_divider;

// What the API says about one pointer (every accessor, member and free).
struct seen {
  std::uint64_t word = 0;
  int thread = 0, threadof = 0;
  std::size_t phase = 0, phaseof = 0, addrfield = 0, addrfield_fn = 0, block = 0;
  const void* get = nullptr;
  const void* to_local = nullptr;
  const void* cast = nullptr;
};

// Operations apply() performs: ++p, p++, --p, p--, p += n, p -= n, p + n, n + p, p - n.
enum op_code {
  pre_inc,
  post_inc,
  pre_dec,
  post_dec,
  plus_assign,
  minus_assign,
  plus,
  plus_rev,
  minus
};

struct pointer_ops {
  std::uint64_t (*make)(int thread, std::size_t addr, std::size_t phase, const divider* d);
  seen (*look)(std::uint64_t w, const divider* d);
  // Applies `op` with `n` to the pointer with word `w`; returns its new word and stores the
  // value of the expression (the old pointer for p++ and p--) in *value.
  std::uint64_t (*apply)(op_code op, std::uint64_t w, std::int64_t n, const divider* d,
                         std::uint64_t* value);
  std::int64_t (*diff)(std::uint64_t a, std::uint64_t b, const divider* d);
  // The relations of a to b: bit 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=, 6/7/8 <=> less/equal/greater.
  unsigned (*relations)(std::uint64_t a, std::uint64_t b, const divider* d);
};

template <class T, std::size_t B>
sptr<T, B> at(std::uint64_t w, const divider* d) {
  if constexpr (B == dynamic_block) {
    return sptr<T, B>::from_word(w, *d);
  } else {
    return sptr<T, B>::from_word(w);
  }
}

template <class T, std::size_t B>
pointer_ops ops_for() {
  pointer_ops o;
  o.make = [](int thread, std::size_t addr, std::size_t phase, const divider* d) {
    if constexpr (B == dynamic_block) {
      return sptr<T, B>::from_parts(thread, addr, phase, d->block).word();
    } else {
      return sptr<T, B>::from_parts(thread, addr, phase).word();
    }
  };
  o.look = [](std::uint64_t w, const divider* d) {
    const sptr<T, B> p = at<T, B>(w, d);
    return seen{p.word(),         p.thread(),        pgas::threadof(p),  p.phase(),
                pgas::phaseof(p), p.addrfield(),     pgas::addrfield(p), p.block(),
                p.get(),          pgas::to_local(p), static_cast<T*>(p)};
  };
  o.apply = [](op_code op, std::uint64_t w, std::int64_t n, const divider* d,
               std::uint64_t* value) {
    sptr<T, B> p = at<T, B>(w, d);
    sptr<T, B> v;
    switch (op) {
      case pre_inc:
        v = ++p;
        break;
      case post_inc:
        v = p++;
        break;
      case pre_dec:
        v = --p;
        break;
      case post_dec:
        v = p--;
        break;
      case plus_assign:
        v = (p += n);
        break;
      case minus_assign:
        v = (p -= n);
        break;
      case plus:
        v = p = p + n;
        break;
      case plus_rev:
        v = p = n + p;
        break;
      case minus:
        v = p = p - n;
        break;
    }
    *value = v.word();
    return p.word();
  };
  o.diff = [](std::uint64_t a, std::uint64_t b, const divider* d) -> std::int64_t {
    return at<T, B>(a, d) - at<T, B>(b, d);
  };
  o.relations = [](std::uint64_t a, std::uint64_t b, const divider* d) {
    const sptr<T, B> p = at<T, B>(a, d), q = at<T, B>(b, d);
    const auto c = p <=> q;
    return unsigned{p == q} | unsigned{p != q} << 1 | unsigned{p < q} << 2 | unsigned{p <= q} << 3 |
           unsigned{p > q} << 4 | unsigned{p >= q} << 5 | unsigned{c < 0} << 6 |
           unsigned{c == 0} << 7 | unsigned{c > 0} << 8;
  };
  return o;
}

// The relations two positions must have.
unsigned relations_of(std::int64_t a, std::int64_t b) {
  return unsigned{a == b} | unsigned{a != b} << 1 | unsigned{a < b} << 2 | unsigned{a <= b} << 3 |
         unsigned{a > b} << 4 | unsigned{a >= b} << 5 | unsigned{a < b} << 6 |
         unsigned{a == b} << 7 | unsigned{a > b} << 8;
}

// Everything observable about the pointer with word w agrees with position l of the model.
bool agrees(const pointer_ops& o, std::uint64_t w, const divider* d, const model& m, std::int64_t l,
            std::string& why) {
  const seen p = o.look(w, d);
  const int t = m.thread(l);
  const std::size_t ph = m.phase(l);
  const std::size_t a = m.addr(l);
  const void* expected = static_cast<char*>(pgas::segment_base(t)) + a;
  const bool phaseless = m.block <= 1;
  const auto block = static_cast<std::size_t>(m.block);
  const bool ok = p.word == w && p.thread == t && p.threadof == t && p.phase == ph &&
                  p.phaseof == ph && p.addrfield == a && p.addrfield_fn == a && p.block == block &&
                  p.get == expected && p.to_local == expected && p.cast == expected &&
                  (w >> pgas::detail::phase_shift) == (phaseless ? 0 : ph);
  if (!ok) {
    std::ostringstream s;
    s << "position " << l << ": expected thread " << t << " phase " << ph << " addr " << a
      << ", got thread " << p.thread << " phase " << p.phase << " addr " << p.addrfield << " block "
      << p.block << " word " << std::hex << w;
    why = s.str();
  }
  return ok;
}

const char* op_name(op_code op) {
  static const char* const names[] = {"++p",    "p++",   "--p",   "p--",  "p += n",
                                      "p -= n", "p + n", "n + p", "p - n"};
  return names[op];
}

// Random walks: from random starting positions, random ++, --, +=, -=, +, - (small, within a
// few blocks, and anywhere in the range), each result checked against the model, and the
// difference and order of pairs of visited pointers against their positions.
void random_walks(const pointer_ops& o, std::size_t element_size, std::size_t block,
                  bool runtime_block, failures& f, std::uint64_t seed, int walks = 12,
                  int steps = 40) {
  std::mt19937_64 rng(seed);
  const divider* d = runtime_block ? &pgas::detail::block_divider_for(block) : nullptr;
  const std::int64_t nthreads = pgas::threads();
  const auto s = static_cast<std::int64_t>(element_size);
  const auto half = static_cast<std::int64_t>(pgas::segment_size() / 2);
  const std::int64_t b = block == 0 ? 1 : static_cast<std::int64_t>(block);
  for (int w = 0; w < walks; ++w) {
    model m{static_cast<std::int64_t>(block), nthreads, s,
            64 * std::uniform_int_distribution<std::int64_t>(1, 1000)(rng),
            static_cast<int>(rng() % static_cast<std::uint64_t>(nthreads))};
    // Positions whose address stays below half a segment.
    const std::int64_t courses = (half - m.a0) / (b * s);
    const std::int64_t lmax = block == 0 ? (half - m.a0) / s : courses * b * nthreads;
    if (lmax < 2) continue;
    auto any = [&] { return std::uniform_int_distribution<std::int64_t>(0, lmax - 1)(rng); };
    auto near = [&](std::int64_t l, std::int64_t reach) {
      return std::clamp(l + std::uniform_int_distribution<std::int64_t>(-reach, reach)(rng),
                        std::int64_t{0}, lmax - 1);
    };
    auto make = [&](std::int64_t l) { return o.make(m.thread(l), m.addr(l), m.phase(l), d); };
    std::int64_t l = w % 3 == 0 ? std::min<std::int64_t>(w, lmax - 1) : any();
    std::uint64_t p = make(l);
    std::string why;
    if (!agrees(o, p, d, m, l, why)) {
      EXPECT(f, false, "from_parts, block " << block << ": " << why);
      return;
    }
    // A jump from position 0 lands on the same pointer.
    std::uint64_t value = 0;
    EXPECT(f, o.apply(plus, make(0), l, d, &value) == p, "origin + " << l << ", block " << block);
    std::vector<std::pair<std::int64_t, std::uint64_t>> visited{{l, p}};
    for (int step = 0; step < steps; ++step) {
      const auto op = static_cast<op_code>(rng() % 9);
      std::int64_t target = l;
      std::int64_t n = 0;
      switch (op) {
        case pre_inc:
        case post_inc:
          if (l + 1 >= lmax) continue;
          target = l + 1;
          break;
        case pre_dec:
        case post_dec:
          if (l == 0) continue;
          target = l - 1;
          break;
        case plus_assign:  // small, or within a few blocks
          target = near(l, step % 2 == 0 ? 3 : 3 * b * nthreads);
          n = target - l;
          break;
        case minus_assign:  // n of either sign
          target = near(l, 2 * b * nthreads + 1);
          n = l - target;
          break;
        case plus:  // anywhere
          target = any();
          n = target - l;
          break;
        case plus_rev:
          target = near(l, 5 * b);
          n = target - l;
          break;
        case minus:  // anywhere
          target = any();
          n = l - target;
          break;
      }
      const std::uint64_t next = o.apply(op, p, n, d, &value);
      const bool post = op == post_inc || op == post_dec;
      if (!agrees(o, next, d, m, target, why) || value != (post ? p : next)) {
        EXPECT(f, false,
               "block " << block << " size " << s << ": " << op_name(op) << " with n = " << n
                        << " from position " << l << ": " << why
                        << (value != (post ? p : next) ? " (wrong expression value)" : ""));
        return;
      }
      l = target;
      p = next;
      visited.emplace_back(l, p);
      steps_checked.fetch_add(1, std::memory_order_relaxed);
    }
    // Difference and order of pairs of visited pointers (UPC §6.4.2p5: the difference of
    // positions): each with itself and with a few others.
    for (const auto& [lp, pp] : visited) {
      for (int k = 0; k < 6; ++k) {
        const auto& [lq, pq] = k == 0 ? std::pair{lp, pp} : visited[rng() % visited.size()];
        if (o.diff(pp, pq, d) != lp - lq || o.relations(pp, pq, d) != relations_of(lp, lq)) {
          EXPECT(f, false,
                 "block " << block << " size " << s << ": positions " << lp << " - " << lq
                          << " gave " << o.diff(pp, pq, d) << ", relations " << std::hex
                          << o.relations(pp, pq, d) << " for " << relations_of(lp, lq));
          return;
        }
      }
    }
  }
}

template <class T, std::size_t B>
void walks(failures& f, std::uint64_t seed) {
  random_walks(ops_for<T, B>(), sizeof(T), B, false, f, seed);
}

template <class T>
void walks_for_type(failures& f, std::uint64_t seed) {
  walks<T, 1>(f, seed + 1);
  walks<T, 2>(f, seed + 2);
  walks<T, 3>(f, seed + 3);
  walks<T, 4>(f, seed + 4);
  walks<T, 7>(f, seed + 5);
  walks<T, 8>(f, seed + 6);
  walks<T, 64>(f, seed + 7);
  walks<T, 1000>(f, seed + 8);
  walks<T, indefinite>(f, seed + 9);
  // Run-time blocks: 1, indefinite, powers of two and not, the largest allowed.
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> blocks = {1,  0,   2,    3,    5,     6,
                                     12, 100, 1000, 4096, 65535, pgas::config::max_block};
  for (int i = 0; i < 4; ++i)
    blocks.push_back(1 + rng() % 5000);
  const pointer_ops o = ops_for<T, dynamic_block>();
  for (std::size_t b : blocks)
    random_walks(o, sizeof(T), b, true, f, seed + 100 + b, 4);
}

}  // namespace

TEST_CASE("sptr arithmetic follows the UPC model for every block and element size", "[sptr]") {
  for (int n : {1, 2, 3, 4, 5, 8}) {
    INFO(n << " threads");
    failures f;
    steps_checked = 0;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const auto seed = 1000 * static_cast<std::uint64_t>(n) + 17 * pgas::mythread();
      walks_for_type<char>(f, seed);
      walks_for_type<int>(f, seed + 10000);
      walks_for_type<double>(f, seed + 20000);
      walks_for_type<s24>(f, seed + 30000);
    });
    check_no_failures(f);
    CHECK(steps_checked > 20000 * n);
  }
}

TEST_CASE("sptr: hand-worked positions on 3 threads, shared [4] int", "[sptr]") {
  failures f;
  pgas::run(test_job(3), 0, nullptr, [&] {
    if (pgas::mythread() != 0) return;
    const std::size_t a0 = 4096;
    auto p = sptr<int, 4>::from_parts(0, a0);
    // Position 13 = block 3 (thread 0, course 1), phase 1.
    sptr<int, 4> q = p + 13;
    EXPECT(f, q.thread() == 0 && q.phase() == 1 && q.addrfield() == a0 + 5 * 4, "p + 13");
    // Position 11: block 2 (thread 2, course 0), phase 3; ++ goes to thread 0, course 1.
    sptr<int, 4> r = p + 11;
    EXPECT(f, r.thread() == 2 && r.phase() == 3 && r.addrfield() == a0 + 3 * 4, "p + 11");
    ++r;
    EXPECT(f, r.thread() == 0 && r.phase() == 0 && r.addrfield() == a0 + 4 * 4, "++(p + 11)");
    --r;
    EXPECT(f, r.thread() == 2 && r.phase() == 3 && r.addrfield() == a0 + 3 * 4, "--");
    EXPECT(f, q - p == 13 && p - q == -13 && q - r == 2, "differences");
    // shared int (B = 1): position 7 on 3 threads is thread 1, course 2.
    auto c = sptr<int>::from_parts(0, a0) + 7;
    EXPECT(f, c.thread() == 1 && c.phase() == 0 && c.addrfield() == a0 + 2 * 4, "B=1 + 7");
    // shared [] int: stays on its thread.
    auto i = sptr<int, indefinite>::from_parts(2, a0) + 7;
    EXPECT(f, i.thread() == 2 && i.addrfield() == a0 + 7 * 4, "B=0 + 7");
  });
  check_no_failures(f);
}

TEST_CASE("sptr: the null pointer-to-shared", "[sptr]") {
  const sptr<int, 4> p;
  CHECK(p.word() == 0);
  CHECK_FALSE(p);
  CHECK(p == nullptr);
  CHECK(static_cast<int*>(p) == nullptr);
  CHECK(pgas::to_local(p) == nullptr);
  CHECK(p.phase() == 0);
  const sptr<void> g = p;
  CHECK_FALSE(g);
  CHECK(g.get() == nullptr);
  CHECK(g == nullptr);
  const sptr<int, dynamic_block> d;
  CHECK_FALSE(d);
  CHECK(d.block() == 1);
  CHECK(d.word() == 0);
  const sptr<double> one = nullptr;
  CHECK(one.word() == 0);
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    auto q = sptr<int, 4>::from_parts(pgas::mythread(), 64, 1);
    EXPECT(f, static_cast<bool>(q) && q != nullptr, "a real pointer is not null");
    EXPECT(f, static_cast<int*>(q) != nullptr, "");
    EXPECT(f, !sptr<int>() && sptr<int>() == sptr<int>(nullptr), "");
  });
  check_no_failures(f);
}

TEST_CASE("sptr: == compares thread and address and ignores the phase", "[sptr]") {
  failures f;
  pgas::run(test_job(4), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const auto p = sptr<int, 4>::from_parts(me, 256, 2);
    const auto reset = pgas::resetphase(p);
    EXPECT(f, reset.phase() == 0 && reset.thread() == me && reset.addrfield() == 256, "");
    EXPECT(f, p == reset && !(p != reset), "phase ignored");
    const sptr<void> gp = p, gr = reset;
    EXPECT(f, gp == gr, "generic == ignores the phase");
    EXPECT(f, gp.phase() == 2 && gr.phase() == 0, "generic keeps the phase");
    const auto other = sptr<int, 4>::from_parts((me + 1) % pgas::threads(), 256, 2);
    EXPECT(f, (other == p) == (pgas::threads() == 1), "another thread's element differs");
    EXPECT(f, (p != sptr<int, 4>::from_parts(me, 260, 2)), "another address differs");
    // resetphase for every kind of block keeps thread and address.
    const auto d = sptr<int, dynamic_block>::from_parts(me, 512, 5, 7);
    const auto dr = pgas::resetphase(d);
    EXPECT(f, dr.phase() == 0 && dr.block() == 7 && dr.addrfield() == 512 && dr == d, "");
    const auto one = sptr<int>::from_parts(me, 128);
    EXPECT(f, pgas::resetphase(one).word() == one.word(), "");
    const auto none = sptr<int, indefinite>::from_parts(me, 128);
    EXPECT(f, pgas::resetphase(none).word() == none.word(), "");
  });
  check_no_failures(f);
}

TEST_CASE("sptr casts: block or element size changes reset the phase; generic keeps it", "[sptr]") {
  failures f;
  pgas::run(test_job(3), 0, nullptr, [&] {
    const int t = (pgas::mythread() + 1) % pgas::threads();
    const auto p = sptr<int, 4>::from_parts(t, 1024, 2);
    auto same_place = [&](const auto& q) { return q.thread() == t && q.addrfield() == 1024; };

    // Another block size: phase 0 (and a phaseless pointer's word holds no phase).
    const auto b8 = sptr<int, 8>(p);
    EXPECT(f, same_place(b8) && b8.phase() == 0, "to B=8");
    const auto b1 = sptr<int, 1>(p);
    EXPECT(f, same_place(b1) && b1.phase() == 0 && b1.word() >> pgas::detail::phase_shift == 0,
           "to B=1");
    const auto b0 = sptr<int, indefinite>(p);
    EXPECT(f, same_place(b0) && b0.word() >> pgas::detail::phase_shift == 0, "to B=0");
    EXPECT(f, (b1 + 1).addrfield() == (t + 1 == pgas::threads() ? 1028u : 1024u),
           "B=1 arithmetic after the cast");
    EXPECT(f, (b0 + 1).addrfield() == 1028 && (b0 + 1).thread() == t, "B=0 arithmetic");
    // Another element size: phase 0; the same element size and block: phase kept.
    const auto c4 = pgas::sptr_cast<char, 4>(p);
    EXPECT(f, same_place(c4) && c4.phase() == 0, "to char, B=4");
    const auto f4 = sptr<float, 4>(p);
    EXPECT(f, same_place(f4) && f4.phase() == 2, "to float, B=4 (same size)");
    // Const: implicit one way, explicit the other, phase kept.
    const sptr<const int, 4> k = p;
    EXPECT(f, k.word() == p.word() && k == p, "add const");
    const auto back = sptr<int, 4>(k);
    EXPECT(f, back.word() == p.word(), "remove const explicitly");
    // Run-time block: implicit from compile-time, keeps phase and block.
    const sptr<int, dynamic_block> d = p;
    EXPECT(f, d.word() == p.word() && d.block() == 4, "to run-time B");
    EXPECT(f, (d + 7).word() == (p + 7).word() && (d - 9).word() == (p - 9).word(),
           "run-time B walks like B=4");
    const sptr<const int, dynamic_block> dk = p;
    EXPECT(f, dk.word() == p.word() && dk.block() == 4, "to const run-time B");
    EXPECT(f, (sptr<int, 4>(d).word() == p.word()), "run-time B 4 back to B=4 keeps the phase");
    const auto d3 = sptr<int, 3>(d);
    EXPECT(f, same_place(d3) && d3.phase() == 0, "run-time B 4 to B=3");
    const auto dd = sptr<char, dynamic_block>(d);
    EXPECT(f, same_place(dd) && dd.phase() == 0 && dd.block() == 4, "run-time B, new type");

    // Generic: keeps the phase both ways, except into B = 1 or indefinite.
    const sptr<void> g = p;
    EXPECT(f,
           g.word() == p.word() && g.phase() == 2 && g.thread() == t && g.addrfield() == 1024 &&
               g.get() == static_cast<void*>(p.get()),
           "to generic");
    const sptr<const void> cg = g;
    const sptr<const void> ck = k;
    EXPECT(f, cg.word() == g.word() && ck.word() == g.word(), "to const generic");
    EXPECT(f, (sptr<int, 4>(g).word() == p.word()), "generic back to B=4");
    EXPECT(f, (pgas::sptr_cast<int, 4>(g) == p && pgas::sptr_cast<int, 4>(g).phase() == 2), "");
    const auto g8 = sptr<int, 8>(g);
    EXPECT(f, same_place(g8) && g8.phase() == 2, "generic to B=8 keeps the phase");
    const auto g1 = sptr<int>(g);
    EXPECT(f, same_place(g1) && g1.word() >> pgas::detail::phase_shift == 0, "generic to B=1");
    const auto g0 = sptr<int, indefinite>(g);
    EXPECT(f, same_place(g0) && g0.word() >> pgas::detail::phase_shift == 0, "generic to B=0");
    EXPECT(f, (g1 + 1).word() == (b1 + 1).word(), "generic to B=1 walks");
    const auto gd = sptr<int, dynamic_block>::from_word(g.word(), 4);
    EXPECT(f, gd.word() == p.word() && gd.block() == 4, "generic to run-time B by from_word");
    const auto ck4 = sptr<const int, 4>(cg);
    EXPECT(f, ck4.word() == p.word(), "const generic to const B=4");
  });
  check_no_failures(f);
}

namespace {

// A run-time-block pointer of block B converted implicitly to sptr<int, B>: same word (thread,
// address and phase), and it walks as the run-time one does, for every thread and phase.
template <std::size_t B>
void implicit_from_runtime(failures& f) {
  const int n = pgas::threads();
  for (int t = 0; t < n; ++t) {
    for (std::size_t ph = 0; ph < (B == 0 ? 1 : B); ++ph) {
      const std::size_t addr = 4096 + ph * sizeof(int);
      const auto d = sptr<int, dynamic_block>::from_parts(t, addr, B <= 1 ? 0 : ph, B);
      const sptr<int, B> q = d;  // implicit: the blocks match
      const sptr<const int, B> k = d;
      EXPECT(f,
             q.word() == d.word() && q.thread() == t && q.addrfield() == addr &&
                 q.phase() == (B <= 1 ? 0 : ph) && k.word() == d.word(),
             "B=" << B << " thread " << t << " phase " << ph);
      for (std::ptrdiff_t m = -7; m <= 23; ++m) {
        EXPECT(f, (q + m).word() == (d + m).word(),
               "B=" << B << " thread " << t << " phase " << ph << " + " << m);
      }
    }
  }
}

}  // namespace

TEST_CASE("sptr: a run-time block converts implicitly to the same compile-time block",
          "[sptr][convert]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      implicit_from_runtime<1>(f);
      implicit_from_runtime<2>(f);
      implicit_from_runtime<3>(f);
      implicit_from_runtime<4>(f);
      implicit_from_runtime<7>(f);
      implicit_from_runtime<indefinite>(f);
      // The explicit cast stays UPC's cast: another block resets the phase, unchecked.
      const auto d = sptr<int, dynamic_block>::from_parts(n - 1, 1024, 2, 4);
      const auto c = sptr<int, 3>(d);
      EXPECT(f, c.thread() == n - 1 && c.addrfield() == 1024 && c.phase() == 0, "cast to B=3");
      // Generic to typed: implicit, as UPC's assignment of a shared void *.
      const sptr<void> g = d;
      const sptr<int, 4> g4 = g;
      const sptr<int> g1 = g;
      const sptr<const int, 4> cg4 = sptr<const void>(g);
      EXPECT(f, g4.word() == d.word() && cg4.word() == d.word(), "generic to B=4 keeps phase 2");
      EXPECT(f, g1.thread() == n - 1 && g1.addrfield() == 1024 && g1.phase() == 0,
             "generic to B=1: phase 0");
      // Typed against generic, both ways.
      EXPECT(f, g == g4 && g4 == g && g1 == g && !(g != g1), "mixed ==");
      EXPECT(f, !(g == g4 + 1) && g4 + 1 != g, "mixed !=");
    });
    check_no_failures(f);
  }
}

TEST_CASE("sptr: a run-time block converted to another compile-time block is misuse",
          "[sptr][convert][errors]") {
  // Outside a job the misuse throws usage_error naming this line (from_word needs no job).
  const auto d = sptr<int, dynamic_block>::from_word(64, 3);
  const int line = __LINE__ + 2;
  try {
    const sptr<int, 4> q = d;
    (void)q;
    FAIL("no exception");
  } catch (const pgas::usage_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("run-time block of 3") != std::string::npos);
    CHECK(what.find("block 4") != std::string::npos);
    CHECK(what.find("sptr_test.cpp:" + std::to_string(line)) != std::string::npos);
  }
  auto to_b1 = [](const sptr<int, dynamic_block>& p) {
    const sptr<int> q = p;
    return q;
  };
  auto to_b0 = [](const sptr<int, dynamic_block>& p) {
    const sptr<int, indefinite> q = p;
    return q;
  };
  CHECK_THROWS_AS(to_b1(d), pgas::usage_error);
  CHECK_THROWS_AS(to_b0(d), pgas::usage_error);
  const auto d0 = sptr<int, dynamic_block>::from_word(64, 0);  // run-time indefinite
  CHECK_THROWS_AS(to_b1(d0), pgas::usage_error);
  const sptr<int, indefinite> q0 = d0;
  CHECK(q0.word() == 64);
  const sptr<int, 3> q3 = d;
  CHECK(q3.word() == 64);
  // A default-constructed run-time pointer has block 1.
  const sptr<int> null = sptr<int, dynamic_block>();
  CHECK(null.word() == 0);
}

TEST_CASE("sptr: from_parts and from_word round trips", "[sptr]") {
  failures f;
  pgas::run(test_job(5), 0, nullptr, [&] {
    const int t = pgas::threads() - 1 - pgas::mythread();
    const std::size_t a = pgas::segment_size() - 64;  // the last bytes of a segment
    const auto p = sptr<s24, 64>::from_parts(t, a, 63);
    EXPECT(f, p.thread() == t && p.addrfield() == a && p.phase() == 63, "");
    EXPECT(f, (sptr<s24, 64>::from_word(p.word()).word() == p.word()), "");
    const auto d = sptr<s24, dynamic_block>::from_parts(t, a, 999, pgas::config::max_block);
    EXPECT(f, d.phase() == 999 && d.block() == pgas::config::max_block, "");
    // The largest phase fits the word, and ++ leaves it for the next thread's block.
    const std::size_t last = pgas::config::max_block - 1;
    const auto m = sptr<char, dynamic_block>::from_parts(t, last, last, pgas::config::max_block);
    EXPECT(f, m.phase() == last && m.thread() == t && m.addrfield() == last, "");
    const bool wraps = t + 1 == pgas::threads();
    EXPECT(f,
           (m + 1).phase() == 0 && (m + 1).thread() == (wraps ? 0 : t + 1) &&
               (m + 1).addrfield() == (wraps ? last + 1 : 0),
           "");
    auto c = sptr<char, pgas::config::max_block>::from_parts(t, last, last);
    ++c;
    EXPECT(f, c.word() == (m + 1).word(), "compile-time B = max_block");
  });
  check_no_failures(f);
}

TEST_CASE("sptr: is_local names the owner", "[sptr]") {
  failures f;
  pgas::run(test_job(4), 0, nullptr, [&] {
    for (int t = 0; t < pgas::threads(); ++t) {
      const auto p = sptr<int, 2>::from_parts(t, 128, 1);
      EXPECT(f, pgas::is_local(p) == (t == pgas::mythread()), "thread " << t);
      const auto one = sptr<double>::from_parts(t, 128);
      EXPECT(f, pgas::is_local(one) == (t == pgas::mythread()), "thread " << t);
      EXPECT(f, pgas::is_local(sptr<void>(p)) == (t == pgas::mythread()), "generic");
    }
  });
  check_no_failures(f);
}

TEST_CASE("sptr_from is the inverse of to_local", "[sptr]") {
  failures f;
  pgas::run(test_job(3), 0, nullptr, [&] {
    const int me = pgas::mythread();
    // A local allocation (the local region of my segment).
    auto* x = pgas::local_alloc_of<double>(8);
    const auto s = pgas::sptr_from(x + 3);
    EXPECT(f, s.thread() == me && s.get() == x + 3 && pgas::to_local(s) == x + 3, "");
    EXPECT(f, (s + 2).get() == x + 5 && (s + 2) - s == 2, "indefinite arithmetic");
    EXPECT(f, pgas::owner_of(x) == me, "");
    // Another thread's part of a collective allocation.
    const pgas::shared_alloc a = pgas::all_alloc(pgas::threads(), 64);
    const int other = (me + 1) % pgas::threads();
    auto* theirs = static_cast<const int*>(a.part(other)) + 5;
    const sptr<const int, indefinite> o = pgas::sptr_from(theirs);
    EXPECT(f, o.thread() == other && o.addrfield() == a.offset() + 5 * sizeof(int), "");
    EXPECT(f, pgas::to_local(o) == theirs, "");
    // Round trip from a pointer made from its parts.
    const auto p = sptr<int, 4>::from_parts(other, a.offset() + 8, 2);
    const auto back = pgas::sptr_from(pgas::to_local(p));
    EXPECT(f, back.thread() == p.thread() && back.addrfield() == p.addrfield(), "");
    EXPECT(f, sptr<void>(back) == sptr<void>(p), "");
    pgas::barrier();
    pgas::all_free(a);
    pgas::free(x);
  });
  check_no_failures(f);
}

TEST_CASE("sptr: misuse outside a job throws std::logic_error", "[sptr][errors]") {
  CHECK_THROWS_AS((sptr<int, 4>::from_parts(0, 64)), std::logic_error);
  CHECK_THROWS_AS((sptr<int, dynamic_block>::from_parts(0, 64, 0, 3)), std::logic_error);
  int local = 0;
  CHECK_THROWS_AS(pgas::sptr_from(&local), std::logic_error);
  CHECK_THROWS_AS(pgas::thread_distance(0, 0), std::logic_error);
  try {
    (void)sptr<int>::from_parts(0, 64);
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("sptr_test.cpp:") != std::string::npos);  // the caller's file and line
  }
}

namespace {

// The locality the job's placement implies for PUs a and b of `m` (the rule of
// thread_distance, restated).
pgas::locality expected_locality(const pgas::machine& m, int pa, int pb, bool same_thread) {
  if (same_thread) return pgas::locality::same_thread;
  const pgas::pu_info& x = m.pus()[static_cast<std::size_t>(pa)];
  const pgas::pu_info& y = m.pus()[static_cast<std::size_t>(pb)];
  if (x.package != y.package) return pgas::locality::machine;
  if (x.numa != y.numa) return pgas::locality::same_package;
  if (x.core == y.core) return pgas::locality::same_core;
  if (x.l3 >= 0 && x.l3 == y.l3) return pgas::locality::same_l3;
  return pgas::locality::same_numa;
}

}  // namespace

TEST_CASE("thread_distance on synthetic machines: planned placement, not applied",
          "[sptr][topology]") {
  struct scenario {
    const char* topology;
    int threads;
    pgas::map_policy map;
    // (a, b, expected) triples worked out by hand.
    std::vector<std::tuple<int, int, pgas::locality>> hand;
  };
  using L = pgas::locality;
  const std::vector<scenario> scenarios = {
      // 16 PUs: PU t is core t/2, NUMA node t/4, package t/8; no L3 in the description.
      {"synthetic:package:2 numa:2 core:2 pu:2",
       16,
       pgas::map_policy::core,
       {{0, 0, L::same_thread},
        {0, 1, L::same_core},
        {0, 2, L::same_numa},
        {3, 4, L::same_package},
        {0, 7, L::same_package},
        {0, 8, L::machine},
        {15, 14, L::same_core},
        {9, 10, L::same_numa}}},
      // map-by numa deals threads over the 4 nodes: thread t is on node t % 4, and threads t
      // and t + 4 share a core.
      {"synthetic:package:2 numa:2 core:2 pu:2",
       8,
       pgas::map_policy::numa,
       {{0, 4, L::same_core}, {0, 1, L::same_package}, {0, 2, L::machine}, {1, 3, L::machine}}},
      // Oversubscribed: threads t and t + 2 share a PU, so count as one core.
      {"synthetic:package:1 core:2 pu:1",
       5,
       pgas::map_policy::core,
       {{0, 2, L::same_core}, {1, 3, L::same_core}, {0, 1, L::same_numa}, {4, 0, L::same_core}}},
      // With an L3 level: 2 cores per L3, 2 L3 per package.
      {"synthetic:package:2 l3:2 core:2 pu:2",
       16,
       pgas::map_policy::core,
       {{0, 1, L::same_core}, {0, 2, L::same_l3}, {0, 4, L::same_numa}, {0, 8, L::machine}}},
  };
  for (const auto& sc : scenarios) {
    INFO(sc.topology << ", " << sc.threads << " threads");
    pgas::run_options o = test_job(sc.threads);
    o.topology = sc.topology;
    o.map_by = sc.map;
    const pgas::machine m = pgas::machine::from_spec(sc.topology);
    const auto plan = pgas::place(m, sc.threads, pgas::bind_policy::none, sc.map);
    failures f;
    std::vector<std::vector<L>> seen(static_cast<std::size_t>(sc.threads));
    pgas::run(o, 0, nullptr, [&] {
      const int me = pgas::mythread();
      const auto& placement = pgas::job_placement();
      EXPECT(f, placement.size() == static_cast<std::size_t>(sc.threads), "");
      EXPECT(f, pgas::job_machine().pu_count() == m.pu_count(), "the described machine");
      EXPECT(f, !pgas::job_machine().is_current(), "");
      for (int t = 0; t < sc.threads; ++t) {
        const auto ut = static_cast<std::size_t>(t);
        EXPECT(f, placement[ut].thread == t && placement[ut].pu == plan[ut].pu,
               "thread " << t << " planned on PU " << placement[ut].pu);
        EXPECT(f, placement[ut].cpus.empty(), "bind none: no CPU set");
        seen[static_cast<std::size_t>(me)].push_back(pgas::thread_distance(me, t));
      }
    });
    check_no_failures(f);
    for (int a = 0; a < sc.threads; ++a) {
      for (int b = 0; b < sc.threads; ++b) {
        INFO("thread_distance(" << a << ", " << b
                                << ") = " << pgas::to_string(seen[a][static_cast<std::size_t>(b)]));
        CHECK(seen[a][static_cast<std::size_t>(b)] ==
              expected_locality(m, plan[static_cast<std::size_t>(a)].pu,
                                plan[static_cast<std::size_t>(b)].pu, a == b));
        CHECK(seen[a][static_cast<std::size_t>(b)] == seen[b][static_cast<std::size_t>(a)]);
      }
    }
    for (const auto& [a, b, expected] : sc.hand) {
      INFO("hand-worked thread_distance(" << a << ", " << b << ")");
      CHECK(seen[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] == expected);
    }
  }
  CHECK(std::string(pgas::to_string(pgas::locality::same_thread)) == "same_thread");
  CHECK(std::string(pgas::to_string(pgas::locality::same_core)) == "same_core");
  CHECK(std::string(pgas::to_string(pgas::locality::same_l3)) == "same_l3");
  CHECK(std::string(pgas::to_string(pgas::locality::same_numa)) == "same_numa");
  CHECK(std::string(pgas::to_string(pgas::locality::same_package)) == "same_package");
  CHECK(std::string(pgas::to_string(pgas::locality::machine)) == "machine");
}

TEST_CASE("affinitysize against a byte-by-byte model and shared arrays", "[sptr][affinitysize]") {
  // The model: byte k of the object is in block k / nbytes, which lies on thread
  // (k / nbytes) % THREADS; nbytes 0 puts everything on thread 0.
  auto model = [](std::size_t total, std::size_t nbytes, int nthreads, int t) {
    std::size_t n = 0;
    for (std::size_t k = 0; k < total; ++k) {
      const std::size_t owner = nbytes == 0 ? 0 : (k / nbytes) % static_cast<std::size_t>(nthreads);
      n += owner == static_cast<std::size_t>(t);
    }
    return n;
  };
  REQUIRE(pgas::affinitysize(100, 7, 0) == 100);
  REQUIRE_THROWS_AS(pgas::affinitysize(100, 7, 1), pgas::usage_error);
  for (int n = 1; n <= 5; ++n) {
    std::atomic<int> wrong{0};
    const int rc = pgas::run(test_job(n), 0, nullptr, [&] {
      if (pgas::mythread() != 0) return;
      for (std::size_t total = 0; total <= 60; ++total) {
        for (std::size_t nbytes = 0; nbytes <= 13; ++nbytes) {
          std::size_t sum = 0;
          for (int t = 0; t < n; ++t) {
            const std::size_t got = pgas::affinitysize(total, nbytes, t);
            sum += got;
            if (got != model(total, nbytes, n, t)) wrong.fetch_add(1);
          }
          if (sum != total) wrong.fetch_add(1);
        }
      }
    });
    REQUIRE(rc == 0);
    REQUIRE(wrong.load() == 0);
  }
  // A shared array of s ints with block b answers the same as affinitysize(s * 4, b * 4, t).
  const int rc = pgas::run(test_job(3), 0, nullptr, [] {
    int bad = 0;
    for (std::size_t b : {1, 2, 5}) {
      pgas::shared_array<int> a({17}, pgas::block_spec::cyclic(b));
      for (int t = 0; t < 3; ++t)
        bad += pgas::affinitysize(17 * sizeof(int), b * sizeof(int), t) !=
               a.affinitysize(t) * sizeof(int);
    }
    return bad;
  });
  REQUIRE(rc == 0);
}

// ---------------------------------------------------------------------------------------------
// Run-time blocks beyond config::max_block: the word holds the phase's low bits and the
// block_ref its high bits. Every step of ++ and -- is checked against the model (thread,
// phase, address) through block boundaries and through each 2^sptr_phase_bits boundary of the
// phase; += and -= jump between sampled positions of the whole space; p - q and ordering are
// checked between them.

namespace {

// Position l of the model, by from_parts.
template <class T>
sptr<T, dynamic_block> model_pointer(const model& m, std::int64_t l) {
  return sptr<T, dynamic_block>::from_parts(m.thread(l), m.addr(l), m.phase(l),
                                            static_cast<std::size_t>(m.block));
}

template <class T>
bool same(const sptr<T, dynamic_block>& p, const model& m, std::int64_t l) {
  const auto base = reinterpret_cast<const char*>(pgas::segment_base(m.thread(l)));
  return p.thread() == m.thread(l) && p.phase() == m.phase(l) && pgas::phaseof(p) == m.phase(l) &&
         p.addrfield() == m.addr(l) && p.block() == static_cast<std::size_t>(m.block) &&
         reinterpret_cast<const char*>(p.get()) == base + m.addr(l);
}

// Walks ++ from l - before to l + after and -- back, checking every step.
template <class T>
void step_through(failures& f, const model& m, std::int64_t l, std::int64_t before,
                  std::int64_t after) {
  const std::int64_t from = std::max<std::int64_t>(0, l - before);
  auto p = model_pointer<T>(m, from);
  for (std::int64_t k = from; k < l + after; ++k) {
    if (!same(p, m, k)) {
      EXPECT(f, false, "block " << m.block << " size " << m.size << ": ++ at position " << k);
      return;
    }
    const auto old = p++;
    if (!same(old, m, k) || !same(p, m, k + 1)) {
      EXPECT(f, false, "block " << m.block << " size " << m.size << ": p++ from " << k);
      return;
    }
    steps_checked.fetch_add(1, std::memory_order_relaxed);
  }
  for (std::int64_t k = l + after; k > from; --k) {
    --p;
    if (!same(p, m, k - 1)) {
      EXPECT(f, false, "block " << m.block << " size " << m.size << ": -- to " << k - 1);
      return;
    }
  }
}

template <class T>
void big_block_walks(failures& f, std::int64_t block, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(pgas::threads());
  const auto s = static_cast<std::int64_t>(sizeof(T));
  const auto segment = static_cast<std::int64_t>(pgas::segment_size());
  // Positions whose address fits the segment: whole courses of `block` elements.
  const std::int64_t courses = std::min<std::int64_t>(3, (segment - 64) / (block * s));
  if (courses < 1) {
    EXPECT(f, false, "segment of " << segment << " bytes too small for block " << block);
    return;
  }
  const model m{block, n, s, 64 - 64 % s};
  const std::int64_t end = courses * n * block;  // positions [0, end)
  const std::int64_t low = std::int64_t{1} << pgas::config::sptr_phase_bits;
  // Every block boundary, and every boundary of the phase's low bits in the first block.
  for (std::int64_t k = 1; k < courses * n; ++k)
    step_through<T>(f, m, k * block, 40, 40);
  for (std::int64_t h = low; h < block; h += low)
    step_through<T>(f, m, h, 40, 40);
  step_through<T>(f, m, end - 40, 40, 39);  // up to the last position
  // One whole block, every step, when it is small enough.
  if (block <= 2 * low) step_through<T>(f, m, block, block, 1);
  // Random jumps with += / -=, differences and ordering.
  std::mt19937_64 rng(seed);
  std::int64_t l = 0;
  auto p = model_pointer<T>(m, 0);
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t to = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(end));
    const auto q = model_pointer<T>(m, to);
    const auto moved = (i % 2 == 0) ? p + (to - l) : p - (l - to);
    if (!same(moved, m, to) || moved - p != to - l || q - p != to - l || p - q != l - to ||
        (q < p) != (to < l) || (q > p) != (to > l)) {
      EXPECT(f, false,
             "block " << block << " size " << s << ": from " << l << " to " << to << " gave phase "
                      << moved.phase() << ", difference " << (q - p));
      return;
    }
    if (i % 3 == 0) {
      p += to - l;
    } else {
      p = moved;
    }
    l = to;
    steps_checked.fetch_add(1, std::memory_order_relaxed);
  }
  // Conversions: adding const keeps the whole phase; a cast to another element size and
  // resetphase drop it; the generic pointer keeps thread and address.
  const std::int64_t far = std::min(end - 1, block - 3);
  const auto fp = model_pointer<T>(m, far);
  const sptr<const T, dynamic_block> cp = fp;
  EXPECT(f, cp.phase() == m.phase(far) && (cp + 5).phase() == (fp + 5).phase(), "const");
  const auto bytes = sptr<char, dynamic_block>(fp);
  EXPECT(f, bytes.phase() == (s == 1 ? m.phase(far) : 0) && bytes.addrfield() == m.addr(far),
         "cast to char");
  const auto reset = pgas::resetphase(fp);
  EXPECT(f, reset.phase() == 0 && reset == fp && (reset + 1).phase() == 1, "resetphase");
  const pgas::sptr<void> g = fp;
  EXPECT(f, g.thread() == fp.thread() && g.addrfield() == fp.addrfield(), "generic");
}

// The band one thread holds of an n x n matrix of doubles, its block size at THREADS = t.
std::int64_t band(std::int64_t n, std::int64_t t) {
  return n * n / t;
}

}  // namespace

TEST_CASE("sptr: the run-time block table's entry 0 is block 1, made as libdivide makes it",
          "[sptr][bigblock]") {
  // The table is zero-initialised, not constructed at load, and only entry 0's block is set:
  // its zero divider must be the one libdivide generates for 1.
  const pgas::detail::block_divider& one = pgas::detail::block_dividers[0];
  const libdivide::libdivide_u64_t want = libdivide::libdivide_u64_gen(1);
  CHECK(one.block == 1);
  CHECK(one.div.magic == want.magic);
  CHECK(one.div.more == want.more);
  CHECK(&pgas::detail::block_divider_for(1) == &one);
  for (std::uint64_t n :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{12345}, ~std::uint64_t{0}})
    CHECK(one.divide(n) == n);
  // A size made later divides as plain division does, and is interned once.
  const pgas::detail::block_divider& seven = pgas::detail::block_divider_for(7);
  CHECK(&pgas::detail::block_divider_for(7) == &seven);
  CHECK(seven.block == 7);
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{6}, std::uint64_t{7},
                          std::uint64_t{1} << 40, ~std::uint64_t{0}})
    CHECK(seven.divide(n) == n / 7);
}

TEST_CASE("sptr: run-time blocks beyond config::max_block follow the UPC model",
          "[sptr][bigblock]") {
  const std::int64_t max = static_cast<std::int64_t>(pgas::config::max_block);
  for (int n : {1, 2, 3, 4}) {
    INFO(n << " threads");
    failures f;
    steps_checked = 0;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const auto seed = 77 * static_cast<std::uint64_t>(n) + 5 * pgas::mythread();
      big_block_walks<char>(f, max + 1, seed);
      big_block_walks<int>(f, max + 1, seed + 1);
      big_block_walks<s24>(f, max + 1, seed + 2);
      big_block_walks<char>(f, std::int64_t{1} << 24, seed + 3);
      big_block_walks<double>(f, std::int64_t{1} << 24, seed + 4);
      big_block_walks<double>(f, band(2048, n), seed + 5);  // one band of rows per thread
      big_block_walks<int>(f, 3 * max + 12345, seed + 6);
    });
    check_no_failures(f);
    CHECK(steps_checked > 20000);
  }
}

TEST_CASE("sptr: from_parts takes a run-time block up to config::max_runtime_block",
          "[sptr][bigblock]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    const std::size_t big = pgas::config::max_runtime_block;
    const auto p = sptr<char, dynamic_block>::from_parts(1, 64, big - 1, big);
    EXPECT(f, p.phase() == big - 1 && p.block() == big && p.thread() == 1 && p.addrfield() == 64,
           "largest phase");
    const auto q = p - 1;
    EXPECT(f, q.phase() == big - 2 && q.thread() == 1 && q.addrfield() == 63, "one back");
    EXPECT(f, p - q == 1 && q < p, "difference");
  });
  check_no_failures(f);
  // Beyond it: misuse, here outside a job.
  using big_pointer = sptr<char, dynamic_block>;
  CHECK_THROWS_AS(big_pointer::from_parts(0, 0, 0, pgas::config::max_runtime_block + 1),
                  pgas::usage_error);
}
