// Integration program: a job that hangs in its own code, for the timeout and SIGQUIT reports.
// Every thread prints a line (left in stdio's buffer when stdout is a pipe) and meets a barrier;
// then the last thread (of two or more) waits at a barrier the others never reach, and every
// other thread spins forever in spin_forever(). Thread 0 writes "hang: spinning" on stderr, so
// a driver knows when to send SIGQUIT, once every spinning thread has begun to spin and the last
// thread is about to wait, and after sleeping 100 ms: the spinners may fill every PU, and the
// sleep leaves one to that thread to reach its barrier (else the report can find it still
// leaving the first). The report must name each thread, show spin_forever by name and give the
// waiting thread's line (marked below). With the argument "deaf", the spinning threads other
// than 0 block every signal first, so they never answer the report's request for their
// backtraces.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include <pgas/pgas.hpp>

namespace {

std::atomic<bool> never{false};
std::atomic<int> spinning{0};
std::atomic<bool> last_waits{false};

[[gnu::noinline]] void spin_forever(int thread, int spinners) {
  spinning.fetch_add(1);
  if (thread == 0) {
    // With two or more threads, the last one waits instead of spinning.
    while (spinning.load() < spinners || (pgas::threads() > 1 && !last_waits.load())) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::fputs("hang: spinning\n", stderr);
  }
  while (!never.load(std::memory_order_relaxed)) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool deaf = argc > 1 && std::strcmp(argv[1], "deaf") == 0;
  return pgas::run(argc, argv, [deaf] {
    const int me = pgas::mythread();
    std::printf("thread %d printed before hanging\n", me);
    pgas::barrier();
    const int spinners = pgas::threads() == 1 ? 1 : pgas::threads() - 1;
    if (me == pgas::threads() - 1 && me != 0) {
      last_waits.store(true);
      pgas::barrier();  // @hang:wait
    } else {
      if (deaf && me != 0) {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, nullptr);
      }
      spin_forever(me, spinners);
    }
  });
}
