// Integration program: threads 0 and 1 take two locks in opposite orders (A then B, B then A)
// and deadlock; the other threads wait at a barrier the two never reach. The job must end with
// a report of the cycle: each thread, the lock it waits for and where, and where its holder
// took it (the driver finds the lines by the @lock_cycle markers below).
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::lock_t a = pgas::all_lock_alloc();
    pgas::lock_t b = pgas::all_lock_alloc();
    if (pgas::mythread() == 0) a.lock();  // @lock_cycle:hold_a
    if (pgas::mythread() == 1) b.lock();  // @lock_cycle:hold_b
    pgas::barrier();
    if (pgas::mythread() == 0) b.lock();  // @lock_cycle:wait_b
    if (pgas::mythread() == 1) a.lock();  // @lock_cycle:wait_a
    pgas::barrier();                      // @lock_cycle:barrier
  });
}
