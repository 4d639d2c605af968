// Integration program: a job thread calls the C library's exit() or quick_exit() while the job
// runs. Usage: libc_exit exit|quick_exit THREAD STATUS [FILE]. Every thread prints a line (left
// in stdio's buffer when stdout is a pipe) and meets a barrier; THREAD then writes a line to
// FILE through fopen (left in its buffer, never closed), when given, and calls exit(STATUS) or
// quick_exit(STATUS) while the others wait at a second barrier. The runtime must name THREAD,
// and the printed lines must survive (the file's after exit()). The program has static shared
// data, whose destructor (a collective free) must not run while the other threads wait.
// `libc_exit notify_return THREAD 0`: THREAD returns from its body between pgas::notify() and
// pgas::wait() (@libc_exit:notify), which must be named as such despite the static data.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pgas/pgas.hpp>

pgas::static_array<int> touched(pgas::per_thread(4));

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    if (ac != 4 && ac != 5) return 2;
    const bool quick = std::strcmp(av[1], "quick_exit") == 0;
    const int caller = std::atoi(av[2]);
    const int status = std::atoi(av[3]);
    touched[pgas::mythread()] = 1;
    if (std::strcmp(av[1], "notify_return") == 0) {
      pgas::barrier();
      if (pgas::mythread() == caller) {
        pgas::notify();  // @libc_exit:notify
        return 0;
      }
      pgas::barrier();
      return 0;
    }
    std::printf("thread %d printed before the exit\n", pgas::mythread());
    pgas::barrier();
    if (pgas::mythread() == caller) {
      if (ac == 5) {
        std::FILE* f = std::fopen(av[4], "w");
        if (f == nullptr) return 3;
        std::fprintf(f, "written before the exit\n");
      }
      if (quick) std::quick_exit(status);
      std::exit(status);
    }
    pgas::barrier();
    return 0;
  });
}
