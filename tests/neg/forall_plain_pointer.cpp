// expect: for UPC's &A\[i\] write A.ptr\(i\)
// UPC's `upc_forall (…; &A[i])` written with `&A[i]` of a pgas array: that is the element's
// plain T*, which names no thread; the affinity must be the pointer-to-shared A.ptr(i).
#include <pgas/forall.hpp>
#include <pgas/shared_array.hpp>

void misuse(pgas::shared_array<double>& a, int n) {
  pgas::forall(
      0, n, [&](int i) { return &a[i]; }, [&](int i) { a[i] = 0; });
}
