// Integration program: an uncaught exception in one thread ends the whole job.
// Usage: throws [THREAD [std-thread]] (default 1). After a first barrier, THREAD throws
// std::runtime_error("boom from thread THREAD") while every other thread waits at a second
// barrier that can now never complete. With `std-thread`, the exception escapes a std::thread
// that THREAD started instead (a thread of the program's own, not a UPC thread).
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const int thrower = ac > 1 ? std::atoi(av[1]) : 1;
    const bool own_thread = ac > 2 && std::strcmp(av[2], "std-thread") == 0;
    pgas::barrier();
    if (pgas::mythread() == thrower) {
      const std::string what = "boom from thread " + std::to_string(thrower);
      if (!own_thread) throw std::runtime_error(what);
      std::thread([&] { throw std::runtime_error(what + "'s std::thread"); }).join();
    }
    pgas::barrier();
    return 0;
  });
}
