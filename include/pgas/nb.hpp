// pgas/nb.hpp — non-blocking bulk copies: UPC 1.3's <upc_nb.h> (UPC Optional Library
// Specifications 1.3, §7.9): upc_memcpy_nb, upc_memget_nb, upc_memput_nb, upc_memset_nb with an
// explicit handle (upc_handle_t, UPC_COMPLETE_HANDLE) completed by upc_sync / upc_sync_attempt,
// and the implicit-handle forms upc_mem*_nbi completed together by upc_synci /
// upc_synci_attempt.
//
//   pgas::nb_handle h = pgas::memget_nb(buf, a.ptr(k), bytes);   // starts the copy
//   compute();                                                   // must not touch buf
//   pgas::sync(h);                                               // buf now holds the data
//
// Each transfer moves the same bytes as the blocking call of pgas/bulk.hpp with the same
// arguments (the shared side is n bytes with affinity to ONE thread, as `shared [] char *`).
//
// What overlaps and what completes at once.
//   * A transfer of fewer than PGAS_NB_THRESHOLD bytes (default 1 MiB; "off" sends none to the
//     engine) is done by the calling thread inside the initiating call, which returns the
//     complete handle (UPC_COMPLETE_HANDLE): for small copies a helper costs more than the copy.
//   * A larger one goes to the copy engine of the NUMA node the destination lives on (the
//     caller's node for memget_nb, the destination thread's for the others): one helper thread
//     per node, started at the first such transfer and, when the job's threads are bound, bound
//     to the node's PUs that no job thread holds (all of the node's PUs when they all are). The
//     engine copies it in 1 MiB pieces while the caller runs on. When the caller syncs, it copies
//     the pieces the engine has not started itself, so a sync never waits for queued work, only for
//     the pieces already under way (at most one per engine). test() and testi() only look; they
//     never copy.
//   * Engine threads are not UPC threads: they have no thread number, take no part in
//     barriers, and are joined when the job ends.
//
// Rules (the spec's), and what pgas does when they are broken.
//   * The transfer interval runs from the initiating call to the return of the sync (or
//     successful test) that completes it. During it the program must not read the destination
//     nor write the source or the destination, from any thread; the bytes it would see or leave
//     are indeterminate. Both must stay allocated (a private buffer on the stack included) until
//     the transfer completes. This is not detected.
//   * Every handle that is not the complete handle must be completed exactly once, by sync() or
//     a test() that returns true, on the thread that started the transfer. Misuse (always
//     checked, pgas/error.hpp): syncing or testing a handle already completed or moved from,
//     a handle another thread started, or destroying (or assigning over) a handle whose
//     transfer was never completed; the report names the thread and the call site (for a
//     destroyed handle, where its transfer started). A handle destroyed while an exception
//     unwinds waits for its transfer instead, silently.
//   * synci() / testi() complete this thread's implicit transfers only; sync() and test()
//     never complete implicit ones, and synci() never completes explicit ones.
//   * Arguments, checked on every call (misuse, naming the function and the call site): n != 0
//     with a null private pointer or the null pointer-to-shared; a shared range that runs past
//     the end of its thread's segment or into a part of it no allocation ever reached; source and
//     destination ranges that overlap (UPC's restrict; an exact self-copy, dst == src, is a no-op
//     and returns the complete handle); a call from a thread that is not one of the job's UPC
//     threads. Checked builds (config::bounds_check) also require the shared range to lie in one
//     live allocation (as pgas/bulk.hpp). n == 0 does nothing and returns the complete handle.
//   * At the end of the job every transfer still under way is completed before the shared
//     space goes. Implicit transfers never synchronized are completed silently (the spec does
//     not require synci()). Explicit handles never completed (kept alive past the job, in
//     static or leaked storage) are reported on stderr as a warning naming the thread, the
//     count and where the first one started; the exit status is not changed. Such a handle may
//     still be destroyed afterwards; syncing it is misuse.
//
// Memory ordering (the spec's, §7.9.2): a transfer acts as relaxed reads and writes issued by
// the initiating thread at unspecified times inside its interval. The completing sync / test /
// synci / testi makes its effects visible to the calling thread (acquire). A fence, a strict
// access, a lock or a barrier does NOT complete an outstanding transfer and does not order
// it: complete it first, then a fence or barrier publishes it to every thread, as for any
// relaxed write. Transfers complete in no particular order among themselves.
//
// Collective: nothing here. Thread safety: handles belong to the thread that started the
// transfer; every call acts for the calling UPC thread only. Outside a job there is no shared
// memory: any call with n != 0 throws pgas::usage_error, and sync/test of the complete handle
// return at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <utility>

#include <pgas/detail/export.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

namespace detail {
struct nb_op;
// Out of line (src/objects/nb.cpp): a handle that goes while its transfer was not completed.
PGAS_API void nb_discard(nb_op* op) noexcept;
}  // namespace detail

/// The type of pgas::complete_handle.
struct complete_handle_t {
  explicit constexpr complete_handle_t() = default;
};
/// UPC_COMPLETE_HANDLE: the handle of a transfer that completed inside its initiating call.
inline constexpr complete_handle_t complete_handle{};

/// UPC upc_handle_t: the handle of one explicit-handle transfer. Move-only (a transfer is
/// completed once, so its handle has one owner). Default-constructed, it is the complete
/// handle. A moved-from handle, or one completed by sync() or a successful test(), is spent:
/// using it again is misuse.
class nb_handle {
 public:
  constexpr nb_handle() noexcept = default;
  constexpr nb_handle(complete_handle_t) noexcept {}
  nb_handle(nb_handle&& o) noexcept : bits_(std::exchange(o.bits_, spent_bits)) {}
  nb_handle& operator=(nb_handle&& o) noexcept {
    if (this != &o) {
      drop();
      bits_ = std::exchange(o.bits_, spent_bits);
    }
    return *this;
  }
  nb_handle(const nb_handle&) = delete;
  nb_handle& operator=(const nb_handle&) = delete;
  ~nb_handle() { drop(); }

  /// True for the complete handle (UPC `h == UPC_COMPLETE_HANDLE`).
  friend bool operator==(const nb_handle& h, complete_handle_t) noexcept { return h.bits_ == 0; }
  /// True when the handle was completed (by sync or test) or moved from.
  [[nodiscard]] bool spent() const noexcept { return bits_ == spent_bits; }

  // Not part of the API: for src/objects/nb.cpp.
  static nb_handle from_op(detail::nb_op* op) noexcept {
    nb_handle h;
    h.bits_ = reinterpret_cast<std::uintptr_t>(op);
    return h;
  }
  detail::nb_op* op() const noexcept {
    return bits_ > spent_bits ? reinterpret_cast<detail::nb_op*>(bits_) : nullptr;
  }
  void mark_spent() noexcept { bits_ = spent_bits; }

 private:
  static constexpr std::uintptr_t spent_bits = 1;
  void drop() noexcept {
    if (bits_ > spent_bits) detail::nb_discard(reinterpret_cast<detail::nb_op*>(bits_));
  }
  std::uintptr_t bits_ = 0;  // 0: complete; 1: spent; else the transfer (detail::nb_op*)
};

// ---- Explicit-handle transfers (UPC upc_mem*_nb). Each returns the complete handle when the
// ---- copy was done in the call (see the top of this header), else the transfer's handle.

/// UPC upc_memcpy_nb: n bytes from shared `src` to shared `dst` (the ranges must not overlap).
[[nodiscard]] PGAS_API nb_handle
memcpy_nb(sptr<void> dst, sptr<const void> src, std::size_t n,
          std::source_location where = std::source_location::current());
/// UPC upc_memget_nb: n bytes from shared `src` to private `dst`.
[[nodiscard]] PGAS_API nb_handle
memget_nb(void* dst, sptr<const void> src, std::size_t n,
          std::source_location where = std::source_location::current());
/// UPC upc_memput_nb: n bytes from private `src` to shared `dst`.
[[nodiscard]] PGAS_API nb_handle
memput_nb(sptr<void> dst, const void* src, std::size_t n,
          std::source_location where = std::source_location::current());
/// UPC upc_memset_nb: n bytes of shared `dst` set to (unsigned char) c.
[[nodiscard]] PGAS_API nb_handle
memset_nb(sptr<void> dst, int c, std::size_t n,
          std::source_location where = std::source_location::current());

namespace detail {
// For <pgas/upc.hpp>, whose upc_handle_t is a plain 64-bit value (UPC programs copy handles
// and keep them in malloc'd arrays): 0 is UPC_COMPLETE_HANDLE; any other value names one
// engine transfer by a number no other transfer of the process gets, which tells a value
// already completed, another thread's, or one no call returned from the transfer it names.

/// Takes over `h`'s transfer (h is spent) and returns its value; 0 for the complete handle.
PGAS_API std::uint64_t nb_handle_value(nb_handle&& h) noexcept;
/// upc_sync (`wait`) or upc_sync_attempt of `value`, reported as `call`: true when the transfer
/// is complete (then the value is spent), false while it is under way (only without `wait`).
/// Misuse: a value already completed, another thread's, or one that names no transfer.
[[nodiscard]] PGAS_API bool nb_value_complete(std::uint64_t value, bool wait, const char* call,
                                              std::source_location where);
}  // namespace detail

/// UPC upc_sync: returns once the handle's transfer is complete, ending its transfer interval;
/// the handle is then spent. The complete handle returns at once (and stays complete). Misuse:
/// a spent handle, or one another thread started.
PGAS_API void sync(nb_handle& h, std::source_location where = std::source_location::current());
inline void sync(nb_handle&& h, std::source_location where = std::source_location::current()) {
  sync(h, where);
}

/// UPC upc_sync_attempt: true when the handle's transfer is complete, which ends its transfer
/// interval and spends the handle; false (handle unchanged) while it is under way. Never
/// blocks. True for the complete handle. Misuse as for sync().
[[nodiscard]] PGAS_API bool test(nb_handle& h,
                                 std::source_location where = std::source_location::current());

// ---- Implicit-handle transfers (UPC upc_mem*_nbi): completed by the next synci() or
// ---- successful testi() of the calling thread.

/// UPC upc_memcpy_nbi.
PGAS_API void memcpy_nbi(sptr<void> dst, sptr<const void> src, std::size_t n,
                         std::source_location where = std::source_location::current());
/// UPC upc_memget_nbi.
PGAS_API void memget_nbi(void* dst, sptr<const void> src, std::size_t n,
                         std::source_location where = std::source_location::current());
/// UPC upc_memput_nbi.
PGAS_API void memput_nbi(sptr<void> dst, const void* src, std::size_t n,
                         std::source_location where = std::source_location::current());
/// UPC upc_memset_nbi.
PGAS_API void memset_nbi(sptr<void> dst, int c, std::size_t n,
                         std::source_location where = std::source_location::current());

/// UPC upc_synci: returns once every implicit-handle transfer this thread started and has not
/// completed is complete. Returns at once when there is none. Explicit-handle transfers are
/// not completed.
PGAS_API void synci(std::source_location where = std::source_location::current());

/// UPC upc_synci_attempt: true (completing them) when all of this thread's outstanding
/// implicit-handle transfers are complete, or there are none; false otherwise. Never blocks.
[[nodiscard]] PGAS_API bool testi(std::source_location where = std::source_location::current());

/// The size from which transfers go to a copy engine (PGAS_NB_THRESHOLD), in bytes;
/// SIZE_MAX when none do ("off"). Outside a job, the default (1 MiB). Not collective; any thread.
[[nodiscard]] PGAS_API std::size_t nb_threshold() noexcept;

}  // namespace pgas
