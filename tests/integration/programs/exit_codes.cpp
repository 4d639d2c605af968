// Integration program: the job's exit status is made of the threads' return values.
// Usage: exit_codes [THREAD CODE]... — each named thread returns its CODE, every other thread
// returns 0, all after a common barrier. The job must exit with the first non-zero code in
// thread order.
#include <cstdlib>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    int code = 0;
    for (int i = 1; i + 1 < ac; i += 2) {
      if (std::atoi(av[i]) == pgas::mythread()) code = std::atoi(av[i + 1]);
    }
    pgas::barrier();
    return code;
  });
}
