// expect: conversion from '(pgas::)?sptr<int, ?3>' to non-scalar type '(pgas::)?sptr<int(, ?1)?>'
// Implicit conversion between block sizes: the phase would be lost silently (UPC allows it by
// assignment; pgas asks for an explicit cast).
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<int, 3> p3) {
  pgas::sptr<int, 1> q = p3;
  (void)q;
}
