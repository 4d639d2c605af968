// pgas/collectives.hpp — collectives on values: broadcast, reduce, allreduce, inclusive and
// exclusive scan, allgather, and an element-wise allreduce of a span in place.
//
//   double local = partial_sum();
//   double total = pgas::allreduce(local, std::plus<>{});          // on every thread
//   int first = pgas::broadcast(mythread() == 3 ? x : 0, 3);       // thread 3's x everywhere
//   long before_me = pgas::exscan(count, std::plus<>{}, 0L);       // 0 on thread 0
//
// These are the C++ counterparts of UPC's collectives library (UPC 1.3 collectives,
// upc_all_broadcast, upc_all_reduceT, upc_all_prefix_reduceT, upc_all_gather_all), on values
// each thread holds privately instead of on shared arrays: the argument is the calling thread's
// contribution and the result is returned. `T` is any trivially copyable type (the values are
// copied bytewise between threads); it must not be a std::span, which selects the span form.
//
// Operations. `op` is any callable with `op(const T&, const T&)` convertible to T: std::plus<>,
// std::multiplies<>, std::bit_and<>, std::bit_or<>, std::bit_xor<>, std::logical_and<>, …,
// pgas::min_op, pgas::max_op, or a lambda. It must be associative; it need not be commutative:
// values are always combined in thread order, as a left fold
//     ((v0 op v1) op v2) … op v(THREADS-1)
// (scan on thread t stops at vt), so a non-commutative operation (matrix product, string
// concatenation in a fixed buffer, "last non-zero") gives a defined result, and floating-point
// sums are the same bits on every thread and in every run with the same THREADS.
//
// Contract.
//   * Collective: every call. All threads must make the same sequence of collective calls
//     (value collectives, barriers, allocations), and the calls that meet must agree on the
//     collective, T (its name and size), the element count of the span form, the root, and
//     the operation's type (its name: two lambdas are two types; one lambda written once, in
//     a function every thread runs, is one), and for a pointer to a plain function (UPC_FUNC's
//     form) its address too; the state a function object captures is not compared. A
//     disagreement ends the job with status 1 and a message naming each thread's call, its
//     arguments and file:line. Only the value contributed and exscan's init may differ
//     between threads.
//   * Errors (pgas/error.hpp): a root outside [0, THREADS), allgather's `out` not of THREADS
//     elements, and a call between pgas::notify() and its pgas::wait() are misuse, naming the
//     call. Outside a job every call is misuse and throws pgas::usage_error (there is no one
//     to combine with).
//   * Memory ordering: each call contains a pgas::barrier (the span form two), with its
//     ordering: what any thread did before its call happens-before what every thread does
//     after its call returns.
//   * Thread safety: each call acts for the calling thread. `op` is called on copies of the
//     values, by the calling thread or by another thread of the job with that thread's `op`
//     (in jobs of 4 and 5 threads the last to arrive combines small results for all): it must
//     give the same result whichever thread calls it, and must not call pgas collectives
//     itself. An exception from it reaches the caller after the barrier (the collective is then
//     complete: no thread waits for the thrower): where the last to arrive combined for all,
//     every thread's call throws it (one exception object, rethrown on each thread); where
//     each thread combines itself, the call of each thread whose combining threw (in the span
//     form that leaves the others at its second barrier: a mismatch that ends the job). reduce's
//     non-root threads may not call it at all.
//
// Cost: one barrier. In jobs of up to detail::value_line_threads threads, values of up to
// detail::value_line_bytes bytes travel in the barrier's own cache line: each thread stores its
// value there as it arrives and copies every value out as it leaves, then combines them itself,
// so the call moves exactly a barrier's cache lines. Otherwise each thread copies its value
// into a slot of its own (one cache line for values up to detail::value_inline_bytes). For
// results up to detail::value_result_bytes (allreduce, reduce, broadcast of small T) the last
// thread to arrive combines the slots and writes the result into a cache line that the release
// brings to the others; scan, exscan, allgather and larger values are combined by each
// thread from the slots after the barrier (THREADS lines read: at tens of threads still cheaper
// than the extra rounds of a tree, which is what to revisit for hundreds). The span form costs
// two barriers and O(n) work per thread: thread t combines the t-th share of the elements
// across all threads, then every thread copies every share.
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <new>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <type_traits>

#include <pgas/detail/value_exchange.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>

namespace pgas {

/// The smaller of two values (a < b decides; equal values give the first). Associative.
struct min_op {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const {
    return b < a ? b : a;
  }
};

/// The larger of two values (a < b decides; equal values give the first). Associative.
struct max_op {
  template <class T>
  constexpr T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

namespace detail {

template <class T>
inline constexpr bool is_span_v = false;
template <class T, std::size_t E>
inline constexpr bool is_span_v<std::span<T, E>> = true;

/// What the value collectives exchange.
template <class T>
concept collective_value = std::is_trivially_copyable_v<T> && !is_span_v<T>;

/// An operation on T for the reductions and scans.
template <class Op, class T>
concept collective_op = std::is_invocable_v<const Op&, const T&, const T&> &&
    std::is_convertible_v<std::invoke_result_t<const Op&, const T&, const T&>, T>;

// The slots hold bytes at whatever alignment: read them by copying.
template <class T>
T value_load(const void* p) noexcept {
  alignas(T) unsigned char buf[sizeof(T)];
  std::memcpy(buf, p, sizeof(T));
  return *std::launder(reinterpret_cast<T*>(buf));
}

// The left fold of threads [0, end)'s values in `w` (a value_view or value_line; end >= 1).
template <class T, class W, class Op>
T value_fold(const W& w, int end, const Op& op) {
  T acc = value_load<T>(w.at(0));
  for (int t = 1; t < end; ++t)
    acc = static_cast<T>(std::invoke(op, acc, value_load<T>(w.at(t))));
  return acc;
}

// Combine functions, run by the last thread to arrive (value_call::combine).
template <class T, class Op>
void value_combine_fold(const value_view& w, void* result, const void* op) {
  const T r = value_fold<T>(w, threads(), *static_cast<const Op*>(op));
  std::memcpy(result, &r, sizeof(T));
}
template <class T>
void value_combine_pick(const value_view& w, void* result, const void* root) {
  std::memcpy(result, w.at(*static_cast<const int*>(root)), sizeof(T));
}

// Results this small are combined once, by the last thread to arrive, and travel to the
// others in the barrier's release (pgas/detail/value_exchange.hpp); larger ones are combined
// by every thread that needs them, from the slots.
template <class T>
inline constexpr bool value_combined_once = sizeof(T) <= value_result_bytes;

template <class T, class Op>
value_call value_call_of(value_kind kind, int root, std::size_t count) {
  return value_call{.kind = kind,
                    .size = sizeof(T),
                    .type = name_of<T>(),
                    .root = root,
                    .count = count,
                    .op = std::is_void_v<Op> ? nullptr : name_of<Op>()};
}

// The same for a call with an operation `op`, whose address takes part in the agreement when
// it is a pointer to a plain function.
template <class T, class Op>
value_call value_call_of(value_kind kind, int root, std::size_t count, const Op& op) {
  value_call c = value_call_of<T, Op>(kind, root, count);
  if constexpr (std::is_pointer_v<Op> && std::is_function_v<std::remove_pointer_t<Op>>) {
    c.op_function = reinterpret_cast<const void*>(op);
  }
  return c;
}

// Whether T may travel beside the barrier's arrival word (value_line_exchange).
template <class T>
inline constexpr bool value_fits_line = sizeof(T) <= value_line_bytes;

// reduce and allreduce: the exchange of `v`, then the left fold of every thread's value
// (folded here from the arrival word's line in small jobs, combined by the last arriver for
// other small T, else folded here from the slots).
template <class T, class Op>
T value_reduce(value_kind kind, int root, const T& v, const Op& op,
               const std::source_location& where) {
  auto c = value_call_of<T, Op>(kind, root, 1, op);
  if constexpr (value_fits_line<T>) {
    value_line line;
    if (value_line_exchange(c, &v, where, line)) {
      if (kind == value_kind::reduce && mythread() != root) return v;
      return value_fold<T>(line, threads(), op);
    }
  }
  if constexpr (value_combined_once<T>) {
    c.combine = &value_combine_fold<T, Op>;
    c.op_object = &op;
  }
  const value_view w = value_exchange(c, &v, nullptr, where);
  if (kind == value_kind::reduce && mythread() != root) return v;
  if constexpr (value_combined_once<T>) {
    return value_load<T>(w.result);
  } else {
    return value_fold<T>(w, threads(), op);
  }
}

}  // namespace detail

/// Thread `root`'s `v`, on every thread (UPC upc_all_broadcast). The other threads' `v` is
/// not read. Misuse: root outside [0, THREADS), or threads passing different roots.
template <detail::collective_value T>
[[nodiscard]] T broadcast(const T& v, int root,
                          std::source_location where = std::source_location::current()) {
  auto c = detail::value_call_of<T, void>(detail::value_kind::broadcast, root, 1);
  if constexpr (detail::value_fits_line<T>) {
    detail::value_line line;
    if (detail::value_line_exchange(c, mythread() == root ? &v : nullptr, where, line)) {
      return detail::value_load<T>(line.at(root));
    }
  }
  if constexpr (detail::value_combined_once<T>) {
    c.combine = &detail::value_combine_pick<T>;
    c.op_object = &root;
  }
  const detail::value_view w =
      detail::value_exchange(c, mythread() == root ? &v : nullptr, nullptr, where);
  return detail::value_load<T>(detail::value_combined_once<T> ? w.result : w.at(root));
}

/// The left fold of every thread's `v` with `op`, returned on thread `root` (UPC
/// upc_all_reduceT). Every other thread gets its own `v` back unchanged: the result exists on
/// root only (use allreduce to have it everywhere). Misuse: root outside [0, THREADS), or
/// threads passing different roots.
template <detail::collective_value T, class Op>
requires detail::collective_op<Op, T>
[[nodiscard]] T reduce(const T& v, Op op, int root,
                       std::source_location where = std::source_location::current()) {
  return detail::value_reduce(detail::value_kind::reduce, root, v, op, where);
}

/// The left fold of every thread's `v` with `op`, on every thread (MPI_Allreduce; UPC
/// upc_all_reduceT followed by a broadcast). Every thread computes it in the same order, so
/// every thread gets the same bits.
template <detail::collective_value T, class Op>
requires detail::collective_op<Op, T>
[[nodiscard]] T allreduce(const T& v, Op op,
                          std::source_location where = std::source_location::current()) {
  return detail::value_reduce(detail::value_kind::allreduce, -1, v, op, where);
}

/// Inclusive scan (UPC upc_all_prefix_reduceT, MPI_Scan): thread t gets v0 op v1 … op vt.
template <detail::collective_value T, class Op>
requires detail::collective_op<Op, T>
[[nodiscard]] T scan(const T& v, Op op,
                     std::source_location where = std::source_location::current()) {
  const auto c = detail::value_call_of<T, Op>(detail::value_kind::scan, -1, 1, op);
  if constexpr (detail::value_fits_line<T>) {
    detail::value_line line;
    if (detail::value_line_exchange(c, &v, where, line)) {
      return detail::value_fold<T>(line, mythread() + 1, op);
    }
  }
  const detail::value_view w = detail::value_exchange(c, &v, nullptr, where);
  return detail::value_fold<T>(w, mythread() + 1, op);
}

/// Exclusive scan (MPI_Exscan): thread t > 0 gets v0 op … op v(t-1); thread 0, which has no
/// predecessors, gets std::nullopt.
template <detail::collective_value T, class Op>
requires detail::collective_op<Op, T>
[[nodiscard]] std::optional<T> exscan(
    const T& v, Op op, std::source_location where = std::source_location::current()) {
  const auto c = detail::value_call_of<T, Op>(detail::value_kind::exscan, -1, 1, op);
  if constexpr (detail::value_fits_line<T>) {
    detail::value_line line;
    if (detail::value_line_exchange(c, &v, where, line)) {
      if (mythread() == 0) return std::nullopt;
      return detail::value_fold<T>(line, mythread(), op);
    }
  }
  const detail::value_view w = detail::value_exchange(c, &v, nullptr, where);
  if (mythread() == 0) return std::nullopt;
  return detail::value_fold<T>(w, mythread(), op);
}

/// Exclusive scan with a value for thread 0: thread 0 gets its own `init` (usually op's
/// identity: 0 for plus, 1 for multiplies); thread t > 0 gets v0 op … op v(t-1), in which no
/// thread's init takes part. `init` may differ between threads; only thread 0's is used.
template <detail::collective_value T, class Op>
requires detail::collective_op<Op, T>
[[nodiscard]] T exscan(const T& v, Op op, const T& init,
                       std::source_location where = std::source_location::current()) {
  std::optional<T> r = exscan(v, op, where);
  return r ? *r : init;
}

/// Every thread's `v`, in thread order, into `out` on every thread (UPC upc_all_gather_all,
/// MPI_Allgather). Misuse: out.size() != THREADS.
template <detail::collective_value T>
void allgather(const T& v, std::type_identity_t<std::span<T>> out,
               std::source_location where = std::source_location::current()) {
  if (out.size() != static_cast<std::size_t>(threads())) {
    detail::misuse("pgas::allgather: `out` has " + std::to_string(out.size()) +
                       " elements; it needs one per thread (THREADS is " +
                       std::to_string(threads()) + ")",
                   where);
  }
  const auto c = detail::value_call_of<T, void>(detail::value_kind::allgather, -1, 1);
  if constexpr (detail::value_fits_line<T>) {
    detail::value_line line;
    if (detail::value_line_exchange(c, &v, where, line)) {
      for (int t = 0; t < threads(); ++t)
        std::memcpy(&out[static_cast<std::size_t>(t)], line.at(t), sizeof(T));
      return;
    }
  }
  const detail::value_view w = detail::value_exchange(c, &v, nullptr, where);
  for (int t = 0; t < threads(); ++t)
    std::memcpy(&out[static_cast<std::size_t>(t)], w.at(t), sizeof(T));
}

/// Element-wise allreduce in place: afterwards data[i] on every thread is the left fold of
/// data[i] of threads 0, 1, …, THREADS-1 with `op` (MPI_Allreduce with MPI_IN_PLACE). Every
/// thread must pass a span of the same length; an empty span only synchronises. The spans must
/// not overlap each other (each thread its own buffer).
template <detail::collective_value T, class Op>
requires detail::collective_op<Op, T>
void allreduce(std::span<T> data, Op op,
               std::source_location where = std::source_location::current()) {
  const std::size_t n = data.size();
  const auto call = detail::value_call_of<T, Op>(detail::value_kind::allreduce_span, -1, n, op);
  // 1: every thread publishes its buffer's address; nobody writes a buffer until 2.
  const detail::value_view in = detail::value_exchange(call, nullptr, data.data(), where);
  const auto nt = static_cast<std::size_t>(threads());
  const auto me = static_cast<std::size_t>(mythread());
  const std::size_t lo = n * me / nt;
  const std::size_t hi = n * (me + 1) / nt;
  auto* share = static_cast<unsigned char*>(detail::value_scratch((hi - lo) * sizeof(T)));
  for (std::size_t i = lo; i < hi; ++i) {
    T acc = static_cast<const T*>(in.pointer(0))[i];
    for (std::size_t t = 1; t < nt; ++t)
      acc = static_cast<T>(
          std::invoke(op, acc, static_cast<const T*>(in.pointer(static_cast<int>(t)))[i]));
    std::memcpy(share + (i - lo) * sizeof(T), &acc, sizeof(T));
  }
  // 2: every thread's share is combined and published; the inputs are no longer read.
  const detail::value_view out = detail::value_exchange(call, nullptr, share, where);
  for (std::size_t t = 0; t < nt; ++t) {
    const std::size_t tlo = n * t / nt;
    const std::size_t thi = n * (t + 1) / nt;
    if (thi > tlo) {
      std::memcpy(data.data() + tlo, out.pointer(static_cast<int>(t)), (thi - tlo) * sizeof(T));
    }
  }
}

}  // namespace pgas
