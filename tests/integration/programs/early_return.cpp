// Integration program: a thread returns from its body while the others wait at a barrier it
// will never reach. Thread 1 returns at once; thread 0 waits at one barrier call and threads 2..
// at another, so the report must give each waiting thread's own file:line (the driver finds the
// lines by the @early_return markers below). Every thread first passes a common barrier, so a
// thread still leaving that one (released, but not yet running again) must not be reported as
// waiting there.
//
// Usage: early_return [split]. With `split` the common barrier is split-phase and thread 2 works
// for a second between its notify and its wait: the report must say it runs past the notify,
// whose phase has completed, not that it waits there.
#include <chrono>
#include <cstring>
#include <thread>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    if (ac > 1 && std::strcmp(av[1], "split") == 0) {
      // Thread 2 arrives first, so that it records its notify (a last arriver records nothing).
      if (pgas::mythread() != 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      pgas::notify();  // @early_return:notify
      if (pgas::mythread() == 2) std::this_thread::sleep_for(std::chrono::seconds(1));
      pgas::wait();
    } else {
      pgas::barrier();  // @early_return:common
    }
    if (pgas::mythread() == 1) return 0;
    if (pgas::mythread() == 0) {
      pgas::barrier();  // @early_return:thread0
    } else {
      pgas::barrier();  // @early_return:others
    }
    return 0;
  });
}
