// pgas/detail/trace_hook.hpp — what the library's code calls to record shared accesses, waits
// and software-cache statistics for `pgasrun --trace` (pgas/trace.hpp), implemented in
// src/job/trace.cpp. Not part of the API.
//
// Every function is cheap to call while no job traces (a test of trace_on) and may be called
// from any thread, inside or outside a job (outside one, or on a thread the job did not start,
// it records nothing). Sites: inline element accesses record their caller's code address
// (trace_reference), attributed to a file and line when the job ends; every other hook takes
// the std::source_location of the API call that the user wrote.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>

#include <pgas/config.hpp>
#include <pgas/detail/export.hpp>

namespace pgas::detail {

/// What recorded an access. The order is the file format's (src/job/trace_file.cpp).
enum class trace_kind : std::uint8_t {
  element,      // *p, p->, p[i], A(i, j), A[i], table(i, j): one element through a reference
  bulk,         // memget/memput/memcpy/memset and their UPC names
  nonblocking,  // the non-blocking copies (pgas/nb.hpp)
  atomic,       // atomic domains (pgas/atomic.hpp)
  collective,   // value and UPC collectives
  lock,         // lock, try-lock and unlock
  barrier,      // barrier, notify and wait
  fence,        // fence and strict accesses
  cache,        // a software cache's fills (read) and write-backs (write) (pgas/cache.hpp)
  schedule,     // a coalescing schedule's downloads (read) and uploads (write) (pgas/coalesce.hpp)
};
inline constexpr int trace_kinds = 10;

/// The direction of an access, seen from the issuing thread.
enum class trace_dir : std::uint8_t {
  read,    // the issuing thread read the owner's bytes
  write,   // the issuing thread wrote them
  update,  // read-modify-write (atomics)
  sync,    // no data: a synchronisation (barrier, lock, fence, collective's agreement)
};
inline constexpr int trace_dirs = 4;

/// True while a job traces: set before the job's threads start and cleared after they join
/// (src/job/trace.cpp writes it through another name). Declared const here on purpose: no code
/// that reads it runs while it changes, and a flag the compiler knows no call can change is
/// loaded once before a loop, so the loop is compiled twice (unswitched) and the untraced copy
/// vectorizes as it would without the hooks.
PGAS_API extern const bool trace_on __asm__("pgas_trace_on");

/// One element of `bytes` bytes at `element` (an address in the shared space) accessed through
/// a reference: the direction is decided at the calling thread's next recorded event (a write
/// when the element's bytes changed in between, otherwise a read; a store of the value already
/// there reads as a read). The site is the caller's code address.
[[gnu::noinline]] PGAS_API void trace_reference(const void* element, std::size_t bytes) noexcept;

/// An access the library makes on the user's behalf: `shared` is the address in the shared
/// space whose owner is the other end (null when there is none, as for a barrier), `bytes` how
/// many bytes moved.
PGAS_API void trace_access(trace_kind kind, trace_dir dir, const void* shared, std::size_t bytes,
                           const std::source_location& where) noexcept;

/// The start of a wait (barrier, lock, collective): a time stamp to give trace_wait_end, 0 when
/// not tracing.
PGAS_API std::uint64_t trace_wait_start() noexcept;
/// The end of the wait started at `started` (ignored when 0): its duration is added to the
/// site's waits and, within the timeline's bound, to the timeline.
PGAS_API void trace_wait_end(trace_kind kind, std::uint64_t started,
                             const std::source_location& where) noexcept;

/// A software cache's statistics since its last report, for the allocation holding `shared`.
PGAS_API void trace_cache(const void* shared, std::uint64_t hits, std::uint64_t misses,
                          std::uint64_t written_back_bytes,
                          const std::source_location& where) noexcept;

/// A shared allocation, for attributing accesses to it: `offset` and `bytes` within a segment;
/// `thread` the segment's thread, or -1 for a symmetric allocation (the same range of every
/// segment). Named after `where` until trace_name renames it. Called whether or not a job
/// traces (names given before --trace starts counting must hold), cheap when not tracing.
PGAS_API void trace_allocation(std::uint64_t offset, std::size_t bytes, int thread,
                               const std::source_location& where) noexcept;
/// The allocation at `offset` of `thread`'s segment (-1: symmetric) is freed.
PGAS_API void trace_release(std::uint64_t offset, int thread) noexcept;

/// While a job records reuse distances and does not trace, the calling thread's own segment
/// (`trace_skip_bytes` bytes from `trace_skip_lo`): the reuse recorder counts only other
/// threads' data, so an element access there skips the call. Empty (0 bytes) otherwise.
/// Written by src/job/reuse.cpp on the thread itself as it starts and ends.
PGAS_API extern thread_local constinit std::uintptr_t trace_skip_lo
    __attribute__((tls_model("initial-exec")));
PGAS_API extern thread_local constinit std::uintptr_t trace_skip_bytes
    __attribute__((tls_model("initial-exec")));

/// The element access hook of the public headers: records `p` while a job traces.
template <class T>
[[gnu::always_inline]] inline void trace_element(const T* p) noexcept {
  if constexpr (config::trace_hooks) {
    if (trace_on) [[unlikely]] {
      if (reinterpret_cast<std::uintptr_t>(p) - trace_skip_lo >= trace_skip_bytes)
        trace_reference(p, sizeof(T));
    }
  }
}

}  // namespace pgas::detail
