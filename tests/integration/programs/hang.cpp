// Integration program: a job that hangs in its own code, for the timeout and SIGQUIT reports.
// Every thread prints a line (left in stdio's buffer when stdout is a pipe) and meets a barrier;
// then the last thread (of two or more) waits at a barrier the others never reach, and every
// other thread spins forever in spin_forever(). Thread 0 writes "hang: spinning" on stderr as
// it starts to spin, so a driver knows when to send SIGQUIT. The report must name each thread,
// show spin_forever by name and give the waiting thread's line (marked below).
#include <atomic>
#include <cstdio>

#include <pgas/pgas.hpp>

namespace {

std::atomic<bool> never{false};

[[gnu::noinline]] void spin_forever(int thread) {
  if (thread == 0) std::fputs("hang: spinning\n", stderr);
  while (!never.load(std::memory_order_relaxed)) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    const int me = pgas::mythread();
    std::printf("thread %d printed before hanging\n", me);
    pgas::barrier();
    if (me == pgas::threads() - 1 && me != 0) {
      pgas::barrier();  // @hang:wait
    } else {
      spin_forever(me);
    }
  });
}
