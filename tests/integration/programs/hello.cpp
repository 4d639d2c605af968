// Integration program: the smallest job. Every thread prints "hello from thread T of N" and
// meets one barrier; thread 0 first echoes argc/argv so that the driver can check that pgasrun
// passes the program's own arguments through untouched (even ones that look like its options).
#include <cstdio>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    if (pgas::mythread() == 0) {
      std::printf("argc=%d\n", ac);
      for (int i = 1; i < ac; ++i)
        std::printf("argv[%d]=%s\n", i, av[i]);
    }
    pgas::barrier();
    std::printf("hello from thread %d of %d\n", pgas::mythread(), pgas::threads());
    pgas::barrier();
    return 0;
  });
}
