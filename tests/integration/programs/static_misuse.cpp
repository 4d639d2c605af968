// Integration program: static shared objects (pgas/static_shared.hpp) used wrongly. Usage:
// static_misuse MODE, where MODE is
//   before        a namespace-scope static_array used in main() before pgas::run: the
//                 usage_error (caught and printed, status 3) names its declaration;
//   after         the same after pgas::run has returned;
//   local_static  a block-scope `static pgas::static_array` in the body: the job ends at once
//                 (status 1) naming its line and saying to move it to namespace scope;
//   block_static  a block-scope `static pgas::shared_array` in the body (the guard trap: one
//                 thread would create it while the others wait in its guard): the job ends at
//                 once (status 1) naming its line, at any THREADS, never hanging;
//   early_return  thread 1 returns while the others wait at a barrier: the report names the
//                 barrier and "the end of its body";
//   held          thread 0 returns holding the static lock: freeing it after the bodies is
//                 misuse named at the lock's declaration;
//   negative      an extent's callable returns a negative number: the job ends before any
//                 body runs, naming the declaration;
//   too_large     an extent's callable returns more than the segments hold: the job ends
//                 before any body runs (status 1), naming the declaration and the shortage;
//   ok            uses everything correctly (status 0, prints the sum).
#include <cstdio>
#include <mutex>
#include <string>

#include <pgas/pgas.hpp>

pgas::static_array<int> A(pgas::per_thread(4));  // @static_misuse:declaration
pgas::static_lock lk;                            // @static_misuse:lock

bool negative_mode = false;  // set by main() before the job: the extent below is then -3
pgas::static_array<char> N([](int) { return negative_mode ? -3 : 1; });  // @static_misuse:negative
bool too_large_mode = false;  // set by main() before the job: the extent below is then 2^50
long long too_large_extent(int) {
  return too_large_mode ? 1LL << 50 : 1;
}
pgas::static_array<char> L(too_large_extent);  // @static_misuse:too_large

namespace {

int use_before_or_after(const char* when) {
  try {
    A[0] = 1;
  } catch (const pgas::usage_error& e) {
    std::fprintf(stderr, "%s: %s\n", when, e.what());
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ok";
  if (mode == "before") return use_before_or_after("before");
  negative_mode = mode == "negative";
  too_large_mode = mode == "too_large";
  const int status = pgas::run(argc, argv, [&mode](int, char**) {
    const int me = pgas::mythread();
    pgas::barrier();
    if (mode == "local_static") {
      static pgas::static_array<int> L(pgas::per_thread(1));  // @static_misuse:local_static
      L[me] = 1;
    } else if (mode == "block_static") {
      static pgas::shared_array<int> S({16});  // @static_misuse:block_static
      S[me] = 1;
    } else if (mode == "early_return") {
      if (me == 1) return 0;
      pgas::barrier();  // @static_misuse:barrier
    } else if (mode == "held") {
      if (me == 0) lk.lock();
    } else {
      for (int r = 0; r < 100; ++r) {
        const std::lock_guard g(lk);
        A[0] = A[0] + 1;
      }
      A[4 * me + 1] = me;
      pgas::barrier();
      if (me == 0) {
        long sum = 0;
        for (std::size_t i = 0; i < A.size(); ++i)
          sum += A[i];
        std::printf("sum=%ld\n", sum);
      }
    }
    return 0;
  });
  if (mode == "after") return use_before_or_after("after");
  return status;
}
