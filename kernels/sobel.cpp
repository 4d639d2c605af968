// kernels/sobel.cpp — Sobel edge detection (Serres et al. V.B, Table I): out[i][j] = min(255,
// |Gx| + |Gy|) over a size × size 8-bit image, out of place, border pixels 0.
// One binary runs every variant of the kernel contract (kernels/harness.hpp): seq and openmp
// on plain vectors; naive (every pixel through a pointer-to-shared), privatized (own band
// through plain pointers, the neighbour rows through pointers-to-shared), tables (row
// pointers from pgas::privatize) and auto (A(i, j)) on row-band shared arrays.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

using pgas::kernels::kernel_args;
using u8 = std::uint8_t;
using image = pgas::shared_array<u8, 2>;
using shared_in = pgas::sptr<const u8, pgas::dynamic_block>;
using shared_out = pgas::sptr<u8, pgas::dynamic_block>;

// --- the formula, shared by every variant ------------------------------------------------

// Three neighbouring pixels of one row: left, centre, right.
struct triple {
  int l, c, r;
};

// Gx = [[-1,0,1],[-2,0,2],[-1,0,1]], Gy = [[-1,-2,-1],[0,0,0],[1,2,1]] at a pixel whose rows
// above, at and below it are u, m, d (m.c has weight 0 in both).
inline u8 sobel(triple u, triple m, triple d) {
  const int gx = (u.r - u.l) + 2 * (m.r - m.l) + (d.r - d.l);
  const int gy = (d.l + 2 * d.c + d.r) - (u.l + 2 * u.c + u.r);
  return static_cast<u8>(std::min(255, std::abs(gx) + std::abs(gy)));
}

// A row read through plain pointers: the three pixels at p.
inline triple read3(const u8* p) {
  return {p[0], p[1], p[2]};
}
inline void step(const u8*& p) {
  ++p;
}

// A row read the way a UPC compiler emits in[i][j-1], in[i][j], in[i][j+1] after strength
// reduction: a pointer-to-shared per column offset, each dereferenced for its access (a mask
// and an add off the shared base) and advanced with the block-cyclic `++`. Stepping shifts the
// three along (the next pixel's left pointer is this one's centre), so there is one `++` per
// row and pixel; nothing is privatised and no pixel value is kept from one pixel to the next.
struct shared_row {
  shared_in l, c, r;
  explicit shared_row(shared_in p) : l(p), c(p), r(p) {
    ++c;
    ++r;
    ++r;
  }
};
inline triple read3(const shared_row& p) {
  return {*p.l, *p.c, *p.r};
}
inline void step(shared_row& p) {
  p.l = p.c;
  p.c = p.r;
  ++p.r;
}

// One interior output row from its three input rows (each read as above, from column 0);
// `out` is column 0 of the output row, a plain pointer or a pointer-to-shared. Every variant
// but auto runs this loop, so seq, openmp, tables and privatized run the same vector code.
void sobel_row(auto up, auto mid, auto down, auto out, std::size_t n) {
  *out = 0;
  ++out;
  for (std::size_t j = 1; j + 1 < n; ++j) {
    *out = sobel(read3(up), read3(mid), read3(down));
    step(up);
    step(mid);
    step(down);
    ++out;
  }
  *out = 0;
}

void zero_row(auto out, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j, ++out)
    *out = 0;
}

// --- the image and the check -------------------------------------------------------------

// A fine XOR texture (edges everywhere, all grey levels) under flat rectangles with long
// straight edges, placed in eighths of the size.
u8 input_pixel(std::size_t i, std::size_t j, std::size_t n) {
  struct rect {
    std::size_t top, left, bottom, right;
    u8 grey;
  };
  static constexpr rect rects[] = {
      {1, 1, 3, 5, 255}, {4, 2, 7, 3, 200}, {5, 5, 7, 7, 0}, {2, 6, 4, 8, 240}};
  for (const rect& r : rects) {
    if (8 * i >= r.top * n && 8 * i < r.bottom * n && 8 * j >= r.left * n && 8 * j < r.right * n)
      return r.grey;
  }
  return static_cast<u8>(((i * 7) ^ (j * 13)) & 0xff);
}

pgas::kernels::plain_vector<u8> input_image(std::size_t n) {
  pgas::kernels::plain_vector<u8> in(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      in[i * n + j] = input_pixel(i, j, n);
  }
  return in;
}

// The expected output, computed apart from every variant: the two kernels as matrices,
// convolved element by element.
std::vector<u8> reference(std::size_t n) {
  static constexpr int gx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
  static constexpr int gy[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
  const auto in = input_image(n);
  std::vector<u8> out(n * n, 0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    for (std::size_t j = 1; j + 1 < n; ++j) {
      int sx = 0, sy = 0;
      for (std::size_t a = 0; a < 3; ++a) {
        for (std::size_t b = 0; b < 3; ++b) {
          const int v = in[(i + a - 1) * n + (j + b - 1)];
          sx += gx[a][b] * v;
          sy += gy[a][b] * v;
        }
      }
      out[i * n + j] = static_cast<u8>(std::min(255, std::abs(sx) + std::abs(sy)));
    }
  }
  return out;
}

nlohmann::ordered_json extra_fields(const kernel_args& a, const pgas::kernels::timing& t) {
  const double pixels = static_cast<double>(a.size) * static_cast<double>(a.size);
  return {{"mpixels_per_s", t.median > 0 ? pixels / t.median * 1e-6 : 0.0}};
}

// --- seq and openmp: plain vectors --------------------------------------------------------

void plain_row(const u8* in, u8* out, std::size_t n, std::size_t i) {
  u8* const o = out + i * n;
  if (i == 0 || i == n - 1) {
    zero_row(o, n);
  } else {
    sobel_row(in + (i - 1) * n, in + i * n, in + (i + 1) * n, o, n);
  }
}

int run_seq(const kernel_args& a) {
  const std::size_t n = a.size;
  const auto in = input_image(n);
  pgas::kernels::plain_vector<u8> out(n * n);
  const auto t = pgas::kernels::time_reps(a.reps, [&] {
    for (std::size_t i = 0; i < n; ++i)
      plain_row(in.data(), out.data(), n, i);
  });
  return pgas::kernels::print_result(a, 1, t, std::ranges::equal(out, reference(n)),
                                     extra_fields(a, t));
}

int run_openmp(const kernel_args& a) {
  const std::size_t n = a.size;
  const int nt = pgas::kernels::openmp_threads();
  pgas::kernels::plain_vector<u8> in(n * n), out(n * n);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {  // first touch by the thread that computes the row
    for (std::size_t j = 0; j < n; ++j)
      in[i * n + j] = input_pixel(i, j, n);
  }
  const auto t = pgas::kernels::time_reps(a.reps, [&] {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::size_t i = 0; i < n; ++i)
      plain_row(in.data(), out.data(), n, i);
  });
  return pgas::kernels::print_result(a, nt, t, std::ranges::equal(out, reference(n)),
                                     extra_fields(a, t));
}

// --- the PGAS variants: row bands of shared arrays ----------------------------------------

// Thread t owns image rows [t*R, (t+1)*R), R = ceil(size / THREADS): the paper's
// `shared [R*size] uint8_t img[size][size]`, one block per thread, whatever its size.
class bands {
 public:
  bands(std::size_t size, int threads) : n_(size), per_thread_((size + threads - 1) / threads) {}

  std::size_t per_thread() const { return per_thread_; }
  std::size_t per_block() const { return per_thread_; }
  std::size_t lo(int t) const { return std::min(n_, static_cast<std::size_t>(t) * per_thread_); }
  std::size_t hi(int t) const { return std::min(n_, lo(t) + per_thread_); }

 private:
  std::size_t n_, per_thread_;
};

// auto: the UPC source as written, out[i][j] = f(in[i-1][j-1], …), indexing the arrays as A(i, j)
// does, through their views (pgas::with_views). The loop stores bytes, which may alias anything:
// through the arrays themselves the compiler reloads their row tables at every pixel and the
// loop stays scalar (about 19× seq); a view's row table is restrict, and the loop vectorises.
void sobel_auto(auto In, auto Out, std::size_t lo, std::size_t hi, std::size_t n) {
  for (std::size_t i = lo; i < hi; ++i) {
    if (i == 0 || i == n - 1) {
      for (std::size_t j = 0; j < n; ++j)
        Out(i, j) = 0;
      continue;
    }
    Out(i, 0) = 0;
    for (std::size_t j = 1; j + 1 < n; ++j) {
      Out(i, j) = sobel({In(i - 1, j - 1), In(i - 1, j), In(i - 1, j + 1)},
                        {In(i, j - 1), In(i, j), In(i, j + 1)},
                        {In(i + 1, j - 1), In(i + 1, j), In(i + 1, j + 1)});
    }
    Out(i, n - 1) = 0;
  }
}

int job(const kernel_args& a) {
  const std::size_t n = a.size;
  const bands b(n, pgas::threads());
  const int me = pgas::mythread();
  const std::size_t lo = b.lo(me), hi = b.hi(me);
  const image In({n, n}, pgas::block_spec::cyclic(b.per_block() * n));
  const image Out({n, n}, pgas::block_spec::cyclic(b.per_block() * n));
  u8* const in_mine = In.local_part().data();  // my image row i at (i - lo) * n
  u8* const out_mine = Out.local_part().data();
  for (std::size_t i = lo; i < hi; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      in_mine[(i - lo) * n + j] = input_pixel(i, j, n);
  }
  pgas::barrier();

  std::function<void()> once;
  pgas::table<u8, 2> tin, tout;
  if (a.variant == "naive") {
    once = [&] {
      for (std::size_t i = lo; i < hi; ++i) {
        const shared_out o = Out.ptr(i, 0);
        if (i == 0 || i == n - 1) {
          zero_row(o, n);
        } else {
          sobel_row(shared_row(In.ptr(i - 1, 0)), shared_row(In.ptr(i, 0)),
                    shared_row(In.ptr(i + 1, 0)), o, n);
        }
      }
    };
  } else if (a.variant == "privatized") {
    // The paper: "a private pointer is used except for the first and the last row for which
    // a shared pointer is used" — rows lo - 1 and hi belong to the neighbouring threads.
    const auto mine = [&](std::size_t i) -> const u8* { return in_mine + (i - lo) * n; };
    const auto theirs = [&](std::size_t i) { return shared_row(In.ptr(i, 0)); };
    // mine and theirs end with this block: the loop keeps copies of them.
    once = [&, mine, theirs] {
      for (std::size_t i = lo; i < hi; ++i) {
        u8* const o = out_mine + (i - lo) * n;
        const bool up_mine = i > lo, down_mine = i + 1 < hi;
        if (i == 0 || i == n - 1) {
          zero_row(o, n);
        } else if (up_mine && down_mine) {
          sobel_row(mine(i - 1), mine(i), mine(i + 1), o, n);
        } else if (down_mine) {
          sobel_row(theirs(i - 1), mine(i), mine(i + 1), o, n);
        } else if (up_mine) {
          sobel_row(mine(i - 1), mine(i), theirs(i + 1), o, n);
        } else {
          sobel_row(theirs(i - 1), mine(i), theirs(i + 1), o, n);
        }
      }
    };
  } else if (a.variant == "tables") {
    tin = pgas::privatize(In);
    tout = pgas::privatize(Out);
    once = [&] {
      for (std::size_t i = lo; i < hi; ++i) {
        u8* const o = tout.row(i);
        if (i == 0 || i == n - 1) {
          zero_row(o, n);
        } else {
          const u8 *up = tin.row(i - 1), *mid = tin.row(i), *down = tin.row(i + 1);
          sobel_row(up, mid, down, o, n);
        }
      }
    };
  } else {  // auto
    once = [&] {
      In.visit([&](auto in) { Out.visit([&](auto out) { sobel_auto(in, out, lo, hi, n); }); });
    };
  }

  const auto t = pgas::kernels::time_reps(a.reps, once, [] { pgas::barrier(); });
  if (me != 0) return 0;
  const std::vector<u8> want = reference(n);
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j)
      ok = ok && Out(i, j) == want[i * n + j];
  }
  nlohmann::ordered_json extra = extra_fields(a, t);
  extra["rows_per_thread"] = b.per_thread();
  extra["rows_per_block"] = b.per_block();
  if (a.variant == "auto") extra["uses_table"] = In.uses_table() && Out.uses_table();
  return pgas::kernels::print_result(a, pgas::threads(), t, ok, extra);
}

}  // namespace

int main(int argc, char** argv) {
  const kernel_args a = pgas::kernels::parse_kernel_args(
      argc, argv, "sobel", "Sobel edge detection on a size x size 8-bit image (Serres et al. V.B).",
      1024, 3);
  if (a.variant == "seq") return run_seq(a);
  if (a.variant == "openmp") return run_openmp(a);
  return pgas::run(argc, argv, [&a] { return job(a); });
}
