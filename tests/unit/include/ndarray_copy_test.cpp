// Tests pgas/ndarray_copy.hpp — copy, copy_nb, exchange and fill_ghosts — in jobs of 1 to 3
// threads: random views (constricted with strides, translated, permuted, injected, sliced) of
// other threads' pieces copied into views of the caller's, each checked element by element
// against a model that writes exactly the intersection (and nothing else); views of one array
// that overlap (as if through a temporary); elements of 1, 2, 4, 8, 16 and 24 bytes; empty
// intersections and null arrays; the non-blocking form below and above the engine threshold;
// the directory; ghost zones of a slab decomposition, with either directory; and the misuse
// reports (outside a job, a non-UPC thread, a wrong directory, a dropped handle).

#include <unistd.h>

#include <pgas/ndarray_copy.hpp>
#include <pgas/pgas.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "../job_failures.hpp"
#include "../misuse_child.hpp"
#include "../test_job.hpp"

namespace {

using pgas::nd_index;
using pgas::ndarray;
using pgas::point;
using pgas::rectdomain;
using grid3 = ndarray<double, 3>;

// A value that names the thread and the point (exact in a double).
double value_of(int thread, const point<3>& p) {
  return static_cast<double>(thread * 1000000 + (p[0] + 50) * 10000 + (p[1] + 50) * 100 +
                             (p[2] + 50));
}
constexpr double untouched = -1.0;

// A random box around the origin: lower bounds in [-4, 4], extents in [1, 8].
rectdomain<3> random_box(std::mt19937& rng) {
  std::uniform_int_distribution<nd_index> lo(-4, 4), ext(1, 8);
  point<3> l, h;
  for (int d = 0; d < 3; ++d) {
    l[d] = lo(rng);
    h[d] = l[d] + ext(rng);
  }
  return {l, h};
}

// A random view of `a`: a few of constrict (strided), translate, permute and inject, mild
// enough that two views of boxes around the origin mostly still meet.
grid3 random_view(const grid3& a, std::mt19937& rng) {
  grid3 v = a;
  std::uniform_int_distribution<int> op(0, 5), small(-1, 1), st(1, 3), lo(-6, 0), ext(6, 12);
  for (int k = 0; k < 2; ++k) {
    switch (op(rng)) {
      case 0: {
        point<3> l, h, s;
        for (int d = 0; d < 3; ++d) {
          l[d] = lo(rng);
          h[d] = l[d] + ext(rng);
          s[d] = st(rng);
        }
        v = v.constrict(rectdomain<3>(l, h, s));
        break;
      }
      case 1:
        v = v.translate(point<3>(small(rng), small(rng), small(rng)));
        break;
      case 2: {
        std::array<nd_index, 3> perm{0, 1, 2};
        std::shuffle(perm.begin(), perm.end(), rng);
        v = v.permute(point<3>(perm));
        break;
      }
      case 3:
        v = v.inject(point<3>(st(rng), 1, st(rng)));
        break;
      default:
        break;  // unchanged
    }
  }
  return v;
}

// The elements of `whole` (a new array: contiguous from base()) by offset from its base.
std::vector<double> snapshot(const grid3& whole) {
  std::vector<double> s(whole.size());
  pgas::foreach(whole.domain(), [&](const point<3>& p) { s[&whole[p] - whole.base()] = whole[p]; });
  return s;
}

// The model of copy(dst, src): `before` (snapshot of dst's whole array `whole`) with each point
// of the intersection written from src's value (`src_value(q)`).
template <class Src>
std::vector<double> model(const grid3& whole, const std::vector<double>& before, const grid3& dst,
                          const Src& src_value, const rectdomain<3>& in) {
  std::vector<double> want = before;
  pgas::foreach(in, [&](const point<3>& q) { want[&dst[q] - whole.base()] = src_value(q); });
  return want;
}

void fill_mine(const grid3& a) {
  pgas::foreach(a.domain(), [&](const point<3>& p) { a[p] = value_of(pgas::mythread(), p); });
}

// Every thread copies random views of every thread's piece into random views of a fresh array
// of its own, and checks each against the model.
void random_copies(failures& f) {
  std::mt19937 rng(1234u + static_cast<unsigned>(pgas::mythread()));
  const grid3 mine(random_box(rng));
  fill_mine(mine);
  const std::vector<grid3> dir = pgas::exchange(mine);
  EXPECT(f, dir.size() == static_cast<std::size_t>(pgas::threads()), dir.size());
  for (int t = 0; t < pgas::threads(); ++t) {
    EXPECT(f, dir[t].owner() == t, dir[t].owner());
  }
  int copied = 0;
  for (int round = 0; round < 400; ++round) {
    const int from = static_cast<int>(rng() % static_cast<unsigned>(pgas::threads()));
    const grid3 src = random_view(dir[from], rng);
    const grid3 whole(random_box(rng));
    pgas::foreach(whole.domain(), [&](const point<3>& p) { whole[p] = untouched; });
    const grid3 dst = random_view(whole, rng);
    const std::vector<double> before = snapshot(whole);
    const rectdomain<3> in = dst.domain() * src.domain();
    const std::vector<double> want = model(
        whole, before, dst, [&](const point<3>& q) { return src[q]; }, in);
    if (round % 2 == 0) {
      pgas::copy(dst, src);
    } else {
      pgas::nb_handle h = pgas::copy_nb(dst, ndarray<const double, 3>(src));
      pgas::sync(h);
    }
    copied += in.empty() ? 0 : 1;
    EXPECT(f, snapshot(whole) == want,
           "round " << round << ": copy of " << in.size() << " points from thread " << from);
  }
  EXPECT(f, copied > 40, copied);  // the random views often meet
  pgas::barrier();                 // the sources stay unchanged until everyone is done
}

// Random views of ONE array on both sides: the result is as if through a temporary.
void overlapping_copies(failures& f) {
  std::mt19937 rng(99u + static_cast<unsigned>(pgas::mythread()));
  int overlapped = 0;
  for (int round = 0; round < 300; ++round) {
    const grid3 whole(random_box(rng));
    fill_mine(whole);
    const grid3 dst = random_view(whole, rng), src = random_view(whole, rng);
    const std::vector<double> before = snapshot(whole);
    const rectdomain<3> in = dst.domain() * src.domain();
    const std::vector<double> want = model(
        whole, before, dst, [&](const point<3>& q) { return before[&src[q] - whole.base()]; }, in);
    pgas::copy(dst, src);
    overlapped += in.empty() ? 0 : 1;
    EXPECT(f, snapshot(whole) == want, "round " << round << ": " << in.size() << " points");
  }
  EXPECT(f, overlapped > 60, overlapped);
}

TEST_CASE("copy writes exactly the intersection, from any thread's views") {
  for (int threads = 1; threads <= 3; ++threads) {
    INFO(threads << " threads");
    failures f;
    REQUIRE(pgas::run(test_job(threads), 0, nullptr, [&] { random_copies(f); }) == 0);
    check_no_failures(f);
  }
}

TEST_CASE("copy between overlapping views of one array acts as through a temporary") {
  failures f;
  REQUIRE(pgas::run(test_job(2), 0, nullptr, [&] { overlapping_copies(f); }) == 0);
  check_no_failures(f);
}

TEST_CASE("copy shifts and transposes in place") {
  failures f;
  REQUIRE(pgas::run(test_job(1), 0, nullptr, [&] {
            // A 1-D shift by one both ways (memmove's two directions).
            const ndarray<int, 1> a(rectdomain<1>({0}, {100}));
            pgas::foreach(a.domain(), [&](const point<1>& p) { a[p] = static_cast<int>(p[0]); });
            // translate(-1)'s index q is a's q + 1: a[q + 1] = a[q] for q in [0, 99).
            pgas::copy(a.translate(point<1>(-1)), a);
            for (int i = 0; i < 100; ++i)
              EXPECT(f, a(i) == std::max(i - 1, 0), i);
            // translate(1)'s index q is a's q - 1: a[q - 1] = a[q] for q in [1, 100).
            pgas::copy(a.translate(point<1>(1)), a);
            for (int i = 0; i < 100; ++i)
              EXPECT(f, a(i) == (i == 99 ? 98 : i), i);
            // A square transposed onto itself.
            const ndarray<int, 2> m(rectdomain<2>({0, 0}, {37, 37}));
            pgas::foreach(m.domain(),
                          [&](const point<2>& p) { m[p] = static_cast<int>(p[0] * 100 + p[1]); });
            pgas::copy(m.transpose(), m);
            pgas::foreach(m.domain(), [&](const point<2>& p) {
              EXPECT(f, m[p] == p[1] * 100 + p[0], p[0] << "," << p[1]);
            });
            // An exact self-copy changes nothing.
            pgas::copy(m, m);
            EXPECT(f, m(3, 5) == 503, m(3, 5));
          }) == 0);
  check_no_failures(f);
}

// Elements of `Bytes` bytes, strided on one side: each size has its own inner loop.
template <std::size_t Bytes>
struct blob {
  std::array<unsigned char, Bytes> b{};
  friend bool operator==(const blob&, const blob&) = default;
};

template <std::size_t Bytes>
void element_sizes(failures& f) {
  using E = blob<Bytes>;
  const ndarray<E, 2> a(rectdomain<2>({0, 0}, {9, 40})), b(rectdomain<2>({0, 0}, {9, 40}));
  pgas::foreach(a.domain(), [&](const point<2>& p) {
    for (std::size_t k = 0; k < Bytes; ++k)
      a[p].b[k] = static_cast<unsigned char>(p[0] * 40 + p[1] + static_cast<nd_index>(k) * 7);
  });
  // Every other column of a into every third of b (both strided) and a's rows into b's
  // columns (transposed: strided reads).
  const rectdomain<2> cols({0, 0}, {9, 40}, {1, 2});
  pgas::copy(b.constrict(cols), a.constrict(cols));
  pgas::foreach(b.domain(), [&](const point<2>& p) {
    const bool in = p[1] % 2 == 0;
    EXPECT(f, (b[p] == (in ? a[p] : E{})),
           Bytes << " bytes at " << p[0] << "," << p[1] << ": " << int(b[p].b[0]));
  });
  const ndarray<E, 2> t(rectdomain<2>({0, 0}, {40, 9}));
  pgas::copy(t, a.transpose());
  pgas::foreach(t.domain(), [&](const point<2>& p) {
    EXPECT(f, (t[p] == a(p[1], p[0])), Bytes << " bytes transposed at " << p[0] << "," << p[1]);
  });
}

TEST_CASE("copy of large transposed and permuted views (copied in blocks)") {
  failures f;
  REQUIRE(pgas::run(test_job(1), 0, nullptr, [&] {
            // 2-D: 100 x 70 transposed into 70 x 100, blocks of 32 with ragged edges.
            const ndarray<int, 2> a(rectdomain<2>({0, 0}, {100, 70}));
            pgas::foreach(a.domain(),
                          [&](const point<2>& p) { a[p] = static_cast<int>(p[0] * 1000 + p[1]); });
            const ndarray<int, 2> t(rectdomain<2>({0, 0}, {70, 100}));
            pgas::copy(t, a.transpose());
            pgas::foreach(t.domain(), [&](const point<2>& p) {
              EXPECT(f, t[p] == p[1] * 1000 + p[0], p[0] << "," << p[1]);
            });
            // 3-D: dimensions reversed, a middle dimension between the blocked ones.
            const ndarray<int, 3> b(rectdomain<3>({0, 0, 0}, {45, 3, 66}));
            pgas::foreach(b.domain(), [&](const point<3>& p) {
              b[p] = static_cast<int>((p[0] * 10 + p[1]) * 100 + p[2]);
            });
            const ndarray<int, 3> r(rectdomain<3>({0, 0, 0}, {66, 3, 45}));
            pgas::copy(r, b.permute(point<3>(2, 1, 0)));
            pgas::foreach(r.domain(), [&](const point<3>& p) {
              EXPECT(f, r[p] == (p[2] * 10 + p[1]) * 100 + p[0],
                     p[0] << "," << p[1] << "," << p[2]);
            });
          }) == 0);
  check_no_failures(f);
}

// Runs check.operator()<Bytes>(f) for elements of 1, 2, 4, 8, 16 and 24 bytes in a job of one
// thread.
template <class Check>
void every_size(Check check) {
  failures f;
  REQUIRE(pgas::run(test_job(1), 0, nullptr, [&] {
            check.template operator()<1>(f);
            check.template operator()<2>(f);
            check.template operator()<4>(f);
            check.template operator()<8>(f);
            check.template operator()<16>(f);
            check.template operator()<24>(f);
          }) == 0);
  check_no_failures(f);
}

TEST_CASE("copy moves elements of every size") {
  every_size([]<std::size_t Bytes>(failures& f) { element_sizes<Bytes>(f); });
}

// Transposes of elements of `Bytes` bytes large enough for the tiled path: 530 x 67 source
// points, so that tiles (a cache line of elements a side), the blocks of 512 source rows and
// the prefetch distance all end ragged, plus a permuted plane of a rank-3 view; every element
// checked against the source view read point by point.
template <std::size_t Bytes>
void tiled_transposes(failures& f) {
  using E = blob<Bytes>;
  const ndarray<E, 2> a(rectdomain<2>({0, 0}, {530, 67}));
  const auto fill = [](E& x, nd_index v) {
    for (std::size_t k = 0; k < Bytes; ++k)
      x.b[k] = static_cast<unsigned char>(v * 131 + static_cast<nd_index>(k) * 7 + (v >> 8));
  };
  pgas::foreach(a.domain(), [&](const point<2>& p) { fill(a[p], p[0] * 67 + p[1]); });
  const ndarray<E, 2> t(rectdomain<2>({0, 0}, {67, 530}));
  pgas::copy(t, a.transpose());
  pgas::foreach(t.domain(), [&](const point<2>& p) {
    EXPECT(f, (t[p] == a(p[1], p[0])), Bytes << " bytes transposed at " << p[0] << "," << p[1]);
  });
  // A strided and offset window of the transpose, into a window of t.
  const rectdomain<2> win({3, 5}, {64, 529}, {1, 3});
  pgas::foreach(t.domain(), [&](const point<2>& p) { t[p] = E{}; });
  pgas::copy(t.constrict(win), a.transpose());
  pgas::foreach(t.domain(), [&](const point<2>& p) {
    const bool in = win.contains(p);
    EXPECT(f, (t[p] == (in ? a(p[1], p[0]) : E{})),
           Bytes << " bytes window at " << p[0] << "," << p[1]);
  });
  const ndarray<E, 3> b(rectdomain<3>({0, 0, 0}, {3, 70, 75}));
  pgas::foreach(b.domain(), [&](const point<3>& p) { fill(b[p], (p[0] * 70 + p[1]) * 75 + p[2]); });
  const auto v = b.permute(point<3>(2, 0, 1));
  const ndarray<E, 3> r(v.domain());
  pgas::copy(r, v);
  pgas::foreach(r.domain(), [&](const point<3>& p) {
    EXPECT(f, (r[p] == v[p]), Bytes << " bytes permuted at " << p[0] << "," << p[1] << "," << p[2]);
  });
}

TEST_CASE("copy transposes in tiles: every element size, ragged tiles and blocks") {
  every_size([]<std::size_t Bytes>(failures& f) { tiled_transposes<Bytes>(f); });
}

TEST_CASE("copy of every rank-3 permutation, across threads, and of overlapping transposes") {
  failures f;
  REQUIRE(
      pgas::run(test_job(2), 0, nullptr, [&] {
        const int me = pgas::mythread();
        const ndarray<double, 3> a(rectdomain<3>({0, 0, 0}, {13, 70, 9}));
        pgas::foreach(a.domain(), [&](const point<3>& p) { a[p] = value_of(me, p); });
        const auto dir = pgas::exchange(a);
        const auto& other = dir[static_cast<std::size_t>(1 - me)];
        std::array<nd_index, 3> perm = {0, 1, 2};
        do {
          const auto v = other.permute(point<3>(perm[0], perm[1], perm[2]));
          const ndarray<double, 3> r(v.domain());
          pgas::copy(r, v);
          pgas::foreach(r.domain(), [&](const point<3>& p) {
            EXPECT(f, r[p] == v[p],
                   "permutation " << perm[0] << perm[1] << perm[2] << " at " << p[0] << "," << p[1]
                                  << "," << p[2]);
          });
        } while (std::next_permutation(perm.begin(), perm.end()));
        // copy_nb of transposes above the engine's threshold: the engine's pieces are
        // strips of tiles (2-D: 300 x 530 doubles; rank 3: the planes of the outer
        // dimension, 3 x 190 x 300 doubles, strips that end mid-plane).
        const ndarray<double, 2> big(rectdomain<2>({0, 0}, {530, 300}));
        pgas::foreach(big.domain(),
                      [&](const point<2>& p) { big[p] = static_cast<double>(p[0] * 1000 + p[1]); });
        const ndarray<double, 2> big_t(rectdomain<2>({0, 0}, {300, 530}));
        pgas::nb_handle h = pgas::copy_nb(big_t, big.transpose());
        EXPECT(f, !(h == pgas::complete_handle), "a transpose of 1.2 MiB goes to the engine");
        pgas::sync(h);
        pgas::foreach(big_t.domain(), [&](const point<2>& p) {
          EXPECT(f, big_t[p] == big(p[1], p[0]), "copy_nb transposed at " << p[0] << "," << p[1]);
        });
        const ndarray<double, 3> c(rectdomain<3>({0, 0, 0}, {3, 300, 190}));
        pgas::foreach(c.domain(), [&](const point<3>& p) { c[p] = value_of(me, p); });
        const auto cv = c.permute(point<3>(0, 2, 1));
        const ndarray<double, 3> cr(cv.domain());
        pgas::nb_handle hc = pgas::copy_nb(cr, cv);
        EXPECT(f, !(hc == pgas::complete_handle), "a permute of 1.3 MiB goes to the engine");
        pgas::sync(hc);
        pgas::foreach(cr.domain(), [&](const point<3>& p) {
          EXPECT(f, cr[p] == cv[p], "copy_nb permuted at " << p[0] << "," << p[1] << "," << p[2]);
        });
        pgas::barrier();  // the other thread is done reading a
        // m shifted by (3, -2) from its own transpose: the views overlap, so the copy
        // acts as through a temporary.
        const ndarray<double, 2> m(rectdomain<2>({0, 0}, {90, 90}));
        pgas::foreach(m.domain(),
                      [&](const point<2>& p) { m[p] = static_cast<double>(p[0] * 1000 + p[1]); });
        pgas::copy(m.translate(point<2>(3, -2)), m.transpose());
        pgas::foreach(m.domain(), [&](const point<2>& p) {
          // m(i, j) is the view's (i + 3, j - 2), from m's transpose there: the old m(j - 2,
          // i + 3); points outside the intersection keep their value.
          const bool in = p[0] + 3 < 90 && p[1] >= 2;
          const double want = in ? static_cast<double>((p[1] - 2) * 1000 + p[0] + 3)
                                 : static_cast<double>(p[0] * 1000 + p[1]);
          EXPECT(f, m[p] == want, p[0] << "," << p[1] << ": " << m[p]);
        });
      }) == 0);
  check_no_failures(f);
}

TEST_CASE("copy of disjoint domains, empty views and null arrays does nothing") {
  failures f;
  REQUIRE(
      pgas::run(test_job(2), 0, nullptr, [&] {
        const grid3 a(rectdomain<3>({0, 0, 0}, {4, 4, 4})), b(rectdomain<3>({4, 0, 0}, {8, 4, 4}));
        fill_mine(a);
        pgas::foreach(b.domain(), [&](const point<3>& p) { b[p] = untouched; });
        pgas::copy(b, a);
        pgas::copy(b, grid3());
        pgas::copy(grid3(), a);
        // Same bounds, strides that never meet: (0, 2, 4) and (1, 3).
        const rectdomain<3> even({0, 0, 0}, {8, 4, 4}, {2, 1, 1}),
            odd({1, 0, 0}, {8, 4, 4}, {2, 1, 1});
        pgas::copy(b.constrict(even), a.constrict(odd));
        pgas::nb_handle h = pgas::copy_nb(b, a);
        EXPECT(f, h == pgas::complete_handle, "an empty copy_nb is complete");
        pgas::foreach(b.domain(), [&](const point<3>& p) { EXPECT(f, b[p] == untouched, p[0]); });
      }) == 0);
  check_no_failures(f);
}

// copy_nb above the threshold: a strided view of 4 MiB through the copy engine, completed by
// sync or by test; below it, the complete handle.
void nonblocking(failures& f) {
  const nd_index n = 1024;
  const ndarray<double, 2> src(rectdomain<2>({0, 0}, {n, n}));
  pgas::foreach_n(src.domain(), [&](nd_index i, nd_index j) {
    src(i, j) = static_cast<double>(i * n + j + pgas::mythread());
  });
  const std::vector<ndarray<double, 2>> dir = pgas::exchange(src);
  const ndarray<double, 2>& other = dir[(pgas::mythread() + 1) % pgas::threads()];
  const int peer = (pgas::mythread() + 1) % pgas::threads();
  for (int how = 0; how < 2; ++how) {
    const ndarray<double, 2> dst(rectdomain<2>({0, 0}, {n, 2 * n}));
    // dst's even columns (strided) from other's columns.
    const ndarray<double, 2> view =
        dst.constrict(rectdomain<2>({0, 0}, {n, 2 * n}, {1, 2})).project(point<2>(1, 2));
    pgas::nb_handle h = pgas::copy_nb(view, other);
    EXPECT(f, !(h == pgas::complete_handle), "a copy of 8 MiB goes to the engine");
    if (how == 0) {
      pgas::sync(h);
    } else {
      while (!pgas::test(h)) {
      }
    }
    EXPECT(f, h.spent(), "completed");
    bool ok = true;
    pgas::foreach_n(dst.domain(), [&](nd_index i, nd_index j) {
      const double want = j % 2 == 0 ? static_cast<double>(i * n + j / 2 + peer) : 0.0;
      ok = ok && dst(i, j) == want;
    });
    EXPECT(f, ok, "copy_nb completed by " << (how == 0 ? "sync" : "test"));
  }
  const ndarray<double, 2> small(rectdomain<2>({0, 0}, {8, 8}));
  pgas::nb_handle h = pgas::copy_nb(small, other);
  EXPECT(f, h == pgas::complete_handle, "a small copy completes in the call");
  EXPECT(f, small(7, 7) == static_cast<double>(7 * n + 7 + peer), small(7, 7));
  // Overlapping sides (views of an array of this thread's only): done in the call too.
  const ndarray<double, 2> own(rectdomain<2>({0, 0}, {n, n}));
  pgas::nb_handle o = pgas::copy_nb(own.translate(point<2>(0, 1)), own);
  EXPECT(f, o == pgas::complete_handle, "an overlapping copy completes in the call");
  pgas::barrier();
}

TEST_CASE("copy_nb follows nb_handle's rules below and above the threshold") {
  for (int threads = 1; threads <= 2; ++threads) {
    INFO(threads << " threads");
    failures f;
    REQUIRE(pgas::run(test_job(threads), 0, nullptr, [&] { nonblocking(f); }) == 0);
    check_no_failures(f);
  }
}

// A slab decomposition of an n x 6 x 5 grid along dimension 0, one ghost plane on each side:
// after fill_ghosts every ghost point of a thread's piece holds its neighbour's value.
void ghosts(failures& f, int form) {
  const int me = pgas::mythread(), T = pgas::threads();
  const nd_index planes = 3, n = planes * T;
  const rectdomain<3> owned_box({me * planes, 0, 0}, {(me + 1) * planes, 6, 5});
  // The piece: the owned planes plus one ghost plane each side (y and z are not split).
  const rectdomain<3> box = owned_box.accrete(1, -1).accrete(1, 1);
  const grid3 g(box);
  pgas::foreach(g.domain(), [&](const point<3>& p) { g[p] = untouched; });
  pgas::foreach(owned_box, [&](const point<3>& p) { g[p] = value_of(0, p); });
  if (form == 0) {
    pgas::fill_ghosts(g, pgas::exchange(g.constrict(owned_box)));
  } else if (form == 1) {
    // Whole pieces, interiors by width: only dimension 0 is cut, so the width form owns less
    // than the thread does along y and z (their faces are not ghosts here: all equal).
    const std::vector<grid3> dir = pgas::exchange(g);
    pgas::fill_ghosts(g, dir, 1, pgas::ghost_sync::entry);
    pgas::barrier();
  } else {
    pgas::fill_ghosts(g, pgas::exchange(g.constrict(owned_box)), pgas::ghost_sync::entry);
    pgas::barrier();
  }
  pgas::foreach(g.domain(), [&](const point<3>& p) {
    const bool ghost = !owned_box.contains(p);
    const bool filled =
        p[0] >= 0 && p[0] < n && (form != 1 || (p[1] > 0 && p[1] < 5 && p[2] > 0 && p[2] < 4));
    const double want = !ghost || filled ? value_of(0, p) : untouched;
    EXPECT(f, g[p] == want, "form " << form << " at " << p[0] << "," << p[1] << "," << p[2]);
  });
}

TEST_CASE("fill_ghosts fills every ghost point from its owner") {
  for (int threads = 1; threads <= 3; ++threads) {
    for (int form = 0; form < 3; ++form) {
      INFO(threads << " threads, form " << form);
      failures f;
      REQUIRE(pgas::run(test_job(threads), 0, nullptr, [&] { ghosts(f, form); }) == 0);
      check_no_failures(f);
    }
  }
}

TEST_CASE("under tracing, a copy is one bulk read and one bulk write, copy_nb non-blocking",
          "[ndarray_copy][trace]") {
  const std::string file = "ndarray_copy_test." + std::to_string(getpid()) + ".trace";
  REQUIRE(setenv("PGAS_TRACE", file.c_str(), 1) == 0);
  REQUIRE(pgas::run(test_job(2), 0, nullptr, [&] {
            const ndarray<double, 2> mine(rectdomain<2>({0, 0}, {10, 10}));
            const std::vector<ndarray<double, 2>> dir = pgas::exchange(mine);
            if (pgas::mythread() == 0) {
              const ndarray<double, 2> dst(rectdomain<2>({0, 0}, {10, 10}));
              pgas::copy(dst, dir[1].constrict(rectdomain<2>({0, 0}, {10, 5})));  // 400 bytes
              pgas::nb_handle h = pgas::copy_nb(dst, dir[1]);                     // 800 bytes
              pgas::sync(h);
            }
            pgas::barrier();
          }) == 0);
  unsetenv("PGAS_TRACE");
  std::ifstream in(file);
  REQUIRE(in.good());
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::remove(file.c_str());
  // (kind, direction, owner) -> bytes, thread 0's accesses
  std::map<std::tuple<std::string, std::string, int>, std::uint64_t> got;
  for (const auto& a : doc.at("accesses")) {
    if (a.at("from") != 0 || (a.at("kind") != "bulk" && a.at("kind") != "nonblocking")) continue;
    got[{a.at("kind").get<std::string>(), a.at("dir").get<std::string>(), a.at("to").get<int>()}] +=
        a.at("bytes").get<std::uint64_t>();
  }
  using key = std::tuple<std::string, std::string, int>;
  CHECK(got.size() == 4);
  CHECK(got[key{"bulk", "read", 1}] == 400);
  CHECK(got[key{"bulk", "write", 0}] == 400);
  CHECK(got[key{"nonblocking", "read", 1}] == 800);
  CHECK(got[key{"nonblocking", "write", 0}] == 800);
}

TEST_CASE("copy outside a job is misuse") {
  const grid3 none;
  REQUIRE_THROWS_WITH(pgas::copy(none, none),
                      Catch::Matchers::Contains("pgas::copy called outside a job") &&
                          Catch::Matchers::Contains("ndarray_copy_test.cpp"));
  REQUIRE_THROWS_AS((void)pgas::copy_nb(none, none), pgas::usage_error);
  REQUIRE_THROWS_AS(pgas::exchange(none), pgas::usage_error);
}

void nb_from_other_thread() {
  const grid3 a(rectdomain<3>({0, 0, 0}, {2, 2, 2})), b(rectdomain<3>({0, 0, 0}, {2, 2, 2}));
  std::thread t([&] {
    misuse_announce(__LINE__ + 1);
    pgas::nb_handle h = pgas::copy_nb(a, b);
  });
  t.join();
}

void wrong_directory() {
  const grid3 a(rectdomain<3>({0, 0, 0}, {2, 2, 2}));
  const std::vector<grid3> dir(1);
  misuse_announce(__LINE__ + 1);
  pgas::fill_ghosts(a, dir);
}

// Each thread's slab of an 8 x 2 x 2 grid with a ghost plane on each side.
grid3 slab_with_ghosts() {
  const nd_index me = pgas::mythread();
  return grid3(rectdomain<3>({4 * me, 0, 0}, {4 * me + 4, 2, 2}).accrete(1, -1).accrete(1, 1));
}

void whole_pieces_as_owned() {
  const grid3 g = slab_with_ghosts();
  const std::vector<grid3> dir = pgas::exchange(g);
  misuse_announce(__LINE__ + 1);
  pgas::fill_ghosts(g, dir);
}

void inconsistent_directory() {
  const grid3 g = slab_with_ghosts();
  std::vector<grid3> dir = pgas::exchange(g.shrink(1, -1).shrink(1, 1));
  if (pgas::mythread() == 1) dir[0] = dir[1];
  misuse_announce(__LINE__ + 1);
  pgas::fill_ghosts(g, dir);
}

// A double-buffered sweep whose parity is wrong on thread 1: it fills its grid b from a's
// directory. The pieces do not overlap; the entry barrier's id (the directory's hash) differs.
void swapped_grids() {
  const grid3 a = slab_with_ghosts(), b = slab_with_ghosts();
  const std::vector<grid3> owned_a = pgas::exchange(a.shrink(1, -1).shrink(1, 1));
  const std::vector<grid3> owned_b = pgas::exchange(b.shrink(1, -1).shrink(1, 1));
  misuse_announce(__LINE__ + 1);
  pgas::fill_ghosts(b, pgas::mythread() == 1 ? owned_a : owned_b);
}

// The threads disagree on ghost_sync: one exit barrier too few, seen at the entry.
void mixed_sync() {
  const grid3 g = slab_with_ghosts();
  const std::vector<grid3> dir = pgas::exchange(g.shrink(1, -1).shrink(1, 1));
  misuse_announce(__LINE__ + 1);
  pgas::fill_ghosts(
      g, dir, pgas::mythread() == 1 ? pgas::ghost_sync::entry : pgas::ghost_sync::entry_and_exit);
}

// Thread 1 passes thread 0's piece as its own.
void another_threads_piece() {
  const grid3 g = slab_with_ghosts();
  const std::vector<grid3> dir = pgas::exchange(g);
  const std::vector<grid3> owned = pgas::exchange(g.shrink(1, -1).shrink(1, 1));
  misuse_announce(__LINE__ + 1);
  pgas::fill_ghosts(pgas::mythread() == 1 ? dir[0] : g, owned);
}

// Thread 0 fills its ghosts while thread 1 passes a plain barrier: fill_ghosts' barrier is a
// collective of its own, which no barrier matches (a named barrier would have matched it).
void ghosts_beside_barrier(pgas::ghost_sync sync) {
  const grid3 g = slab_with_ghosts();
  const std::vector<grid3> owned = pgas::exchange(g.shrink(1, -1).shrink(1, 1));
  misuse_announce(__LINE__ + 1);
  pgas::mythread() == 0 ? pgas::fill_ghosts(g, owned, sync) : pgas::barrier();
}
void ghosts_beside_barrier_entry() {
  ghosts_beside_barrier(pgas::ghost_sync::entry);
}
void ghosts_beside_barrier_entry_and_exit() {
  ghosts_beside_barrier(pgas::ghost_sync::entry_and_exit);
}

// The threads exchange pieces of different element types.
void exchange_types() {
  const nd_index me = pgas::mythread();
  const rectdomain<2> d({me, 0}, {me + 1, 4});
  const ndarray<double, 2> a(d);
  const ndarray<float, 2> b(d);
  misuse_announce(__LINE__ + 1);
  me == 0 ? (void)pgas::exchange(a) : (void)pgas::exchange(b);
}

void negative_width() {
  const grid3 g = slab_with_ghosts();
  const std::vector<grid3> dir = pgas::exchange(g);
  misuse_announce(__LINE__ + 1);
  pgas::fill_ghosts(g, dir, -1);
}

void dropped_handle() {
  const ndarray<double, 1> a(rectdomain<1>({0}, {1 << 18})), b(rectdomain<1>({0}, {1 << 18}));
  misuse_announce(__LINE__ + 1);
  (void)pgas::copy_nb(a, b);
}

constexpr misuse_child_case child_cases[] = {
    {"nb_from_other_thread", 2, nb_from_other_thread},
    {"wrong_directory", 2, wrong_directory},
    {"dropped_handle", 2, dropped_handle},
    {"whole_pieces_as_owned", 2, whole_pieces_as_owned},
    {"inconsistent_directory", 2, inconsistent_directory},
    {"negative_width", 2, negative_width},
    {"swapped_grids", 2, swapped_grids},
    {"mixed_sync", 2, mixed_sync},
    {"another_threads_piece", 2, another_threads_piece},
    {"ghosts_beside_barrier_entry", 2, ghosts_beside_barrier_entry},
    {"ghosts_beside_barrier_entry_and_exit", 2, ghosts_beside_barrier_entry_and_exit},
    {"exchange_types", 2, exchange_types},
};

// What a report of threads at different calls, or passing different arguments, starts with.
const std::string differ =
    "collective mismatch: threads reached different barriers or collective operations, or "
    "passed different values";

void check_misuse(const std::string& name, const std::string& thread, const std::string& what) {
  misuse_child_check("ndarray_copy_test", "ndarray_copy misuse child", "NDARRAY_COPY_TEST_CASE",
                     name, thread, what, "ndarray_copy_test.cpp");
}

}  // namespace

// Run only as a child of check_misuse() (hidden: the tag starts with a dot).
TEST_CASE("ndarray_copy misuse child", "[.ndarray_copy_child]") {
  misuse_child_main(child_cases, "NDARRAY_COPY_TEST_CASE");
}

TEST_CASE("copy misuse ends the job naming the thread and the call's line") {
  check_misuse("nb_from_other_thread", "a thread the program started (not one of the 2 UPC",
               "pgas::copy_nb called from a thread that is not one of the job's 2 UPC threads");
  check_misuse("wrong_directory", "of 2",
               "pgas::fill_ghosts: the directory has 1 pieces; it needs one per thread");
  check_misuse("dropped_handle", "of 2", "destroyed without pgas::sync()");
  check_misuse("whole_pieces_as_owned", "of 2",
               "pgas::fill_ghosts: the directory's piece ");  // either thread may report first
  check_misuse("inconsistent_directory", "thread 1: pgas::fill_ghosts(directory 0x",
               "owned pieces, pgas::ghost_sync::entry_and_exit) at ");
  check_misuse("inconsistent_directory", "thread 0: pgas::fill_ghosts(directory 0x", differ);
  check_misuse("negative_width", "of 2", "pgas::fill_ghosts: the ghost width -1 is negative");
  check_misuse("swapped_grids", "thread 1: pgas::fill_ghosts(directory 0x", differ);
  check_misuse("another_threads_piece", "thread 1 of 2",
               "pgas::fill_ghosts: `mine` is thread 0's piece; each thread passes its own");
  check_misuse("mixed_sync", "thread 1: pgas::fill_ghosts(directory 0x",
               "owned pieces, pgas::ghost_sync::entry) at ");
  check_misuse("mixed_sync", "thread 0: pgas::fill_ghosts(directory 0x",
               "owned pieces, pgas::ghost_sync::entry_and_exit) at ");
}

TEST_CASE("a thread that skips fill_ghosts or exchanges another type ends the job") {
  for (const char* name : {"ghosts_beside_barrier_entry", "ghosts_beside_barrier_entry_and_exit"}) {
    check_misuse(name, "thread 0: pgas::fill_ghosts(directory 0x", differ);
    check_misuse(name, "thread 1: pgas::barrier at ", "owned pieces, pgas::ghost_sync::");
  }
  check_misuse("exchange_types",
               "thread 0: pgas::allgather(type=pgas::ndarray<double, 2, pgas::global, ",
               "thread 1: pgas::allgather(type=pgas::ndarray<float, 2, pgas::global, ");
}
