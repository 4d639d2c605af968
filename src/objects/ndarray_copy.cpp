// src/objects/ndarray_copy.cpp — the walk behind pgas::copy and pgas::copy_nb
// (pgas/ndarray_copy.hpp): a copy described as extents and byte strides on both sides is
// normalised (dimensions of one point dropped, the destination's strides made positive and
// ordered outermost-largest, dimensions contiguous in both merged), then run as memcpy of runs
// contiguous in both or a strided loop of the element's size; copies whose sides may overlap go
// through a buffer. copy_nb hands large copies to the copy engines (src/objects/copy_engine.cpp)
// as a task whose pieces are ranges of the walk. Entry points: nd_copy_run, nd_copy_start; and
// nd_ghost_barrier, fill_ghosts' barriers.

#include <pgas/ndarray_copy.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include <pgas/detail/identity.hpp>
#include <pgas/detail/trace_hook.hpp>

#include "src/job/barrier.hpp"
#include "src/job/job.hpp"
#include "src/objects/copy_engine.hpp"

namespace pgas::detail {
namespace {

// A normalised copy: dimension 0 outermost, rank >= 1 (a single element has rank 1, extent 1).
struct walk {
  char* dst = nullptr;
  const char* src = nullptr;
  std::size_t elem = 0;
  int rank = 0;
  std::ptrdiff_t ext[nd_copy_max_rank] = {};
  std::ptrdiff_t ds[nd_copy_max_rank] = {};
  std::ptrdiff_t ss[nd_copy_max_rank] = {};

  std::size_t count() const noexcept {
    std::size_t n = 1;
    for (int d = 0; d < rank; ++d)
      n *= static_cast<std::size_t>(ext[d]);
    return n;
  }
  // The run along the last dimension is contiguous on both sides.
  bool contiguous() const noexcept {
    const auto e = static_cast<std::ptrdiff_t>(elem);
    return ds[rank - 1] == e && ss[rank - 1] == e;
  }
};

walk normalise(const nd_copy_desc& c) {
  walk w;
  w.dst = c.dst;
  w.src = c.src;
  w.elem = c.elem;
  int order[nd_copy_max_rank];
  for (int d = 0; d < c.rank; ++d) {
    if (c.extents[d] == 1) continue;
    std::ptrdiff_t ds = c.dst_strides[d], ss = c.src_strides[d];
    if (ds < 0) {  // walk this dimension from its other end: the same pairs of elements
      w.dst += (c.extents[d] - 1) * ds;
      w.src += (c.extents[d] - 1) * ss;
      ds = -ds;
      ss = -ss;
    }
    w.ext[w.rank] = c.extents[d];
    w.ds[w.rank] = ds;
    w.ss[w.rank] = ss;
    order[w.rank] = w.rank;
    ++w.rank;
  }
  if (w.rank == 0) {  // one element
    w.rank = 1;
    w.ext[0] = 1;
    w.ds[0] = w.ss[0] = static_cast<std::ptrdiff_t>(c.elem);
    return w;
  }
  // The destination's memory order: largest stride outermost (ties: the source's).
  std::sort(order, order + w.rank, [&](int a, int b) {
    if (w.ds[a] != w.ds[b]) return w.ds[a] > w.ds[b];
    return std::abs(w.ss[a]) > std::abs(w.ss[b]);
  });
  walk sorted = w;
  for (int d = 0; d < w.rank; ++d) {
    sorted.ext[d] = w.ext[order[d]];
    sorted.ds[d] = w.ds[order[d]];
    sorted.ss[d] = w.ss[order[d]];
  }
  // Merge dimension d into its outer neighbour when both sides step over it exactly.
  walk m = sorted;
  m.rank = 1;
  for (int d = 1; d < sorted.rank; ++d) {
    const int o = m.rank - 1;
    if (m.ds[o] == sorted.ds[d] * sorted.ext[d] && m.ss[o] == sorted.ss[d] * sorted.ext[d]) {
      m.ext[o] *= sorted.ext[d];
      m.ds[o] = sorted.ds[d];
      m.ss[o] = sorted.ss[d];
    } else {
      m.ext[m.rank] = sorted.ext[d];
      m.ds[m.rank] = sorted.ds[d];
      m.ss[m.rank] = sorted.ss[d];
      ++m.rank;
    }
  }
  // The innermost dimension in elements of a contiguous destination but not in the source's
  // order is still one loop; nothing more to merge.
  return m;
}

// The lowest and one past the highest byte a side of the walk touches.
struct span_of {
  std::uintptr_t lo, hi;
};
span_of bytes_of(const char* base, const std::ptrdiff_t* strides, const walk& w) {
  auto lo = reinterpret_cast<std::uintptr_t>(base), hi = lo;
  for (int d = 0; d < w.rank; ++d) {
    const std::ptrdiff_t reach = (w.ext[d] - 1) * strides[d];
    if (reach < 0) {
      lo -= static_cast<std::uintptr_t>(-reach);
    } else {
      hi += static_cast<std::uintptr_t>(reach);
    }
  }
  return {lo, hi + w.elem};
}

template <class U>
void strided_run(char* d, const char* s, std::ptrdiff_t ds, std::ptrdiff_t ss, std::ptrdiff_t n) {
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    U u;
    std::memcpy(&u, s + i * ss, sizeof(U));
    std::memcpy(d + i * ds, &u, sizeof(U));
  }
}

struct bytes16 {
  std::uint64_t a, b;
};

// n elements of the innermost dimension from s to d.
void run(const walk& w, char* d, const char* s, std::ptrdiff_t n) {
  const int in = w.rank - 1;
  const std::ptrdiff_t ds = w.ds[in], ss = w.ss[in];
  const auto e = static_cast<std::ptrdiff_t>(w.elem);
  if (ds == e && ss == e) {
    std::memcpy(d, s, static_cast<std::size_t>(n) * w.elem);
    return;
  }
  switch (w.elem) {
    case 1:
      strided_run<std::uint8_t>(d, s, ds, ss, n);
      return;
    case 2:
      strided_run<std::uint16_t>(d, s, ds, ss, n);
      return;
    case 4:
      strided_run<std::uint32_t>(d, s, ds, ss, n);
      return;
    case 8:
      strided_run<std::uint64_t>(d, s, ds, ss, n);
      return;
    case 16:
      strided_run<bytes16>(d, s, ds, ss, n);
      return;
    default:
      for (std::ptrdiff_t i = 0; i < n; ++i)
        std::memcpy(d + i * ds, s + i * ss, w.elem);
  }
}

// One step of an odometer over the walk's dimensions below `end` other than `skip` (-1: none),
// the last fastest, moving d and s with it; false when it wraps around to all zeros.
bool advance(const walk& w, int end, int skip, std::ptrdiff_t* idx, char*& d, const char*& s) {
  for (int k = end - 1; k >= 0; --k) {
    if (k == skip) continue;
    d += w.ds[k];
    s += w.ss[k];
    if (++idx[k] < w.ext[k]) return true;
    d -= w.ext[k] * w.ds[k];
    s -= w.ext[k] * w.ss[k];
    idx[k] = 0;
  }
  return false;
}

// Elements [first, first + count) of the walk, in its order (row-major over its extents).
void run_range(const walk& w, std::size_t first, std::size_t count) {
  const int in = w.rank - 1;
  const auto row = static_cast<std::size_t>(w.ext[in]);
  std::ptrdiff_t idx[nd_copy_max_rank] = {};
  std::size_t outer = first / row;
  auto at = static_cast<std::ptrdiff_t>(first % row);
  char* d = w.dst;
  const char* s = w.src;
  for (int k = in - 1; k >= 0; --k) {
    idx[k] = static_cast<std::ptrdiff_t>(outer % static_cast<std::size_t>(w.ext[k]));
    outer /= static_cast<std::size_t>(w.ext[k]);
    d += idx[k] * w.ds[k];
    s += idx[k] * w.ss[k];
  }
  while (count > 0) {
    const auto n = static_cast<std::ptrdiff_t>(std::min(count, row - static_cast<std::size_t>(at)));
    run(w, d + at * w.ds[in], s + at * w.ss[in], n);
    count -= static_cast<std::size_t>(n);
    at = 0;
    advance(w, in, -1, idx, d, s);  // the next row
  }
}

bool same_elements(const walk& w) noexcept {
  if (w.dst != w.src) return false;
  for (int d = 0; d < w.rank; ++d) {
    if (w.ds[d] != w.ss[d]) return false;
  }
  return true;
}

// Copies a walk whose sides may overlap, as if through a temporary (memmove's rule): the
// source packed into a buffer in the walk's order, then the buffer unpacked.
void run_through_buffer(const walk& w) {
  const std::size_t n = w.count();
  std::unique_ptr<char[]> buffer(new char[n * w.elem]);
  walk pack = w, unpack = w;
  pack.dst = buffer.get();
  unpack.src = buffer.get();
  auto step = static_cast<std::ptrdiff_t>(w.elem);
  for (int d = w.rank - 1; d >= 0; --d) {
    pack.ds[d] = unpack.ss[d] = step;
    step *= w.ext[d];
  }
  run_range(pack, 0, n);
  run_range(unpack, 0, n);
}

bool may_overlap(const walk& w) noexcept {
  const span_of a = bytes_of(w.dst, w.ds, w), b = bytes_of(w.src, w.ss, w);
  return a.lo < b.hi && b.lo < a.hi;
}

void trace_copy(trace_kind kind, const nd_copy_desc& c, const walk& w,
                const std::source_location& where) {
  const std::size_t bytes = w.count() * w.elem;
  trace_access(kind, trace_dir::read, c.src, bytes, where);
  trace_access(kind, trace_dir::write, c.dst, bytes, where);
}

// A walk whose destination runs are contiguous but whose source is contiguous along another
// dimension c (a transpose) would read one element per cache line per step. It is copied in
// square tiles instead, a cache line of elements a side (tile elements along c and along the
// innermost dimension): a tile reads that many source lines and writes that many destination
// lines, each whole, so every line is fetched once however the cache maps the source's rows
// (a stride of a power of two puts them all in one set). Tiles go along the innermost
// dimension in strips of a tile's rows of the destination, over blocks of transpose_block
// source rows (as many pages at most, which the TLB holds), and each tile prefetches the
// source lines transpose_ahead rows further on: without the prefetch the tiles wait on every
// line. ndarray_copy_bench, 2048 x 4096 doubles: element by element 7 % of memcpy's
// bandwidth, in 32 x 32 blocks of that 20 %, in these tiles about 55 %; without the prefetch
// 25 %, without the blocks 30-40 %.
constexpr std::ptrdiff_t cache_line = 64;
constexpr std::ptrdiff_t transpose_block = 512;
constexpr std::ptrdiff_t transpose_ahead = 64;

int transposed_dimension(const walk& w) noexcept {
  const int in = w.rank - 1;
  const auto e = static_cast<std::ptrdiff_t>(w.elem);
  if (w.ds[in] != e || w.ss[in] == e || w.ext[in] < 2) return -1;
  for (int d = 0; d < in; ++d) {
    if (w.ss[d] == e && w.ext[d] >= 2) return d;
  }
  return -1;
}

// The side of a transpose's tiles for elements of elem bytes: a cache line of elements for the
// sizes with loads of their own, four lines' worth (at least one) for others.
std::ptrdiff_t tile_of(std::size_t elem) noexcept {
  const auto e = static_cast<std::ptrdiff_t>(elem);
  if (elem <= 16 && (elem & (elem - 1)) == 0) return cache_line / e;
  return std::max<std::ptrdiff_t>(1, 4 * cache_line / e);
}

// One plane of a transpose: destination element (r, i) at d + r * dr + i * e, source element
// (r, i) at s + r * e + i * si, 0 <= r < nr, 0 <= i < ni, in tiles of t x t elements;
// move(r, i) copies one element.
struct plane {
  std::ptrdiff_t nr, ni, e, si;
  const char* s;
};

template <class Move>
void transpose_tiles(const plane& p, std::ptrdiff_t t, Move move) {
  const std::ptrdiff_t nr_full = p.nr - p.nr % t;
  for (std::ptrdiff_t ib = 0; ib < p.ni; ib += transpose_block) {
    const std::ptrdiff_t ie = std::min(p.ni, ib + transpose_block);
    const std::ptrdiff_t ie_full = ib + (ie - ib) / t * t;
    for (std::ptrdiff_t r0 = 0; r0 < nr_full; r0 += t) {
      for (std::ptrdiff_t i0 = ib; i0 < ie_full; i0 += t) {
        const std::ptrdiff_t ahead = std::min(i0 + transpose_ahead, ie_full);
        for (std::ptrdiff_t i = ahead; i < std::min(ahead + t, ie_full); ++i)
          __builtin_prefetch(p.s + r0 * p.e + i * p.si);
        for (std::ptrdiff_t r = r0; r < r0 + t; ++r) {
          for (std::ptrdiff_t i = i0; i < i0 + t; ++i)
            move(r, i);
        }
      }
      for (std::ptrdiff_t r = r0; r < r0 + t; ++r) {
        for (std::ptrdiff_t i = ie_full; i < ie; ++i)
          move(r, i);
      }
    }
  }
  // The last rows, fewer than a tile: each source line still serves them all.
  for (std::ptrdiff_t i = 0; i < p.ni; ++i) {
    for (std::ptrdiff_t r = nr_full; r < p.nr; ++r)
      move(r, i);
  }
}

// Elements of sizeof(U) bytes: loads and stores of that size, tiles of a cache line.
template <class U>
void transpose_plane(char* d, std::ptrdiff_t dr, const plane& p) {
  constexpr auto e = static_cast<std::ptrdiff_t>(sizeof(U));
  transpose_tiles(p, tile_of(sizeof(U)), [&](std::ptrdiff_t r, std::ptrdiff_t i) {
    U u;
    std::memcpy(&u, p.s + r * e + i * p.si, sizeof(U));
    std::memcpy(d + r * dr + i * e, &u, sizeof(U));
  });
}

void transpose_plane_any(std::size_t elem, char* d, std::ptrdiff_t dr, const plane& p) {
  switch (elem) {
    case 1:
      return transpose_plane<std::uint8_t>(d, dr, p);
    case 2:
      return transpose_plane<std::uint16_t>(d, dr, p);
    case 4:
      return transpose_plane<std::uint32_t>(d, dr, p);
    case 8:
      return transpose_plane<std::uint64_t>(d, dr, p);
    case 16:
      return transpose_plane<bytes16>(d, dr, p);
    default:  // other sizes: memcpy of the size
      transpose_tiles(p, tile_of(elem), [&](std::ptrdiff_t r, std::ptrdiff_t i) {
        std::memcpy(d + r * dr + i * p.e, p.s + r * p.e + i * p.si, elem);
      });
  }
}

// Rows [r0, r1) of dimension c of the transposed walk w's plane at d and s.
void transpose_rows(const walk& w, int c, char* d, const char* s, std::ptrdiff_t r0,
                    std::ptrdiff_t r1) {
  const auto e = static_cast<std::ptrdiff_t>(w.elem);
  const plane p{r1 - r0, w.ext[w.rank - 1], e, w.ss[w.rank - 1], s + r0 * e};
  transpose_plane_any(w.elem, d + r0 * w.ds[c], w.ds[c], p);
}

// The transpose of walk w along dimension c: a plane of dimensions c and the innermost one at
// every index of the others.
void run_transposed(const walk& w, int c) {
  std::ptrdiff_t idx[nd_copy_max_rank] = {};
  char* d = w.dst;
  const char* s = w.src;
  do {
    transpose_rows(w, c, d, s, 0, w.ext[c]);
  } while (advance(w, w.rank - 1, c, idx, d, s));
}

// Copies the walk in the calling thread.
void run_here(const walk& w) {
  if (may_overlap(w)) {
    if (!same_elements(w)) run_through_buffer(w);
    return;
  }
  if (const int c = transposed_dimension(w); c >= 0) {
    run_transposed(w, c);
    return;
  }
  run_range(w, 0, w.count());
}

// copy_nb's task: the walk, run in pieces by the engine and the syncing thread. Its units are
// the walk's elements, or for a transpose (c >= 0) strips of a tile's rows of its planes, the
// planes in the walk's order.
struct nb_task {
  walk w;
  int c = -1;
  std::ptrdiff_t strips = 0;  // per plane
  std::ptrdiff_t tile = 0;
};

void task_run(void* task, std::size_t at, std::size_t len) {
  const nb_task& t = *static_cast<const nb_task*>(task);
  if (t.c < 0) {
    run_range(t.w, at, len);
    return;
  }
  const walk& w = t.w;
  auto u = static_cast<std::ptrdiff_t>(at);
  const std::ptrdiff_t end = u + static_cast<std::ptrdiff_t>(len);
  while (u < end) {
    // The plane of unit u: its index over the dimensions other than c and the innermost.
    std::ptrdiff_t plane = u / t.strips;
    char* d = w.dst;
    const char* s = w.src;
    for (int k = w.rank - 2; k >= 0; --k) {
      if (k == t.c) continue;
      d += plane % w.ext[k] * w.ds[k];
      s += plane % w.ext[k] * w.ss[k];
      plane /= w.ext[k];
    }
    const std::ptrdiff_t first = u % t.strips, last = std::min(t.strips, first + end - u);
    transpose_rows(w, t.c, d, s, first * t.tile, std::min(w.ext[t.c], last * t.tile));
    u += last - first;
  }
}
void task_free(void* task) noexcept {
  delete static_cast<nb_task*>(task);
}

}  // namespace

void nd_copy_outside_job(const char* call, const std::source_location& where) {
  misuse(fmt::format("{} called outside a job (ndarrays live in the shared space of a running "
                     "pgas::run)",
                     call),
         where);
}

void nd_copy_run(const nd_copy_desc& c, const std::source_location& where) {
  const walk w = normalise(c);
  if (trace_on) [[unlikely]]
    trace_copy(trace_kind::bulk, c, w, where);
  run_here(w);
}

void nd_ghost_barrier(std::int32_t id, nd_index form, ghost_sync sync,
                      const std::source_location& where) {
  // The report's text of the call, in a buffer that is never freed (a reporter may read the
  // last text a thread published after the thread has moved on), formatted again only when the
  // arguments differ from this thread's previous call: a sweep's calls alternate between two.
  struct call_text {
    std::int32_t id = 0;
    nd_index form = 0;
    ghost_sync sync{};
    bool valid = false;
    char text[96] = {};
  };
  thread_local std::array<call_text, 2> recent;
  thread_local std::size_t used = 0;  // the entry of this thread's previous call
  const auto same = [&](const call_text& e) {
    return e.valid && e.id == id && e.form == form && e.sync == sync;
  };
  if (!same(recent[used])) {
    used = 1 - used;  // the other entry: the previous call's text may still be read
    call_text& e = recent[used];
    if (!same(e)) {
      const char* mode = "entry_and_exit";
      switch (sync) {
        case ghost_sync::entry:
          mode = "entry";
          break;
        case ghost_sync::entry_and_exit:
          break;
      }
      const std::string shape =
          form < 0 ? std::string("owned pieces") : fmt::format("width {}", form);
      const auto end = fmt::format_to_n(e.text, sizeof e.text - 1,
                                        "directory {:#010x}, {}, pgas::ghost_sync::{}",
                                        static_cast<std::uint32_t>(id), shape, mode);
      *end.out = '\0';
      e.id = id;
      e.form = form;
      e.sync = sync;
      e.valid = true;
    }
  }
  const call_text& c = recent[used];
  barrier_collective(
      barrier_op{op_kind::fill_ghosts, "pgas::fill_ghosts", true, id, "directory", where, c.text});
}

nb_handle nd_copy_start(const nd_copy_desc& c, const std::source_location& where) {
  const job& j = job_or_misuse(where, "pgas::copy_nb");
  if (!tls_job_thread) {
    misuse(fmt::format("pgas::copy_nb called from a thread that is not one of the job's {} UPC "
                       "threads (a transfer belongs to the UPC thread that starts it)",
                       j.threads),
           where);
  }
  const walk w = normalise(c);
  if (trace_on) [[unlikely]]
    trace_copy(trace_kind::nonblocking, c, w, where);
  const std::size_t n = w.count();
  if (n * w.elem < j.nb_threshold || may_overlap(w)) {
    run_here(w);
    return complete_handle;
  }
  auto* op = new nb_op;
  op->kind = nb_kind::task;
  auto* task = new nb_task{w};
  op->bytes = n;  // a task counts elements, or strips of a transpose
  op->piece = std::max<std::size_t>(1, nb_piece_bytes / w.elem);
  if (const int c = transposed_dimension(w); c >= 0) {
    task->c = c;
    task->tile = tile_of(w.elem);
    task->strips = (w.ext[c] + task->tile - 1) / task->tile;
    const auto strip = static_cast<std::size_t>(task->tile * w.ext[w.rank - 1]) * w.elem;
    op->bytes = n / static_cast<std::size_t>(w.ext[c] * w.ext[w.rank - 1]) *
                static_cast<std::size_t>(task->strips);
    op->piece = std::max<std::size_t>(1, nb_piece_bytes / strip);
  }
  op->pieces = static_cast<std::uint32_t>((op->bytes + op->piece - 1) / op->piece);
  op->task = task;
  op->task_run = task_run;
  op->task_free = task_free;
  op->name = "pgas::copy_nb";
  op->where = where;
  const int owner = c.dst_owner >= 0 ? c.dst_owner : tls_mythread;
  return nb_start_task(j, op, j.private_node[static_cast<std::size_t>(owner)]);
}

}  // namespace pgas::detail
