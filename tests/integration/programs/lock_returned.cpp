// Integration program: thread 1 returns from its body holding a lock that the other threads
// then wait for. It can never be released, so the job must end with a report naming thread 1,
// where it locked the lock and where each waiter waits (the driver finds the lines by the
// @lock_returned markers below).
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::lock_t l = pgas::all_lock_alloc();  // @lock_returned:alloc
    if (pgas::mythread() == 1) l.lock();      // @lock_returned:held
    pgas::barrier();
    if (pgas::mythread() == 1) return;
    l.lock();  // @lock_returned:wait
    l.unlock();
  });
}
