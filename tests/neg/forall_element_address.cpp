// expect: a plain pointer is not an affinity
// UPC's `upc_forall (i = 0; i < n; i++; &A[i])` ported with the array element's address as the
// affinity itself: `&A[0]` of a pgas array is a plain T*, which names no thread.
#include <pgas/forall.hpp>
#include <pgas/shared_array.hpp>

void misuse(pgas::shared_array<double>& a, int n) {
  pgas::forall(0, n, &a[0], [&](int i) { a[i] = 0; });
}
