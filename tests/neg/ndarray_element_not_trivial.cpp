// expect: the element type must be trivially copyable
// An ndarray of a type that is not trivially copyable.
#include <pgas/ndarray.hpp>

#include <string>

pgas::ndarray<std::string, 1>* misuse() {
  static pgas::ndarray<std::string, 1> a;
  return &a;
}
