// Integration program: a lock from all_lock_alloc() gives mutual exclusion through
// std::lock_guard. Every thread adds 1 to a plain (non-atomic) shared counter 10000 times under
// the lock; thread 0 checks the total after a barrier and the job fails with status 3 if any
// increment was lost, or 4 if the threads did not all get the same lock.
#include <cstdio>
#include <mutex>

#include <pgas/pgas.hpp>

namespace {
constexpr long increments = 10000;
long counter = 0;
pgas::lock_t first_handle;
}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::lock_t l = pgas::all_lock_alloc();
    if (pgas::mythread() == 0) first_handle = l;
    pgas::barrier();
    if (l != first_handle) {
      std::fprintf(stderr, "thread %d got a different lock handle\n", pgas::mythread());
      return 4;
    }
    for (long i = 0; i < increments; ++i) {
      std::lock_guard guard(l);
      ++counter;
    }
    pgas::barrier();
    int status = 0;
    if (pgas::mythread() == 0) {
      const long expected = increments * pgas::threads();
      std::printf("counter=%ld expected=%ld\n", counter, expected);
      if (counter != expected) status = 3;
    }
    pgas::barrier();
    pgas::all_lock_free(l);
    return status;
  });
}
