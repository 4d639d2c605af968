// expect: no match for 'operator\*'.*sptr<void
// Dereferencing the generic pointer-to-shared (there is no `void` object to refer to).
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<void> g) {
  (void)*g;
}
