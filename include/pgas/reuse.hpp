// pgas/reuse.hpp — reuse distances of accesses to other threads' data, per thread and source
// line, for predicting a larger run's locality (pgas-reuse).
//
//   pgasrun -n 4 --reuse=run.reuse ./prog --size 64   (or PGAS_REUSE=run.reuse)
//   pgas-reuse show run.reuse                         per-site histograms
//
// What a recording job records. For every access a thread makes to another thread's shared
// data, its reuse distance: the number of distinct address units the thread touched (of other
// threads' data) since its previous access to the same unit, 0 when nothing else came between.
// Units are elements, 64-byte lines or the array's UPC blocks (PGAS_REUSE_GRAIN,
// `--reuse-grain`). A thread's last-use data is dropped at every barrier, notify, fence and
// strict access, so the next access to each unit counts as a first ("infinite") access, as
// papers on UPC reuse do. The distances are kept per (thread, site) as log2 histograms (bin 0:
// d = 0, bin k: 2^(k-1) <= d < 2^k) with each bin's count, minimum, maximum and mean. Sites are
// what pgas-trace names (the file, line and function of an element access, or of the library
// call; element accesses need -DPGAS_TRACE_ELEMENTS=1 and -g, as for tracing). The trace mask
// (pgas/trace.hpp) also selects what reuse recording sees.
//
// Modes (PGAS_REUSE_MODE, `--reuse-mode`). exact: every distance exact, O(log n) per access
// for n units live in the thread's stack. approximate: distances below 32 units exact, longer
// ones estimated from one unit in 8 chosen by hash and scaled (unbiased, relative standard
// error sqrt(7 / d): 8.3 % at d = 1024, the file's "error_bound").
//
// Memory. Each thread keeps at most 2^20 units live (about 80 MB at that bound); an access
// past it drops every unit first (the next accesses count as first accesses) and the job's end
// says how often. The histograms are merged when the job ends and the file is written by
// renaming a complete file over its name; a file that cannot be written is found before any
// thread starts (pgasrun exits 2). Tracing (--trace) and reuse recording may run together.
//
// Contract.
//   * Collective: no.
//   * Thread safety: any thread, inside or outside a job.
//   * Errors: none.
#pragma once

#include <cstdint>

#include <pgas/detail/export.hpp>

namespace pgas {

/// Declares the problem size the program runs at, written as the recording's "size" (null
/// when never declared): pgas-reuse predicts a larger size's histograms from two recordings'
/// sizes. The last value declared before or during a job is written when that job ends (and
/// then forgotten); a job that does not record reuse ignores it. Memory ordering: none needed
/// (read after the job's threads join).
PGAS_API void reuse_size(std::uint64_t size) noexcept;

/// True while the current job records reuse distances.
PGAS_API bool reusing() noexcept;

}  // namespace pgas
