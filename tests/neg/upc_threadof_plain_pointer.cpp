// expect: upc_threadof needs a pointer-to-shared
// upc_threadof(&A[i]) of a pgas array: &A[i] is the element's plain T*; write A.ptr(i).
#include <pgas/upc.hpp>

int misuse(pgas::shared_array<double>& a) {
  return upc_threadof(&a[3]);
}
