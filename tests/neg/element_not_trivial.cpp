// expect: static assertion failed: shared data must be trivially copyable
// Shared elements are copied with memcpy and zero-initialised with memset: std::string is not
// trivially copyable.
#include <pgas/shared_array.hpp>

#include <string>

void misuse() {
  pgas::shared_array<std::string> a({10});
}
