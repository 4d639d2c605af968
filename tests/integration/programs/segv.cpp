// Integration program: a fatal signal in one thread ends the whole job, which dies of it.
// Usage: segv [THREAD] (default 1). Every thread prints a line (left in stdio's buffer when
// stdout is a pipe or a file); after a barrier, THREAD stores through a null pointer while every
// other thread waits at a second barrier. The printed lines must survive the fault. The store
// is in a function of its own, which the report's backtrace must name.
#include <cstdio>
#include <cstdlib>

#include <pgas/pgas.hpp>

namespace {

[[gnu::noinline]] void store_through_null() {
  volatile int* volatile null = nullptr;  // both volatile: neither load nor store elided
  *null = 42;
}

}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const int victim = ac > 1 ? std::atoi(av[1]) : 1;
    std::printf("thread %d printed before the fault\n", pgas::mythread());
    pgas::barrier();
    if (pgas::mythread() == victim) store_through_null();
    pgas::barrier();
    return 0;
  });
}
