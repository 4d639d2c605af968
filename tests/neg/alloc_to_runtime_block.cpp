// expect: conversion from '(pgas::)?shared_alloc' to non-scalar type '(pgas::)?sptr<int,
// ?18446744073709551615>' An allocation converts to a pointer with a compile-time block only: its
// nbytes need not be a block of T (a run-time-block pointer is made with from_parts(0, a.offset(),
// 0, block)).
#include <pgas/alloc.hpp>

void misuse(pgas::shared_alloc a) {
  pgas::sptr<int, pgas::dynamic_block> p = a;
  (void)p;
}
