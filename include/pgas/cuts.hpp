// pgas/cuts.hpp — locality cuts: a loop over a box of a tiled array, split into runs in which
// every access A(i + k) has one fixed owner, so that each run indexes plain memory.
//
//   pgas::shared_array<double, 2> In({n, n}, pgas::block_spec::tiles({64, 64}));
//   pgas::shared_array<double, 2> Out({n, n}, pgas::block_spec::tiles({64, 64}));
//   // Out(i, j) = mean of In's four neighbours, for the iterations this thread owns:
//   pgas::forall_cuts(In, pgas::box{{1, n - 1}, {1, n - 1}},
//                     pgas::offsets{{-1, 0}, {1, 0}, {0, -1}, {0, 1}},
//                     [](auto in, std::size_t, std::size_t, double& out) {
//                       out = (in[0] + in[1] + in[2] + in[3]) / 4;
//                     },
//                     Out);
//
// A loop run many times (a Jacobi sweep) builds each thread's plan once and passes it in place
// of the box and offsets; the plan keeps the layout, not the arrays, so it serves every array
// of that layout (In and Out swapped each sweep, or arrays made after the plan):
//
//   const pgas::cut_plan plan(In.layout(), pgas::box{{1, n - 1}, {1, n - 1}},
//                             pgas::offsets{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}, pgas::mythread());
//   for (int sweep = 0; sweep < sweeps; ++sweep) {
//     if (sweep % 2 == 0) pgas::forall_cuts(plan, In, body, Out);
//     else pgas::forall_cuts(plan, Out, body, In);
//     pgas::barrier();  // before the next sweep reads what this one wrote
//   }
//
// The model. A loop `upc_forall (i in box; &A[i])` runs, on thread t, the iterations whose
// element A(i) t owns: the box intersected with t's tiles. An access A(i + k) at a constant
// offset k reads, for the iterations of one tile, a block shifted by k, which spans at most
// two tiles along each dimension: along dimension d the owner can change only at the cut
// b_d − k_d mod b_d from the tile's start, and the owner of each of the (at most) 2^rank parts
// is the owner of its corner shifted by k. cut_plan applies this per tile of the thread and
// per access, then intersects the parts of every access: the runs. Within a run each access
// reads one tile of one owner, row-major, so the element of iteration i is at
// targets[a].offset + Σ_d (i_d − lo_d) · strides()[d] in the owner's part. Every tile of the
// thread has the same runs relative to its own start and place (the box clips those at its
// edges), so a plan costs O(runs per tile × accesses + rows of tiles), at most (a + 1)^rank
// runs per tile for a offsets, and walking it a few additions per run; neither depends on the
// number of iterations.
//
// The formulas are those of Barton et al.'s locality analysis for multiblocked UPC arrays:
// Cut_i = b_i − k_i mod b_i for dimensions 0 … n−2, and for the last dimension, where
// consecutive tiles go to consecutive threads, Cut^Upper = (tpn − course(k)) · b_{n−1} −
// k_{n−1} mod b_{n−1} and Cut^Lower the same for k' = k + (b_i − 1 in every outer dimension),
// with tpn threads per node and course(k) the position within its node of the thread that owns
// the tile corner shifted by k. cut_formula_of() computes them (pgas-layout --cuts prints
// them); the runs do not depend on them: each run's owners are computed at its corner. pgas
// differs from the paper in that it splits at run time, for the box and offsets it is given,
// instead of restructuring the loop at compile time, and in that a remote run is still plain
// memory (one address space): locality decides speed (NUMA), never correctness.
//
// Layouts. Tiled arrays of any rank; block-cyclic arrays whose blocks are tiles of the
// row-major order: rank 1 (any block, [*] too), or rank > 1 when the block divides the last
// extent or is a whole number of rows of a trailing sub-array (then the block is the tile
// {1, …, 1, B} or {m, d_{r+1}, …}); indefinite arrays (one tile on thread 0).
//
// Locality. An access is local when its owner is the calling thread (the default: what a
// thread reaches through its own part) or, with cut_options::threads_per_node = T > 1, a thread
// of the calling thread's group of T consecutive threads (the paper's nodes).
//
// Contract.
//   * Collective: nothing here. forall_cuts runs the calling thread's iterations only, with no
//     barrier, as pgas::forall does; follow it with pgas::barrier() before other threads read
//     what it wrote.
//   * Errors (pgas/error.hpp), misuse named at the box's construction (forall_cuts) or at the
//     cut_plan's: an access that leaves the array for an iteration of the box (naming the
//     access, the iteration and the extents); an empty box (lo == hi in a dimension)
//     has no runs, but a box with lo > hi or beyond an extent is misuse; box,
//     offsets and array of different ranks; no offsets, or more than max_cut_accesses; arrays
//     of one loop with different layouts (extents, blocks or threads; the element types may
//     differ), naming which array — the loop array (the accesses') or output array N, the
//     N-th after the body; a block-cyclic block that is not a tile of the row-major order (see
//     Layouts); threads_per_node < 1 or a thread outside [0, THREADS). forall_cuts over a plan
//     names at its own call, with the plan's line: a plan built for another thread, and an
//     array whose layout is not the plan's. Inside a job the job ends naming the thread, file
//     and line; outside one pgas::usage_error is thrown.
//   * The body's e[a] for a at or beyond the number of offsets: in the checked build
//     (config::bounds_check) misuse named at the forall_cuts call; in others it reads through a
//     null pointer, so the job ends on a fatal SIGSEGV naming the thread, with a backtrace
//     (never another array's element). A body that does not take exactly (e, one
//     std::size_t per dimension, one reference per output array) does not compile: a
//     static_assert says so, at the forall_cuts call.
//   * Outside a job: cut_plan works on a pgas::layout (it is a pure model; pgas-layout --cuts
//     uses it). forall_cuts needs shared arrays, which exist only inside a job.
//   * Memory ordering: none; the body's accesses are relaxed (pgas/shared_array.hpp).
//   * Thread safety: a const cut_plan may be read from any number of threads.
#pragma once

#include <array>
#include <cstddef>
#include <source_location>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>

#include <pgas/cut_model.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/runtime.hpp>

namespace pgas {

namespace detail {

/// What the checked build's e[a] checks a against: the loop's number of offsets and the line
/// of its forall_cuts call. Empty, its check nothing, in other builds.
struct cut_access_check {
  std::size_t accesses;
  const std::source_location* where;
  void check(std::size_t a) const {
    if (a >= accesses) [[unlikely]]
      cuts_access_misuse(a, accesses, *where);
  }
};
struct cut_access_unchecked {
  cut_access_unchecked(std::size_t, const std::source_location*) noexcept {}
  void check(std::size_t) const noexcept {}
};
using cut_access_bound =
    std::conditional_t<config::bounds_check, cut_access_check, cut_access_unchecked>;

/// forall_cuts's element access: e[a] (or e(a)) is access a's element at the current iteration.
/// `local` tells the body which instantiation it is in. In the checked build an a at or beyond
/// the number of offsets is misuse named at the forall_cuts call; in others `rows` holds
/// max_cut_accesses pointers, null from the plan's accesses() on, so that such an a faults,
/// the job ending naming the thread with a backtrace, instead of reading another array's
/// memory.
template <class T, bool Local>
struct cut_elements {
  static constexpr bool local = Local;
  T* const* rows;
  std::size_t j;
  [[no_unique_address]] cut_access_bound bound;
  [[gnu::always_inline]] T& operator[](std::size_t a) const noexcept(!config::bounds_check) {
    bound.check(a);
    T* const e = (a < max_cut_accesses ? rows[a] : nullptr) + j;
    if constexpr (!Local) detail::trace_element(e);
    return *e;
  }
  [[gnu::always_inline]] T& operator()(std::size_t a) const noexcept(!config::bounds_check) {
    return (*this)[a];
  }
};

template <bool Local, std::size_t Rank, class T, class Body, class Outs, std::size_t... D>
[[gnu::always_inline]] inline void cuts_run(const cut_run& r, std::span<const std::size_t> strides,
                                            const std::array<T*, max_cut_accesses>& base,
                                            std::size_t accesses,
                                            std::array<T*, max_cut_accesses>& rows,
                                            const Outs& out_base, Body& body,
                                            cut_access_bound bound, std::index_sequence<D...>) {
  // Outer dimensions 0 … Rank−2 by an odometer; the innermost is a counted loop over plain
  // pointers (rows[a] + j), which the compiler vectorises as a hand-privatised loop.
  std::array<std::size_t, Rank> idx{};
  for (std::size_t d = 0; d < Rank; ++d)
    idx[d] = r.lo[d];
  const std::size_t len = r.hi[Rank - 1] - r.lo[Rank - 1];
  const std::size_t j0 = r.lo[Rank - 1];
  for (;;) {
    std::size_t rel = 0;
    for (std::size_t d = 0; d + 1 < Rank; ++d)
      rel += (idx[d] - r.lo[d]) * strides[d];
    for (std::size_t a = 0; a < accesses; ++a)  // rows[accesses …] stay null (cut_elements)
      rows[a] = base[a] + rel;
    std::apply(
        [&](auto*... o) {
          for (std::size_t jj = 0; jj < len; ++jj)
            body(cut_elements<T, Local>{rows.data(), jj, bound}, idx[D]..., j0 + jj,
                 (o + rel)[jj]...);
        },
        out_base);
    std::size_t d = Rank - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++idx[d] < r.hi[d]) break;
      idx[d] = r.lo[d];
    }
  }
}

}  // namespace detail

namespace detail {

/// forall_cuts's first argument when it is given a plan: the plan and the line of the call
/// (a cut_plan converts to it).
struct planned_loop {
  const cut_plan& plan;
  std::source_location where;
  planned_loop(const cut_plan& p, std::source_location w = std::source_location::current()) noexcept
      : plan(p), where(w) {}
};

/// Whether forall_cuts can call `Body` (an lvalue of it) over an array of T of rank Rank with
/// output arrays of element types Outs...: body(e, i0, …, i_{Rank−1}, out…) in both
/// instantiations of e (runs all local and the others).
template <class Body, class T, std::size_t Rank, class... Outs>
inline constexpr bool cuts_body_callable = []<std::size_t... D>(std::index_sequence<D...>) {
  return std::is_invocable_v<Body&, cut_elements<T, true>,
                             std::conditional_t<true, std::size_t&, decltype(D)>..., std::size_t,
                             Outs&...> &&
         std::is_invocable_v<Body&, cut_elements<T, false>,
                             std::conditional_t<true, std::size_t&, decltype(D)>..., std::size_t,
                             Outs&...>;
}
(std::make_index_sequence<Rank - 1>{});

/// The loop over `plan`'s runs, its arrays checked; `where` is the forall_cuts call's line.
template <class Array, class Body, class... Outs>
void cuts_loop(const cut_plan& plan, const std::source_location& where, const Array& a, Body& body,
               const Outs&... outs) {
  constexpr std::size_t rank = Array::rank;
  using T = typename Array::value_type;
  constexpr bool callable = cuts_body_callable<Body, T, rank, typename Outs::value_type...>;
  static_assert(callable,
                "forall_cuts: the body cannot be called as body(e, i0, ..., i_{Rank-1}, out...): "
                "it must take the accesses e (auto), one std::size_t index per dimension of the "
                "loop array, then one reference (Out::value_type&) per output array passed after "
                "the body, no more and no fewer");
  if constexpr (callable) {
    [[maybe_unused]] const int me = plan.thread();  // unused when there are no outs
    const std::span<const std::size_t> strides = plan.strides();
    const std::size_t accesses = plan.accesses();
    std::array<T*, max_cut_accesses> rows{};  // each row's pointers; null past the accesses
    const cut_access_bound bound{accesses, &where};
    for (const cut_run& r : plan.runs()) {
      std::array<T*, max_cut_accesses> base{};
      const cut_targets tg = plan.targets(r);
      for (std::size_t x = 0; x < accesses; ++x)
        base[x] = a.local_part(tg[x].owner).data() + tg[x].offset;
      const std::tuple<typename Outs::value_type*...> out_base{outs.local_part(me).data() +
                                                               r.offset...};
      if (r.local)
        cuts_run<true, rank>(r, strides, base, accesses, rows, out_base, body, bound,
                             std::make_index_sequence<rank - 1>{});
      else
        cuts_run<false, rank>(r, strides, base, accesses, rows, out_base, body, bound,
                              std::make_index_sequence<rank - 1>{});
    }
  }
}

}  // namespace detail

/// Runs body for every iteration of `b` whose element A(i…) the calling thread owns, split into
/// the runs of cut_plan (accesses A(i + k_a) for the offsets k). The body is called as
///   body(e, i0, …, i_{Rank−1}, out0, out1, …)
/// with e[a] the element of access a (T&), the iteration's indices (std::size_t), and outN the
/// element (i…) of the N-th array in `outs` (same layout as A, checked; its element type may
/// differ), which the calling thread owns. The body is a generic lambda, instantiated twice:
/// decltype(e)::local is true in runs where every access is local, false in the others. Both
/// resolve each access once per run to the owner's tile (one address space: a remote tile is
/// plain memory too) and index it with row-major in-tile arithmetic, so the innermost loop is a
/// counted loop over contiguous memory; the remote instantiation also reports each element
/// to element tracing (pgas/trace.hpp) as A(i…) would. Not collective; errors at the top of
/// this header, named at the box's line. The model costs one cut_plan per call: a loop run
/// many times over the same box can build its plan once and use the overload below.
template <class Array, class Body, class... Outs>
void forall_cuts(const Array& a, const box& b, const offsets& k, Body&& body, const Outs&... outs) {
  if constexpr (sizeof...(Outs) > 0)
    detail::cuts_check_layouts(a.layout(), {&outs.layout()...}, b.where());
  const cut_plan plan(a.layout(), b, k, mythread(), {}, b.where());
  detail::cuts_loop(plan, b.where(), a, body, outs...);
}

/// The same loop over a plan built once, for the calling thread and A's layout:
///   const pgas::cut_plan plan(In.layout(), box, offsets, pgas::mythread());
///   for (int sweep = 0; sweep < n; ++sweep) {
///     pgas::forall_cuts(plan, In, body, Out);
///     pgas::barrier();
///   }
/// The plan holds a copy of the layout, not the array: it may be used over any array of that
/// layout (extents, blocks and threads), including ones created after it or in place of a freed
/// one. A plan built for another thread (a thread's runs are its own) or for a layout other than
/// A's and the outs' is misuse, named at this call with the plan's line.
template <class Array, class Body, class... Outs>
void forall_cuts(detail::planned_loop p, const Array& a, Body&& body, const Outs&... outs) {
  detail::cuts_check_plan(p.plan, mythread(), {&a.layout(), &outs.layout()...}, p.where);
  detail::cuts_loop(p.plan, p.where, a, body, outs...);
}

}  // namespace pgas
