// expect: no match for 'operator\+'.*sptr<void
// Arithmetic on the generic pointer-to-shared (UPC `shared void *`): it has no element size or
// block size to step by. Cast to a typed pointer first (control.cpp).
#include <pgas/sptr.hpp>

pgas::sptr<void> misuse(pgas::sptr<void> g) {
  return g + 1;
}
