// Integration program: a job thread calls the C library's exit() or quick_exit() while the job
// runs. Usage: libc_exit exit|quick_exit THREAD STATUS. Every thread prints a line (left in
// stdio's buffer when stdout is a pipe) and meets a barrier; THREAD then calls exit(STATUS) or
// quick_exit(STATUS) while the others wait at a second barrier. The runtime must name THREAD,
// and the printed lines must survive. The program has static shared data, whose destructor (a
// collective free) must not run while the other threads wait.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pgas/pgas.hpp>

pgas::static_array<int> touched(pgas::per_thread(4));

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    if (ac != 4) return 2;
    const bool quick = std::strcmp(av[1], "quick_exit") == 0;
    const int caller = std::atoi(av[2]);
    const int status = std::atoi(av[3]);
    touched[pgas::mythread()] = 1;
    std::printf("thread %d printed before the exit\n", pgas::mythread());
    pgas::barrier();
    if (pgas::mythread() == caller) {
      if (quick) std::quick_exit(status);
      std::exit(status);
    }
    pgas::barrier();
    return 0;
  });
}
