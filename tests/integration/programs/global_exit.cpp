// Integration program: pgas::exit(7) from one thread ends the whole job with status 7.
// Thread 1 prints a line without flushing it (pgas::exit must flush stdio) and exits while
// every other thread waits at a barrier that can now never complete.
#include <cstdio>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::barrier();
    if (pgas::mythread() == 1) {
      std::printf("thread 1 calls pgas::exit(7)\n");
      pgas::exit(7);
    }
    pgas::barrier();
    std::printf("thread %d passed a barrier it should never have passed\n", pgas::mythread());
  });
}
