// pgas/ndarray_copy.hpp — moving elements between ndarrays (pgas/ndarray.hpp): copy() over the
// intersection of two arrays' domains, its non-blocking form copy_nb(), the directory
// exchange() by which every thread publishes its piece and gets every other thread's, and
// fill_ghosts(), the ghost-zone exchange of a whole distributed grid in one call.
//
//   pgas::ndarray<double, 3> grid(mine.accrete(1));             // my piece with ghost layers
//   auto owned = pgas::exchange(grid.constrict(mine));          // everyone's owned elements
//   ...
//   pgas::fill_ghosts(grid, owned);                             // my ghosts from their pieces
//   pgas::copy(all.constrict(box), grid);                       // any box, any views, any owner
//
// copy(dst, src) copies the elements of exactly dst.domain() * src.domain() (the points both
// views have; nothing when they share none), each from src's element at that point to dst's.
// Either side may be any thread's piece (one address space: the calling thread loads and stores
// directly), and any view: constricted, translated, sliced, permuted, injected or projected,
// any layout and locality. The element types must be the same type (constness aside) and the
// ranks equal: anything else does not compile, with a message saying which; neither does a
// const destination.
//
// How it copies. The intersection is walked in the order of the destination's memory (the
// dimension with the largest memory stride outermost); neighbouring dimensions that are
// contiguous in both arrays merge, so whole arrays, whole planes of a row-major array or
// runs of rows copy as one std::memcpy each; a run contiguous in both is one memcpy, and a
// strided one a loop of loads and stores of the element's size; a transposed view (the
// source contiguous along another dimension than the destination) is copied in square tiles
// of those two dimensions, a cache line of elements a side, each source line read whole once
// and prefetched ahead (copy_nb's engine pieces are strips of tiles). When the two
// views' elements may overlap in memory (views of one array), the result is as if src had been
// copied to a temporary first (as std::memmove): such a copy goes through a buffer unless it
// is an exact self-copy (the same elements on both sides), which does nothing.
//
// Contract.
//   * Collective: copy and copy_nb no; exchange and fill_ghosts yes (every thread calls them,
//     with the same kind of array; a barrier inside, see each).
//   * Errors (pgas/error.hpp): a call outside a running job (ndarrays live in the job's shared
//     space) is misuse, naming the call and its file and line: outside a job it throws
//     pgas::usage_error. copy_nb's rules are nb.hpp's (below). A rank or element type that
//     differs between the two sides, or a const destination, does not compile.
//   * Memory ordering: relaxed, as pgas::memcpy: plain loads and stores. Order them with the
//     writes before and the reads after by a barrier or a lock (exchange and fill_ghosts have
//     their own barriers, documented below).
//   * Thread safety: as std::memcpy on the same elements: concurrent copies into disjoint
//     elements are fine; into the same ones, or from elements another thread writes, race.
//   * Tracing: every copy is recorded by pgasrun --trace as one bulk read of src's elements and
//     one bulk write of dst's, of the intersection's bytes, at the call site; copy_nb's as
//     non-blocking ones.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <span>
#include <type_traits>
#include <vector>

#include <pgas/collectives.hpp>
#include <pgas/detail/export.hpp>
#include <pgas/nb.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/sync.hpp>

namespace pgas {

namespace detail {

template <class A>
struct nd_array_traits : std::false_type {
  using element = void;
  static constexpr int rank = 0;
};
template <class T, int N, class L, class Y>
struct nd_array_traits<ndarray<T, N, L, Y>> : std::true_type {
  using element = T;
  static constexpr int rank = N;
};

/// The largest rank copy() takes (its out-of-line walk keeps a dimension's figures on the
/// stack).
inline constexpr int nd_copy_max_rank = 32;

/// One copy as src/objects/ndarray_copy.cpp executes it: element (i0, …, i_{rank-1}), 0 <= i_d <
/// extents[d], goes from src + Σ i_d·src_strides[d] to dst + Σ i_d·dst_strides[d] (strides in
/// bytes, elements of `elem` bytes). rank 0 copies one element.
struct nd_copy_desc {
  char* dst = nullptr;
  const char* src = nullptr;
  std::size_t elem = 0;
  int rank = 0;
  int dst_owner = -1;
  const std::ptrdiff_t* extents = nullptr;
  const std::ptrdiff_t* dst_strides = nullptr;
  const std::ptrdiff_t* src_strides = nullptr;
};

/// copy(): checks the caller (misuse outside a job, named `call` at `where`), traces, copies.
PGAS_API void nd_copy_run(const nd_copy_desc& c, const std::source_location& where);
/// copy_nb(): as nd_copy_run, or hands the copy to a copy engine (pgas/nb.hpp).
[[nodiscard]] PGAS_API nb_handle nd_copy_start(const nd_copy_desc& c,
                                               const std::source_location& where);
/// Misuse: `call` outside a running job.
[[noreturn, gnu::cold]] PGAS_API void nd_copy_outside_job(const char* call,
                                                          const std::source_location& where);

// True when copy(Dst, Src) is well-formed; otherwise each static_assert whose check fails says so
// (rank, element type, constness and the rank limit are checked between two ndarrays only), and
// the callers compile nothing more: those messages are the only errors.
template <class Dst, class Src>
constexpr bool nd_copy_check_types() {
  using DT = nd_array_traits<Dst>;
  using ST = nd_array_traits<Src>;
  using D = typename DT::element;
  constexpr bool arrays = DT::value && ST::value;
  constexpr bool ranks = !arrays || DT::rank == ST::rank;
  constexpr bool elements =
      !arrays || std::is_same_v<std::remove_cv_t<D>, std::remove_cv_t<typename ST::element>>;
  constexpr bool writable = !arrays || !std::is_const_v<D>;
  constexpr bool supported = !arrays || DT::rank <= nd_copy_max_rank;
  static_assert(DT::value, "pgas::copy: the destination is not a pgas::ndarray");
  static_assert(ST::value, "pgas::copy: the source is not a pgas::ndarray");
  static_assert(ranks,
                "pgas::copy: the destination and the source have different ranks (slice() the "
                "one of higher rank to match)");
  static_assert(elements,
                "pgas::copy: the destination's and the source's element types differ (copy "
                "converts nothing: convert element by element with pgas::foreach)");
  static_assert(writable, "pgas::copy: the destination is a const view");
  static_assert(supported, "pgas::copy: ranks above 32 are not supported");
  return arrays && ranks && elements && writable && supported;
}

// The figures of copy(dst, src) over the intersection `in` (not empty) of their domains.
template <int N>
struct nd_copy_figures {
  std::array<std::ptrdiff_t, N> extents{}, dst_strides{}, src_strides{};
  nd_copy_desc desc;
};

// Where view `a`'s element at in.lower() is, and its byte step along each dimension of `in` (a
// subset of a's domain lattice): the intersection's stride is a multiple of a's.
template <class A, int N>
const char* nd_copy_side(const A& a, const rectdomain<N>& in, std::ptrdiff_t* strides) {
  using E = typename nd_array_traits<A>::element;
  const rectdomain<N>& d = a.domain();
  const point<N> ms = a.memory_strides();
  std::ptrdiff_t off = 0;
  for (int k = 0; k < N; ++k) {
    const nd_index st = d.stride()[k];
    off += (in.lower()[k] - d.lower()[k]) / st * ms[k];
    strides[k] = in.extent(k) > 1 ? static_cast<std::ptrdiff_t>(in.stride()[k] / st * ms[k] *
                                                                static_cast<nd_index>(sizeof(E)))
                                  : 0;
  }
  return reinterpret_cast<const char*>(a.base() + off);
}

// Fills `f` for copy(dst, src); false when the domains share no point.
template <class Dst, class Src, int N = nd_array_traits<Dst>::rank>
bool nd_copy_describe(const Dst& dst, const Src& src, nd_copy_figures<N>& f) {
  const rectdomain<N> in = dst.domain() * src.domain();
  if (in.empty()) return false;
  for (int k = 0; k < N; ++k)
    f.extents[static_cast<std::size_t>(k)] = static_cast<std::ptrdiff_t>(in.extent(k));
  f.desc.dst = const_cast<char*>(nd_copy_side(dst, in, f.dst_strides.data()));
  f.desc.src = nd_copy_side(src, in, f.src_strides.data());
  f.desc.elem = sizeof(typename nd_array_traits<Dst>::element);
  f.desc.rank = N;
  f.desc.dst_owner = dst.owner();
  f.desc.extents = f.extents.data();
  f.desc.dst_strides = f.dst_strides.data();
  f.desc.src_strides = f.src_strides.data();
  return true;
}

}  // namespace detail

/// Copies the elements of dst.domain() * src.domain() from src to dst (see the top of this
/// header): nothing when the domains share no point. Not collective. Misuse: a call outside a
/// running job. Memory ordering: relaxed (plain loads and stores).
template <class Dst, class Src>
void copy(const Dst& dst, const Src& src,
          std::source_location where = std::source_location::current()) {
  if constexpr (detail::nd_copy_check_types<Dst, Src>()) {
    if (!in_job()) [[unlikely]]
      detail::nd_copy_outside_job("pgas::copy", where);
    detail::nd_copy_figures<detail::nd_array_traits<Dst>::rank> f;
    if (!detail::nd_copy_describe(dst, src, f)) return;
    detail::nd_copy_run(f.desc, where);
  }
}

/// The non-blocking form of copy(): the same elements, with pgas::nb_handle's rules
/// (pgas/nb.hpp). A copy of fewer than pgas::nb_threshold() bytes, and one whose two sides may
/// overlap in memory, is done inside the call, which returns the complete handle; a larger one
/// goes to the copy engine of the destination owner's NUMA node, in pieces of about 1 MiB,
/// which the thread that syncs shares. During the transfer interval (from this call to the
/// sync or successful test that completes the handle) the program must not write src's or dst's
/// elements nor read dst's, from any thread, and both arrays' elements must stay allocated (a
/// reference to each kept alive): not detected. Misuse, in every build, naming the call site:
/// a call outside a running job or from a thread that is not one of its UPC threads, and every
/// misuse of the handle that nb.hpp lists (syncing it twice, on another thread, destroying it
/// uncompleted). Memory ordering: nb.hpp's (the completing sync or test acquires the copy's
/// effects for the calling thread).
template <class Dst, class Src>
[[nodiscard]] nb_handle copy_nb(const Dst& dst, const Src& src,
                                std::source_location where = std::source_location::current()) {
  if constexpr (detail::nd_copy_check_types<Dst, Src>()) {
    if (!in_job()) [[unlikely]]
      detail::nd_copy_outside_job("pgas::copy_nb", where);
    detail::nd_copy_figures<detail::nd_array_traits<Dst>::rank> f;
    if (!detail::nd_copy_describe(dst, src, f)) return complete_handle;
    return detail::nd_copy_start(f.desc, where);
  } else {
    return complete_handle;  // not reached: the check failed to compile
  }
}

/// The directory of a distributed structure (Titanium's exchange): every thread passes its
/// piece `mine` (any view, any layout; a local array is promoted to global) and gets every
/// thread's, indexed by thread number (element mythread() refers to its own). The results are
/// references (pgas/ndarray.hpp), not copies: they keep each piece's storage alive, index the
/// owner's elements directly and can be given to copy() and fill_ghosts().
/// Collective: every thread calls it with the same T and N; the call contains two barriers (the
/// publishing and the one after which every thread has taken its references), so what any
/// thread wrote into its piece before the call is visible to every thread after it. Misuse:
/// threads exchanging different kinds of array (a collective mismatch at the call's line,
/// which names each thread's array type: "pgas::allgather(type=pgas::ndarray<float, 2,
/// pgas::global, pgas::strided> const* …)", the allgather inside), a call outside a job. Thread
/// safety: each call acts for the calling thread.
template <class T, int N, class L, class Y>
std::vector<ndarray<T, N, global>> exchange(
    const ndarray<T, N, L, Y>& mine, std::source_location where = std::source_location::current()) {
  if (!in_job()) [[unlikely]]
    detail::nd_copy_outside_job("pgas::exchange", where);
  const ndarray<T, N, global> published(mine);
  // What travels is each published array's address, whose type (named in a mismatch report)
  // makes threads that exchange different kinds of array disagree.
  using address = const ndarray<T, N, global>*;
  std::vector<address> all(static_cast<std::size_t>(threads()));
  allgather(address{&published}, std::span(all), where);
  std::vector<ndarray<T, N, global>> dir;
  dir.reserve(all.size());
  for (const address p : all)
    dir.push_back(*p);
  barrier(where);  // `published` lives until every thread has its reference
  return dir;
}

/// What fill_ghosts() waits for besides its entry barrier.
enum class ghost_sync {
  /// A barrier on exit too: when the call returns, every thread has filled its ghosts, so any
  /// thread may write its owned elements again at once. The safe default.
  entry_and_exit,
  /// No barrier on exit: a thread returns once its own ghosts are filled, while others may
  /// still be reading its owned elements, which it must therefore not write until every thread
  /// has passed a later barrier (or collective). A double-buffered sweep (A to B, fill B's
  /// ghosts, B to A, fill A's ghosts, …) needs no more: it writes A's owned elements only
  /// after the entry barrier of the fill of B, which every reader of A passed once done.
  entry,
};

namespace detail {

/// fill_ghosts' barriers (src/objects/ndarray_copy.cpp): a barrier of a kind of its own, so
/// that a thread at pgas::barrier() or at any other collective meets it as a mismatch, on
/// which every thread agrees on `id` (nd_directory_id); a report names each thread's call
/// "pgas::fill_ghosts(directory 0x…, width w or owned pieces, pgas::ghost_sync::…)". Otherwise
/// as pgas::barrier(): a full fence, the software caches written back, a traced job's count.
PGAS_API void nd_ghost_barrier(std::int32_t id, nd_index form, ghost_sync sync,
                               const std::source_location& where);

// The id of fill_ghosts' barriers: a hash of the directory (each piece's elements and view),
// the form (`form`: -1 for owned views, else the width) and the ghost_sync mode, the same on
// every thread that passes the same ones. Threads that pass different directories (a
// double-buffered sweep's two grids swapped on one thread) then meet as a collective mismatch,
// which ends the job naming each thread's call, instead of filling ghosts from another grid.
template <class A>
int nd_directory_id(std::span<const A> dir, nd_index form, ghost_sync sync) noexcept {
  std::uint64_t h = 0;
  const auto mix = [&h](std::uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
  };
  mix(static_cast<std::uint64_t>(form));
  mix(static_cast<std::uint64_t>(sync));
  for (const A& a : dir) {
    mix(a.empty() ? 0 : reinterpret_cast<std::uintptr_t>(a.base()));
    for (int k = 0; k < nd_array_traits<A>::rank; ++k) {
      mix(static_cast<std::uint64_t>(a.domain().lower()[k]));
      mix(static_cast<std::uint64_t>(a.domain().upper()[k]));
      mix(static_cast<std::uint64_t>(a.domain().stride()[k]));
      mix(static_cast<std::uint64_t>(a.memory_strides()[k]));
    }
  }
  return static_cast<int>(static_cast<std::uint32_t>(h ^ (h >> 32)));
}

// fill_ghosts' body: piece(t) is thread t's owned view; `form` and `id` as nd_directory_id.
template <class Mine, class Piece>
void nd_fill_ghosts(const Mine& mine, std::size_t pieces, const Piece& piece, ghost_sync sync,
                    nd_index form, int id, const std::source_location& where) {
  if (!in_job()) [[unlikely]]
    nd_copy_outside_job("pgas::fill_ghosts", where);
  if (pieces != static_cast<std::size_t>(threads())) [[unlikely]] {
    misuse("pgas::fill_ghosts: the directory has " + std::to_string(pieces) +
               " pieces; it needs one per thread (THREADS is " + std::to_string(threads()) + ")",
           where);
  }
  const auto me = static_cast<std::size_t>(mythread());
  if (!mine.is_null() && !mine.is_local()) [[unlikely]] {
    misuse("pgas::fill_ghosts: `mine` is thread " + std::to_string(mine.owner()) +
               "'s piece; each thread passes its own (it writes its ghosts while the owner "
               "fills them too)",
           where);
  }
  const auto own = piece(me).domain();
  nd_ghost_barrier(id, form, sync, where);
  for (std::size_t t = 0; t < pieces; ++t) {
    if (t == me) continue;
    const auto& other = piece(t);
    // Overlapping owned pieces would overwrite owned elements with another thread's copy of
    // them (a silent wrong answer and a race).
    if (!(other.domain() * own).empty()) [[unlikely]] {
      misuse("pgas::fill_ghosts: the directory's piece " + std::to_string(t) + " " +
                 to_string(other.domain()) + " overlaps this thread's own piece " +
                 std::to_string(me) + " " + to_string(own) +
                 " (owned pieces must be disjoint; whole pieces with their ghosts need the form "
                 "fill_ghosts(mine, pieces, width))",
             where);
    }
    pgas::copy(mine, other, where);
  }
  if (sync == ghost_sync::entry_and_exit) nd_ghost_barrier(id, form, sync, where);
}

// True when fill_ghosts() of an array of T from pieces of T2 is well-formed; otherwise its
// static_assert names fill_ghosts and what is wrong, and the caller compiles nothing more.
template <class T, class T2>
constexpr bool nd_ghost_check_types() {
  constexpr bool elements = std::is_same_v<std::remove_cv_t<T>, std::remove_cv_t<T2>>;
  constexpr bool writable = !std::is_const_v<T>;
  static_assert(elements,
                "pgas::fill_ghosts: the pieces' element type differs from the array's (it "
                "converts nothing)");
  static_assert(writable, "pgas::fill_ghosts: the array is a const view (its ghosts are written)");
  return elements && writable;
}

}  // namespace detail

/// The ghost-zone exchange of a distributed grid in one call: copies into `mine` (the calling
/// thread's piece, ghost zones included) every point it shares with another thread's OWNED
/// elements, owned[t] for t != mythread(), as copy(mine, owned[t]). `owned` is the directory
/// of what each thread owns (exchange() of each thread's owned view, e.g. of its
/// grid.shrink(1) or grid.constrict(its box)); owned pieces must not overlap one another, so
/// that only ghost points of `mine` are written. Collective: every thread calls it with its
/// own piece and the same directory (owned.size() == THREADS); a barrier on entry (every
/// thread's owned elements are written before any is read) and, with ghost_sync::entry_and_exit
/// (the default), one on exit (see ghost_sync). Misuse: owned.size() != THREADS; `mine` that
/// is another thread's piece (not the null array); a piece
/// owned[t] whose domain meets the calling thread's own, owned[mythread()] (overlapping
/// pieces, or whole pieces with their ghosts given to this form: each thread checks its own
/// piece against the others, so every overlap is reported by some thread); threads that pass
/// different directories (other arrays, or other views of them) or different ghost_sync
/// modes: the threads agree at the entry barrier on a hash of the directory and the mode, so
/// the job ends with a collective mismatch naming each thread's call, its directory's hash
/// and its mode; a thread that does not call it while the others do (its barrier or other
/// collective meets fill_ghosts' barrier: a mismatch too); a call outside a job.
template <class T, int N, class L, class Y, class T2, class L2, class Y2>
void fill_ghosts(const ndarray<T, N, L, Y>& mine, std::span<const ndarray<T2, N, L2, Y2>> owned,
                 ghost_sync sync = ghost_sync::entry_and_exit,
                 std::source_location where = std::source_location::current()) {
  if constexpr (detail::nd_ghost_check_types<T, T2>()) {
    detail::nd_fill_ghosts(
        mine, owned.size(), [&](std::size_t t) -> const auto& { return owned[t]; }, sync, -1,
        detail::nd_directory_id(owned, -1, sync), where);
  }
}
template <class T, int N, class L, class Y, class T2, class L2, class Y2>
void fill_ghosts(const ndarray<T, N, L, Y>& mine, const std::vector<ndarray<T2, N, L2, Y2>>& owned,
                 ghost_sync sync = ghost_sync::entry_and_exit,
                 std::source_location where = std::source_location::current()) {
  fill_ghosts(mine, std::span<const ndarray<T2, N, L2, Y2>>(owned), sync, where);
}

/// The same with a directory of whole pieces, ghost zones included (exchange() of each
/// thread's whole grid), each owning its interior: the piece without `width` layers on every
/// face, pieces[t].shrink(width). Pieces whose interiors tile the grid (every thread's grid
/// its box accreted by `width`) are what this form is for; other partitions pass the owned
/// views to the form above. Misuse: a negative width, and the form above's (the width is part
/// of what the threads agree on at the barriers: they must pass the same one).
template <class T, int N, class L, class Y, class T2, class L2, class Y2>
void fill_ghosts(const ndarray<T, N, L, Y>& mine, std::span<const ndarray<T2, N, L2, Y2>> pieces,
                 nd_index width, ghost_sync sync = ghost_sync::entry_and_exit,
                 std::source_location where = std::source_location::current()) {
  if constexpr (detail::nd_ghost_check_types<T, T2>()) {
    if (width < 0) [[unlikely]]
      detail::misuse("pgas::fill_ghosts: the ghost width " + std::to_string(width) +
                         " is negative (it is the layers each piece has beyond what it owns)",
                     where);
    detail::nd_fill_ghosts(
        mine, pieces.size(), [&](std::size_t t) { return pieces[t].shrink(width, where); }, sync,
        width, detail::nd_directory_id(pieces, width, sync), where);
  }
}
template <class T, int N, class L, class Y, class T2, class L2, class Y2>
void fill_ghosts(const ndarray<T, N, L, Y>& mine, const std::vector<ndarray<T2, N, L2, Y2>>& pieces,
                 nd_index width, ghost_sync sync = ghost_sync::entry_and_exit,
                 std::source_location where = std::source_location::current()) {
  fill_ghosts(mine, std::span<const ndarray<T2, N, L2, Y2>>(pieces), width, sync, where);
}

}  // namespace pgas
