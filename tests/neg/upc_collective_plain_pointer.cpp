// expect: &A\[i\] is the element's plain T\*; pass A.ptr\(i\)
// UPC's `upc_all_broadcast(&dst[0], &src[0], …)` written with `&A[0]` of pgas arrays: those are
// the elements' plain pointers, not pointers-to-shared.
#include <pgas/upc.hpp>

void misuse(pgas::shared_array<int>& dst, pgas::shared_array<int>& src) {
  upc_all_broadcast(&dst[0], &src[0], sizeof(int), UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
}
