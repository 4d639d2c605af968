// expect: control reaches end of non-void function|does not return a value in all control paths
// A UPC main that returns a status on one path and falls off its end on another, ported as the
// README says (`static auto upc_main`): an int function whose end is undefined behaviour in
// C++, which <pgas/upc.hpp> makes a compile error (without it, g++ only warns and the job runs
// on into the next function). The fix is a `return 0;` at the end.
#include <stdio.h>
#include <pgas/upc.hpp>

static auto upc_main(int argc, char**) {
  if (argc > 2) {
    printf("usage: prog [N]\n");
    return 1;
  }
  upc_barrier;
}

int main(int argc, char** argv) {
  return pgas::run(argc, argv, upc_main);
}
