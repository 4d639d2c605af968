// A user's first program, built by tests/tools/install_test.sh against an installed pgas.
#include <cstdio>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::barrier();
    std::printf("hello from thread %d of %d\n", pgas::mythread(), pgas::threads());
  });
}
