// Integration program: an uncaught exception in one thread ends the whole job.
// After a first barrier, thread 1 throws std::runtime_error("boom from thread 1") while every
// other thread waits at a second barrier that can now never complete.
#include <stdexcept>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::barrier();
    if (pgas::mythread() == 1) throw std::runtime_error("boom from thread 1");
    pgas::barrier();
  });
}
