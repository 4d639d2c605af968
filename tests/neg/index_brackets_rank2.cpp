// expect: no match for 'operator\[\]'.*shared_array<int, 2>
// A[i] is for one-dimensional arrays; A(i, j) indexes the others.
#include <pgas/shared_array.hpp>

void misuse(pgas::shared_array<int, 2>& a) {
  a[1] = 0;
}
