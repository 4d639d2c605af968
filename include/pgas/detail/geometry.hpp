// pgas/detail/geometry.hpp — what inline pointer-to-shared code needs to know about the
// running job's shared space: where it starts, the segment size and THREADS with a
// precomputed divider. Written once by the runtime before the job's threads start and cleared
// after they are joined, so plain loads are race-free (thread creation orders them).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string_view>

#include <libdivide.h>

#include <pgas/config.hpp>
#include <pgas/detail/export.hpp>
#include <pgas/error.hpp>

namespace pgas::detail {

struct shared_geometry {
  char* base = nullptr;       // start of thread 0's segment
  std::uint64_t span = 0;     // threads << shift: one past the largest offset
  std::uint64_t segment = 0;  // 1 << shift
  unsigned shift = 0;         // log2(segment size)
  unsigned threads = 0;       // THREADS
  // Divides by THREADS: a multiply and shift, or just a shift for a power of two (libdivide
  // tells the cases apart itself).
  libdivide::divider<std::uint64_t> threads_div;
  // The parts of each segment that are mapped (read-write), for the bulk copies' every-build
  // check (pgas/detail/bulk_check.hpp): the first *symmetric_committed bytes of every segment,
  // and local_committed[t] bytes of thread t's local region from segment / 2. They only grow,
  // with release stores made before the allocation that needed them returns.
  const std::atomic<std::size_t>* symmetric_committed = nullptr;
  const std::atomic<std::size_t>* local_committed = nullptr;  // THREADS entries
};

/// The running job's geometry (all zero outside a job).
PGAS_API extern shared_geometry geometry;

/// Misuse (pgas/error.hpp): a pointer-to-shared or bulk range [offset, offset + bytes) of the
/// shared space (offset = thread * segment size + address) that is not inside one live
/// allocation; `where` may be null (no call site to name). Returns normally when it is inside.
/// Used by checked builds only.
PGAS_API void check_shared_range(std::uint64_t offset, std::size_t bytes, std::string_view what,
                                 const std::source_location* where);

}  // namespace pgas::detail
