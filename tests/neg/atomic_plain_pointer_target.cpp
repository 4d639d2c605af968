// expect: the target is a plain pointer: in pgas, &A\[i\] is the element's plain T\*
// UPC's upc_atomic on &A[i], ported as is: &A[i] is the element's plain long*, which an
// atomic_domain<long> operation stops with a hint (A.ptr(i), or the element A[i] itself).
#include <pgas/atomic.hpp>
#include <pgas/shared_array.hpp>

long misuse(const pgas::atomic_domain<long>& d, const pgas::shared_array<long>& a) {
  return d.fetch_add(&a[3], 1);
}
