// Integration program: an uncaught exception in one thread ends the whole job.
// Usage: throws [THREAD [std-thread]] (default 1). After a first barrier, THREAD throws
// std::runtime_error("boom from thread THREAD") while every other thread waits at a second
// barrier that can now never complete. With `std-thread`, the exception escapes a std::thread
// that THREAD started instead (a thread of the program's own, not a UPC thread). The throw is
// in a function of its own, which the report's backtrace must name.
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include <pgas/pgas.hpp>

namespace {

[[gnu::noinline]] void throw_from_body(const std::string& what) {
  throw std::runtime_error(what);
}

}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const int thrower = ac > 1 ? std::atoi(av[1]) : 1;
    const bool own_thread = ac > 2 && std::strcmp(av[2], "std-thread") == 0;
    pgas::barrier();
    if (pgas::mythread() == thrower) {
      const std::string what = "boom from thread " + std::to_string(thrower);
      if (!own_thread) throw_from_body(what);
      std::thread([&] { throw std::runtime_error(what + "'s std::thread"); }).join();
    }
    pgas::barrier();
    return 0;
  });
}
