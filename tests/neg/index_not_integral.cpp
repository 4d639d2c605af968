// expect: no match for call to '\(pgas::shared_array<int(, 1)?>\) \(double\)'
// Indices are integers (a floating-point index would be truncated silently in C).
#include <pgas/shared_array.hpp>

void misuse(pgas::shared_array<int>& a) {
  a(1.5) = 0;
}
