// kernels/micro/sptr_loops.hpp — the traversals sptr_bench times: sums and fills through plain
// `int*`, pointers-to-shared (`++p; *p`, `p + k`) and 2-D `a(i, j)`.
//
// Each hot loop is its own non-inlined function so that its code can be found by name in
// `objdump -d` and read. Sums are unsigned (wrapping, no UB) and returned, so no loop can be
// dropped, and each is compared with the known sum of the values.
#pragma once

#include <cstddef>

#include <pgas/sptr.hpp>

namespace pgas::micro {

// The 2-D arrays are rows × cols: cols = 1024 makes cyclic 1024 "one row per block", the
// papers' layout, and cyclic 4096 four rows.
inline constexpr std::size_t cols = 1024;

/// Element i of every array, raw or shared, holds value_of(i): scattered values, so that
/// reading a wrong element almost surely changes the sum.
inline int value_of(std::size_t i) {
  return static_cast<int>(((i * 2654435761u) >> 13) & 0xffff);
}

[[gnu::noinline]] inline unsigned sum_raw(const int* p, std::size_t n) {
  unsigned s = 0;
  for (std::size_t i = 0; i < n; ++i)
    s += static_cast<unsigned>(p[i]);
  return s;
}

// One element per iteration, as a pointer-to-shared loop must go: the empty asm makes `s` a
// scalar the compiler cannot split into vector lanes, and costs no instruction.
[[gnu::noinline]] inline unsigned sum_raw_scalar(const int* p, std::size_t n) {
  unsigned s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s += static_cast<unsigned>(p[i]);
    asm("" : "+r"(s));
  }
  return s;
}

// The baseline of sum_sptr_add: every element once, `stride` apart (stride coprime with n),
// wrapping without a modulo.
[[gnu::noinline]] inline unsigned sum_raw_strided(const int* p, std::size_t n, std::size_t stride) {
  unsigned s = 0;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s += static_cast<unsigned>(p[k]);
    k += stride;
    if (k >= n) k -= n;
  }
  return s;
}

[[gnu::noinline]] inline void fill_raw(int* p, std::size_t n, int v) {
  for (std::size_t i = 0; i < n; ++i)
    p[i] = v;
}

template <std::size_t B>
[[gnu::noinline]] unsigned sum_sptr(pgas::sptr<int, B> p, std::size_t n) {
  unsigned s = 0;
  for (std::size_t i = 0; i < n; ++i, ++p)
    s += static_cast<unsigned>(*p);
  return s;
}

template <std::size_t B>
[[gnu::noinline]] unsigned sum_sptr_add(pgas::sptr<int, B> p0, std::size_t n, std::size_t stride) {
  unsigned s = 0;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s += static_cast<unsigned>(*(p0 + static_cast<std::ptrdiff_t>(k)));
    k += stride;
    if (k >= n) k -= n;
  }
  return s;
}

template <std::size_t B>
[[gnu::noinline]] void fill_sptr(pgas::sptr<int, B> p, std::size_t n, int v) {
  for (std::size_t i = 0; i < n; ++i, ++p)
    *p = v;
}

// `a` is a shared array or a privatization table, rows × cols.
template <class Array>
[[gnu::noinline]] unsigned sum_2d(const Array& a, std::size_t rows) {
  unsigned s = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j)
      s += static_cast<unsigned>(a(i, j));
  }
  return s;
}

}  // namespace pgas::micro
