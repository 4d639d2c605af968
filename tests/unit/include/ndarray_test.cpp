// Tests pgas::ndarray (pgas/ndarray.hpp) in jobs of 1 to 3 threads: creation in the calling
// thread's segment, value-initialised, in each layout (row-major, padded, column-major, over a
// strided domain) and at the alignments asked for; indexing by point, by integers, through base(),
// memory_strides() and view() against the layout's formula; copies as references and the storage
// freed with the last one, even when references are dropped by several threads at once; conversions
// (const, locality, layouts); a global view of another thread's piece read and written
// directly; and misuse (creation outside a job, as_local of another thread's piece, layouts a
// view does not have, bad view arguments) named at the caller's line.

#include <pgas/ndarray.hpp>
#include <pgas/pgas.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../misuse_child.hpp"
#include "../test_job.hpp"

namespace {

using pgas::nd_index;
using pgas::point;
using pgas::rectdomain;

// A value unique to a point of a 3-D domain (and to the thread that writes it).
double code(const point<3>& p, int thread = 0) {
  return static_cast<double>(((thread * 64 + p[0] + 8) * 64 + p[1] + 8) * 64 + p[2] + 8);
}

struct with_default {
  int a = 7;
  double b = 2.5;
};

// Checks that A's elements are where its layout puts them: p's element at
// base()[Σ (p[d] - lo[d]) / st[d] · ms[d]], equal to view()'s 0-based element, and that
// A(i, j, k) and A[p] are the same element.
template <class Arr>
void check_addresses(failures& f, const Arr& A) {
  const rectdomain<3> d = A.domain();
  const point<3> lo = d.lower(), st = d.stride(), ms = A.memory_strides();
  const auto v = A.view();
  for (const point<3>& p : d) {
    const point<3> k = (p - lo) / st;
    const nd_index off = k[0] * ms[0] + k[1] * ms[1] + k[2] * ms[2];
    EXPECT(f, &A[p] == A.base() + off, "point " << p);
    EXPECT(f, &A(p[0], p[1], p[2]) == &A[p], "point " << p);
    EXPECT(f, &v(k[0], k[1], k[2]) == &A[p], "point " << p);
  }
}

void creation_cases(failures& f) {
  const int me = pgas::mythread();
  const rectdomain<3> d({-2, 1, 3}, {3, 5, 10});
  // Row-major, every element zero, in this thread's segment.
  pgas::ndarray<double, 3> A(d);
  EXPECT(f, A.owner() == me && A.is_local() && !A.is_null(), "owner " << A.owner());
  EXPECT(f, pgas::owner_of(A.base()) == me, "base in thread " << pgas::owner_of(A.base()));
  EXPECT(f, A.domain() == d && A.size() == 5u * 4u * 7u, "size " << A.size());
  EXPECT(f, A.memory_strides() == point<3>(28, 7, 1), "strides " << A.memory_strides());
  EXPECT(f, A.is_simple() && A.is_unstrided() && !A.is_column_major(), "layout");
  bool zero = true;
  pgas::foreach(d, [&](const point<3>& p) { zero = zero && A[p] == 0.0; });
  EXPECT(f, zero, "not value-initialised");
  pgas::foreach(d, [&](const point<3>& p) { A[p] = code(p, me); });
  check_addresses(f, A);
  EXPECT(f, A(-2, 1, 3) == *A.base() && A(2, 4, 9) == code(point<3>(2, 4, 9), me), "corners");
  // Other element types are value-initialised too.
  pgas::ndarray<with_default, 2> W(rectdomain<2>({0, 0}, {3, 3}));
  EXPECT(f, W(2, 2).a == 7 && W(1, 0).b == 2.5, "with_default");
  // Padding: 3 elements after each row; a point per dimension.
  pgas::ndarray<double, 3> P(d, pgas::padding{3});
  EXPECT(f, P.memory_strides() == point<3>(40, 10, 1) && P.is_simple(), "padded");
  check_addresses(f, P);
  pgas::ndarray<double, 3> Q(d, point<3>(0, 1, 2));
  EXPECT(f, Q.memory_strides() == point<3>(45, 9, 1), "per-dimension padding");
  check_addresses(f, Q);
  // Alignment: the first element on the boundary asked for, with or without padding.
  for (const std::size_t a : {std::size_t{0}, std::size_t{16}, std::size_t{128}, std::size_t{4096},
                              std::size_t{2} << 20}) {
    // Elements are value-initialised on reused memory too: dirty a block of the same size.
    void* dirty = pgas::local_alloc(5 * 4 * 7 * sizeof(double), std::max<std::size_t>(a, 64));
    std::memset(dirty, 0xFF, 5 * 4 * 7 * sizeof(double));
    pgas::free(dirty);
    const auto on = [&](const void* p) {
      return reinterpret_cast<std::uintptr_t>(p) % std::max<std::size_t>(a, 64) == 0;
    };
    pgas::ndarray<double, 3> G(d, pgas::alignment{a});
    pgas::ndarray<double, 3> H(d, pgas::padding{2}, pgas::alignment{a});
    pgas::ndarray<double, 3> K(d, point<3>(1, 0, 1), pgas::alignment{a});
    pgas::ndarray<double, 3> M(d, pgas::column_major{}, pgas::alignment{a});
    EXPECT(f, on(G.base()) && on(H.base()) && on(K.base()) && on(M.base()),
           "alignment " << a << ": " << G.base() << " " << H.base() << " " << K.base() << " "
                        << M.base());
    EXPECT(f, pgas::owner_of(G.base()) == me && G.memory_strides() == point<3>(28, 7, 1),
           "aligned owner and strides");
    EXPECT(f, H.memory_strides() == point<3>(36, 9, 1) && M.is_column_major(), "aligned layouts");
    for (pgas::ndarray<double, 3>* X : {&G, &H, &K, &M}) {
      bool zeros = true;
      pgas::foreach(d, [&](const point<3>& p) { zeros = zeros && (*X)[p] == 0.0; });
      EXPECT(f, zeros, "aligned " << a << " not value-initialised");
      pgas::foreach(d, [&](const point<3>& p) { (*X)[p] = code(p, me); });
      check_addresses(f, *X);
    }
  }
  // Column-major, by tag or by layout.
  pgas::ndarray<double, 3> C(d, pgas::column_major{});
  EXPECT(f, C.memory_strides() == point<3>(1, 5, 20) && C.is_column_major() && !C.is_simple(),
         "column-major " << C.memory_strides());
  check_addresses(f, C);
  pgas::ndarray<double, 3, pgas::local, pgas::column_major> L(d, pgas::padding{1});
  EXPECT(f, L.memory_strides() == point<3>(1, 6, 24), "column-major padded");
  L(2, 4, 9) = 5;
  EXPECT(f, L.base()[4 * 1 + 3 * 6 + 6 * 24] == 5, "column-major element");
  check_addresses(f, L);
  // A strided domain: its points are stored contiguously, one memory step per domain step.
  const rectdomain<3> sd({1, 0, -3}, {8, 5, 6}, {3, 2, 4});
  pgas::ndarray<double, 3> S(sd);
  EXPECT(f,
         S.size() == 3u * 3u * 3u && S.memory_strides() == point<3>(9, 3, 1) && !S.is_unstrided(),
         "strided " << S.memory_strides());
  pgas::foreach(sd, [&](const point<3>& p) { S[p] = code(p); });
  check_addresses(f, S);
  EXPECT(f, S(7, 4, 5) == code(point<3>(7, 4, 5)) && &S(7, 4, 5) == S.base() + 26, "last");
  // An empty domain and the null array: no storage (whatever the alignment asked for).
  pgas::ndarray<double, 3> E(rectdomain<3>({0, 0, 0}, {4, 0, 4}));
  const pgas::ndarray<double, 3> EA(E.domain(), pgas::alignment{4096});
  EXPECT(f, EA.is_null() && EA.empty(), "empty aligned");
  pgas::ndarray<double, 3> N;
  EXPECT(f, E.is_null() && E.empty() && E.size() == 0 && N.is_null() && N.owner() == -1, "empty");
  EXPECT(f, E.is_simple() && N.view().size() == 0, "an empty view has every layout");
}

void reference_cases(failures& f) {
  const std::size_t before = pgas::memory_usage_of(pgas::mythread()).allocated;
  {
    pgas::ndarray<int, 2> A(rectdomain<2>({0, 0}, {100, 100}));
    EXPECT(f, pgas::memory_usage_of(pgas::mythread()).allocated >= before + 40000, "not allocated");
    pgas::ndarray<int, 2> B = A;  // another reference, not a copy
    B(3, 4) = 9;
    EXPECT(f, A(3, 4) == 9 && A.base() == B.base(), "copy is a reference");
    auto inner = A.shrink(10);
    A = pgas::ndarray<int, 2>();  // dropping references keeps the others' elements
    B = pgas::ndarray<int, 2>();
    EXPECT(f, inner(10, 10) == 0 && inner.owner() == pgas::mythread(), "view kept alive");
    inner(10, 11) = 1;
    pgas::ndarray<int, 2> moved = std::move(inner);
    EXPECT(f, inner.is_null() && moved(10, 11) == 1, "moved");
    // An aligned array's elements come first in its allocation: its last view frees it all.
    pgas::ndarray<int, 2> aligned(rectdomain<2>({0, 0}, {300, 300}), pgas::alignment{1 << 16});
    auto corner = aligned.constrict(rectdomain<2>({290, 290}, {300, 300}));
    aligned = pgas::ndarray<int, 2>();
    corner(299, 299) = 4;
    EXPECT(f, corner(299, 299) == 4 && corner(290, 290) == 0, "aligned view kept alive");
  }
  EXPECT(f, pgas::memory_usage_of(pgas::mythread()).allocated == before,
         "not freed: " << pgas::memory_usage_of(pgas::mythread()).allocated << " vs " << before);
}

// Every thread creates a piece; all threads take and drop references to all pieces at once;
// each piece is freed exactly when the last one goes, whichever thread drops it.
void shared_reference_cases(failures& f, std::vector<pgas::ndarray<long, 1>>& dir) {
  const int me = pgas::mythread(), n = pgas::threads();
  const std::size_t before = pgas::memory_usage_of(me).allocated;
  // Odd threads' pieces are aligned: their elements and count are two blocks, freed together.
  dir[static_cast<std::size_t>(me)] = pgas::ndarray<long, 1>(
      rectdomain<1>({0}, {1000}), pgas::alignment{me % 2 == 1 ? std::size_t{4096} : 0});
  pgas::barrier();
  std::vector<pgas::ndarray<long, 1>> held;
  for (int r = 0; r < 2000; ++r) {
    held.push_back(dir[static_cast<std::size_t>(r % n)].constrict(rectdomain<1>({r % 7}, {900})));
    if (held.size() > 50) held.erase(held.begin(), held.begin() + 25);
  }
  pgas::barrier();
  dir[static_cast<std::size_t>(me)] = pgas::ndarray<long, 1>();
  EXPECT(f, pgas::memory_usage_of(me).allocated > before, "freed while referenced");
  pgas::barrier();
  held.clear();  // the last references to every piece go here, on every thread
  pgas::barrier();
  EXPECT(f, pgas::memory_usage_of(me).allocated == before, "not freed");
}

void conversion_cases(failures& f) {
  pgas::ndarray<int, 3, pgas::local, pgas::simple> A(rectdomain<3>({0, 0, 0}, {4, 5, 6}));
  A(1, 2, 3) = 5;
  const pgas::ndarray<int, 3, pgas::global, pgas::simple> G = A;  // local to global
  const pgas::ndarray<int, 3, pgas::global, pgas::unstrided> U = G;
  const pgas::ndarray<const int, 3> C = U;  // const, strided
  EXPECT(f, C(1, 2, 3) == 5 && &C(1, 2, 3) == &A(1, 2, 3), "implicit conversions");
  const auto back = C.as_layout<pgas::simple>().as_local();
  EXPECT(f, back(1, 2, 3) == 5, "explicit conversions");
  // A sub-box of a simple array is simple; its transpose and a strided view are not.
  const auto inner = A.shrink(1).constrict(rectdomain<3>({0, 0, 0}, {3, 3, 3}));
  EXPECT(f, inner.is_simple() && inner.domain() == rectdomain<3>({1, 1, 1}, {3, 3, 3}), "inner");
  const pgas::ndarray<int, 3, pgas::global, pgas::simple> s(inner.as_strided());
  EXPECT(f, &s(2, 2, 2) == &A(2, 2, 2), "inner element");
  EXPECT(
      f,
      !A.permute(point<3>(2, 1, 0)).is_simple() && A.permute(point<3>(2, 1, 0)).is_column_major(),
      "reversed dimensions are column-major");
  EXPECT(f,
         !A.as_strided().constrict(rectdomain<3>({0, 0, 0}, {4, 5, 6}, {1, 2, 1})).is_unstrided(),
         "strided view");
  // A 2-D transpose of a row-major array is column-major, and back.
  pgas::ndarray<int, 2> M(rectdomain<2>({0, 0}, {3, 4}));
  M(2, 1) = 8;
  const auto T = M.transpose();
  EXPECT(f, T(1, 2) == 8 && T.is_column_major() && T.domain() == rectdomain<2>({0, 0}, {4, 3}),
         "transpose");
  const auto TT = T.as_layout<pgas::column_major>();
  EXPECT(f, TT(1, 2) == 8, "column-major view");
}

// Thread 1 owns a piece; thread 0 reads and writes it through a global view and views of it.
void remote_cases(failures& f, std::vector<pgas::ndarray<double, 3>>& dir) {
  const int me = pgas::mythread();
  const rectdomain<3> d({0, 0, 0}, {6, 7, 8});
  if (me == 1) {
    pgas::ndarray<double, 3, pgas::local> mine(d);
    pgas::foreach(d, [&](const point<3>& p) { mine[p] = code(p, 1); });
    dir[1] = mine;  // local to global
  }
  pgas::barrier();
  if (me == 0) {
    const pgas::ndarray<double, 3> g = dir[1];
    EXPECT(f, g.owner() == 1 && !g.is_local(), "owner " << g.owner());
    EXPECT(f, pgas::owner_of(g.base()) == 1, "not in thread 1's segment");
    bool same = true;
    pgas::foreach(d, [&](const point<3>& p) { same = same && g[p] == code(p, 1); });
    EXPECT(f, same, "remote elements");
    const auto face = g.slice(2, 7);  // the face k = 7
    const auto t = g.shrink(1).permute(point<3>(2, 0, 1)).translate(point<3>(100, 0, 0));
    EXPECT(f, face(3, 4) == code(point<3>(3, 4, 7), 1), "remote slice");
    EXPECT(f, t(103, 2, 5) == code(point<3>(2, 5, 3), 1), "remote view chain");
    t(103, 2, 5) = -1;  // written through thread 0's view
  }
  pgas::barrier();
  if (me == 1) {
    EXPECT(f, dir[1](2, 5, 3) == -1, "write through another thread's view");
    EXPECT(f, dir[1].as_local().base() == dir[1].base(), "as_local of one's own piece");
  }
  pgas::barrier();
  if (me == 1) dir[1] = pgas::ndarray<double, 3>();  // the last reference, before the job ends
}

}  // namespace

TEST_CASE("ndarray creates value-initialised elements in the calling thread's segment") {
  for (int threads = 1; threads <= 3; ++threads) {
    INFO(threads << " threads");
    failures f;
    REQUIRE(pgas::run(test_job(threads), 0, nullptr, [&] { creation_cases(f); }) == 0);
    check_no_failures(f);
  }
}

TEST_CASE("ndarray copies are references; the last one frees the elements") {
  failures f;
  std::vector<pgas::ndarray<long, 1>> dir(3);
  REQUIRE(pgas::run(test_job(3), 0, nullptr, [&] {
            reference_cases(f);
            shared_reference_cases(f, dir);
          }) == 0);
  check_no_failures(f);
}

TEST_CASE("an ndarray kept past its job is copied and dropped without touching the space") {
  // What a static ndarray does at exit: its elements and their count went with the job.
  pgas::ndarray<double, 2> kept;
  REQUIRE(pgas::run(test_job(2), 0, nullptr, [&] {
            if (pgas::mythread() == 1)
              kept = pgas::ndarray<double, 2>(rectdomain<2>({0, 0}, {64, 64}));
          }) == 0);
  REQUIRE(!kept.is_null());
  pgas::ndarray<double, 2> copy = kept;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(copy.domain() == kept.domain());
  kept = pgas::ndarray<double, 2>();
  copy = pgas::ndarray<double, 2>();
  CHECK(copy.is_null());
}

TEST_CASE("ndarray converts const, locality and layout, implicitly only when always valid") {
  failures f;
  REQUIRE(pgas::run(test_job(1), 0, nullptr, [&] { conversion_cases(f); }) == 0);
  check_no_failures(f);
}

TEST_CASE("a global ndarray of another thread's piece indexes it directly") {
  failures f;
  std::vector<pgas::ndarray<double, 3>> dir(2);
  REQUIRE(pgas::run(test_job(2), 0, nullptr, [&] { remote_cases(f, dir); }) == 0);
  check_no_failures(f);
}

TEST_CASE("ndarray creation outside a job throws usage_error naming the call") {
  const int line = __LINE__ + 2;
  try {
    pgas::ndarray<int, 2> a(rectdomain<2>({0, 0}, {2, 2}));
    FAIL("no error");
  } catch (const pgas::usage_error& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("created outside a job"));
    CHECK_THAT(e.what(), Catch::Matchers::Contains("ndarray_test.cpp:" + std::to_string(line)));
  }
}

namespace {

// Misuse cases, each run in a child job of 2 threads; thread 1 misuses.

// Process memory every thread of the child job sees (ordinary globals: one address space).
std::vector<pgas::ndarray<int, 2>> child_dir(2);

void as_local_of_other() {
  child_dir[static_cast<std::size_t>(pgas::mythread())] =
      pgas::ndarray<int, 2>(rectdomain<2>({0, 0}, {4, 4}));
  pgas::barrier();
  if (pgas::mythread() == 1) {
    misuse_announce(__LINE__ + 1);
    (void)child_dir[0].as_local();
  }
  pgas::barrier();
}

void misuse_on_thread1(void (*body)(const pgas::ndarray<int, 2>&)) {
  const pgas::ndarray<int, 2> a(rectdomain<2>({0, 0}, {4, 6}));
  if (pgas::mythread() == 1) body(a);
  pgas::barrier();
}

// A case whose thread 1 evaluates the expression after its name, over `a` (a 4 x 6 array):
// the misuse is on the case's line.
#define NDARRAY_MISUSE(name, ...)                            \
  {                                                          \
    name, 2, [] {                                            \
      misuse_on_thread1([](const pgas::ndarray<int, 2>& a) { \
        misuse_announce(__LINE__);                           \
        (void)a;                                             \
        (void)(__VA_ARGS__);                                 \
      });                                                    \
    }                                                        \
  }

constexpr misuse_child_case child_cases[] = {
    {"as_local_of_other", 2, as_local_of_other},
    NDARRAY_MISUSE("not_simple", a.transpose().as_layout<pgas::simple>()),
    NDARRAY_MISUSE("constrict_strided",
                   a.as_layout<pgas::simple>().constrict(rectdomain<2>({0, 0}, {4, 6}, {2, 1}))),
    NDARRAY_MISUSE("slice_outside", a.slice(1, 6)),
    NDARRAY_MISUSE("slice_dimension", a.slice(2, 0)),
    NDARRAY_MISUSE("permute_not_permutation", a.permute(point<2>(1, 1))),
    NDARRAY_MISUSE("inject_zero", a.inject(point<2>(2, 0))),
    NDARRAY_MISUSE("project_not_dividing", a.project(point<2>(1, 2))),
    NDARRAY_MISUSE("shrink_direction", a.shrink(1, 3)),
    NDARRAY_MISUSE("alignment_not_power",
                   pgas::ndarray<int, 2>(rectdomain<2>({0, 0}, {2, 2}), pgas::alignment{48})),
    NDARRAY_MISUSE("negative_padding",
                   pgas::ndarray<int, 2>(rectdomain<2>({0, 0}, {2, 2}), pgas::padding{-1})),
    // Extents whose product wraps to 0 in 64 bits, and padding that overflows alone.
    NDARRAY_MISUSE("too_large", pgas::ndarray<int, 2>(
                                    rectdomain<2>({0, 0}, {nd_index{1} << 32, nd_index{1} << 32}))),
    NDARRAY_MISUSE("padding_too_large", pgas::ndarray<int, 2>(rectdomain<2>({0, 0}, {2, 2}),
                                                              pgas::padding{nd_index{1} << 61})),
};

void check_misuse(const std::string& name, const std::string& what) {
  misuse_child_check("ndarray_test", "ndarray misuse child", "NDARRAY_TEST_CASE", name,
                     "thread 1 of 2", what, "ndarray_test.cpp");
}

}  // namespace

// Run only as a child of check_misuse() (hidden: the tag starts with a dot).
TEST_CASE("ndarray misuse child", "[.ndarray_child]") {
  misuse_child_main(child_cases, "NDARRAY_TEST_CASE");
}

TEST_CASE("ndarray misuse ends the job naming the thread and the line") {
  check_misuse("as_local_of_other",
               "pgas::ndarray: a pgas::local ndarray cannot refer to thread 0's elements");
  check_misuse("not_simple", "this view is not pgas::simple (memory strides (1, 6))");
  check_misuse("constrict_strided", "is strided, but this array's layout is pgas::simple");
  check_misuse("slice_outside",
               "pgas::ndarray::slice: 6 is not a coordinate of dimension 1 (the array's domain "
               "is [(0, 0):(4, 6):(1, 1)])");
  check_misuse("slice_dimension", "pgas::ndarray::slice: dimension 2 is out of [0, 2)");
  check_misuse("permute_not_permutation", "(1, 1)");
  check_misuse("inject_zero",
               "pgas::ndarray::inject: every component of (2, 0) must be at least 1");
  check_misuse("project_not_dividing",
               "pgas::ndarray::project: (1, 2) does not divide every point");
  check_misuse("shrink_direction", "pgas::ndarray::shrink: direction 3 is out of");
  check_misuse("alignment_not_power", "pgas::ndarray: alignment 48 is not a power of two");
  check_misuse("negative_padding",
               "pgas::ndarray: negative padding -1 after dimension 1 (padding (0, -1))");
  check_misuse("too_large",
               "pgas::ndarray: the domain (with its padding) has more elements than memory can "
               "address (the array's domain is [(0, 0):(4294967296, 4294967296):(1, 1)])");
  check_misuse("padding_too_large", "pgas::ndarray: the domain (with its padding) has more");
}
