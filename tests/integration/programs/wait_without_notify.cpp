// Integration program: wait() without a preceding notify() is misuse.
// Thread 1 calls pgas::wait() (the line with the marker) while the other threads do a
// correct notify()/wait() pair; the job must end with status 1 naming thread 1 and the line.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::barrier();
    if (pgas::mythread() == 1) {
      pgas::wait();  // @wait_without_notify
    } else {
      pgas::notify();
      pgas::wait();
    }
  });
}
