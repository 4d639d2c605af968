// Tests pgas/forall.hpp, UPC's upc_forall (UPC 1.3 §6.6.2), in jobs of 1 to 5 threads: every
// iteration runs exactly once and on the right thread for integer affinity (negative bounds,
// unsigned and narrow index types, bounds at the ends of the type's range), pointer-to-shared
// affinity and integer-valued affinity functions; pgas::everyone runs everything everywhere;
// a forall nested in a controlling forall runs all its iterations, and one nested in an
// `everyone` loop is itself controlling. An array as the affinity (&A[i]) runs, on each thread,
// exactly the iterations the pointer affinity A.ptr(i) gives it, in increasing order, for
// every block kind, sub-range and step.

#include <pgas/pgas.hpp>

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

// A file-scope array (UPC `shared [2] int S[5*THREADS]`) as a forall affinity.
pgas::static_array<int, 1, 2> static_affinity(pgas::per_thread(5));

namespace {

// Who ran each iteration: run counts and the runner, per slot (iteration - lo). Thread 0
// resizes it between barriers.
struct ledger {
  std::vector<std::atomic<int>> runs;
  std::vector<std::atomic<int>> runner;
  std::vector<std::atomic<int>> runs2;  // a second dimension for nested loops, row-major

  void reset(std::size_t n, std::size_t m = 0) {
    runs = std::vector<std::atomic<int>>(n);
    runner = std::vector<std::atomic<int>>(n);
    runs2 = std::vector<std::atomic<int>>(n * m);
    for (auto& r : runner)
      r = -1;
  }
  void ran(std::size_t slot) {
    runs[slot].fetch_add(1);
    runner[slot] = pgas::mythread();
  }
};

// The thread UPC assigns an integer affinity to: the non-negative remainder mod THREADS.
template <class I>
int owner_of_integer(I e) {
  const auto n = static_cast<unsigned>(pgas::threads());
  if constexpr (std::is_unsigned_v<I>) {
    return static_cast<int>(static_cast<std::uintmax_t>(e) % n);
  } else {
    const auto r = static_cast<long long>(static_cast<std::intmax_t>(e) % static_cast<int>(n));
    return static_cast<int>(r < 0 ? r + n : r);
  }
}

// Slot of iteration i of [lo, hi), computed without overflow for any integer type.
template <class I>
std::size_t slot_of(I i, I lo) {
  using U = std::make_unsigned_t<I>;
  return static_cast<std::size_t>(static_cast<U>(static_cast<U>(i) - static_cast<U>(lo)));
}

// forall(lo, hi, body) on every thread; then each iteration must have run once, on its thread.
template <class I>
void integer_case(I lo, I hi, ledger& book, failures& f) {
  const std::size_t count = lo < hi ? slot_of(hi, lo) : 0;
  if (pgas::mythread() == 0) book.reset(count);
  pgas::barrier();
  pgas::forall(lo, hi, [&](I i) {
    if (!(lo <= i && i < hi)) {
      EXPECT(f, false, "iteration " << +i << " is outside [" << +lo << ", " << +hi << ")");
      return;
    }
    book.ran(slot_of(i, lo));
  });
  pgas::barrier();
  if (pgas::mythread() == 0) {
    for (std::size_t s = 0; s < count; ++s) {
      const I i = static_cast<I>(lo + static_cast<I>(s));
      EXPECT(f, book.runs[s] == 1 && book.runner[s] == owner_of_integer(i),
             "forall(" << +lo << ", " << +hi << "): iteration " << +i << " ran " << book.runs[s]
                       << " times, last on thread " << book.runner[s] << ", expected thread "
                       << owner_of_integer(i));
    }
  }
  pgas::barrier();
}

template <class I>
void integer_cases_for(ledger& book, failures& f) {
  using lim = std::numeric_limits<I>;
  integer_case<I>(0, 10, book, f);
  integer_case<I>(3, 4, book, f);
  integer_case<I>(5, 5, book, f);  // empty
  integer_case<I>(9, 3, book, f);  // empty, lo > hi
  integer_case<I>(static_cast<I>(lim::max() - 2), lim::max(), book, f);
  integer_case<I>(static_cast<I>(lim::max() - 40), static_cast<I>(lim::max() - 1), book, f);
  integer_case<I>(lim::min(), static_cast<I>(lim::min() + 7), book, f);
  if constexpr (std::is_signed_v<I>) {
    integer_case<I>(-7, 9, book, f);
    integer_case<I>(-20, -3, book, f);
    integer_case<I>(-1, 0, book, f);
  }
}

}  // namespace

TEST_CASE("forall with integer affinity: each iteration once, on thread i mod THREADS",
          "[forall]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    ledger book;
    pgas::run(test_job(n), 0, nullptr, [&] {
      integer_cases_for<int>(book, f);
      integer_cases_for<long>(book, f);
      integer_cases_for<short>(book, f);
      integer_cases_for<signed char>(book, f);
      integer_cases_for<std::int64_t>(book, f);
      integer_cases_for<unsigned>(book, f);
      integer_cases_for<unsigned char>(book, f);
      integer_cases_for<std::size_t>(book, f);
      integer_cases_for<std::uint64_t>(book, f);
      integer_case<long>(-1000, 1000, book, f);
    });
    check_no_failures(f);
  }
}

TEST_CASE("forall with an affinity function", "[forall]") {
  for (int n : {1, 3, 4}) {
    INFO(n << " threads");
    failures f;
    ledger book;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      pgas::shared_array<int> a({50}, pgas::block_spec::cyclic(3));
      pgas::shared_array<double, 2> t({5, 7}, pgas::block_spec::tiles({2, 3}));

      // Pointer affinity: &A[i] (UPC upc_forall (…; &A[i])).
      if (me == 0) book.reset(50);
      pgas::barrier();
      pgas::forall(
          0, 50, [&](int i) { return a.ptr(i); },
          [&](int i) {
            book.ran(static_cast<std::size_t>(i));
            a(i) += 1;  // the owner's element: no other thread touches it
          });
      pgas::barrier();
      if (me == 0) {
        for (int i = 0; i < 50; ++i) {
          EXPECT(f,
                 book.runs[static_cast<std::size_t>(i)] == 1 && a(i) == 1 &&
                     book.runner[static_cast<std::size_t>(i)] == a.ptr(i).thread(),
                 "&A[" << i << "]");
        }
      }
      pgas::barrier();

      // Pointer affinity on a tiled array, through a generic pointer and a compile-time one.
      if (me == 0) book.reset(35);
      pgas::barrier();
      pgas::forall(
          std::size_t{0}, std::size_t{35},
          [&](std::size_t l) { return pgas::sptr<void>(t.ptr(l / 7, l % 7)); },
          [&](std::size_t l) { book.ran(l); });
      pgas::barrier();
      if (me == 0) {
        for (std::size_t l = 0; l < 35; ++l) {
          EXPECT(f, book.runs[l] == 1 && book.runner[l] == t.ptr(l / 7, l % 7).thread(),
                 "&T[" << l / 7 << "][" << l % 7 << "]");
        }
      }
      pgas::barrier();

      // Integer-valued functions, including negative values.
      for (int shift : {0, -100, 7}) {
        if (me == 0) book.reset(40);
        pgas::barrier();
        pgas::forall(
            0, 40, [&](int i) { return i / 4 + shift; },
            [&](int i) { book.ran(static_cast<std::size_t>(i)); });
        pgas::barrier();
        if (me == 0) {
          for (int i = 0; i < 40; ++i) {
            EXPECT(f,
                   book.runs[static_cast<std::size_t>(i)] == 1 &&
                       book.runner[static_cast<std::size_t>(i)] == owner_of_integer(i / 4 + shift),
                   "affinity " << i / 4 + shift);
          }
        }
        pgas::barrier();
      }
      // A pointer to a plain function (not taken for UPC's &A[i], a pointer to an element).
      {
        int (*const quarter)(int) = [](int i) { return i / 4; };
        if (me == 0) book.reset(40);
        pgas::barrier();
        pgas::forall(0, 40, quarter, [&](int i) { book.ran(static_cast<std::size_t>(i)); });
        pgas::barrier();
        if (me == 0) {
          for (int i = 0; i < 40; ++i) {
            EXPECT(f,
                   book.runs[static_cast<std::size_t>(i)] == 1 &&
                       book.runner[static_cast<std::size_t>(i)] == owner_of_integer(i / 4),
                   "function pointer affinity " << i / 4);
          }
        }
        pgas::barrier();
      }
      // A long affinity on unsigned iterations.
      if (me == 0) book.reset(20);
      pgas::barrier();
      pgas::forall(
          10u, 30u, [](unsigned i) { return static_cast<long>(i) - 1000; },
          [&](unsigned i) { book.ran(i - 10); });
      pgas::barrier();
      if (me == 0) {
        for (unsigned i = 10; i < 30; ++i) {
          EXPECT(f,
                 book.runs[i - 10] == 1 &&
                     book.runner[i - 10] == owner_of_integer(static_cast<long>(i) - 1000),
                 "affinity " << static_cast<long>(i) - 1000);
        }
      }
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("forall with everyone: every thread runs every iteration", "[forall]") {
  failures f;
  ledger book;
  pgas::run(test_job(3), 0, nullptr, [&] {
    if (pgas::mythread() == 0) book.reset(25);
    pgas::barrier();
    pgas::forall(-5, 20, pgas::everyone, [&](int i) { book.ran(static_cast<std::size_t>(i + 5)); });
    pgas::barrier();
    if (pgas::mythread() == 0) {
      for (std::size_t s = 0; s < 25; ++s)
        EXPECT(f, book.runs[s] == pgas::threads(), "iteration " << s);
    }
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("nested forall: only the controlling (outermost non-everyone) loop shares work",
          "[forall]") {
  for (int n : {1, 2, 3}) {
    INFO(n << " threads");
    failures f;
    ledger book;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const std::size_t rows = 6, cols = 5;
      auto check = [&](const char* what, auto expected_runner) {
        pgas::barrier();
        if (me == 0) {
          for (std::size_t i = 0; i < rows; ++i) {
            EXPECT(f, book.runs[i] == (expected_runner(i) < 0 ? n : 1), what << ": row " << i);
            for (std::size_t j = 0; j < cols; ++j) {
              EXPECT(f, book.runs2[i * cols + j] == 1,
                     what << ": (" << i << ", " << j << ") ran " << book.runs2[i * cols + j]
                          << " times");
            }
          }
        }
        pgas::barrier();
      };

      // Outer integer affinity controls; the inner loop runs all its iterations.
      if (me == 0) book.reset(rows, cols);
      pgas::barrier();
      pgas::forall(std::size_t{0}, rows, [&](std::size_t i) {
        book.ran(i);
        EXPECT(f, owner_of_integer(i) == me, "outer row " << i);
        pgas::forall(std::size_t{0}, cols, [&](std::size_t j) { book.runs2[i * cols + j]++; });
      });
      check("integer outer", [](std::size_t) { return 0; });

      // Outer affinity function controls; inner loops with any affinity run everything.
      if (me == 0) book.reset(rows, cols);
      pgas::barrier();
      pgas::forall(
          std::size_t{0}, rows, [](std::size_t i) { return i + 1; },
          [&](std::size_t i) {
            book.ran(i);
            pgas::forall(
                std::size_t{0}, cols, [](std::size_t j) { return j; },
                [&](std::size_t j) { book.runs2[i * cols + j]++; });
          });
      check("function outer", [](std::size_t) { return 0; });

      // An everyone loop does not control (UPC: `continue` affinity): the inner loop does.
      if (me == 0) book.reset(rows, cols);
      pgas::barrier();
      pgas::forall(std::size_t{0}, rows, pgas::everyone, [&](std::size_t i) {
        book.ran(i);
        pgas::forall(std::size_t{0}, cols, [&](std::size_t j) {
          EXPECT(f, owner_of_integer(j) == me, "inner column " << j << " under everyone");
          book.runs2[i * cols + j]++;
        });
      });
      check("everyone outer", [](std::size_t) { return -1; });

      // After a nested loop (and after a body that throws), loops share work again.
      try {
        pgas::forall(0, 2 * n, [&](int) {
          pgas::forall(0, 3, [](int) {});
          throw std::runtime_error("leaving the loop");
        });
      } catch (const std::runtime_error&) {
      }
      if (me == 0) book.reset(rows);
      pgas::barrier();
      pgas::forall(std::size_t{0}, rows, [&](std::size_t i) { book.ran(i); });
      pgas::barrier();
      if (me == 0) {
        for (std::size_t i = 0; i < rows; ++i)
          EXPECT(f, book.runs[i] == 1, "top-level loop after nesting, row " << i);
      }
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

// ---------------------------------------------------------------------------------------------
// Steps (UPC `i += k`, `i <<= 1`): the iterations come from a brute-force walk of the C loop,
// the runner from the affinity of each, for every thread count 1–5.

namespace {

// The iterations of `for (i = lo; i < hi; i += k)`, one by one: i is the next iteration while
// the distance left to hi exceeds k (so that a step past hi cannot wrap).
template <class I>
std::vector<I> stepped(I lo, I hi, unsigned long long k) {
  std::vector<I> v;
  if (!(lo < hi)) return v;
  for (std::size_t d = 0;; d += k) {
    v.push_back(static_cast<I>(lo + static_cast<I>(d)));
    if (slot_of(hi, lo) - d <= k) break;
  }
  return v;
}

// forall(lo, hi, step(k), body) (affinity i): each iteration of the walk once, on thread
// i mod THREADS, and nothing else.
template <class I>
void step_case(I lo, I hi, unsigned long long k, ledger& book, failures& f) {
  const std::vector<I> want = stepped(lo, hi, k);
  const std::size_t count = lo < hi ? slot_of(hi, lo) : 0;
  if (pgas::mythread() == 0) book.reset(count);
  pgas::barrier();
  pgas::forall(lo, hi, pgas::step(k), [&](I i) {
    if (!(lo <= i && i < hi) || slot_of(i, lo) % k != 0) {
      EXPECT(f, false, "step " << k << ": iteration " << +i << " is not of the loop");
      return;
    }
    book.ran(slot_of(i, lo));
  });
  pgas::barrier();
  if (pgas::mythread() == 0) {
    std::size_t ran = 0;
    for (std::size_t s = 0; s < count; ++s)
      ran += static_cast<std::size_t>(book.runs[s].load());
    EXPECT(f, ran == want.size(),
           "forall(" << +lo << ", " << +hi << ", step(" << k << ")): " << ran
                     << " iterations ran, the loop has " << want.size());
    for (const I i : want) {
      const std::size_t s = slot_of(i, lo);
      EXPECT(f, book.runs[s] == 1 && book.runner[s] == owner_of_integer(i),
             "forall(" << +lo << ", " << +hi << ", step(" << k << ")): iteration " << +i << " ran "
                       << book.runs[s] << " times, last on thread " << book.runner[s]
                       << ", expected thread " << owner_of_integer(i));
    }
  }
  pgas::barrier();
}

template <class I>
void step_cases_for(ledger& book, failures& f) {
  using lim = std::numeric_limits<I>;
  for (unsigned long long k : {1ull, 2ull, 3ull, 4ull, 5ull, 6ull, 7ull, 10ull, 13ull}) {
    step_case<I>(0, 40, k, book, f);
    step_case<I>(3, 41, k, book, f);
    step_case<I>(static_cast<I>(lim::max() - 30), lim::max(), k, book, f);
    step_case<I>(lim::min(), static_cast<I>(lim::min() + 29), k, book, f);
    if constexpr (std::is_signed_v<I>) step_case<I>(-17, 20, k, book, f);
  }
  step_case<I>(5, 5, 3, book, f);    // empty
  step_case<I>(9, 3, 2, book, f);    // empty, lo > hi
  step_case<I>(0, 60, 59, book, f);  // one step
  step_case<I>(static_cast<I>(lim::max() - 3), lim::max(),
               static_cast<unsigned long long>(lim::max()), book, f);  // a step far past hi
}

}  // namespace

TEST_CASE("forall with a step and affinity i: each iteration of the loop once, on its thread",
          "[forall][step]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    ledger book;
    pgas::run(test_job(n), 0, nullptr, [&] {
      step_cases_for<int>(book, f);
      step_cases_for<long>(book, f);
      step_cases_for<short>(book, f);
      step_cases_for<unsigned>(book, f);
      step_cases_for<unsigned char>(book, f);
      step_cases_for<std::uint64_t>(book, f);
    });
    check_no_failures(f);
  }
}

TEST_CASE("forall with a step and an affinity function, pointer or everyone", "[forall][step]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    ledger book;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      for (std::size_t b : {1, 2, 3, 5}) {
        pgas::shared_array<int> a({61}, pgas::block_spec::cyclic(b));
        for (unsigned long long k : {1ull, 2ull, 3ull, 7ull}) {
          for (int lo : {0, 1, 4}) {
            // &A[i] affinity (UPC upc_forall (i = lo; i < 61; i += k; &A[i])).
            if (me == 0) book.reset(61);
            pgas::barrier();
            pgas::forall(
                lo, 61, pgas::step(k), [&](int i) { return a.ptr(i); },
                [&](int i) { book.ran(static_cast<std::size_t>(i)); });
            pgas::barrier();
            if (me == 0) {
              for (int i = 0; i < 61; ++i) {
                const bool in = i >= lo && (i - lo) % static_cast<int>(k) == 0;
                const auto s = static_cast<std::size_t>(i);
                EXPECT(f,
                       book.runs[s] == (in ? 1 : 0) &&
                           (!in || book.runner[s] == a.layout().place({s}).thread),
                       "block " << b << ", step " << k << ", lo " << lo << ": &A[" << i << "] ran "
                                << book.runs[s] << " times on " << book.runner[s]);
              }
            }
            pgas::barrier();
          }
          // An integer-valued function, and everyone.
          if (me == 0) book.reset(61);
          pgas::barrier();
          pgas::forall(
              -5, 56, pgas::step(k), [&](int i) { return i / 3 - 2; },
              [&](int i) { book.ran(static_cast<std::size_t>(i + 5)); });
          pgas::forall(-5, 56, pgas::step(k), pgas::everyone,
                       [&](int i) { book.runs2.size() == 0 ? void() : (void)i; });
          pgas::barrier();
          if (me == 0) {
            for (int i = -5; i < 56; ++i) {
              const bool in = (i + 5) % static_cast<int>(k) == 0;
              const auto s = static_cast<std::size_t>(i + 5);
              EXPECT(f,
                     book.runs[s] == (in ? 1 : 0) &&
                         (!in || book.runner[s] == owner_of_integer(i / 3 - 2)),
                     "step " << k << ": affinity " << i / 3 - 2 << " for " << i);
            }
          }
          pgas::barrier();
          if (me == 0) book.reset(61);
          pgas::barrier();
          pgas::forall(0, 61, pgas::step(k), pgas::everyone,
                       [&](int i) { book.ran(static_cast<std::size_t>(i)); });
          pgas::barrier();
          if (me == 0) {
            for (std::size_t s = 0; s < 61; ++s) {
              EXPECT(f, book.runs[s] == (s % k == 0 ? n : 0),
                     "everyone, step " << k << ": " << s << " ran " << book.runs[s] << " times");
            }
          }
          pgas::barrier();
        }
      }
    });
    check_no_failures(f);
  }
}

TEST_CASE("forall with a first value, a condition and a step function (i <<= 1, i -= 3)",
          "[forall][step]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    ledger book;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const long limit = 5000;
      pgas::shared_array<int> a({static_cast<std::size_t>(limit)}, pgas::block_spec::cyclic(4));
      auto check = [&](const char* what, auto in_loop, auto expected_runner) {
        pgas::barrier();
        if (me == 0) {
          for (long i = 0; i < limit; ++i) {
            const auto s = static_cast<std::size_t>(i);
            const bool in = in_loop(i);
            EXPECT(f,
                   book.runs[s] == (in ? (expected_runner(i) < 0 ? n : 1) : 0) &&
                       (!in || expected_runner(i) < 0 || book.runner[s] == expected_runner(i)),
                   what << ": iteration " << i << " ran " << book.runs[s] << " times, on "
                        << book.runner[s]);
          }
        }
        pgas::barrier();
      };
      auto power_of_two = [](long i) { return i > 0 && (i & (i - 1)) == 0; };

      // for (i = 1; i < limit; i <<= 1; i): next returns the value.
      if (me == 0) book.reset(limit);
      pgas::barrier();
      pgas::forall(
          1L, [&](long i) { return i < limit; }, [](long i) { return i << 1; },
          [&](long i) { book.ran(static_cast<std::size_t>(i)); });
      check("i <<= 1; i", power_of_two, [](long i) { return owner_of_integer(i); });

      // The same with &A[i] affinity and an in-place step.
      if (me == 0) book.reset(limit);
      pgas::barrier();
      pgas::forall(
          1L, [&](long i) { return i < limit; }, [](long& i) { i <<= 1; },
          [&](long i) { return a.ptr(i); }, [&](long i) { book.ran(static_cast<std::size_t>(i)); });
      check("i <<= 1; &A[i]", power_of_two,
            [&](long i) { return a.layout().place({static_cast<std::size_t>(i)}).thread; });

      // Downwards: for (i = limit - 1; i >= 0; i -= 3; i / 2).
      if (me == 0) book.reset(limit);
      pgas::barrier();
      pgas::forall(
          limit - 1, [](long i) { return i >= 0; }, [](long i) { return i - 3; },
          [](long i) { return i / 2; }, [&](long i) { book.ran(static_cast<std::size_t>(i)); });
      check(
          "i -= 3; i / 2", [&](long i) { return (limit - 1 - i) % 3 == 0; },
          [](long i) { return owner_of_integer(i / 2); });

      // everyone: every thread runs each iteration.
      if (me == 0) book.reset(limit);
      pgas::barrier();
      pgas::forall(
          1L, [&](long i) { return i < limit; }, [](long i) { return i * 3; }, pgas::everyone,
          [&](long i) { book.ran(static_cast<std::size_t>(i)); });
      check(
          "i *= 3; continue",
          [](long i) {
            for (long p = 1; p <= i; p *= 3)
              if (p == i) return true;
            return false;
          },
          [](long) { return -1; });
    });
    check_no_failures(f);
  }
}

TEST_CASE("stepped foralls nest as the plain ones: inside a controlling loop all iterations run",
          "[forall][step]") {
  for (int n : {1, 2, 3, 5}) {
    INFO(n << " threads");
    failures f;
    ledger book;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const std::size_t rows = 7, cols = 16;
      if (me == 0) book.reset(rows, cols);
      pgas::barrier();
      // Outer: step 2 with affinity i; inner: step 3 with affinity i and a <<= loop with an
      // affinity function, both run all their iterations on the outer loop's thread.
      pgas::forall(std::size_t{0}, rows, pgas::step(2), [&](std::size_t i) {
        book.ran(i);
        EXPECT(f, owner_of_integer(i) == me, "outer row " << i);
        pgas::forall(std::size_t{0}, cols, pgas::step(3),
                     [&](std::size_t j) { book.runs2[i * cols + j]++; });
        pgas::forall(
            std::size_t{1}, [&](std::size_t j) { return j < cols; },
            [](std::size_t j) { return j << 1; }, [](std::size_t j) { return j + 1; },
            [&](std::size_t j) { book.runs2[i * cols + j] += 10; });
      });
      pgas::barrier();
      if (me == 0) {
        for (std::size_t i = 0; i < rows; ++i) {
          EXPECT(f, book.runs[i] == (i % 2 == 0 ? 1 : 0), "row " << i);
          for (std::size_t j = 0; j < cols; ++j) {
            const int want =
                i % 2 != 0 ? 0 : (j % 3 == 0 ? 1 : 0) + ((j & (j - 1)) == 0 && j ? 10 : 0);
            EXPECT(f, book.runs2[i * cols + j] == want,
                   "(" << i << ", " << j << ") counted " << book.runs2[i * cols + j] << ", want "
                       << want);
          }
        }
      }
      pgas::barrier();
      // An everyone loop with a step does not control: a stepped loop inside shares its work.
      if (me == 0) book.reset(rows, cols);
      pgas::barrier();
      pgas::forall(std::size_t{0}, rows, pgas::step(3), pgas::everyone, [&](std::size_t i) {
        pgas::forall(std::size_t{0}, cols, pgas::step(2), [&](std::size_t j) {
          EXPECT(f, owner_of_integer(j) == me, "inner column " << j << " under everyone");
          book.runs2[i * cols + j]++;
        });
      });
      pgas::barrier();
      if (me == 0) {
        for (std::size_t i = 0; i < rows; ++i)
          for (std::size_t j = 0; j < cols; ++j)
            EXPECT(f, book.runs2[i * cols + j] == (i % 3 == 0 && j % 2 == 0 ? 1 : 0),
                   "everyone outer: (" << i << ", " << j << ")");
      }
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

namespace {

// On the calling thread: forall(lo, hi, [step(k),] A, body) must visit exactly the i of
// [lo, hi) (every k-th from lo) with A.ptr(i).thread() == MYTHREAD, in increasing order.
template <class Arr>
void array_affinity_case(const Arr& a, long lo, long hi, long k, failures& f) {
  std::vector<long> want;
  for (long i = lo; i < hi; i += k)
    if (a.ptr(static_cast<std::size_t>(i)).thread() == pgas::mythread()) want.push_back(i);
  std::vector<long> got;
  if (k == 1) {
    pgas::forall(lo, hi, a, [&](long i) { got.push_back(i); });
  } else {
    pgas::forall(lo, hi, pgas::step(k), a, [&](long i) { got.push_back(i); });
  }
  EXPECT(f, got == want,
         "forall(" << lo << ", " << hi << ", step " << k << ", A of " << a.size()
                   << " elements): ran " << got.size() << " iterations, expected " << want.size());
}

template <class Arr>
void array_affinity_cases(const Arr& a, failures& f) {
  const auto n = static_cast<long>(a.size());
  for (long k : {1L, 2L, 3L, 7L, n + 5})
    for (long lo : {0L, 1L, 4L, n / 2, n})
      for (long hi : {n, n - 1, n / 2 + 3, lo, 0L})
        if (hi <= n) array_affinity_case(a, lo, hi, k, f);
}

// On the calling thread: forall(lo, hi, [step(k),] p, body) must visit exactly the i of
// [lo, hi) (every k-th from lo) with (p + i).thread() == MYTHREAD, in increasing order.
template <class P>
void pointer_affinity_case(const P& p, long lo, long hi, long k, failures& f) {
  std::vector<long> want;
  for (long i = lo; i < hi; i += k)
    if ((p + i).thread() == pgas::mythread()) want.push_back(i);
  std::vector<long> got;
  if (k == 1) {
    pgas::forall(lo, hi, p, [&](long i) { got.push_back(i); });
  } else {
    pgas::forall(lo, hi, pgas::step(k), p, [&](long i) { got.push_back(i); });
  }
  EXPECT(f, got == want,
         "forall(" << lo << ", " << hi << ", step " << k << ", p at thread " << p.thread()
                   << " phase " << p.phase() << " block " << p.block() << "): ran " << got.size()
                   << " iterations, expected " << want.size());
}

template <class P>
void pointer_affinity_cases(const P& p, failures& f) {
  for (long k : {1L, 2L, 5L, 64L})
    for (long lo : {-23L, -1L, 0L, 3L, 10L})
      for (long hi : {-5L, 0L, 1L, 17L, 40L})
        pointer_affinity_case(p, lo, hi, k, f);
}

}  // namespace

TEST_CASE("forall with a pointer affinity: the iterations of p + i at any thread and phase",
          "[forall]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      pgas::shared_array<int> blocked({60}, pgas::block_spec::cyclic(3));
      pgas::shared_array<int, 1, 4> fixed({60});
      pgas::shared_array<int, 1, 1> cyclic({60});
      pgas::shared_array<int> indefinite({60}, pgas::block_spec::indefinite());
      for (std::size_t start : {0, 1, 5, 13, 30}) {
        pointer_affinity_cases(blocked.ptr(start), f);  // run-time block 3
        pointer_affinity_cases(fixed.ptr(start), f);    // compile-time block 4
        pointer_affinity_cases(cyclic.ptr(start), f);   // block 1
        pointer_affinity_cases(indefinite.ptr(start), f);
      }
      // A step longer than a round of blocks, over the whole range of long: each thread
      // computes the thread of each iteration (the block walk would visit 2^62 blocks).
      {
        const auto q = cyclic.ptr(2);  // block 1, thread 2 mod THREADS, phase 0
        const long big = std::numeric_limits<long>::max();
        std::vector<long> got;
        pgas::forall(0L, big, pgas::step(big / 4), q, [&](long i) { got.push_back(i); });
        std::vector<long> want;
        for (unsigned long long i = 0; i < static_cast<unsigned long long>(big); i += big / 4) {
          if ((static_cast<unsigned long long>(q.thread()) + i) %
                  static_cast<unsigned long long>(pgas::threads()) ==
              static_cast<unsigned long long>(pgas::mythread()))
            want.push_back(static_cast<long>(i));
        }
        EXPECT(f, got == want, "step LONG_MAX/4: " << got.size() << " iterations");
      }
      // A char index with an array affinity.
      {
        std::vector<int> got;
        pgas::forall(static_cast<char>(0), static_cast<char>(12), blocked,
                     [&](char i) { got.push_back(i); });
        std::vector<int> want;
        for (int i = 0; i < 12; ++i)
          if (blocked.ptr(static_cast<std::size_t>(i)).thread() == pgas::mythread())
            want.push_back(i);
        EXPECT(f, got == want, "char index: " << got.size() << " iterations");
      }
      // An unsigned index type.
      std::vector<unsigned> uends;
      pgas::forall(0u, 30u, pgas::step(4), cyclic.ptr(2), [&](unsigned i) { uends.push_back(i); });
      std::vector<unsigned> uends_want;
      for (unsigned i = 0; i < 30; i += 4)
        if ((cyclic.ptr(2) + i).thread() == pgas::mythread()) uends_want.push_back(i);
      EXPECT(f, uends == uends_want, "unsigned: " << uends.size() << " iterations");
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("forall with an array affinity: the iterations of A.ptr(i), walking own blocks",
          "[forall]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      pgas::shared_array<int> cyclic({37});
      pgas::shared_array<int> blocked({40}, pgas::block_spec::cyclic(3));
      pgas::shared_array<int> star({static_cast<std::size_t>(6 * pgas::threads() + 1)},
                                   pgas::block_spec::star());
      pgas::shared_array<int> indefinite({9}, pgas::block_spec::indefinite());
      pgas::shared_array<long, 1, 4> fixed({23});
      array_affinity_cases(cyclic, f);
      array_affinity_cases(blocked, f);
      array_affinity_cases(star, f);
      array_affinity_cases(indefinite, f);
      array_affinity_cases(fixed, f);
      array_affinity_cases(static_affinity, f);

      // Inside a controlling forall the array forall runs every iteration, in order; inside
      // an everyone loop it shares them.
      std::vector<int> inner;
      pgas::forall(0, 1, pgas::everyone, [&](int) {
        pgas::forall(0, 1, [&](int) {
          pgas::forall(2, 11, blocked, [&](int i) { inner.push_back(i); });
          pgas::forall(2, 11, pgas::step(4), blocked, [&](int i) { inner.push_back(i); });
        });
      });
      std::vector<int> want;
      if (pgas::mythread() == 0) want = {2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 6, 10};
      EXPECT(f, inner == want, "nested: " << inner.size() << " iterations");
      std::vector<int> shared_out;
      pgas::forall(0, 1, pgas::everyone, [&](int) {
        pgas::forall(0, 40, blocked, [&](int i) { shared_out.push_back(i); });
      });
      for (int i : shared_out)
        EXPECT(f, blocked.ptr(static_cast<std::size_t>(i)).thread() == pgas::mythread(),
               "inside everyone: iteration " << i);

      // The general form takes an array too (evaluated per iteration).
      std::vector<int> general;
      pgas::forall(
          1, [](int i) { return i < 40; }, [](int i) { return i * 2; }, blocked,
          [&](int i) { general.push_back(i); });
      std::vector<int> general_want;
      for (int i = 1; i < 40; i *= 2)
        if (blocked.ptr(static_cast<std::size_t>(i)).thread() == pgas::mythread())
          general_want.push_back(i);
      EXPECT(f, general == general_want, "general form: " << general.size() << " iterations");
      pgas::barrier();
    });
    check_no_failures(f);
  }
}

TEST_CASE("pgas::step below 1 is misuse naming its line (outside a job: usage_error)",
          "[forall][step]") {
  const int line = __LINE__ + 2;
  try {
    pgas::forall(0, 10, pgas::step(0), [](int) {});
    FAIL("no exception");
  } catch (const pgas::usage_error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("step(0)") != std::string::npos);
    CHECK(what.find("forall_test.cpp:" + std::to_string(line)) != std::string::npos);
  }
  CHECK_THROWS_AS(pgas::step(-3), pgas::usage_error);
  // Outside a job every iteration of a stepped loop runs here.
  std::vector<int> seen;
  pgas::forall(2, 20, pgas::step(5), [&](int i) { seen.push_back(i); });
  CHECK(seen == std::vector<int>{2, 7, 12, 17});
}
