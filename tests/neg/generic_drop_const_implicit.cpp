// expect: conversion from '(pgas::)?sptr<const void(, ?1)?>' to non-scalar type
// '(pgas::)?sptr<int(, ?1)?>' The generic pointer converts implicitly to a typed one (UPC's
// assignment of a shared void *), but not when that drops const (explicit: pgas::sptr<int>(g)).
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<const void> g) {
  pgas::sptr<int> p = g;
  (void)p;
}
