// A second file of the program tests/tools/data/static_globals_prog.cpp: its dynamic
// initialisation keeps several objects' addresses in registers across the constructor calls
// (g++ -O2 loads __dso_handle and the next object between an address and its call), and an
// extent given as a function of THREADS. The static shared objects are not listed, the plain
// global is.
#include <pgas/pgas.hpp>

pgas::static_scalar<int> other_total;
pgas::static_array<int> odd([](int threads) { return 2 * threads + 1; });
struct holder {
  static pgas::static_scalar<int> member;
};
pgas::static_scalar<int> holder::member;
int other_plain = 3;
