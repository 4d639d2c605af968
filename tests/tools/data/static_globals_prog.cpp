// A program with pgas static shared objects and one plain global, for `pgasrun --check-globals`
// built without debug information (tests/unit/tools/meson.build builds it at -O0 and -O2 with
// -g0): the static shared objects are shared on purpose and must not be listed, the plain global
// must be.
#include <pgas/pgas.hpp>

pgas::static_array<int> hist({64});          // shared data: not listed
pgas::static_array<double, 2> grid({8, 8});  // shared data: not listed
pgas::static_scalar<long> total;             // shared data: not listed
pgas::static_scalar<pgas::sptr<int>> head;   // shared data: not listed
int plain_counter;                           // listed

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int, char**) {
    hist(static_cast<std::size_t>(pgas::mythread())) = 1;
    grid(0, 0) = 2.0;
    *total = 3;
    ++plain_counter;
    pgas::barrier();
    return 0;
  });
}
