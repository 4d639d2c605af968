// Integration program: named barriers whose ids differ between threads.
// Thread t calls pgas::barrier(100 + t) (ids distinct from thread numbers, so that the driver
// can tell them apart in the report); the job must end with a mismatch report naming each
// thread, its id and the file:line of the call (the line the driver finds by its marker).
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::barrier(100 + pgas::mythread());  // @barrier_mismatch
  });
}
