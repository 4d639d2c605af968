// Unit tests of pgas/collectives.hpp: every value collective against a sequential fold of the
// same values, at 1 to 5 threads, with a non-commutative operation (so that the documented
// thread order is what is checked), values past the inline slot (the heap path), and long loops
// of back-to-back collectives whose values change every round (the slot reuse).
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include <pgas/collectives.hpp>
#include <pgas/lock.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sync.hpp>

#include "../test_job.hpp"

namespace {

// x -> a*x + b; composing f then g is (g.a*f.a, g.a*f.b + g.b): associative, not commutative.
struct affine {
  std::int64_t a, b;
  bool operator==(const affine&) const = default;
};
constexpr auto compose = [](const affine& f, const affine& g) {
  return affine{g.a * f.a, g.a * f.b + g.b};
};
affine affine_of(int t, int round) {
  return affine{t % 3 + 1, 7 * t + round + 1};
}

// A value wider than a slot's line: travels in the slot's buffer.
struct wide {
  std::array<std::int64_t, 16> v;
  bool operator==(const wide&) const = default;
};
constexpr auto wide_add = [](const wide& x, const wide& y) {
  wide r{};
  for (std::size_t i = 0; i < r.v.size(); ++i)
    r.v[i] = x.v[i] + y.v[i];
  return r;
};

template <class T, class Op>
T fold(const std::vector<T>& xs, std::size_t end, Op op) {
  T acc = xs[0];
  for (std::size_t i = 1; i < end; ++i)
    acc = op(acc, xs[i]);
  return acc;
}

// Runs `body` on n threads; fails the test when any thread reported a wrong result.
template <class F>
void on_threads(int n, F body) {
  std::atomic<int> wrong{0};
  const int rc = pgas::run(test_job(n), 0, nullptr, [&] {
    if (!body()) wrong.fetch_add(1);
  });
  REQUIRE(rc == 0);
  REQUIRE(wrong.load() == 0);
}

}  // namespace

TEST_CASE("allreduce, scan and exscan combine in thread order", "[collectives]") {
  for (int n = 1; n <= 5; ++n) {
    CAPTURE(n);
    on_threads(n, [n] {
      const int me = pgas::mythread();
      bool ok = true;
      for (int round = 0; round < 200; ++round) {
        std::vector<affine> xs;
        for (int t = 0; t < n; ++t)
          xs.push_back(affine_of(t, round));
        const affine mine = affine_of(me, round);
        ok &= pgas::allreduce(mine, compose) == fold(xs, n, compose);
        ok &= pgas::scan(mine, compose) == fold(xs, me + 1, compose);
        const std::optional<affine> ex = pgas::exscan(mine, compose);
        ok &= (me == 0 ? !ex.has_value() : ex.has_value() && *ex == fold(xs, me, compose));
        const affine id{1, 0};
        const affine ex0 = pgas::exscan(mine, compose, me == 0 ? id : affine{9, 9});
        ok &= ex0 == (me == 0 ? id : fold(xs, me, compose));
      }
      return ok;
    });
  }
}

// The left fold of (t + round) for threads [0, end) with `op`.
template <class Op>
std::int64_t digits_of(int end, int round, Op op) {
  std::int64_t acc = round;
  for (int t = 1; t < end; ++t)
    acc = op(acc, std::int64_t{t + round});
  return acc;
}

// Values of at most 8 bytes travel beside the barrier's arrival word in small jobs: up to 3
// threads every thread stores its value there and folds them all after the release; with 4 and
// 5 the last arriver combines them there. Wider values and larger jobs use the slots. Calls of
// all kinds alternate here, at sizes 1, 2, 4 and 8 bytes, with every root, across the 3/4- and
// 5/6-thread boundaries, with split-phase barriers and phases with a hook (a lock's collective
// free) between them, so that a slot overwritten too early or a result read late shows up.
TEST_CASE("small values beside the arrival word, mixed with slot exchanges", "[collectives]") {
  for (int n = 1; n <= 7; ++n) {
    CAPTURE(n);
    on_threads(n, [n] {
      const int me = pgas::mythread();
      bool ok = true;
      for (int round = 0; round < 300; ++round) {
        // 8 bytes, non-commutative: x -> 10x + y over the threads' digits in thread order.
        std::int64_t digits = 0;
        for (int t = 0; t < n; ++t)
          digits = digits * 10 + (t + round) % 10;
        const auto shift = [](std::int64_t x, std::int64_t y) { return x * 10 + y; };
        ok &= pgas::allreduce(std::int64_t{(me + round) % 10}, shift) == digits;
        // 4 bytes and 1 byte.
        ok &= pgas::allreduce(me + round, std::plus<>{}) == n * round + n * (n - 1) / 2;
        const auto top = static_cast<unsigned char>(n - 1 + round % 7);
        ok &=
            pgas::allreduce(static_cast<unsigned char>(me + round % 7),
                            [](unsigned char x, unsigned char y) { return x > y ? x : y; }) == top;
        // A 16-byte value between them takes the slots.
        const affine f = pgas::allreduce(affine_of(me, round), compose);
        std::vector<affine> xs;
        for (int t = 0; t < n; ++t)
          xs.push_back(affine_of(t, round));
        ok &= f == fold(xs, n, compose);
        const int root = round % n;
        ok &= pgas::broadcast(1000 * root + round, root) == 1000 * root + round;
        const double r = pgas::reduce(0.5 * me, std::plus<>{}, root);
        ok &= me != root || r == 0.25 * n * (n - 1);
        // Scans and allgather of small values take the line too in jobs of up to three
        // threads; a thread that yields now and then makes the others run a phase ahead, into
        // the other parity's slots.
        if ((round + me) % 5 == 0) std::this_thread::yield();
        ok &= pgas::scan(std::int64_t{me + round}, shift) == digits_of(me + 1, round, shift);
        const std::optional<short> before = pgas::exscan(short(me + 1), std::plus<>{});
        ok &= me == 0 ? !before : *before == me * (me + 1) / 2;
        std::vector<float> all(static_cast<std::size_t>(n));
        pgas::allgather(float(me + round), std::span(all));
        for (int t = 0; t < n; ++t)
          ok &= all[static_cast<std::size_t>(t)] == float(t + round);
        if (round % 50 == 0) {
          pgas::notify();
          pgas::wait();
          pgas::all_lock_free(pgas::all_lock_alloc());
        }
      }
      return ok;
    });
  }
}

TEST_CASE("allreduce with the standard operations and min/max", "[collectives]") {
  on_threads(4, [] {
    const int me = pgas::mythread();
    bool ok = pgas::allreduce(me + 1, std::plus<>{}) == 10;
    ok &= pgas::allreduce(me + 1, std::multiplies<>{}) == 24;
    ok &= pgas::allreduce(0xF0u | (1u << me), std::bit_or<>{}) == 0xFFu;
    ok &= pgas::allreduce(0xFFu & ~(1u << me), std::bit_and<>{}) == 0xF0u;
    ok &= pgas::allreduce(me == 2, std::logical_or<>{});
    ok &= pgas::allreduce(10 - 3 * me, pgas::min_op{}) == 1;
    ok &= pgas::allreduce(10 - 3 * me, pgas::max_op{}) == 10;
    ok &= pgas::allreduce(static_cast<std::int8_t>(100), std::plus<>{}) ==
          static_cast<std::int8_t>(400);
    // Every thread gets the same bits of a floating-point sum: the sequential left fold.
    const double x[4] = {1e16, 1.0, -1e16, 1.0};
    const double sum = pgas::allreduce(x[me], std::plus<>{});
    ok &= sum == ((1e16 + 1.0) + -1e16) + 1.0;
    std::array<double, 4> all{};
    pgas::allgather(sum, std::span(all));
    for (double s : all)
      ok &= std::memcmp(&s, &sum, sizeof s) == 0;
    return ok;
  });
}

TEST_CASE("broadcast and reduce at every root", "[collectives]") {
  for (int n = 1; n <= 4; ++n) {
    CAPTURE(n);
    on_threads(n, [n] {
      const int me = pgas::mythread();
      bool ok = true;
      for (int round = 0; round < 50; ++round) {
        for (int root = 0; root < n; ++root) {
          ok &= pgas::broadcast(me * 1000 + round, root) == root * 1000 + round;
          std::vector<affine> xs;
          for (int t = 0; t < n; ++t)
            xs.push_back(affine_of(t, round));
          const affine r = pgas::reduce(affine_of(me, round), compose, root);
          // The result is on root; the others get their own value back.
          ok &= r == (me == root ? fold(xs, n, compose) : affine_of(me, round));
        }
      }
      return ok;
    });
  }
}

TEST_CASE("allgather puts every thread's value in thread order", "[collectives]") {
  for (int n = 1; n <= 5; ++n) {
    CAPTURE(n);
    on_threads(n, [n] {
      bool ok = true;
      std::vector<affine> out(static_cast<std::size_t>(n));
      for (int round = 0; round < 100; ++round) {
        pgas::allgather(affine_of(pgas::mythread(), round), std::span(out));
        for (int t = 0; t < n; ++t)
          ok &= out[static_cast<std::size_t>(t)] == affine_of(t, round);
      }
      return ok;
    });
  }
}

TEST_CASE("values wider than a slot's line", "[collectives]") {
  on_threads(3, [] {
    const int me = pgas::mythread();
    bool ok = true;
    for (int round = 0; round < 100; ++round) {
      wide mine{};
      wide want{};
      for (std::size_t i = 0; i < mine.v.size(); ++i) {
        mine.v[i] = me * 100 + static_cast<int>(i) + round;
        want.v[i] = (0 + 100 + 200) + 3 * (static_cast<int>(i) + round);
      }
      ok &= pgas::allreduce(mine, wide_add) == want;
      const wide b = pgas::broadcast(mine, 2);
      ok &= b.v[5] == 200 + 5 + round;
      std::array<wide, 3> all{};
      pgas::allgather(mine, std::span(all));
      ok &= all[1].v[0] == 100 + round;
    }
    return ok;
  });
}

TEST_CASE("element-wise allreduce of a span in place", "[collectives]") {
  for (int n = 1; n <= 5; ++n) {
    CAPTURE(n);
    on_threads(n, [n] {
      const int me = pgas::mythread();
      bool ok = true;
      for (const std::size_t len : {0, 1, 3, 4, 17, 1000}) {
        for (int round = 0; round < 3; ++round) {
          std::vector<affine> data(len);
          for (std::size_t i = 0; i < len; ++i)
            data[i] = affine_of(me, round + static_cast<int>(i));
          pgas::allreduce(std::span(data), compose);
          for (std::size_t i = 0; i < len; ++i) {
            std::vector<affine> xs;
            for (int t = 0; t < n; ++t)
              xs.push_back(affine_of(t, round + static_cast<int>(i)));
            ok &= data[i] == fold(xs, n, compose);
          }
          // Mixed with scalar collectives, which reuse the same slots.
          ok &= pgas::allreduce(1, std::plus<>{}) == n;
        }
      }
      return ok;
    });
  }
}

// An exception from the operation reaches every thread's call at any THREADS: where the last
// arriver combines for all (4 and 5 threads beside the arrival word, 6 and more in the slots)
// it once ended the job as an uncaught exception inside the program's try. Each thread catches
// it, and the next collective works (the failure is not left behind for it).
TEST_CASE("an exception from the operation is caught by every thread", "[collectives][errors]") {
  struct refused : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  const auto refuse_odd = [](long a, long b) -> long {
    if (b % 2 != 0) throw refused("odd operand");
    return a + b;
  };
  const auto refuse_wide = [](const wide& x, const wide& y) {
    if (y.v[0] != 0) throw refused("nonzero operand");
    return wide_add(x, y);
  };
  for (int n : {2, 3, 4, 5, 6, 8}) {
    CAPTURE(n);
    on_threads(n, [&] {
      const long me = pgas::mythread();
      bool ok = true;
      for (int round = 0; round < 20; ++round) {
        try {
          (void)pgas::allreduce(2 * me + 1, refuse_odd);  // thread 1 contributes 3: odd
          ok = false;
        } catch (const refused& e) {
          ok &= std::string_view(e.what()) == "odd operand";
        }
        try {
          (void)pgas::allreduce(wide{{me}}, refuse_wide);
          ok = false;
        } catch (const refused&) {
        }
        ok &= pgas::allreduce(2 * me, refuse_odd) == pgas::threads() * (pgas::threads() - 1);
      }
      return ok;
    });
  }
}

TEST_CASE("value collectives outside a job are misuse", "[collectives]") {
  REQUIRE_THROWS_AS((void)pgas::allreduce(1.0, std::plus<>{}), pgas::usage_error);
  REQUIRE_THROWS_AS((void)pgas::broadcast(1, 0), pgas::usage_error);
  std::array<int, 1> out{};
  REQUIRE_THROWS_AS(pgas::allgather(1, std::span(out)), pgas::usage_error);
}
