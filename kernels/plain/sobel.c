/* kernels/plain/sobel.c — the plain C baseline of kernels/sobel.cpp: out[i][j] = min(255,
 * |Gx| + |Gy|) over a size × size 8-bit image, out of place, border pixels 0, the loop a C
 * programmer writes. Same image as the kernel; the output checked against the two 3 × 3 masks
 * applied as matrices. */
#include "plain.h"

#include <stdint.h>

static uint8_t input_pixel(size_t i, size_t j, size_t n) {
  static const size_t rects[4][4] = {{1, 1, 3, 5}, {4, 2, 7, 3}, {5, 5, 7, 7}, {2, 6, 4, 8}};
  static const uint8_t grey[4] = {255, 200, 0, 240};
  for (int r = 0; r < 4; ++r) {
    if (8 * i >= rects[r][0] * n && 8 * i < rects[r][2] * n && 8 * j >= rects[r][1] * n &&
        8 * j < rects[r][3] * n)
      return grey[r];
  }
  return (uint8_t)(((i * 7) ^ (j * 13)) & 0xff);
}

static void sobel(const uint8_t* restrict in, uint8_t* restrict out, size_t n) {
  memset(out, 0, n);
  for (size_t i = 1; i + 1 < n; ++i) {
    const uint8_t* u = in + (i - 1) * n;
    const uint8_t* m = in + i * n;
    const uint8_t* d = in + (i + 1) * n;
    uint8_t* o = out + i * n;
    o[0] = 0;
    for (size_t j = 1; j + 1 < n; ++j) {
      const int gx = (u[j + 1] - u[j - 1]) + 2 * (m[j + 1] - m[j - 1]) + (d[j + 1] - d[j - 1]);
      const int gy = (d[j - 1] + 2 * d[j] + d[j + 1]) - (u[j - 1] + 2 * u[j] + u[j + 1]);
      const int g = abs(gx) + abs(gy);
      o[j] = (uint8_t)(g < 255 ? g : 255);
    }
    o[n - 1] = 0;
  }
  memset(out + (n - 1) * n, 0, n);
}

int main(int argc, char** argv) {
  const struct plain_args args = plain_parse(argc, argv, "sobel", 1024, 3);
  const size_t n = args.size;
  uint8_t* in = plain_alloc(n * n);
  uint8_t* out = plain_alloc(n * n);
  double* s = plain_alloc((size_t)args.reps * sizeof(double));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j)
      in[i * n + j] = input_pixel(i, j, n);
  }
  sobel(in, out, n);
  for (int r = 0; r < args.reps; ++r) {
    const double t0 = plain_now();
    sobel(in, out, n);
    s[r] = plain_now() - t0;
  }
  static const int gx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
  static const int gy[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
  int ok = 1;
  for (size_t i = 0; i < n && ok; ++i) {
    for (size_t j = 0; j < n && ok; ++j) {
      int want = 0;
      if (i > 0 && j > 0 && i + 1 < n && j + 1 < n) {
        int sx = 0, sy = 0;
        for (int p = 0; p < 3; ++p) {
          for (int q = 0; q < 3; ++q) {
            const int v = in[(i + (size_t)p - 1) * n + (j + (size_t)q - 1)];
            sx += gx[p][q] * v;
            sy += gy[p][q] * v;
          }
        }
        want = abs(sx) + abs(sy) < 255 ? abs(sx) + abs(sy) : 255;
      }
      ok = out[i * n + j] == want;
    }
  }
  char extra[64];
  snprintf(extra, sizeof extra, "\"mpixels_per_s\":%.6g",
           (double)n * (double)n / plain_median(s, args.reps) * 1e-6);
  return plain_report(&args, s, ok, extra);
}
