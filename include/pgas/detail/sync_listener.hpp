// pgas/detail/sync_listener.hpp — per-thread listeners told of the calling thread's
// synchronisation points, for what must act there (software caches write back their dirty
// copies and drop the others: pgas/cache.hpp). Implemented in src/job/sync_listener.cpp. Not
// part of the API.
//
// The job layer calls sync_point() on the thread that synchronises, before the
// synchronisation takes effect: at barrier() and notify() before the thread arrives, at fence()
// and strict accesses before the fence, at lock() and try-lock after the lock is held and
// before unlock() releases it. Listeners run in registration order, on that thread only; a
// listener may make shared accesses and may throw (the exception leaves the synchronising call
// before it synchronises).
#pragma once

#include <cstdint>

#include <pgas/detail/export.hpp>

namespace pgas::detail {

enum class sync_kind : std::uint8_t { barrier, fence, lock, unlock };

class PGAS_API sync_listener {
 public:
  virtual void on_sync(sync_kind kind) = 0;

 protected:
  sync_listener() = default;
  ~sync_listener() = default;
  sync_listener(const sync_listener&) = default;
  sync_listener& operator=(const sync_listener&) = default;

 private:
  friend void sync_listen(sync_listener*) noexcept;
  friend void sync_unlisten(sync_listener*) noexcept;
  friend void sync_point(sync_kind);
  sync_listener* next_ = nullptr;
  sync_listener* prev_ = nullptr;
};

/// Registers `l` with the calling thread (it must stay alive until sync_unlisten on the same
/// thread).
PGAS_API void sync_listen(sync_listener* l) noexcept;
/// Unregisters `l` from the calling thread.
PGAS_API void sync_unlisten(sync_listener* l) noexcept;
/// Tells the calling thread's listeners of a synchronisation point (the job layer calls it).
PGAS_API void sync_point(sync_kind kind);
/// sync_point(sync_kind::fence) for strict accesses, which are noexcept: a listener that throws
/// there ends the job (std::terminate's report names the exception).
inline void sync_point_noexcept() noexcept {
  sync_point(sync_kind::fence);
}
/// How many synchronisation points of `kind` the calling thread has passed (barriers count at
/// notify/barrier), for a listener to notice one it was not registered for.
PGAS_API std::uint64_t sync_count(sync_kind kind) noexcept;

}  // namespace pgas::detail
