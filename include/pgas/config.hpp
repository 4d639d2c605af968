// pgas/config.hpp — the build options this copy of pgas was configured with.
//
// Each Meson option in meson_options.txt that code depends on appears here as an
// `inline constexpr` value, so that code branches with `if constexpr` instead of `#ifdef`.
#pragma once

#include <pgas/detail/build_config.hpp>

namespace pgas::config {

/// The largest number of UPC threads a job may start (Meson option `max_threads`).
/// `pgasrun -n` and `PGAS_THREADS` beyond it are rejected with a clear error.
inline constexpr int max_threads = PGASI_MAX_THREADS;

/// Depth of internal checking (Meson option `debug_level`, 0..3). Misuse checks that name a
/// thread, file and line (barrier mismatch, wait without notify, unlock by a non-owner) are
/// always on; higher levels add internal invariant checks.
inline constexpr int debug_level = PGASI_DEBUG_LEVEL;

/// The library version, "MAJOR.MINOR.PATCH".
inline constexpr const char* version = PGASI_VERSION;

}  // namespace pgas::config
