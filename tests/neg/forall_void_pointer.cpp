// expect: has no element type, so it has no p \+ i
// A shared void * (pgas::sptr<void>) as a forall affinity: p + i needs an element type.
#include <pgas/forall.hpp>

void misuse(pgas::sptr<void> p) {
  pgas::forall(0, 100, pgas::step(2), p, [](int) {});
}
