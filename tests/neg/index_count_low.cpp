// expect: no match for call to '\(pgas::shared_array<int, 2>\) \(int\)'
// Fewer indices than the array's rank.
#include <pgas/shared_array.hpp>

void misuse(pgas::shared_array<int, 2>& a) {
  a(1) = 0;
}
