// Integration program: a fatal signal in one thread ends the whole job, which dies of it.
// After a barrier, thread 1 stores through a null pointer (volatile, so the compiler keeps the
// store) while every other thread waits at a second barrier.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::barrier();
    if (pgas::mythread() == 1) {
      int* volatile null = nullptr;
      *null = 42;
    }
    pgas::barrier();
  });
}
