// Integration program: a fatal signal in one thread ends the whole job, which dies of it.
// Usage: segv [THREAD [stack]] (default 1). Every thread prints a line (left in stdio's buffer
// when stdout is a pipe or a file); after a barrier, THREAD stores through a null pointer while
// every other thread waits at a second barrier. The printed lines must survive the fault. The
// store is in a function of its own, which the report's backtrace must name. With `stack`,
// THREAD overflows its stack by unbounded recursion instead.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pgas/pgas.hpp>

namespace {

[[gnu::noinline]] void store_through_null() {
  volatile int* volatile null = nullptr;  // both volatile: neither load nor store elided
  *null = 42;
}

volatile int never = -1;  // a depth recurse() never reaches (a compiler cannot know that)

// Recursion that does not end, 4 KiB of stack per call.
[[gnu::noinline]] int recurse(int depth) {
  if (depth == never) return 0;
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return recurse(depth + 1) + frame[0];
}

}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const int victim = ac > 1 ? std::atoi(av[1]) : 1;
    std::printf("thread %d printed before the fault\n", pgas::mythread());
    pgas::barrier();
    const bool stack = ac > 2 && std::strcmp(av[2], "stack") == 0;
    if (pgas::mythread() == victim) {
      if (stack) std::printf("%d\n", recurse(0));
      store_through_null();
    }
    pgas::barrier();
    return 0;
  });
}
