// Integration program: a thread returns from its body while the others wait at a barrier it
// will never reach. Thread 1 returns at once; thread 0 waits at one barrier call and threads 2..
// at another, so the report must give each waiting thread's own file:line (the driver finds the
// lines by the @early_return markers below). Every thread first passes a common barrier, so a
// thread still leaving that one (released, but not yet running again) must not be reported as
// waiting there.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::barrier();  // @early_return:common
    if (pgas::mythread() == 1) return;
    if (pgas::mythread() == 0) {
      pgas::barrier();  // @early_return:thread0
    } else {
      pgas::barrier();  // @early_return:others
    }
  });
}
