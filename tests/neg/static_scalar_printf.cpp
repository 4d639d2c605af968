// expect: to pass its value \(to printf's arguments, to a function taking T by value\) write \*x
// UPC's `printf("%d\n", sum)` of a shared scalar, ported as written: printf's `...` would copy
// the pgas::static_scalar object, not read its value.
#include <cstdio>

#include <pgas/static_shared.hpp>

pgas::static_scalar<int> sum;

void misuse() {
  std::printf("%d\n", sum);
}
