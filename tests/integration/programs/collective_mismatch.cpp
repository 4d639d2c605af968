// Integration program: a barrier meets a different collective operation.
// Thread 0 calls pgas::all_lock_alloc() while the other threads call pgas::barrier(); the two
// must not pair up silently: the job ends with status 1 naming the threads and both calls'
// file:line (the @collective_mismatch markers).
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    if (pgas::mythread() == 0) {
      pgas::lock_t l = pgas::all_lock_alloc();  // @collective_mismatch:alloc
      (void)l;
    } else {
      pgas::barrier();  // @collective_mismatch:barrier
    }
  });
}
