// expect: no match for call to '\(pgas::shared_array<int, 2>\) \(int, int, int\)'
// More indices than the array's rank.
#include <pgas/shared_array.hpp>

void misuse(pgas::shared_array<int, 2>& a) {
  a(1, 2, 3) = 0;
}
