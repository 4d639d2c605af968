// pgas/forall.hpp — work sharing by affinity: UPC's upc_forall (UPC 1.3 §6.6.2).
//
//   pgas::forall(0, n, [&](long i) { … });                          // affinity i
//   pgas::forall(0, n, [&](long i) { return A.ptr(i); }, body);     // affinity &A[i]
//   pgas::forall(0, n, A, body);                                    // the same, faster
//   pgas::forall(0, n, p, body);                                    // affinity p + i
//   pgas::forall(0, n, [&](long i) { return i / 4; }, body);       // any integer
//   pgas::forall(0, n, pgas::everyone, body);                      // UPC `continue`
//   pgas::forall(0, n, pgas::step(2), body);                       // i += 2; affinity i
//   pgas::forall(0, n, pgas::step(3), [&](long i) { return A.ptr(i); }, body);
//
//   // upc_forall (i = 1; i < n; i <<= 1; &A[i]): a first value, a condition, a step
//   pgas::forall(1L, [&](long i) { return i < n; }, [](long i) { return i << 1; },
//                [&](long i) { return A.ptr(i); }, body);
//
// Every thread calls forall with the same bounds; thread t runs the iterations whose
// affinity names it: an integer affinity e selects thread e mod THREADS (the non-negative
// remainder), a pointer-to-shared affinity — UPC's `&A[i]` — selects upc_threadof(p). The
// forms without an affinity argument use the integer affinity i itself (UPC
// `upc_forall (…; i)`); with it, each thread steps straight through its own iterations (no
// test per iteration), for any pgas::step(k).
//
// Array and pointer affinity. A one-dimensional pgas::shared_array or pgas::static_array
// passed as the affinity means UPC's `&A[i]`, and a typed pointer-to-shared p (any block,
// phase and thread) means `p + i` (`&p[i]`, as in a function taking `shared [B] T *p`):
// forall(lo, hi, A, body) runs the same iterations as forall(lo, hi, [&](auto i) { return
// A.ptr(i); }, body), and forall(lo, hi, p, body) those of [&](auto i) { return p + i; }, but
// in the plain and stepped loops each thread computes where its own blocks are and runs only
// their iterations instead of evaluating the affinity of every iteration: a loop over N
// elements costs each thread about N / THREADS steps instead of N (at a thousand threads, a
// thousand times fewer). An array's iterations must name its elements: lo >= 0 and
// hi <= A.size() when lo < hi, misuse otherwise (UPC leaves &A[i] past the array undefined);
// a pointer's are not checked (the thread of p + i is UPC's formula for any i, negative too;
// outside the object pointed into, UPC leaves p + i undefined). In the general form they are
// evaluated per iteration, and an array's iteration outside it is misuse there too. (Any
// other callable affinity is called as a function; an array is never taken for one: for an
// array of owners, write [&](auto i) { return owners(i); }.)
//
// Iterations. lo and hi have one integer type, the index's (`0L` for a long hi: a compile
// error says so otherwise). forall(lo, hi, …) runs i = lo, lo + 1, … below hi; forall(lo, hi,
// step(k), …) runs i = lo, lo + k, lo + 2k, … below hi (UPC `i += k`; k >= 1, and no step past hi
// overflows the index type); the general form forall(first, cond, next, …) runs
// `for (i = first; cond(i); i = next(i))` for any loop UPC can write (`i <<= 1`, `i -= 2`,
// …). `next` either returns the next value (`[](long i) { return i << 1; }`) or updates its
// argument in place (`[](long& i) { i <<= 1; }`). Iteration values are the same on every
// thread, so cond and next must not depend on the thread.
//
// As in UPC, a forall that runs inside the body of another forall (on the same thread)
// ignores its affinity and runs every iteration: the outer loop already shares the work.
// A pgas::everyone loop shares nothing, so it does not count as an outer loop (UPC: only a
// loop whose affinity is not `continue` controls its nested loops). This holds for every
// form, stepped or not.
//
// Contract.
//   * Collective: no. forall has no barrier and no agreement check; the work is shared only
//     if every thread calls it with the same bounds and affinity, which is not checked.
//   * Errors (pgas/error.hpp): pgas::step(k) with k < 1 is misuse named at the step's call
//     site (a loop that would never end). Otherwise forall has none of its own: an exception
//     from the body, the affinity, the condition or the step leaves the loop (and the nesting
//     count) as any exception leaves a loop; uncaught, it ends the job.
//   * Outside a job THREADS is 1 and MYTHREAD 0, so every forall runs every iteration on the
//     calling thread.
//   * Memory ordering: none. The body's accesses are relaxed; follow the loop with
//     pgas::barrier() when other threads must see its results.
//   * Thread safety: the body runs on the calling thread only; the nesting count is per
//     thread.
#pragma once

#include <concepts>
#include <cstddef>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>

#include <pgas/detail/forall_affinity.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

/// The `continue` affinity: every thread runs every iteration.
struct everyone_t {
  explicit everyone_t() = default;
};
inline constexpr everyone_t everyone{};

namespace detail {

// The array behind an affinity argument: a static_array's calling-thread array, or the
// argument itself.
template <class X>
decltype(auto) forall_array_of(const X& a) {
  if constexpr (requires { a.get().my_chunks(); }) {
    return a.get();
  } else {
    return a;
  }
}

// A shared array (pgas::shared_array, pgas::static_array) passed as an affinity, and its rank.
template <class A>
concept forall_any_array = requires(const std::remove_cvref_t<A>& a) {
  forall_array_of(a).my_chunks();
  forall_array_of(a).begin_ptr();
  forall_array_of(a).size();
};
template <class A>
inline constexpr std::size_t forall_rank = std::remove_cvref_t<decltype(forall_array_of(
    std::declval<const std::remove_cvref_t<A>&>()))>::rank;

// A one-dimensional shared array as an affinity: UPC's &A[i] (see "Array and pointer affinity"
// above).
template <class A>
concept forall_array = forall_any_array<A> && forall_rank<A>
== 1;

// A typed pointer-to-shared as an affinity: UPC's p + i (&p[i]) for a `shared [B] T *p`.
template <class A>
concept forall_pointer = is_sptr<std::remove_cvref_t<A>>::value &&
    !std::is_void_v<typename std::remove_cvref_t<A>::element_type>;

// What the stepped and general forms take as an affinity: a function of the index (integer or
// pointer-to-shared), a one-dimensional array, a typed pointer-to-shared, or pgas::everyone.
template <class A, class I>
concept forall_affinity = std::invocable<A&, I> || forall_array<A> || forall_pointer<A> ||
    std::same_as<std::remove_cvref_t<A>, everyone_t>;

// An array or typed pointer-to-shared: affinities whose iterations a thread can find
// without evaluating each one.
template <class A>
concept forall_walkable = forall_array<A> || forall_pointer<A>;

// A function of the index (integer or pointer-to-shared), as the plain form takes it.
template <class A, class I>
concept forall_function = std::invocable<A&, I> && !forall_walkable<A>;

// The stepped form's per-iteration affinities: a function or pgas::everyone.
template <class A, class I>
concept forall_evaluated = forall_affinity<A, I> && !forall_walkable<A>;

// An index of any integral type (char and bool included) as a 128-bit value, for comparisons
// and text.
__extension__ using forall_int128 = __int128;
template <class I>
forall_int128 forall_wide(I i) noexcept {
  return static_cast<forall_int128>(i);
}
template <class I>
std::string forall_text(I i) {
  return std::is_signed_v<I> ? std::to_string(static_cast<long long>(i))
                             : std::to_string(static_cast<unsigned long long>(i));
}

// Misuse (naming `where`) unless iteration i indexes array a.
template <class Arr, class I>
void forall_check_index(const Arr& a, I i, const std::source_location& where) {
  if (forall_wide(i) < 0 || forall_wide(i) >= forall_wide(a.size())) {
    misuse("pgas::forall: iteration " + forall_text(i) +
               " with affinity &A[i] names no element of A (A.size() is " +
               std::to_string(a.size()) + ")",
           where);
  }
}

// The thread that the affinity names for iteration i. An array's i must index it (misuse
// otherwise, naming `where`).
template <class A, class I>
int forall_thread_of(A& affinity, I i, const std::source_location& where) {
  if constexpr (forall_array<A>) {
    const auto& a = forall_array_of(affinity);
    forall_check_index(a, i, where);
    return a.ptr(static_cast<std::size_t>(i)).thread();
  } else if constexpr (forall_pointer<A>) {
    return (affinity + static_cast<std::ptrdiff_t>(i)).thread();
  } else {
    return affinity_thread(affinity(i));
  }
}

// forall(lo, hi, step(k), p, body) for a pointer-to-shared p: the iterations i whose element
// p + i this thread owns, found block by block. Element p + i lies in block
// g = floor((phase(p) + i) / B) counted from p's block, on thread (thread(p) + g) mod THREADS
// (UPC's pointer arithmetic; B = 0, indefinite, keeps every element on p's thread), so this
// thread's blocks are every THREADS-th g, each one run [g B - phase, (g + 1) B - phase) (or,
// for a step longer than THREADS blocks, each iteration's g computed: the cheaper count).
// 128-bit arithmetic where 64 bits could overflow: no index of any 64-bit type does.
template <class I, class P, class F>
void forall_over_pointer(I lo, I hi, unsigned long long k, const P& p, F& body) {
  __extension__ using wide = __int128;
  forall_scope scope;
  if (!(lo < hi)) return;
  const wide l = lo, h = hi, step = k;
  // Runs first, first + k, ... below end: counted in 64 bits, so that the body's loop keeps a
  // plain induction variable (vectorisable), the values made in I's unsigned type.
  using U = std::make_unsigned_t<I>;
  const auto run = [&]<class W>(W first, W end) {
    if (first >= end) return;
    const auto base = static_cast<U>(static_cast<I>(first));
    if (k == 1) {
      const auto count = static_cast<unsigned long long>(end - first);
      for (unsigned long long m = 0; m < count; ++m)
        body(static_cast<I>(static_cast<U>(base + m)));
    } else {
      const auto count = static_cast<unsigned long long>((end - first - 1) / static_cast<W>(k) + 1);
      for (unsigned long long m = 0; m < count; ++m)
        body(static_cast<I>(static_cast<U>(base + m * k)));
    }
  };
  const int me = mythread();
  if (forall_depth > 1) {
    run(l, h);
    return;
  }
  const wide block = p.block();
  if (block == 0) {
    if (p.thread() == me) run(l, h);
    return;
  }
  const wide n = threads(), phase = p.phase();
  const auto floor_div = [](auto a, auto b) { return a / b - (a % b != 0 && a < 0 ? 1 : 0); };
  const wide g_first = floor_div(phase + l, block);
  const wide skip = ((me - p.thread() - g_first) % n + n) % n;  // to this thread's first block
  // Block g holds i in [g B - phase, (g + 1) B - phase); this thread's are every n-th. The
  // walk runs in 64 bits when nothing it adds can pass 2^63 (any real array), else in 128.
  const wide first_start = (g_first + skip) * block - phase, stride = n * block;
  const auto walk = [&]<class W>(W) {
    const W lw = static_cast<W>(l), hw = static_cast<W>(h), bw = static_cast<W>(block);
    const W sw = static_cast<W>(stride), kw = static_cast<W>(step);
    if (kw > sw) {
      // A step longer than a round of blocks: fewer iterations than this thread's blocks, so
      // each iteration's thread is computed instead (one division each).
      const W pw = static_cast<W>(phase), nw = static_cast<W>(n);
      const W from = static_cast<W>(p.thread());
      for (W i = lw; i < hw; i += kw) {
        const W g = floor_div(pw + i, bw);
        if (((from + g) % nw + nw) % nw == me) body(static_cast<I>(i));
      }
      return;
    }
    for (W start = static_cast<W>(first_start); start < hw; start += sw) {
      const W b = start > lw ? start : lw;
      const W e = start + bw < hw ? start + bw : hw;
      if (k == 1) {
        run(b, e);
      } else {
        const W r = (b - lw) % kw;  // the loop's first iteration at or after b
        run(r == 0 ? b : b + (kw - r), e);
      }
    }
  };
  constexpr wide limit = wide{1} << 61;
  if (l > -limit && h < limit && first_start > -limit && stride < limit && step < limit) {
    walk(0LL);
  } else {
    walk(wide{0});
  }
}

// forall(lo, hi, step(k), A, body) for an array A: as for the pointer &A[0], once the
// iterations are known to name elements of A.
template <class I, class Arr, class F>
void forall_over_array(I lo, I hi, unsigned long long k, const Arr& a, F& body,
                       const std::source_location& where) {
  if (lo < hi && (forall_wide(lo) < 0 || forall_wide(hi) > forall_wide(a.size()))) {
    misuse("pgas::forall: iterations [" + forall_text(lo) + ", " + forall_text(hi) +
               ") with affinity &A[i] name no element of A for i outside [0, " +
               std::to_string(a.size()) + ") (A.size())",
           where);
  }
  forall_over_pointer(lo, hi, k, a.begin_ptr(), body);
}

// This thread's iterations of forall(lo, hi, step(k), w, body) for an array or pointer w.
template <class I, class W, class F>
void forall_walk(I lo, I hi, unsigned long long k, const W& w, F& body,
                 const std::source_location& where) {
  if constexpr (forall_array<W>) {
    forall_over_array(lo, hi, k, forall_array_of(w), body, where);
  } else {
    forall_over_pointer(lo, hi, k, w, body);
  }
}

// Runs body(i) for the iterations `loop` visits whose affinity names the calling thread (every
// one inside a controlling forall); an everyone loop runs them all and controls nothing.
template <class Loop, class A, class F>
void forall_each(Loop&& loop, A& affinity, F& body, const std::source_location& where) {
  if constexpr (std::same_as<std::remove_cvref_t<A>, everyone_t>) {
    loop([&](auto i) { body(i); });
  } else {
    forall_scope scope;
    const bool all = forall_depth > 1;
    const int me = mythread();
    loop([&](auto i) {
      if (!all) {
        if (forall_thread_of(affinity, i, where) == me) body(i);
      } else {
        if constexpr (forall_array<A>) forall_check_index(forall_array_of(affinity), i, where);
        body(i);
      }
    });
  }
}

}  // namespace detail

/// The step of forall(lo, hi, step(k), …): UPC's `i += k`. Misuse when k < 1 (named at the
/// call site of step(k)).
class step {
 public:
  template <std::integral K>
  explicit step(K k, std::source_location where = std::source_location::current()) {
    if (k < 1) {
      detail::misuse("pgas::step(" + std::to_string(k) + "): a forall step must be at least 1",
                     where);
    }
    k_ = static_cast<unsigned long long>(k);
  }
  unsigned long long value() const noexcept { return k_; }

 private:
  unsigned long long k_ = 1;
};

/// upc_forall (i = lo; i < hi; ++i; i): thread t runs the i with i mod THREADS == t.
template <std::integral I, class F>
requires std::invocable<F&, I>
void forall(I lo, I hi, F&& body) {
  detail::forall_scope scope;
  if (detail::forall_depth > 1) {
    for (I i = lo; i < hi; ++i)
      body(i);
    return;
  }
  if (!(lo < hi)) return;
  // Steps are counted from lo in unsigned arithmetic, so that neither the first iteration
  // (lo + up to THREADS - 1) nor a step past hi can overflow I, at either end of its range.
  using U = std::make_unsigned_t<I>;
  const auto span = static_cast<unsigned long long>(
      static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)));  // U: narrow types promote
  const auto n = static_cast<unsigned long long>(threads());
  const auto first = static_cast<unsigned long long>(detail::affinity_thread(lo));
  const auto base = static_cast<unsigned long long>(static_cast<U>(lo));
  for (auto k = (static_cast<unsigned long long>(mythread()) + n - first) % n; k < span; k += n) {
    body(static_cast<I>(static_cast<U>(base + k)));
    if (span - k <= n) break;  // k + n would reach span (and might wrap)
  }
}

/// upc_forall (i = lo; i < hi; ++i; affinity(i)): affinity(i) returns an integer or a
/// pointer-to-shared.
template <std::integral I, class A, class F>
requires std::invocable<F&, I> && detail::forall_function<A, I>
void forall(I lo, I hi, A&& affinity, F&& body) {
  detail::forall_scope scope;
  const bool all = detail::forall_depth > 1;
  const int me = mythread();
  for (I i = lo; i < hi; ++i) {
    if (all || detail::affinity_thread(affinity(i)) == me) body(i);
  }
}

/// upc_forall (i = lo; i < hi; ++i; &A[i]) for a one-dimensional array A, or (…; p + i) for a
/// typed pointer-to-shared p: thread t runs the i of its own elements, walking its blocks (see
/// "Array and pointer affinity" above). Misuse: an array with lo < hi and lo < 0 or
/// hi > A.size().
template <std::integral I, detail::forall_walkable W, class F>
requires std::invocable<F&, I>
void forall(I lo, I hi, const W& affinity, F&& body,
            std::source_location where = std::source_location::current()) {
  detail::forall_walk(lo, hi, 1, affinity, body, where);
}

/// upc_forall (…; continue): every thread runs every iteration.
template <std::integral I, class F>
requires std::invocable<F&, I>
void forall(I lo, I hi, everyone_t, F&& body) {
  // Not a controlling loop (UPC §6.6.2: `continue` affinity), so no forall_scope: a forall
  // in its body still shares its iterations.
  for (I i = lo; i < hi; ++i)
    body(i);
}

/// upc_forall (i = lo; i < hi; i += k; i): thread t runs the i with i mod THREADS == t,
/// stepping straight through them (every THREADS / gcd(k, THREADS)-th iteration).
template <std::integral I, class F>
requires std::invocable<F&, I>
void forall(I lo, I hi, step s, F&& body) {
  if (s.value() == 1) return forall(lo, hi, std::forward<F>(body));
  detail::forall_scope scope;
  if (!(lo < hi)) return;
  using U = std::make_unsigned_t<I>;
  const auto span =
      static_cast<unsigned long long>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)));
  const auto base = static_cast<unsigned long long>(static_cast<U>(lo));
  const detail::forall_stride st =
      detail::forall_depth > 1
          ? detail::forall_stride{0, s.value()}
          : detail::forall_stride_of(detail::affinity_thread(lo), s.value(), mythread());
  for (auto d = st.first; d < span; d += st.stride) {
    body(static_cast<I>(static_cast<U>(base + d)));
    if (span - d <= st.stride) break;  // d + stride would reach span (and might wrap)
  }
}

/// upc_forall (i = lo; i < hi; i += k; &A[i]) for a one-dimensional array A, or (…; p + i)
/// for a typed pointer-to-shared p: as above, each thread walks its own blocks. Misuse: an
/// array with lo < hi and lo < 0 or hi > A.size().
template <std::integral I, detail::forall_walkable W, class F>
requires std::invocable<F&, I>
void forall(I lo, I hi, step s, const W& affinity, F&& body,
            std::source_location where = std::source_location::current()) {
  detail::forall_walk(lo, hi, s.value(), affinity, body, where);
}

/// upc_forall (i = lo; i < hi; i += k; affinity(i)), and with pgas::everyone (`continue`).
template <std::integral I, class A, class F>
requires std::invocable<F&, I> && detail::forall_evaluated<A, I>
void forall(I lo, I hi, step s, A&& affinity, F&& body) {
  using U = std::make_unsigned_t<I>;
  const auto span =
      lo < hi
          ? static_cast<unsigned long long>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)))
          : 0ull;
  const auto base = static_cast<unsigned long long>(static_cast<U>(lo));
  detail::forall_each(
      [&](auto&& visit) {
        for (unsigned long long d = 0; d < span; d += s.value()) {
          visit(static_cast<I>(static_cast<U>(base + d)));
          if (span - d <= s.value()) break;
        }
      },
      affinity, body, std::source_location::current());
}

/// upc_forall (i = first; cond(i); i = next(i); affinity(i)): any loop, with an integer or
/// pointer-to-shared affinity, or pgas::everyone (`continue`). next(i) returns the next value,
/// or next(i&) updates i in place.
template <std::integral I, class C, class N, class A, class F>
requires std::predicate<C&, I> && detail::forall_next<N, I> && std::invocable<F&, I> &&
    detail::forall_affinity<A, I>
void forall(I first, C&& cond, N&& next, A&& affinity, F&& body,
            std::source_location where = std::source_location::current()) {
  detail::forall_each(
      [&](auto&& visit) {
        for (I i = first; cond(i); detail::forall_advance(next, i))
          visit(i);
      },
      affinity, body, where);
}

namespace detail {
template <class L>
inline constexpr bool forall_bounds_differ = false;

// Affinities that look like an array or pointer but cannot be walked: a shared array of more
// than one dimension, and the generic pointer-to-shared (no element size, so no p + i).
template <class A>
concept forall_multi_dim_array = forall_any_array<A> && forall_rank<A>
!= 1;
template <class A>
concept forall_void_pointer = is_sptr<std::remove_cvref_t<A>>::value && !requires {
  typename std::remove_cvref_t<A>::element_type;
};
// UPC's `&A[i]` written as such: in pgas the element's plain T*, which names no thread. (A
// pointer to a function is an affinity function, not this.)
template <class A>
concept forall_plain_pointer = std::is_pointer_v<std::remove_cvref_t<A>> &&
    !std::is_function_v<std::remove_pointer_t<std::remove_cvref_t<A>>>;
template <class A>
concept forall_unwalkable =
    forall_multi_dim_array<A> || forall_void_pointer<A> || forall_plain_pointer<A>;

template <class A>
void forall_reject() {
  static_assert(!forall_multi_dim_array<A>,
                "pgas::forall: an array of more than one dimension is not an affinity (UPC's "
                "&M[i][j] needs every index): write [&](auto l) { return M.ptr(l / cols, l % "
                "cols); }, or loop over M.my_range()");
  static_assert(!forall_void_pointer<A>,
                "pgas::forall: a pgas::sptr<void> (shared void *) has no element type, so it "
                "has no p + i: cast it to a typed pointer-to-shared");
  static_assert(!forall_plain_pointer<A>,
                "pgas::forall: a plain pointer is not an affinity: UPC's &A[i] of a pgas array "
                "is the element's plain T*, which names no thread; pass the array itself "
                "(pgas::forall(lo, hi, A, body)), a pgas::sptr p for &p[i], or write "
                "[&](int i) { return A.ptr(i); }");
}
}  // namespace detail

/// A multi-dimensional array, a pgas::sptr<void> or a plain pointer as the affinity: stops the
/// compile saying what to write instead.
template <std::integral I, detail::forall_unwalkable A, class F>
void forall(I, I, const A&, F&&) {
  detail::forall_reject<A>();
}
template <std::integral I, detail::forall_unwalkable A, class F>
void forall(I, I, step, const A&, F&&) {
  detail::forall_reject<A>();
}

/// lo and hi of two integer types (`pgas::forall(0, n, …)` with a long n): the loop index has
/// one type, so this stops the compile saying what to write instead of listing every form.
template <std::integral L, std::integral H, class... Rest>
requires(!std::same_as<L, H>) void forall(L, H, Rest&&...) {
  static_assert(detail::forall_bounds_differ<L>,
                "pgas::forall: lo and hi must have the same integer type, the loop index's: "
                "write pgas::forall(0L, n, ...) for a long n, or cast one bound");
}

/// upc_forall (i = first; cond(i); i = next(i); i): the general loop with affinity i.
template <std::integral I, class C, class N, class F>
requires std::predicate<C&, I> && detail::forall_next<N, I> && std::invocable<F&, I>
void forall(I first, C&& cond, N&& next, F&& body) {
  forall(
      first, std::forward<C>(cond), std::forward<N>(next), [](I i) { return i; },
      std::forward<F>(body));
}

}  // namespace pgas
