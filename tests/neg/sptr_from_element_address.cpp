// expect: for UPC's &p\[i\] write p \+ i
// UPC's `(shared int *)&p[i]` of a pointer-to-shared p, ported as a cast of `&p[i]`: p[i] is the
// element itself, so its address is a plain int*, which carries no thread.
#include <pgas/sptr.hpp>

pgas::sptr<int> misuse(pgas::sptr<int> p, int i) {
  return pgas::sptr<int>(&p[i]);
}
