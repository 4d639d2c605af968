// src/objects/ndarray_copy.cpp — the walk behind pgas::copy and pgas::copy_nb
// (pgas/ndarray_copy.hpp): a copy described as extents and byte strides on both sides is
// normalised (dimensions of one point dropped, the destination's strides made positive and
// ordered outermost-largest, dimensions contiguous in both merged), then run as memcpy of runs
// contiguous in both or a strided loop of the element's size; copies whose sides may overlap go
// through a buffer. copy_nb hands large copies to the copy engines (src/objects/copy_engine.cpp)
// as a task whose pieces are ranges of the walk. Entry points: nd_copy_run, nd_copy_start.

#include <pgas/ndarray_copy.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include <pgas/detail/identity.hpp>
#include <pgas/detail/trace_hook.hpp>

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
    // The next row: an odometer over the outer dimensions.
    for (int k = in - 1; k >= 0; --k) {
      d += w.ds[k];
      s += w.ss[k];
      if (++idx[k] < w.ext[k]) break;
      d -= w.ext[k] * w.ds[k];
      s -= w.ext[k] * w.ss[k];
      idx[k] = 0;
    }
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
// dimension (a transpose) reads one element per cache line per step: copied in square blocks
// of that dimension and the innermost one instead, so that a block's source lines stay in
// cache while its rows are written (7 % of memcpy's bandwidth unblocked, ndarray_copy_bench).
constexpr std::ptrdiff_t transpose_block = 32;

int transposed_dimension(const walk& w) noexcept {
  const int in = w.rank - 1;
  const auto e = static_cast<std::ptrdiff_t>(w.elem);
  if (w.ds[in] != e || w.ss[in] == e || w.ext[in] < transpose_block) return -1;
  for (int d = 0; d < in; ++d) {
    if (w.ss[d] == e && w.ext[d] >= transpose_block) return d;
  }
  return -1;
}

void run_blocked(const walk& w, int c) {
  const int in = w.rank - 1;
  walk b = w;
  for (std::ptrdiff_t x = 0; x < w.ext[c]; x += transpose_block) {
    for (std::ptrdiff_t y = 0; y < w.ext[in]; y += transpose_block) {
      b.dst = w.dst + x * w.ds[c] + y * w.ds[in];
      b.src = w.src + x * w.ss[c] + y * w.ss[in];
      b.ext[c] = std::min(transpose_block, w.ext[c] - x);
      b.ext[in] = std::min(transpose_block, w.ext[in] - y);
      run_range(b, 0, b.count());
    }
  }
}

// Copies the walk in the calling thread.
void run_here(const walk& w) {
  if (may_overlap(w)) {
    if (!same_elements(w)) run_through_buffer(w);
    return;
  }
  if (const int c = transposed_dimension(w); c >= 0) {
    run_blocked(w, c);
    return;
  }
  run_range(w, 0, w.count());
}

// copy_nb's task: the walk, run in pieces by the engine and the syncing thread.
void task_run(void* task, std::size_t at, std::size_t len) {
  run_range(*static_cast<const walk*>(task), at, len);
}
void task_free(void* task) noexcept {
  delete static_cast<walk*>(task);
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
  op->bytes = n;  // a task counts elements
  op->piece = std::max<std::size_t>(1, nb_piece_bytes / w.elem);
  op->pieces = static_cast<std::uint32_t>((n + op->piece - 1) / op->piece);
  op->task = new walk(w);
  op->task_run = task_run;
  op->task_free = task_free;
  op->name = "pgas::copy_nb";
  op->where = where;
  const int owner = c.dst_owner >= 0 ? c.dst_owner : tls_mythread;
  return nb_start_task(j, op, j.private_node[static_cast<std::size_t>(owner)]);
}

}  // namespace pgas::detail
