// expect: conversion from 'int\*' to non-scalar type '(pgas::)?sptr<int(, ?1)?>' requested
// A plain pointer is not a pointer-to-shared (it carries no thread); use pgas::sptr_from.
#include <pgas/sptr.hpp>

void misuse(int* x) {
  pgas::sptr<int> p = x;
  (void)p;
}
