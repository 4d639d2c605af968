// expect: conversion from '(pgas::)?sptr<int, ?4>' to non-scalar type '(pgas::)?sptr<float, ?4>'
// Implicit conversion to another element type (explicit: pgas::sptr_cast<float, 4>(p)).
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<int, 4> p) {
  pgas::sptr<float, 4> q = p;
  (void)q;
}
