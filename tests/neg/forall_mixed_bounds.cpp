// expect: lo and hi must have the same integer type
// upc_forall (int i = 0; i < n; …) with a long n ported as is: the bounds 0 and n have two
// types, and the loop index must have one (write 0L).
#include <pgas/forall.hpp>
#include <pgas/shared_array.hpp>

void misuse(long n, const pgas::shared_array<int>& a) {
  pgas::forall(0, n, a, [](long) {});
}
