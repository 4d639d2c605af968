// src/job/wait_graph.hpp — deadlock detection over locks, barriers, the UPC collectives'
// waits on one thread, and returned threads.
//
// A thread that has been blocked for a while publishes what it waits for in its wait slot: a
// lock (whose holder the lock state names), the barrier phase it has arrived at, or another
// thread's progress in a UPC collective call (a MYSYNC wait, or a partial result). A lock
// waiter that has slept past lock_detect_after_ns walks the graph those slots form; a set of
// blocked threads that can only be released by each other or by threads that have returned
// ends the job with a report of who holds what and where each thread waits. Nothing here runs
// on an uncontended or briefly contended path.
#pragma once

#include <atomic>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

namespace pgas::detail {

struct job;
struct lock_state;

/// A lock waiter starts looking for deadlocks after sleeping this long: shorter waits are
/// ordinary contention and cost nothing more than the sleep.
inline constexpr std::uint64_t lock_detect_after_ns = 100'000'000;

enum class wait_kind : std::uint8_t { none, lock, barrier, thread };

/// What a blocked thread waits for. Written only by its owner, as a sequence lock (`seq` is odd
/// while the owner rewrites the slot); read by detecting threads. Each new wait gets a new
/// `seq`, so two readings with the same `seq` saw one uninterrupted wait.
struct wait_slot {
  std::atomic<std::uint32_t> seq{0};
  std::atomic<wait_kind> kind{wait_kind::none};
  std::atomic<const lock_state*> lock{nullptr};
  std::atomic<std::source_location> where{};  // where the thread asked for the lock
  // The thread has arrived at barrier phase `generation` and not completed it (a lock waiter
  // between notify and wait, or a thread waiting at the barrier).
  std::atomic<bool> arrived{false};
  std::atomic<std::uint32_t> generation{0};
  // wait_kind::thread: the thread waited for, the collective call (its name) and what the
  // thread must do ("enter it", "finish its part of it"); `where` is the waiting call's source
  // location.
  // The wait ends when `*word` reaches `until`: a look that finds it reached sees no wait (the
  // waiter may not have woken yet).
  std::atomic<int> target{-1};
  std::atomic<const char*> call{nullptr};
  std::atomic<const char*> what{nullptr};
  std::atomic<const std::atomic<std::uint32_t>*> word{nullptr};
  std::atomic<std::uint32_t> until{0};
};

/// What a detecting thread remembers between two looks: a deadlock is reported only when two
/// looks one sleep slice apart find the same threads in the same waits.
struct wait_graph_memory {
  struct member {
    int thread;
    std::uint32_t seq;
    int holder;  // of the lock it waits for, or -1
    friend bool operator==(const member&, const member&) = default;
  };
  std::vector<member> candidate;
};

/// The calling thread `me` is about to sleep again for `lock`, asked for at `where`.
void wait_graph_enter_lock(job& j, int me, const lock_state& lock,
                           const std::source_location& where);

/// The calling thread `me` is sleeping at the barrier phase it arrived at.
void wait_graph_enter_barrier(job& j, int me);

/// The calling thread `me` sleeps in the UPC collective `call` (static strings), made at
/// `where`, until thread `target` does `what` ("enter it", "finish its part of it"): until
/// `word` (that thread's counter) reaches `until`.
void wait_graph_enter_thread(job& j, int me, int target, const char* call, const char* what,
                             const std::source_location& where,
                             const std::atomic<std::uint32_t>& word, std::uint32_t until);

/// The calling thread `me` no longer waits (it published a wait before).
void wait_graph_leave(job& j, int me);

/// Looks for a deadlock the calling thread can see; ends the job (status 1) with a report when
/// the same one is found on two consecutive calls.
void wait_graph_check(job& j, wait_graph_memory& memory);

/// "thread 1 waits for lock 2 (allocated at F:L) at F:L; thread 3 holds it, locked at F:L" or
/// "thread 1 waits in NAME at F:L for thread 2 to enter it" when thread `t` has published a
/// lock or thread wait, else empty: for other reports.
std::string wait_graph_describe(job& j, int t);

}  // namespace pgas::detail
