// pgas/lock.hpp — locks shared by all threads (UPC 1.3 §7.2.4, upc_lock_t).
//
// `pgas::lock_t` is a handle (one pointer) to a lock that lives in a process-wide pool;
// copies of a handle name the same lock, so a handle can be stored in shared data and passed
// between threads. The type is called lock_t, like UPC's upc_lock_t, because a C++ class
// cannot have a member function named after itself and a lock must offer lock() to work with
// std::lock_guard, std::unique_lock and std::scoped_lock (it meets the Lockable requirements).
//
//   pgas::lock_t l = pgas::all_lock_alloc();   // collective: every thread gets the same lock
//   { std::lock_guard g(l); ++shared_counter; }
//   pgas::all_lock_free(l);                    // collective
//
// Contract.
//   * Collective: all_lock_alloc() and all_lock_free(); every other call is local.
//   * Errors (pgas/error.hpp): locking a lock the caller already holds (it would deadlock),
//     unlocking a lock the caller does not hold, using a null or freed handle, and freeing a
//     held lock are misuse, always checked: inside a job the job ends (status 1) naming the
//     thread, file and line. Running out of memory for a new lock throws std::bad_alloc.
//   * Outside a job locks work as in a job of one thread (thread 0): all_lock_alloc() and
//     all_lock_free() act alone, and misuse throws pgas::usage_error.
//   * Thread safety: a handle is a value; any thread may use any copy. Allocation and freeing
//     are thread-safe. A handle is shared data: shared_array<lock_t> holds null handles until
//     threads store locks into it (pgas/shared_storable.hpp).
//
// Waiting for a held lock spins briefly, then yields, then sleeps on a futex (as barriers do),
// so oversubscribed jobs progress.
//
// Deadlocks are detected, always: a thread that has waited 100 ms for a lock follows the
// wait-for graph (the lock's holder, what that thread waits for, ...) through locks, barriers
// and returned threads. If the threads it reaches can only be released by one another, the job
// ends (status 1) within about a second, printing for each thread involved the lock it waits
// for and where (file:line), who holds that lock and where it was locked, or the barrier it
// waits at. Detected: two or more threads waiting for each other's locks (AB/BA and longer
// cycles); waiting for a lock whose holder has returned from its body; waiting for a lock whose
// holder waits at a barrier the waiter has not arrived at (the barrier needs the waiter, the
// waiter needs the lock). A holder that is running — however long it keeps the lock — is never
// a deadlock, nor is a waiter that has already notified the barrier its holder waits at.
// Detection costs nothing until a wait has lasted 100 ms; lock() and try_lock() record where
// the lock was taken (one store to the lock's own cache line). Threads the program starts itself
// (not UPC threads) are not followed. Through std::lock_guard and its kin the file:line named is
// inside the standard library's header; call lock() directly where the report should name yours.
//
// Memory ordering: lock() and a successful try_lock() are acquire operations and unlock() is
// a release operation, so everything a thread did while holding the lock happens-before
// everything the next holder does after taking it. UPC additionally says upc_lock and
// upc_unlock imply a strict access, i.e. a full fence: both are sequentially consistent here.
#pragma once

#include <pgas/detail/export.hpp>

#include <source_location>
#include <type_traits>

#include <pgas/shared_storable.hpp>

namespace pgas {

namespace detail {
struct lock_state;
}

/// A handle to a shared lock. Default-constructed handles are null.
class PGAS_API lock_t {
 public:
  lock_t() noexcept = default;

  /// Blocks until this thread holds the lock (UPC `upc_lock`). Ends the job (status 1) when
  /// the wait can never end (see "Deadlocks are detected" above).
  void lock(std::source_location where = std::source_location::current());
  /// Takes the lock if it is free and returns true, else returns false at once
  /// (UPC `upc_lock_attempt`).
  bool try_lock(std::source_location where = std::source_location::current());
  /// Releases the lock, which this thread must hold (UPC `upc_unlock`).
  void unlock(std::source_location where = std::source_location::current());

  /// The thread that holds the lock now, or -1. A snapshot, for diagnostics.
  int holder() const noexcept;

  explicit operator bool() const noexcept { return state_ != nullptr; }
  friend bool operator==(const lock_t&, const lock_t&) = default;

 private:
  friend lock_t all_lock_alloc(std::source_location);
  friend lock_t global_lock_alloc(std::source_location);
  friend void lock_free(lock_t, std::source_location);
  friend void all_lock_free(lock_t, std::source_location);
  explicit lock_t(detail::lock_state* s) noexcept : state_(s) {}
  detail::lock_state* state_ = nullptr;
};

/// Lock handles are shared data (UPC `upc_lock_t *shared l[THREADS]`): zero bytes are the
/// null handle (pgas/shared_storable.hpp), so shared_array<lock_t> and structs holding handles
/// work; their elements start null.
template <>
struct zero_default<lock_t> : std::true_type {};

/// Collective (UPC `upc_all_lock_alloc`): every thread calls it and every thread gets a handle
/// to the same new, unlocked lock. Throws std::bad_alloc when memory is exhausted.
PGAS_API lock_t all_lock_alloc(std::source_location where = std::source_location::current());

/// Not collective (UPC `upc_global_lock_alloc`): the calling thread gets a new, unlocked lock
/// that it can share with the others (through shared data). Thread-safe.
PGAS_API lock_t global_lock_alloc(std::source_location where = std::source_location::current());

/// Not collective (UPC `upc_lock_free`): frees a lock no thread holds or waits for. The handle
/// and its copies become invalid.
PGAS_API void lock_free(lock_t l, std::source_location where = std::source_location::current());

/// Collective (UPC `upc_all_lock_free`): every thread passes the same handle; it is freed once,
/// after every thread has called and before any returns.
PGAS_API void all_lock_free(lock_t l, std::source_location where = std::source_location::current());

}  // namespace pgas
