// Integration program: split-phase barriers publish data. In each round every thread writes a
// value into its slot, notify()s, does local work, then wait()s and checks every other thread's
// slot for that round. Slots are double-buffered so a fast thread's next write cannot race a
// slow thread's reads. Odd rounds use named notify(id)/wait(id). Fails with status 3 on a stale
// value.
#include <array>
#include <cstdio>

#include <pgas/pgas.hpp>

namespace {
constexpr int rounds = 1000;
constexpr int max_threads = 256;
std::array<std::array<long, max_threads>, 2> slots;

long value_of(int round, int thread) {
  return 1000003L * round + thread + 1;
}
}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    const int me = pgas::mythread();
    const int n = pgas::threads();
    if (n > max_threads) return 2;
    volatile double work = 0;
    for (int r = 0; r < rounds; ++r) {
      auto& slot = slots[r % 2];
      slot[me] = value_of(r, me);
      if (r % 2) {
        pgas::notify(r);
      } else {
        pgas::notify();
      }
      for (int i = 0; i < 200; ++i)
        work = work + i * 0.5;
      if (r % 2) {
        pgas::wait(r);
      } else {
        pgas::wait();
      }
      for (int t = 0; t < n; ++t) {
        if (slot[t] != value_of(r, t)) {
          std::fprintf(stderr, "thread %d round %d: slot of thread %d is %ld, expected %ld\n", me,
                       r, t, slot[t], value_of(r, t));
          return 3;
        }
      }
    }
    if (me == 0) std::printf("split_phase: %d rounds ok\n", rounds);
    return 0;
  });
}
