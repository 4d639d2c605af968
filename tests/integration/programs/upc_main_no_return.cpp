// Integration program: a UPC main that has no return (legal in C: it returns 0), ported by
// README.md's rule, `static auto upc_main(int argc, char** argv)`: a void body, which
// pgas::run counts as status 0. As an int function its end would be undefined behaviour
// (g++ -O2 let it run on into the next function); the driver checks the job ends with status
// 0 and that every thread ran the body once.
#include <stdio.h>
#include <pgas/upc.hpp>

pgas::static_array<int, 1, 1> count(pgas::per_thread(1));

static auto upc_main(int argc, char** argv) {
  count[MYTHREAD] = argc;
  upc_barrier;
  if (MYTHREAD == 0) {
    int total = 0;
    for (int t = 0; t < THREADS; t++)
      total += count[t];
    printf("%s: %d threads, total %d\n", argv[0] ? "upc_main" : "?", THREADS, total);
  }
  printf("thread %d ran the body\n", MYTHREAD);
}

// What the fall-through ran into in the int version: a function that must never run here.
[[maybe_unused]] static int after_upc_main(int, char**) {
  printf("ran after the body\n");
  return 3;
}

int main(int argc, char** argv) {
  return pgas::run(argc, argv, upc_main);
}
