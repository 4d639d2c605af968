// empty — the smallest pgas program: every thread runs a body that returns at once.
//
// It measures what starting a job costs (`time pgasrun -n 2 build/kernels/micro/empty`): reading
// the environment, loading the topology, reserving the shared space, creating and binding threads.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int, char**) { return 0; });
}
