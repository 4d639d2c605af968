// Integration program: long waits for locks that are not deadlocks, so the job must succeed.
// (1) Thread 0 holds a lock for 1.5 s, running, while every other thread waits for it.
// (2) Thread 1 waits for a lock held by thread 0 at a barrier, but thread 1 has already
//     arrived at that barrier (notify before the lock); the others arrive 0.4 s later.
// Exits 3 if an increment made under the lock was lost.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <pgas/pgas.hpp>

namespace {
std::atomic<int> phase{0};
long counter = 0;
}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    const int me = pgas::mythread();
    pgas::lock_t l = pgas::all_lock_alloc();
    pgas::barrier();
    if (me == 0) {
      l.lock();
      phase.store(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      ++counter;
      l.unlock();
    } else {
      while (phase.load() < 1)
        std::this_thread::yield();
      l.lock();
      ++counter;
      l.unlock();
    }
    pgas::barrier();
    if (me == 0) {
      l.lock();
      phase.store(2);
      pgas::barrier();
      l.unlock();
    } else if (me == 1) {
      pgas::notify();
      while (phase.load() < 2)
        std::this_thread::yield();
      l.lock();
      l.unlock();
      pgas::wait();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      pgas::barrier();
    }
    int status = 0;
    if (me == 0 && counter != pgas::threads()) {
      std::printf("counter=%ld expected=%d\n", counter, pgas::threads());
      status = 3;
    }
    pgas::barrier();
    pgas::all_lock_free(l);
    return status;
  });
}
