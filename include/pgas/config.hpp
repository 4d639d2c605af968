// pgas/config.hpp — the build options this copy of pgas was configured with.
//
// Each Meson option in meson_options.txt that code depends on appears here as an
// `inline constexpr` value, so that code branches with `if constexpr` instead of `#ifdef`.
//
// Contract: compile-time constants only. Nothing here is called, collective, or can fail;
// every value is the same inside and outside a job and on every thread.
#pragma once

#include <pgas/detail/build_config.hpp>

namespace pgas::config {

/// The largest number of UPC threads a job may start (Meson option `max_threads`).
/// `pgasrun -n` and `PGAS_THREADS` beyond it are rejected with a clear error.
inline constexpr int max_threads = PGASI_MAX_THREADS;

/// Depth of internal checking (Meson option `debug_level`, 0..2). Misuse checks that name a
/// thread, file and line (barrier mismatch, wait without notify, unlock by a non-owner) are
/// always on. Level 1 turns bounds_check on (the checked build); level 2 also walks the symmetric
/// heap's invariants after every change (an internal error ends the process with status 70).
inline constexpr int debug_level = PGASI_DEBUG_LEVEL;

/// Bits of a pointer-to-shared's 64-bit word that hold its phase (Meson option
/// `sptr_phase_bits`, default 20). The other 64 - sptr_phase_bits bits hold the offset of the
/// element from the start of the shared space (thread * segment size + address in segment),
/// so THREADS * segment size is at most 2^44 bytes by default (16 TiB: 4096 threads of 4 GiB,
/// or 2 threads of 64 GiB); the runtime sizes segments so the shared space fits.
inline constexpr int sptr_phase_bits = PGASI_SPTR_PHASE_BITS;
inline constexpr int sptr_offset_bits = 64 - sptr_phase_bits;
/// The largest compile-time block size (elements): `sptr<T, B>` and `shared_array<T, R, B>`
/// with B above it do not compile (use pgas::dynamic_block). A compile-time-B pointer is the
/// one 8-byte word, whose phase field holds sptr_phase_bits bits.
inline constexpr unsigned long long max_block = 1ull << sptr_phase_bits;
/// The largest run-time block size (elements): block_spec::cyclic(B), [*] and tiles may give
/// blocks up to it (2^38: 256 Gi elements, more than a segment holds in practice). A
/// run-time-B pointer is 16 bytes and keeps the phase's high bits beside its block
/// (pgas/detail/block.hpp). A larger block is misuse named at the call that asks for it.
inline constexpr unsigned long long max_runtime_block = 1ull << 38;

/// True in the checked build (Meson option `bounds_check`, or debug_level >= 1): shared-array
/// indices, pointer-to-shared dereferences and bulk copies are checked against their
/// allocation, and pgas::free of a local allocation that is not live (a double free, or a
/// pointer local_alloc never returned) is caught. A violation ends the job naming the thread
/// and, where the API takes one, the file and line. Release builds check neither.
inline constexpr bool bounds_check = PGASI_BOUNDS_CHECK != 0 || debug_level >= 1;

/// True when the program was compiled with -DPGAS_TRACE_ELEMENTS=1: its element accesses
/// (pointer-to-shared dereference, A(i, j), A[i], table access) carry the tracing hooks of
/// pgas/trace.hpp, so that `pgasrun --trace` counts them too. Off by default, as Berkeley UPC's
/// `upcc -trace`: a hook in an inner loop keeps the compiler from vectorizing it (measured: up
/// to 26x on a matrix multiply whose loop vectorizes without it), whether or not the job traces.
/// The library's own calls (copies, atomics, collectives, locks, barriers, caches, schedules)
/// are always traced.
#ifndef PGAS_TRACE_ELEMENTS
#define PGAS_TRACE_ELEMENTS 0
#endif
inline constexpr bool trace_hooks = PGAS_TRACE_ELEMENTS != 0;

/// The library version, "MAJOR.MINOR.PATCH".
inline constexpr const char* version = PGASI_VERSION;

}  // namespace pgas::config
