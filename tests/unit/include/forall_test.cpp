// Tests pgas/forall.hpp, UPC's upc_forall (UPC 1.3 §6.6.2), in jobs of 1 to 5 threads: every
// iteration runs exactly once and on the right thread for integer affinity (negative bounds,
// unsigned and narrow index types, bounds at the ends of the type's range), pointer-to-shared
// affinity and integer-valued affinity functions; pgas::everyone runs everything everywhere;
// a forall nested in a controlling forall runs all its iterations, and one nested in an
// `everyone` loop is itself controlling.

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
