// pgas/ndarray.hpp — local-view N-dimensional arrays (Titanium's arrays):
// an array maps the points of a rectdomain to elements stored in ONE thread's part of the
// shared space; views re-index those elements without copying them.
//
//   pgas::ndarray<double, 3> A(pgas::rectdomain<3>({0, 0, 0}, {nx, ny, nz}));  // this thread's
//   A(1, 2, 3) = 4.0;                       // index by N integers...
//   A[pgas::point<3>(1, 2, 3)] += 1.0;      // ...or by a point
//   auto inner = A.shrink(1);               // a view: the same elements, a smaller domain
//   auto S = A.as_layout<pgas::simple>();  // the fastest indexing (checked conversion)
//
// ndarray<T, N, Loc, Layout>:
//   T       the element type: trivially copyable and default constructible (checked at compile
//           time); `const T` makes a read-only view (ndarray<T> converts to ndarray<const T>
//           implicitly; writing through a const view does not compile).
//   N       the rank, N >= 1. Dimensions are numbered from 0; upper bounds are exclusive.
//   Loc     pgas::global (the default): the elements may be in any thread's segment — one
//           address space, so indexing another thread's piece is a plain load or store.
//           pgas::local: the elements are in the calling thread's segment. local converts to
//           global implicitly; global to local only explicitly (as_local(), or the explicit
//           constructor), checked: another thread's piece is misuse.
//   Layout  how an index becomes an address:
//             pgas::strided      any domain stride, any memory strides (the default): an index
//                                costs one division per dimension when the view's domain
//                                has a stride other than 1, one test otherwise;
//             pgas::unstrided    domain stride 1 in every dimension of extent > 1, any memory
//                                strides: address = origin + Σ p[d]·s[d], no division;
//             pgas::simple       unstrided, last dimension contiguous (s[N-1] == 1) and
//                                row-major (s[d] >= s[d+1]·extent(d+1); rows may be padded):
//                                what hand-written p[(i*ny + j)*nz + k] does;
//             pgas::column_major unstrided, first dimension contiguous (s[0] == 1) and
//                                column-major (s[d] >= s[d-1]·extent(d-1)).
//           simple and column_major convert implicitly to unstrided, and every layout to
//           strided; the other way is explicit (as_layout<Y>(), or the explicit
//           constructor) and checked at run time (misuse when the view does not have that
//           layout; is_simple() etc. ask first). An empty view has every layout.
//
// Contract.
//   * Creation (the constructors taking a rectdomain) allocates the elements with
//     pgas::local_alloc in the CALLING thread's segment (its NUMA node) and value-initialises
//     them (zeros for arithmetic types), the first on a cache line or at the pgas::alignment
//     asked for. Not collective. Requires a running job: outside one it is misuse
//     (pgas::usage_error). Running out of shared memory throws pgas::bad_shared_alloc. An
//     empty domain allocates nothing.
//   * Copying an ndarray makes another reference to the same elements (Titanium semantics, as
//     a std::shared_ptr), never a deep copy; pgas::copy (<pgas/ndarray_copy.hpp>) copies
//     elements. The storage is reference counted (an atomic count: references may be copied
//     and dropped by any threads at once) and freed with pgas::free when the last reference
//     goes. The last reference should go before the job ends (pgas::run returns): one copied
//     or dropped after that (a static ndarray destroyed at exit) touches nothing, as the
//     shared space is gone, and its elements must not be used; one kept into a later job is
//     undefined.
//   * Views (constrict, translate, slice, shrink, border, permute, transpose, inject,
//     project) are O(1), share the storage and compose (views of views). A view of another
//     thread's piece, kept as global, indexes it directly.
//   * Indexing (A[p], A(i, j, …)) is unchecked in release builds. In checked builds
//     (config::bounds_check, i.e. -Dbounds_check=true or -Ddebug_level>=1) and in a program
//     compiled with -DPGAS_NDARRAY_BOUNDS_CHECK=1 (a per-unit switch; every
//     translation unit of the program should agree), a point outside domain() is misuse that
//     names the thread, the file and line of the index expression, the point and the domain.
//     Every other misuse (arguments of views, conversions, creation) is always checked and
//     named at the caller's file and line (pgas/error.hpp: inside a job it ends the job,
//     outside one it throws pgas::usage_error).
//   * Memory ordering: none. Elements are plain memory; order writes and reads of different
//     threads with pgas::barrier or a lock, as any shared data. Publishing an ndarray to other
//     threads (e.g. pgas::exchange) makes its elements reachable, not ordered.
//   * Thread safety: an ndarray object is a value: distinct ndarray objects (copies, views)
//     may be used, copied and destroyed by different threads at once; one object must not be
//     assigned while another thread reads it.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <source_location>
#include <sstream>
#include <string>
#include <type_traits>

#include <pgas/alloc.hpp>
#include <pgas/config.hpp>
#include <pgas/error.hpp>
#include <pgas/foreach.hpp>
#include <pgas/point.hpp>
#include <pgas/rectdomain.hpp>
#include <pgas/runtime.hpp>

#ifndef PGAS_NDARRAY_BOUNDS_CHECK
#define PGAS_NDARRAY_BOUNDS_CHECK 0
#endif

namespace pgas {

/// Locality tags (see above).
struct global {};
struct local {};

/// Layout tags (see above).
struct strided {};
struct unstrided {};
struct simple {};
struct column_major {};

/// Padding of a new row-major array: `elements` extra elements after each row of the last
/// dimension (after each column of the first one for a column-major array), e.g. to start
/// every row on a cache line. Negative padding is misuse.
struct padding {
  nd_index elements = 0;
};

/// Alignment of a new array's first element: `bytes`, a power of two (0, the default, and
/// anything below max(64, alignof(T)) give that: a cache line). Without it a large array
/// starts at whatever cache line the thread's allocator picks. 2 MiB (a transparent huge page)
/// is what the OpenMP variants of the bundled kernels get from their allocator; NAS FT's
/// slabs on it ran about 3 % faster. Not a power of two is misuse.
struct alignment {
  std::size_t bytes = 0;
};

/// An mdspan-like view of an ndarray's elements for external libraries: element (i0, …) with
/// 0-based indices is data[Σ i_d · strides[d]] (strides in elements, possibly negative after
/// views; never bounds checked). Valid while an ndarray referring to the elements lives.
template <class T, int N>
struct md_view {
  T* data = nullptr;
  std::array<std::size_t, N> extents{};
  std::array<std::ptrdiff_t, N> strides{};

  template <std::integral... I>
  requires(sizeof...(I) == N) T& operator()(I... i) const noexcept {
    const std::array<std::ptrdiff_t, N> idx{static_cast<std::ptrdiff_t>(i)...};
    std::ptrdiff_t off = 0;
    for (int d = 0; d < N; ++d)
      off += idx[d] * strides[d];
    return data[off];
  }
  std::size_t size() const noexcept {
    std::size_t s = 1;
    for (std::size_t e : extents)
      s *= e;
    return s;
  }
};

template <class T, int N, class Loc = global, class Layout = strided>
class ndarray;

namespace detail {

// Whether index expressions are checked in this translation unit (see the contract).
inline constexpr bool nd_checked = config::bounds_check || PGAS_NDARRAY_BOUNDS_CHECK != 0;

template <class L>
inline constexpr bool nd_is_locality = std::is_same_v<L, global> || std::is_same_v<L, local>;
template <class Y>
inline constexpr bool nd_is_layout = std::is_same_v<Y, strided> || std::is_same_v<Y, unstrided> ||
                                     std::is_same_v<Y, simple> || std::is_same_v<Y, column_major>;
// Layouts whose domain stride is 1: indexing needs no division.
template <class Y>
inline constexpr bool nd_unit = !std::is_same_v<Y, strided>;
// Whether a view of layout From is always one of layout To (the implicit conversions).
template <class From, class To>
inline constexpr bool nd_layout_implies = std::is_same_v<From, To> || std::is_same_v<To, strided> ||
                                          (std::is_same_v<To, unstrided> &&
                                           (std::is_same_v<From, simple> ||
                                            std::is_same_v<From, column_major>));
// The layout of a permuted view: a permutation keeps unit strides, not the memory order.
template <class Y>
using nd_permuted = std::conditional_t<std::is_same_v<Y, strided>, strided, unstrided>;

// An index argument that remembers the call site of the index expression (for bounds errors;
// optimised away when unchecked).
struct nd_located_index {
  nd_index value;
  std::source_location where;
  template <std::integral I>
  constexpr nd_located_index(I v, std::source_location w = std::source_location::current()) noexcept
      : value(static_cast<nd_index>(v)), where(w) {}
};
template <int N>
struct nd_located_point {
  point<N> value;
  std::source_location where;
  constexpr nd_located_point(const point<N>& v,
                             std::source_location w = std::source_location::current()) noexcept
      : value(v), where(w) {}
};

// Selects ndarray's private constructor that shares another ndarray's elements and view.
struct nd_share_t {};
inline constexpr nd_share_t nd_share{};

// The reference count of an ndarray's elements, at the head of their allocation (`block` is
// this count itself), or, when the elements ask for more than a cache line's alignment, in a
// block of its own (`block` is then the elements' allocation, freed with it).
struct nd_storage {
  std::atomic<std::size_t> refs{1};
  void* block = nullptr;
};

// Misuse reports (pgas/error.hpp), out of the indexing path.
template <int N>
[[noreturn, gnu::cold, gnu::noinline]] void nd_index_error(const point<N>& p,
                                                           const rectdomain<N>& d,
                                                           const std::source_location& where) {
  misuse("ndarray index " + to_string(p) + " outside the array's domain " + to_string(d), where);
}
template <int N>
[[noreturn, gnu::cold, gnu::noinline]] void nd_view_error(const std::string& what,
                                                          const rectdomain<N>& d,
                                                          const std::source_location& where) {
  misuse(what + " (the array's domain is " + to_string(d) + ")", where);
}

template <class Y>
constexpr const char* nd_layout_name() {
  if constexpr (std::is_same_v<Y, strided>) return "pgas::strided";
  if constexpr (std::is_same_v<Y, unstrided>) return "pgas::unstrided";
  if constexpr (std::is_same_v<Y, simple>) return "pgas::simple";
  if constexpr (std::is_same_v<Y, column_major>) return "pgas::column_major";
}

}  // namespace detail

template <class T, int N, class Loc, class Layout>
class ndarray {
  static_assert(N >= 1, "pgas::ndarray: the rank N must be at least 1");
  static_assert(std::is_trivially_copyable_v<T>,
                "pgas::ndarray: the element type must be trivially copyable");
  static_assert(std::is_default_constructible_v<std::remove_cv_t<T>>,
                "pgas::ndarray: the element type must be default constructible");
  static_assert(detail::nd_is_locality<Loc>,
                "pgas::ndarray: the locality must be pgas::global or pgas::local");
  static_assert(detail::nd_is_layout<Layout>,
                "pgas::ndarray: the layout must be pgas::strided, pgas::unstrided, pgas::simple "
                "or pgas::column_major");

  template <class, int, class, class>
  friend class ndarray;
  using value_t = std::remove_cv_t<T>;

 public:
  using element_type = T;
  using value_type = value_t;
  using locality = Loc;
  using layout = Layout;
  using point_type = point<N>;
  using domain_type = rectdomain<N>;
  static constexpr int rank = N;

  /// The null array: empty domain, no storage, owner() -1.
  ndarray() noexcept = default;

  /// A new array over d, in the calling thread's segment, elements value-initialised, laid
  /// out row-major (column-major when Layout is pgas::column_major), its first element aligned
  /// as `a` asks. See the contract.
  explicit ndarray(const rectdomain<N>& d, alignment a = {},
                   std::source_location where = std::source_location::current()) {
    create(d, point<N>(), std::is_same_v<Layout, column_major>, a, where);
  }
  /// As above, with p.elements extra elements after each row of the contiguous dimension.
  ndarray(const rectdomain<N>& d, padding p, alignment a = {},
          std::source_location where = std::source_location::current()) {
    const bool col = std::is_same_v<Layout, column_major>;
    create(d, point<N>::direction(col ? 1 : N, p.elements), col, a, where);
  }
  /// As above, with pad[d] extra elements after dimension d: the memory
  /// extent of dimension d is extent(d) + pad[d].
  ndarray(const rectdomain<N>& d, const point<N>& pad, alignment a = {},
          std::source_location where = std::source_location::current()) {
    create(d, pad, std::is_same_v<Layout, column_major>, a, where);
  }
  /// A new array laid out column-major (the first dimension contiguous), whose Layout is not
  /// pgas::simple.
  ndarray(const rectdomain<N>& d, column_major, alignment a = {},
          std::source_location where =
              std::source_location::current()) requires(!std::is_same_v<Layout, simple>) {
    create(d, point<N>(), true, a, where);
  }

  ndarray(const ndarray& o) noexcept : ndarray(o, detail::nd_share) {}
  ndarray(ndarray&& o) noexcept { swap(o); }
  ndarray& operator=(const ndarray& o) noexcept {
    if (this != &o) {
      ndarray copy(o);
      swap(copy);
    }
    return *this;
  }
  ndarray& operator=(ndarray&& o) noexcept {
    ndarray moved(std::move(o));
    swap(moved);
    return *this;
  }
  ~ndarray() { release(); }

  /// Conversions between element constness, localities and layouts. Implicit when always
  /// valid (T to const T, local to global, a layout to a more general one); explicit and
  /// checked otherwise: global to local is misuse unless the elements are the calling
  /// thread's (or the array is null), and a specialised layout is misuse unless the view has
  /// it. Dropping const, or changing the rank or element type, does not compile.
  template <class U, class L2, class Y2>
  requires(std::is_convertible_v<U (*)[], T (*)[]> &&
           !(std::is_same_v<U, T> && std::is_same_v<L2, Loc> &&
             std::is_same_v<Y2, Layout>)) explicit(!((std::is_same_v<L2, Loc> ||
                                                      std::is_same_v<Loc, global>)&&detail::
                                                         nd_layout_implies<Y2, Layout>))
      ndarray(const ndarray<U, N, L2, Y2>& o,
              std::source_location where = std::source_location::current())
      : ndarray(o, detail::nd_share) {
    if constexpr (std::is_same_v<Loc, local> && !std::is_same_v<L2, local>) {
      if (store_ != nullptr && owner_ != mythread()) {
        detail::nd_view_error("pgas::ndarray: a pgas::local ndarray cannot refer to thread " +
                                  std::to_string(owner_) + "'s elements",
                              dom_, where);
      }
    }
    if constexpr (!detail::nd_layout_implies<Y2, Layout>) {
      if (!has_layout<Layout>()) {
        detail::nd_view_error(std::string("pgas::ndarray: this view is not ") +
                                  detail::nd_layout_name<Layout>() + " (memory strides " +
                                  to_string(ms_) + ")",
                              dom_, where);
      }
    }
  }

  // ---- What the array is ----

  /// The index space (a view's is its own; the null array's is empty).
  const rectdomain<N>& domain() const noexcept { return dom_; }
  /// Elements in the domain.
  std::size_t size() const noexcept { return dom_.size(); }
  bool empty() const noexcept { return dom_.empty(); }
  /// True for the null array (no storage: default-constructed, or created over an empty domain).
  bool is_null() const noexcept { return store_ == nullptr; }
  /// The thread whose segment holds the elements; -1 for the null array.
  int owner() const noexcept { return owner_; }
  /// owner() == pgas::mythread().
  bool is_local() const noexcept { return owner_ == mythread(); }
  /// The address of domain().lower()'s element (unspecified for an empty view). Indexing it
  /// by hand: element p is at base()[Σ (p[d] - lower[d]) / stride[d] · memory_strides()[d]].
  T* base() const noexcept { return base_; }
  /// Elements between neighbours along each dimension, per step of the domain's stride.
  point<N> memory_strides() const noexcept { return ms_; }
  /// The elements as an md_view (0-based, extents of the domain).
  md_view<T, N> view() const noexcept {
    md_view<T, N> v;
    v.data = base_;
    for (int d = 0; d < N; ++d) {
      v.extents[d] = dom_.empty() ? 0 : static_cast<std::size_t>(dom_.extent(d));
      v.strides[d] = ms_[d];
    }
    return v;
  }
  /// Whether this view has a layout (true for an empty view), whatever its type says.
  bool is_unstrided() const noexcept { return has_layout<unstrided>(); }
  bool is_simple() const noexcept { return has_layout<simple>(); }
  bool is_column_major() const noexcept { return has_layout<column_major>(); }

  // ---- Indexing ----

  /// The element at point p (see the contract for checked builds).
  [[gnu::always_inline]] T& operator[](detail::nd_located_point<N> p) const
      noexcept(!detail::nd_checked) {
    if constexpr (detail::nd_checked) check(p.value, p.where);
    return *address(p.value);
  }
  /// The element at (i0, i, …): exactly N integers.
  template <std::integral... I>
  requires(sizeof...(I) == N - 1) [[gnu::always_inline]] T& operator()(detail::nd_located_index i0,
                                                                       I... i) const
      noexcept(!detail::nd_checked) {
    const point<N> p(i0.value, static_cast<nd_index>(i)...);
    if constexpr (detail::nd_checked) check(p, i0.where);
    return *address(p);
  }

  // ---- Views (O(1), sharing the elements) ----

  /// The view restricted to domain() * r (Titanium's restrict). For a unit-stride layout
  /// type, an r whose intersection is strided is misuse (constrict a strided view instead).
  ndarray constrict(const rectdomain<N>& r,
                    std::source_location where = std::source_location::current()) const {
    return sub(dom_ * r, where);
  }
  /// The view whose index p + t is this view's index p.
  ndarray translate(const point<N>& t) const {
    ndarray v(*this);
    v.dom_ = dom_ + t;
    v.set_lower();
    return v;
  }
  /// constrict(domain().shrink(k)): the interior without a k-thick layer on every face.
  ndarray shrink(nd_index k, std::source_location where = std::source_location::current()) const {
    return sub(dom_.shrink(k), where);
  }
  /// constrict(domain().shrink(k, dir)): dir is Titanium's signed 1-based direction.
  ndarray shrink(nd_index k, int dir,
                 std::source_location where = std::source_location::current()) const {
    detail::nd_check_dir(dir, N, "pgas::ndarray::shrink", where);
    return sub(dom_.shrink(k, dir), where);
  }
  /// constrict(domain().border(k, dir, shift)) (see rectdomain::border).
  ndarray border(nd_index k, int dir, nd_index shift = 0,
                 std::source_location where = std::source_location::current()) const {
    detail::nd_check_dir(dir, N, "pgas::ndarray::border", where);
    return constrict(dom_.border(k, dir, shift), where);
  }
  /// The (N-1)-dimensional view of the points whose coordinate d is v. Misuse: d outside
  /// [0, N), or v not a coordinate of the domain along d (an empty view has none).
  ndarray<T, N - 1, Loc, strided> slice(
      int d, nd_index v, std::source_location where = std::source_location::current()) const
      requires(N >= 2) {
    detail::nd_check_dim(d, N, "pgas::ndarray::slice", where);
    const nd_index lo = dom_.lower()[d], st = dom_.stride()[d];
    if (dom_.empty() || v < lo || v >= dom_.upper()[d] || (v - lo) % st != 0) {
      detail::nd_view_error("pgas::ndarray::slice: " + std::to_string(v) +
                                " is not a coordinate of dimension " + std::to_string(d),
                            dom_, where);
    }
    ndarray<T, N - 1, Loc, strided> s;
    s.store_ = store_;
    s.owner_ = owner_;
    s.retain();
    s.base_ = base_ + (v - lo) / st * ms_[d];
    s.dom_ = dom_.slice(d);
    s.ms_ = ms_.drop(d);
    s.set_lower();
    return s;
  }
  /// The view whose index p.permute(perm) is this view's index p: dimension d of the view is
  /// dimension perm[d] of this one. Misuse unless perm is a permutation of 0..N-1.
  ndarray<T, N, Loc, detail::nd_permuted<Layout>> permute(
      const point<N>& perm, std::source_location where = std::source_location::current()) const {
    point<N>::check_permutation(perm, where);
    ndarray<T, N, Loc, detail::nd_permuted<Layout>> v(*this, detail::nd_share);
    v.dom_ = dom_.permute(perm);
    for (int d = 0; d < N; ++d)
      v.ms_[d] = ms_[static_cast<int>(perm[d])];
    v.set_lower();
    return v;
  }
  /// permute({1, 0}) of a 2-D array: index (j, i) is this array's (i, j).
  ndarray<T, N, Loc, detail::nd_permuted<Layout>> transpose() const requires(N == 2) {
    return permute(point<N>(1, 0));
  }
  /// The view whose index s * p is this view's index p (domain strides multiplied by s).
  /// Misuse: a component of s below 1.
  ndarray<T, N, Loc, strided> inject(
      const point<N>& s, std::source_location where = std::source_location::current()) const {
    check_scale("pgas::ndarray::inject", s, where);
    ndarray<T, N, Loc, strided> v(*this, detail::nd_share);
    if (!dom_.empty()) {
      const point<N> lo = dom_.lower() * s, st = dom_.stride() * s;
      v.dom_ = rectdomain<N>(lo, lo + dom_.extents() * st, st);
    }
    v.set_lower();
    return v;
  }
  /// The inverse of inject: the view whose index p / s is this view's index p. Misuse: a
  /// component of s below 1, or a point of the domain that s does not divide.
  ndarray<T, N, Loc, strided> project(
      const point<N>& s, std::source_location where = std::source_location::current()) const {
    check_scale("pgas::ndarray::project", s, where);
    ndarray<T, N, Loc, strided> v(*this, detail::nd_share);
    if (!dom_.empty()) {
      point<N> lo, st;
      for (int d = 0; d < N; ++d) {
        const nd_index l = dom_.lower()[d], t = dom_.stride()[d];
        const bool single = dom_.extent(d) == 1;
        if (l % s[d] != 0 || (!single && t % s[d] != 0)) {
          detail::nd_view_error("pgas::ndarray::project: " + to_string(s) +
                                    " does not divide every point of the domain",
                                dom_, where);
        }
        lo[d] = l / s[d];
        st[d] = single ? 1 : t / s[d];
      }
      v.dom_ = rectdomain<N>(lo, lo + dom_.extents() * st, st);
    }
    v.set_lower();
    return v;
  }

  // ---- Conversions by name ----

  ndarray<T, N, global, Layout> as_global() const noexcept { return *this; }
  /// Misuse unless the elements are the calling thread's (or the array is null).
  ndarray<T, N, local, Layout> as_local(
      std::source_location where = std::source_location::current()) const {
    return convert<local, Layout>(where);
  }
  /// This view as layout Y (pgas::unstrided, pgas::simple, pgas::column_major, pgas::strided):
  /// misuse unless the view has it (is_unstrided(), is_simple(), is_column_major() ask first).
  template <class Y>
  ndarray<T, N, Loc, Y> as_layout(
      std::source_location where = std::source_location::current()) const {
    return convert<Loc, Y>(where);
  }
  ndarray<T, N, Loc, strided> as_strided() const noexcept { return *this; }

  void swap(ndarray& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(org_, o.org_);
    std::swap(unit_, o.unit_);
    std::swap(dom_, o.dom_);
    std::swap(ms_, o.ms_);
    std::swap(store_, o.store_);
    std::swap(owner_, o.owner_);
  }

 private:
  // Another reference to o's elements, with o's view of them (any constness, locality and
  // layout: the public conversions check what they must).
  template <class U, class L2, class Y2>
  ndarray(const ndarray<U, N, L2, Y2>& o, detail::nd_share_t) noexcept
      : base_(o.base_),
        org_(o.org_),
        unit_(o.unit_),
        dom_(o.dom_),
        ms_(o.ms_),
        store_(o.store_),
        owner_(o.owner_) {
    retain();
  }

  template <class L2, class Y2>
  ndarray<T, N, L2, Y2> convert(const std::source_location& where) const {
    if constexpr (std::is_same_v<L2, Loc> && std::is_same_v<Y2, Layout>) {
      return *this;
    } else {
      return ndarray<T, N, L2, Y2>(*this, where);
    }
  }

  // Σ q[d]·ms_[d]: the linear part of the unit-stride address formula.
  nd_index offset_of(const point<N>& q) const noexcept {
    nd_index off = 0;
    for (int d = 0; d < N; ++d)
      off += q[d] * ms_[d];
    return off;
  }

  [[gnu::always_inline]] T* address(const point<N>& p) const noexcept {
    if constexpr (std::is_same_v<Layout, simple> || std::is_same_v<Layout, column_major>) {
      // The contiguous dimension's memory stride is 1: one multiplication less, and a unit
      // step the compiler sees in an innermost loop over it. The other dimensions' part (the
      // row) is summed first and the contiguous index added last, so that the row is one
      // expression, computed once per row outside an innermost loop; adding the contiguous
      // index first left GCC recomputing every row of a 7-point stencil separately (up to
      // 25 % slower on a grid that fits in the caches).
      constexpr int inner = std::is_same_v<Layout, simple> ? N - 1 : 0;
      nd_index row = 0;
      for (int d = 0; d < N; ++d) {
        if (d != inner) row += p[d] * ms_[d];
      }
      return at_origin(row + p[inner]);
    } else if constexpr (std::is_same_v<Layout, unstrided>) {
      return at_origin(offset_of(p));
    } else {
      // A strided view whose domain happens to have unit strides (the common case) needs no
      // division either: one test, which the compiler hoists out of loops.
      if (unit_) return at_origin(offset_of(p));
      return address_general(p);
    }
  }

  // The element off elements from the origin (org_). The address is summed as an integer:
  // the origin itself may lie outside the allocation (a domain that does not contain the
  // point 0), where no pointer may point, and only the sum is an element. Starting from the
  // origin, not from base_, leaves no lower-bound term in the index: with one, GCC set up
  // each row of a 7-point stencil with more instructions than the hand-written loop (for-loops
  // over A(i, j, k) on a 32^3 grid ran at 0.71-0.82 of it; 1.00 without).
  [[gnu::always_inline]] T* at_origin(nd_index off) const noexcept {
    return reinterpret_cast<T*>(org_ + static_cast<std::uintptr_t>(off) * sizeof(T));
  }

  // After a change of base, domain or memory strides: the unit-stride formula's origin, the
  // address of index 0 (modulo 2^64: a far lower bound may wrap it).
  void set_lower() noexcept {
    org_ = reinterpret_cast<std::uintptr_t>(base_) -
           static_cast<std::uintptr_t>(offset_of(dom_.lower())) * sizeof(T);
    unit_ = has_layout<unstrided>();
  }

  void check(const point<N>& p, const std::source_location& where) const {
    if (!dom_.contains(p)) [[unlikely]]
      detail::nd_index_error(p, dom_, where);
  }

  template <class Y>
  bool has_layout() const noexcept {
    if (dom_.empty() || std::is_same_v<Y, strided>) return true;
    for (int d = 0; d < N; ++d) {
      if (dom_.stride()[d] != 1 && dom_.extent(d) > 1) return false;
    }
    if constexpr (std::is_same_v<Y, simple> || std::is_same_v<Y, column_major>) {
      // Dimensions from the contiguous one outwards: each stride spans the previous one's
      // extent (padding allowed).
      constexpr bool col = std::is_same_v<Y, column_major>;
      if (ms_[col ? 0 : N - 1] != 1) return false;
      for (int i = 1; i < N; ++i) {
        const int d = col ? i : N - 1 - i, prev = col ? i - 1 : N - i;
        if (ms_[d] < ms_[prev] * dom_.extent(prev)) return false;
      }
    }
    return true;
  }

  // The view of r, a subset of the domain's lattice (or empty).
  ndarray sub(const rectdomain<N>& r, const std::source_location& where) const {
    ndarray v(*this);
    v.dom_ = r;
    if (!r.empty()) {
      v.base_ = address_general(r.lower());
      for (int d = 0; d < N; ++d) {
        if (r.extent(d) > 1) v.ms_[d] = ms_[d] * (r.stride()[d] / dom_.stride()[d]);
      }
      v.set_lower();
      if constexpr (detail::nd_unit<Layout>) {
        if (!v.template has_layout<unstrided>()) {
          detail::nd_view_error("pgas::ndarray::constrict: the view of " + to_string(r) +
                                    " is strided, but this array's layout is " +
                                    detail::nd_layout_name<Layout>() +
                                    " (constrict its as_strided() view)",
                                dom_, where);
        }
      }
    }
    return v;
  }
  T* address_general(const point<N>& p) const noexcept {
    const point<N> lo = dom_.lower(), st = dom_.stride();
    nd_index off = 0;
    for (int d = 0; d < N; ++d)
      off += (p[d] - lo[d]) / st[d] * ms_[d];
    return base_ + off;
  }

  void check_scale(const char* what, const point<N>& s, const std::source_location& where) const {
    for (int d = 0; d < N; ++d) {
      if (s[d] < 1) {
        detail::nd_view_error(
            std::string(what) + ": every component of " + to_string(s) + " must be at least 1",
            dom_, where);
      }
    }
  }

  void create(const rectdomain<N>& d, const point<N>& pad, bool col, alignment a,
              const std::source_location& where) {
    // The arguments first, then the job (as pgas::local_alloc).
    for (int k = 0; k < N; ++k) {
      if (pad[k] < 0) {
        detail::nd_view_error("pgas::ndarray: negative padding " + std::to_string(pad[k]) +
                                  " after dimension " + std::to_string(k) + " (padding " +
                                  to_string(pad) + ")",
                              d, where);
      }
    }
    if (a.bytes != 0 && !std::has_single_bit(a.bytes)) {
      detail::nd_view_error(
          "pgas::ndarray: alignment " + std::to_string(a.bytes) + " is not a power of two", d,
          where);
    }
    if (!in_job()) {
      detail::misuse(
          "pgas::ndarray created outside a job (its elements live in the calling thread's "
          "part of the shared space)",
          where);
    }
    dom_ = d;
    if (d.empty()) return;
    // Memory strides, innermost dimension first; the allocation's element count with them.
    std::size_t total = 1;
    for (int i = 0; i < N; ++i) {
      const int k = col ? i : N - 1 - i;
      ms_[k] = static_cast<nd_index>(total);
      const auto ext = static_cast<std::size_t>(d.extent(k) + pad[k]);
      if (__builtin_mul_overflow(total, ext, &total) ||
          total > static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(T)) {
        detail::nd_view_error(
            "pgas::ndarray: the domain (with its padding) has more elements than memory can "
            "address",
            d, where);
      }
    }
    constexpr std::size_t line = std::max<std::size_t>(64, alignof(T));
    value_t* data = nullptr;
    void* raw = nullptr;
    if (a.bytes <= line) {
      // The count, then the elements at the next multiple of `line`.
      raw = local_alloc(sizeof(detail::nd_storage) + line + total * sizeof(T), where);
      store_ = ::new (raw) detail::nd_storage();
      const auto at = reinterpret_cast<std::uintptr_t>(raw) + sizeof(detail::nd_storage);
      data = reinterpret_cast<value_t*>((at + line - 1) / line * line);
    } else {
      // The elements alone in an aligned block (a 4 MiB array stays in jemalloc's 4 MiB class,
      // and no page before or after it is touched), the count in a small block of its own.
      raw = local_alloc(total * sizeof(T), a.bytes, where);
      try {
        store_ = ::new (local_alloc(sizeof(detail::nd_storage), where)) detail::nd_storage();
      } catch (...) {
        pgas::free(raw);
        throw;
      }
      data = static_cast<value_t*>(raw);
    }
    store_->block = raw;
    std::uninitialized_value_construct_n(data, total);
    base_ = data;
    owner_ = mythread();
    set_lower();
  }

  // After the job the shared space is gone, and with it the allocation and its count: a
  // reference copied or dropped then (a static ndarray at exit) must not touch them.
  void retain() const noexcept {
    if (store_ != nullptr && in_job()) store_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  void release() noexcept {
    if (store_ != nullptr && in_job() &&
        store_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      if (store_->block != store_) pgas::free(store_->block);
      pgas::free(static_cast<void*>(store_));
    }
    store_ = nullptr;
  }
  T* base_ = nullptr;       // domain().lower()'s element
  std::uintptr_t org_ = 0;  // base_ - offset_of(domain().lower()) elements, as an integer
  bool unit_ = true;        // has_layout<unstrided>(): the unit-stride formula applies
  rectdomain<N> dom_;
  point<N> ms_;  // memory strides per domain step
  detail::nd_storage* store_ = nullptr;
  int owner_ = -1;
};

}  // namespace pgas
