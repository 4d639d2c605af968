// expect: cannot convert '(pgas::)?sptr<int(, ?1)?>' to 'int\*'
// Leaving the shared space is explicit (static_cast, p.get(), pgas::to_local).
#include <pgas/sptr.hpp>

int* misuse(pgas::sptr<int> p) {
  int* x = p;
  return x;
}
