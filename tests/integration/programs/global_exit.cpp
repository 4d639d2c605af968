// Integration program: pgas::exit(7) from one thread ends the whole job with status 7.
// Thread 1 prints a line without flushing it (pgas::exit must flush stdio) and exits while
// every other thread waits at a barrier that can now never complete.
//
// Usage: global_exit [upc]. With `upc` thread 1 calls UPC's upc_global_exit(7) from
// <pgas/upc.hpp>, which the end-of-job line must name as written.
#include <cstdio>
#include <cstring>

#include <pgas/upc.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const bool upc = ac > 1 && std::strcmp(av[1], "upc") == 0;
    pgas::barrier();
    if (pgas::mythread() == 1) {
      std::printf("thread 1 calls %s(7)\n", upc ? "upc_global_exit" : "pgas::exit");
      if (upc) upc_global_exit(7);
      pgas::exit(7);
    }
    pgas::barrier();
    std::printf("thread %d passed a barrier it should never have passed\n", pgas::mythread());
  });
}
