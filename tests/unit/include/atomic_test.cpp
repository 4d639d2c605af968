// Tests pgas/atomic.hpp — atomic domains and operations (UPC 1.3 <upc_atomic.h>): every type
// and operation against a sequential reference model (through the C++ members, the typed UPC
// form and the untyped UPC form), floating-point edge cases (CSWAP compares values, MIN/MAX and
// NaN), exact final values under contention in jobs of 1 to 5 threads (fetch-add, FINC
// uniqueness, a CSWAP counter, MIN/MAX, OR of bits, float ADD), isfast, and the misuse messages
// that the error model lets a test catch outside a job.

#include <pgas/pgas.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

using pgas::atomic_domain;
using pgas::atomic_op;
using pgas::atomic_order;
using pgas::shared_array;

constexpr atomic_order relaxed = atomic_order::relaxed;

// The sequential reference: the element's value after `op` on `old` with operands a, b
// (integers wrap, computed in the unsigned type).
template <class T>
T reference(atomic_op op, T old, T a, T b) {
  auto wrap = [](auto f, T x, T y) -> T {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(f(static_cast<U>(x), static_cast<U>(y)));
    } else {
      return f(x, y);
    }
  };
  switch (op) {
    case atomic_op::get:
      return old;
    case atomic_op::set:
      return a;
    case atomic_op::cswap:
      return old == a ? b : old;
    case atomic_op::add:
    case atomic_op::fadd:
      return wrap([](auto x, auto y) { return x + y; }, old, a);
    case atomic_op::sub:
    case atomic_op::fsub:
      return wrap([](auto x, auto y) { return x - y; }, old, a);
    case atomic_op::mult:
    case atomic_op::fmult:
      return wrap([](auto x, auto y) { return x * y; }, old, a);
    case atomic_op::inc:
    case atomic_op::finc:
      return wrap([](auto x, auto y) { return x + y; }, old, T(1));
    case atomic_op::dec:
    case atomic_op::fdec:
      return wrap([](auto x, auto y) { return x - y; }, old, T(1));
    case atomic_op::min:
    case atomic_op::fmin:
      return a < old ? a : old;
    case atomic_op::max:
    case atomic_op::fmax:
      return old < a ? a : old;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case atomic_op::and_:
      case atomic_op::fand:
        return old & a;
      case atomic_op::or_:
      case atomic_op::for_:
        return old | a;
      case atomic_op::xor_:
      case atomic_op::fxor:
        return old ^ a;
      default:
        break;
    }
  }
  return old;
}

constexpr atomic_op arithmetic_ops[] = {
    atomic_op::get,  atomic_op::set,  atomic_op::cswap, atomic_op::add,  atomic_op::sub,
    atomic_op::mult, atomic_op::inc,  atomic_op::dec,   atomic_op::min,  atomic_op::max,
    atomic_op::fadd, atomic_op::fsub, atomic_op::fmult, atomic_op::finc, atomic_op::fdec,
    atomic_op::fmin, atomic_op::fmax};
constexpr atomic_op bitwise_ops[] = {atomic_op::and_, atomic_op::or_,  atomic_op::xor_,
                                     atomic_op::fand, atomic_op::for_, atomic_op::fxor};

template <class T>
std::vector<atomic_op> ops_of() {
  std::vector<atomic_op> v(std::begin(arithmetic_ops), std::end(arithmetic_ops));
  if constexpr (std::is_integral_v<T>)
    v.insert(v.end(), std::begin(bitwise_ops), std::end(bitwise_ops));
  return v;
}

template <class T>
pgas::atomic_ops set_of(const std::vector<atomic_op>& ops) {
  pgas::atomic_ops s;
  for (atomic_op op : ops)
    s = s | op;
  return s;
}

bool fetches(atomic_op op) {
  return op == atomic_op::get || op == atomic_op::set || op == atomic_op::cswap ||
         static_cast<std::uint32_t>(op) >= static_cast<std::uint32_t>(atomic_op::fadd);
}

// The op through the named member `way` 0; the typed UPC form 1; the untyped UPC form 2.
// Returns the fetched value (or the reference's old value for non-fetching forms).
template <class T, class Target>
T apply_named(const atomic_domain<T>& d, atomic_op op, Target&& t, T a, T b, atomic_order o) {
  switch (op) {
    case atomic_op::get:
      return d.load(t, o);
    case atomic_op::set:
      return d.exchange(t, a, o);
    case atomic_op::cswap:
      return d.cswap(t, a, b, o);
    case atomic_op::add:
      d.add(t, a, o);
      return T();
    case atomic_op::sub:
      d.sub(t, a, o);
      return T();
    case atomic_op::mult:
      d.mult(t, a, o);
      return T();
    case atomic_op::inc:
      d.inc(t, o);
      return T();
    case atomic_op::dec:
      d.dec(t, o);
      return T();
    case atomic_op::min:
      d.min(t, a, o);
      return T();
    case atomic_op::max:
      d.max(t, a, o);
      return T();
    case atomic_op::fadd:
      return d.fetch_add(t, a, o);
    case atomic_op::fsub:
      return d.fetch_sub(t, a, o);
    case atomic_op::fmult:
      return d.fetch_mult(t, a, o);
    case atomic_op::finc:
      return d.fetch_inc(t, o);
    case atomic_op::fdec:
      return d.fetch_dec(t, o);
    case atomic_op::fmin:
      return d.fetch_min(t, a, o);
    case atomic_op::fmax:
      return d.fetch_max(t, a, o);
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case atomic_op::and_:
        d.and_(t, a, o);
        return T();
      case atomic_op::or_:
        d.or_(t, a, o);
        return T();
      case atomic_op::xor_:
        d.xor_(t, a, o);
        return T();
      case atomic_op::fand:
        return d.fetch_and_(t, a, o);
      case atomic_op::for_:
        return d.fetch_or_(t, a, o);
      case atomic_op::fxor:
        return d.fetch_xor_(t, a, o);
      default:
        break;
    }
  }
  return T();
}

template <class T>
T operand(std::mt19937& rng) {
  if constexpr (std::is_integral_v<T>) {
    // Small values and, now and then, values near the type's limits (wrapping).
    const int k = static_cast<int>(rng() % 16);
    if (k == 0) return std::numeric_limits<T>::max();
    if (k == 1) return std::numeric_limits<T>::min();
    return static_cast<T>(static_cast<int>(rng() % 11) - 5);
  } else {
    return static_cast<T>(static_cast<int>(rng() % 11) - 5) / 2;  // exact in binary
  }
}

template <class T>
void model_check(failures& f, int seed) {
  const auto ops = ops_of<T>();
  atomic_domain<T> d(set_of<T>(ops), pgas::atomic_hint::throughput);
  const auto n = static_cast<std::size_t>(pgas::threads());
  shared_array<T> a({3 * n});
  // Each thread works on its own element, which lives on the next thread (cyclic layout).
  const std::size_t i = (static_cast<std::size_t>(pgas::mythread()) + 1) % n + n;
  std::mt19937 rng(static_cast<unsigned>(seed + pgas::mythread()));
  T model = T();
  for (int step = 0; step < 600; ++step) {
    const atomic_op op = ops[rng() % ops.size()];
    const int way = static_cast<int>(rng() % 4);
    const atomic_order o = rng() % 2 ? atomic_order::strict : relaxed;
    T x = operand<T>(rng);
    if (op == atomic_op::cswap && rng() % 2) x = model;  // half the CSWAPs succeed
    const T y = operand<T>(rng);
    T got = T();
    switch (way) {
      case 0:
        got = apply_named(d, op, a.ptr(i), x, y, o);
        break;
      case 1:
        got = apply_named(d, op, a[i], x, y, o);
        break;
      case 2: {
        T fetched = T(-7);
        T* fetch_ptr = fetches(op) ? &fetched : nullptr;
        if (o == atomic_order::strict)
          d.strict(fetch_ptr, op, a.ptr(i), &x, &y);
        else
          d.relaxed(fetch_ptr, op, a[i], &x, &y);
        got = fetched;
        break;
      }
      default: {
        T fetched = T(-7);
        T* fetch_ptr = fetches(op) ? &fetched : nullptr;
        const pgas::sptr<void> t = a.ptr(i);
        if (o == atomic_order::strict)
          pgas::atomic_strict(d.get(), fetch_ptr, op, t, &x, &y);
        else
          pgas::atomic_relaxed(d.get(), fetch_ptr, op, t, &x, &y);
        got = fetched;
        break;
      }
    }
    const T expect = reference(op, model, x, y);
    if (fetches(op))
      EXPECT(f, got == model, "step " << step << " op " << static_cast<unsigned>(op));
    if (way < 2 && !fetches(op)) EXPECT(f, got == T(), "non-fetching form");
    if (way >= 2 && !fetches(op)) EXPECT(f, got == T(-7), "fetch_ptr written by a non-fetching op");
    model = expect;
    EXPECT(f, a[i] == model,
           "step " << step << " op " << static_cast<unsigned>(op) << " way " << way);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::abs(model) > T(1 << 20)) {  // keep float arithmetic exact
        d.store(a[i], T(1));
        model = T(1);
      }
    }
  }
  pgas::barrier();
}

template <class T>
void contention(failures& f, int k) {
  const int n = pgas::threads();
  const int me = pgas::mythread();
  atomic_domain<T> d(atomic_op::fadd | atomic_op::finc | atomic_op::add | atomic_op::cswap |
                     atomic_op::fmin | atomic_op::max | atomic_op::get | atomic_op::set);
  shared_array<T> a({static_cast<std::size_t>(5 * n)});
  static std::vector<std::vector<long>> fetched;  // written in the threads' own rows
  if (me == 0) fetched.assign(static_cast<std::size_t>(n), {});
  pgas::barrier();
  auto& mine = fetched[static_cast<std::size_t>(me)];
  // FINC on element 0 (thread 0's), strict; ADD on element 1, relaxed; a CSWAP counter on
  // element 2; MIN on element 3 and MAX on element 4, both starting at 1000.
  d.store(a.ptr(3), T(1000));
  d.store(a.ptr(4), T(1000));
  pgas::barrier();
  for (int r = 0; r < k; ++r) {
    mine.push_back(static_cast<long>(d.fetch_inc(a.ptr(0))));
    d.add(a[1], T(2), relaxed);
    T seen = d.load(a.ptr(2), relaxed);
    while (
        !d.compare_exchange(a.ptr(2), seen, T(seen + 1), r % 2 ? relaxed : atomic_order::strict)) {
    }
    const T v = T(100 + (r * 7 + me * 13) % 97);  // in [100, 196]
    (void)d.fetch_min(a.ptr(3), v, relaxed);
    d.max(a[4], T(v + 1000));
  }
  pgas::barrier();
  if (me == 0) {
    const long total = static_cast<long>(n) * k;
    EXPECT(f, d.load(a.ptr(0)) == T(total), "FINC count");
    EXPECT(f, d.load(a.ptr(1)) == T(2 * total), "relaxed ADD");
    EXPECT(f, d.load(a.ptr(2)) == T(total), "CSWAP counter");
    std::vector<long> all;
    for (const auto& v : fetched)
      all.insert(all.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end());
    std::vector<long> want(static_cast<std::size_t>(total));
    std::iota(want.begin(), want.end(), 0L);
    EXPECT(f, all == want, "FINC fetched each value once");
    T lo = T(1000), hi = T(1000);
    for (int t = 0; t < n; ++t) {
      for (int r = 0; r < k; ++r) {
        const T v = T(100 + (r * 7 + t * 13) % 97);
        lo = std::min(lo, v);
        hi = std::max(hi, T(v + 1000));
      }
    }
    EXPECT(f, d.load(a.ptr(3)) == lo, "MIN");
    EXPECT(f, d.load(a[4]) == hi, "MAX");
  }
  pgas::barrier();
}

}  // namespace

TEST_CASE("every type and operation matches the sequential reference model", "[atomic]") {
  for (int n : {1, 3}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      model_check<int>(f, 1);
      model_check<unsigned>(f, 2);
      model_check<long>(f, 3);
      model_check<unsigned long>(f, 4);
      model_check<std::int32_t>(f, 5);
      model_check<std::uint32_t>(f, 6);
      model_check<std::int64_t>(f, 7);
      model_check<std::uint64_t>(f, 8);
      model_check<float>(f, 9);
      model_check<double>(f, 10);
    });
    check_no_failures(f);
  }
}

TEST_CASE("floating CSWAP compares values, MIN and MAX keep the element against NaN", "[atomic]") {
  failures f;
  pgas::run(test_job(1), 0, nullptr, [&] {
    atomic_domain<double> d({atomic_op::cswap, atomic_op::fmin, atomic_op::fmax, atomic_op::set});
    shared_array<double> a({1});
    const double nan = std::numeric_limits<double>::quiet_NaN();
    d.store(a[0], -0.0);
    EXPECT(f, d.cswap(a[0], 0.0, 5.0) == 0.0, "");  // -0.0 == 0.0: swapped
    EXPECT(f, a[0] == 5.0, "");
    d.store(a[0], nan);
    EXPECT(f, std::isnan(d.cswap(a[0], nan, 1.0)), "");  // NaN equals nothing
    EXPECT(f, std::isnan(a[0]), "");
    EXPECT(f, std::isnan(d.fetch_min(a[0], 1.0)), "");
    EXPECT(f, std::isnan(a[0]), "MIN keeps a NaN element");
    d.store(a[0], 2.0);
    (void)d.fetch_max(a[0], nan);
    EXPECT(f, a[0] == 2.0, "MAX ignores a NaN operand");
    (void)d.fetch_min(a[0], -3.5);
    EXPECT(f, a[0] == -3.5, "");
  });
  check_no_failures(f);
}

TEST_CASE("contended operations give exact results at 1 to 5 threads", "[atomic]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      contention<long>(f, 300);
      contention<unsigned>(f, 300);
      contention<double>(f, 200);
      contention<float>(f, 200);
    });
    check_no_failures(f);
  }
}

TEST_CASE("OR of one bit per thread and float ADD under contention", "[atomic]") {
  for (int n : {2, 5}) {
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      atomic_domain<std::uint64_t> bits({atomic_op::for_, atomic_op::fxor, atomic_op::get});
      atomic_domain<float> sum({atomic_op::add, atomic_op::get});
      shared_array<std::uint64_t> w({2});
      shared_array<float> s({1});
      for (int b = me; b < 64; b += n) {
        const std::uint64_t old = bits.fetch_or_(w.ptr(0), std::uint64_t{1} << b, relaxed);
        EXPECT(f, (old & (std::uint64_t{1} << b)) == 0, "bit " << b << " set twice");
        (void)bits.fetch_xor_(w.ptr(1), std::uint64_t{3} << (b % 32));
      }
      for (int r = 0; r < 1000; ++r)
        sum.add(s[0], 0.5f, relaxed);
      pgas::barrier();
      EXPECT(f, bits.load(w[0]) == ~std::uint64_t{0}, "");
      std::uint64_t x = 0;
      for (int b = 0; b < 64; ++b)
        x ^= std::uint64_t{3} << (b % 32);
      EXPECT(f, bits.load(w[1]) == x, "");
      EXPECT(f, sum.load(s[0]) == 500.0f * static_cast<float>(n), "");
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("domains: moving, freeing, isfast and the set of operations", "[atomic]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    shared_array<int> a({4});
    atomic_domain<int> d(atomic_op::fadd | atomic_op::get);
    EXPECT(f, d.ops() == (atomic_op::fadd | atomic_op::get), "");
    EXPECT(f, d.ops().contains(atomic_op::get) && !d.ops().contains(atomic_op::add), "");
    atomic_domain<int> e(std::move(d));
    (void)e.fetch_add(a[1], 1);
    pgas::barrier();
    EXPECT(f, e.load(a.ptr(1)) == 2, "");
    EXPECT(f, d.ops() == pgas::atomic_ops(), "moved-from domain has no operations");
    pgas::atomicdomain* raw = e.get();
    e.free();
    EXPECT(f, raw->ops_.load() == 0, "a freed domain has no operations");
    // UPC-form allocation.
    pgas::atomicdomain* u = pgas::all_atomicdomain_alloc(
        pgas::atomic_type::uint64, atomic_op::fxor | atomic_op::get, pgas::atomic_hint::latency);
    pgas::all_atomicdomain_free(u);
    const pgas::sptr<void> p = a.ptr(2);
    const auto all = pgas::atomic_ops::from_bits((1u << 23) - 1);
    EXPECT(f, pgas::atomic_isfast(pgas::atomic_type::int_, all, p), "");
    EXPECT(f, pgas::atomic_isfast(pgas::atomic_type::double_, atomic_op::fadd, a.ptr(0)), "");
    EXPECT(f, !pgas::atomic_isfast(pgas::atomic_type::double_, atomic_op::fand, a.ptr(0)), "");
    EXPECT(f, !pgas::atomic_isfast(pgas::atomic_type::int_, atomic_op::add, pgas::sptr<void>()),
           "");
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("UPC_PTS: GET, SET and CSWAP on pointers-to-shared, one CSWAP winner", "[atomic]") {
  for (int n : {1, 3, 5}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      shared_array<long, 1, 2> data({2 * static_cast<std::size_t>(n)});
      shared_array<pgas::sptr<long, 2>> slot({2});  // `shared [2] long *shared slot[2]`
      atomic_domain<pgas::sptr<long, 2>> d({atomic_op::get, atomic_op::set, atomic_op::cswap});
      EXPECT(f, d.get()->type_ == pgas::atomic_type::pts, "");
      // Every thread offers its second element (phase 1); exactly one CSWAP from null wins.
      const pgas::sptr<long, 2> mine = data.ptr(2 * me + 1);
      const pgas::sptr<long, 2> old = d.cswap(slot.ptr(0), nullptr, mine);
      pgas::barrier();
      const pgas::sptr<long, 2> won = d.load(slot[0]);
      EXPECT(f, won.thread() < n && won.phase() == 1 && won == data.ptr(2 * won.thread() + 1),
             "the winner's pointer, phase kept: thread " << won.thread());
      EXPECT(f, (old == nullptr) == (won == mine), "thread " << me << ": one winner");
      pgas::barrier();  // every thread has read the winner before it swaps back
      pgas::sptr<long, 2> expected = mine;
      EXPECT(f, d.compare_exchange(slot[0], expected, nullptr, relaxed) == (won == mine), "");
      pgas::barrier();
      EXPECT(f, d.load(slot[0]) == nullptr, "the winner swapped it back to null");
      // SET fetching the old value, then the UPC form with `shared void *` values.
      if (me == n - 1) {
        EXPECT(f, d.exchange(slot.ptr(1), data.ptr(0)) == nullptr, "");
        pgas::atomicdomain* u = d.get();
        pgas::sptr<void> fetched, expect = data.ptr(0), desired = data.ptr(1);
        pgas::atomic_strict(u, &fetched, atomic_op::cswap, slot.ptr(1), &expect, &desired);
        EXPECT(f, (pgas::sptr<long, 2>(fetched) == data.ptr(0)), "");
        pgas::atomic_relaxed(u, &fetched, atomic_op::get, slot.ptr(1), nullptr, nullptr);
        EXPECT(f, (pgas::sptr<long, 2>(fetched) == data.ptr(1)), "");
        EXPECT(f, pgas::atomic_isfast(pgas::atomic_type::pts, atomic_op::cswap, slot.ptr(1)), "");
        EXPECT(f, !pgas::atomic_isfast(pgas::atomic_type::pts, atomic_op::add, slot.ptr(1)), "");
      }
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("UPC_PTS: an operation other than GET, SET and CSWAP is misuse naming both",
          "[atomic][misuse]") {
  using Catch::Matchers::Contains;
  using pts = atomic_domain<pgas::sptr<int>>;
  CHECK_THROWS_WITH(pts({atomic_op::cswap, atomic_op::fadd}),
                    Contains("FADD is not defined for shared void * (UPC_PTS)"));
  CHECK_THROWS_WITH(pts(atomic_op::inc), Contains("UPC_PTS supports only GET, SET and CSWAP"));
  CHECK_THROWS_WITH(pgas::all_atomicdomain_alloc(pgas::atomic_type::pts,
                                                 atomic_op::get | atomic_op::min | atomic_op::max),
                    Contains("MIN|MAX is not defined for shared void * (UPC_PTS)"));
  // Through the UPC form, an ADD on a PTS domain names the type as well.
  pts d({atomic_op::get});
  long v = 1;
  CHECK_THROWS_WITH(
      pgas::atomic_strict(d.get(), nullptr, atomic_op::add, pgas::sptr<void>(), &v, nullptr),
      Contains("atomic ADD is not defined for shared void * (UPC_PTS)"));
}

TEST_CASE("misuse outside a job throws usage_error naming what was wrong", "[atomic][misuse]") {
  using Catch::Matchers::Contains;
  int local = 0;
  atomic_domain<int> d(atomic_op::fadd | atomic_op::get);
  // No shared space outside a job: every target is refused, after the set is checked.
  CHECK_THROWS_WITH(d.fetch_add(local, 1), Contains("not in the shared space"));
  CHECK_THROWS_WITH(d.add(local, 1), Contains("ADD is not in the operations of atomic domain"));
  CHECK_THROWS_WITH(d.add(local, 1), Contains("which are GET|FADD"));
  CHECK_THROWS_WITH(d.fetch_add(pgas::sptr<int>(), 1), Contains("null target"));
  // A braced list of one operation picks the set, not the move constructor.
  atomic_domain<int> get_only({atomic_op::get});
  CHECK_THROWS_WITH(get_only.fetch_add(local, 1), Contains("FADD is not in the operations"));
  CHECK_THROWS_WITH(d.strict(nullptr, atomic_op::get, local, nullptr, nullptr),
                    Contains("null fetch_ptr"));
  int v = 0;
  CHECK_THROWS_WITH(d.strict(&v, atomic_op::fadd, local, nullptr, nullptr),
                    Contains("null operand1"));
  CHECK_THROWS_WITH(
      pgas::atomic_relaxed(d.get(), &v, static_cast<atomic_op>(3), pgas::sptr<void>(), &v, &v),
      Contains("not exactly one operation"));
  CHECK_THROWS_WITH(atomic_domain<double>({atomic_op::fadd, atomic_op::xor_}),
                    Contains("XOR is not defined for double"));
  CHECK_THROWS_WITH(atomic_domain<int>(pgas::atomic_ops()),
                    Contains("the set of operations is empty"));
  pgas::atomicdomain* raw = d.get();
  d.free();
  CHECK_THROWS_WITH(d.fetch_add(local, 1), Contains("through no atomic domain"));
  CHECK_THROWS_WITH(
      pgas::atomic_strict(raw, &v, atomic_op::get, pgas::sptr<void>(), nullptr, nullptr),
      Contains("which was freed"));
  CHECK_THROWS_WITH(pgas::all_atomicdomain_free(raw), Contains("which was freed"));
}
