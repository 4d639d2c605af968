// Integration program: an uncaught exception in one thread ends the whole job.
// Usage: throws [THREAD] (default 1). After a first barrier, THREAD throws
// std::runtime_error("boom from thread THREAD") while every other thread waits at a second
// barrier that can now never complete.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const int thrower = ac > 1 ? std::atoi(av[1]) : 1;
    pgas::barrier();
    if (pgas::mythread() == thrower) {
      throw std::runtime_error("boom from thread " + std::to_string(thrower));
    }
    pgas::barrier();
    return 0;
  });
}
