// expect: no matching function for call to .*fetch_add
// An atomic_domain<long> operates on longs: a pointer-to-shared int is not its target (nor is
// a temporary or a const element; see control.cpp for the targets it takes).
#include <pgas/atomic.hpp>

long misuse(const pgas::atomic_domain<long>& d, pgas::sptr<int> p) {
  return d.fetch_add(p, 1);
}
