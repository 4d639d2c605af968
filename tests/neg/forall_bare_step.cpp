// expect: no matching function for call to 'forall\(int, int&?, int,
// A bare integer is neither a step nor an affinity (UPC's `upc_forall (…; 2)` puts every
// iteration on thread 2: write pgas::step(2) for i += 2, or [](int) { return 2; }).
#include <pgas/forall.hpp>

void misuse(int n) {
  pgas::forall(0, n, 2, [](int) {});
}
