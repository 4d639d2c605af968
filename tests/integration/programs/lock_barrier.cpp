// Integration program: thread 0 holds a lock across a barrier that thread 1 can only reach
// after taking that lock; the other threads wait at the barrier. The job must end with a report
// naming the holder, the lock waiter and the barrier (the driver finds the lines by the
// @lock_barrier markers below).
#include <atomic>
#include <thread>

#include <pgas/pgas.hpp>

namespace {
std::atomic<bool> taken{false};
}

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::lock_t l = pgas::all_lock_alloc();
    pgas::barrier();
    if (pgas::mythread() == 0) {
      l.lock();  // @lock_barrier:held
      taken.store(true);
      pgas::barrier();  // @lock_barrier:barrier0
      l.unlock();
    } else if (pgas::mythread() == 1) {
      while (!taken.load())
        std::this_thread::yield();
      l.lock();  // @lock_barrier:wait
      l.unlock();
      pgas::barrier();
    } else {
      pgas::barrier();  // @lock_barrier:others
    }
  });
}
