// expect: could not convert 'c' from '(pgas::)?sptr<const int, ?4>' to '(pgas::)?sptr<void(, ?1)?>'
// Writing through a pointer to const shared data with pgas::memput.
#include <pgas/bulk.hpp>

void misuse(pgas::sptr<const int, 4> c, const int* x) {
  pgas::memput(c, x, sizeof(int));
}
