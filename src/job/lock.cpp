// src/job/lock.cpp — shared locks (pgas::lock_t, UPC upc_lock_t).
//
// A three-state futex lock (0 free, 1 held, 2 held and someone may sleep; Drepper, "Futexes
// are tricky", mutex #3) with the runtime's pause -> yield -> sleep escalation in front of the
// sleep, plus a holder field for the always-on ownership checks. Lock states live in a
// process-wide pool and freed ones are quarantined before reuse, so a stale handle usually
// finds a state marked dead (and is reported) rather than someone else's live lock. A waiter
// that has slept past lock_detect_after_ns looks for a deadlock (src/job/wait_graph.hpp).

#include <fmt/format.h>

#include <deque>
#include <mutex>
#include <string_view>

#include <pgas/detail/identity.hpp>
#include <pgas/detail/sync_listener.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/detail/upc_call.hpp>
#include <pgas/error.hpp>
#include <pgas/lock.hpp>
#include <pgas/runtime.hpp>

#include "src/base/faults.hpp"
#include "src/base/os.hpp"
#include "src/job/barrier.hpp"
#include "src/job/collective.hpp"
#include "src/job/job.hpp"
#include "src/job/lock.hpp"
#include "src/job/wait_graph.hpp"

namespace pgas::detail {

namespace {

constexpr std::size_t quarantine = 1024;

struct lock_pool {
  std::mutex mutex;
  std::uint32_t serials = 0;      // locks handed out, to name them in reports
  std::deque<lock_state> states;  // deque: growing never moves existing states
  std::deque<lock_state*> freed;  // FIFO, reused only past the quarantine length
};

lock_pool& pool() {
  static lock_pool* p = new lock_pool;  // never destroyed: handles may outlive static teardown
  return *p;
}

lock_state* pool_get(const std::source_location& where) {
  lock_pool& p = pool();
  std::lock_guard g(p.mutex);
  lock_state* s = nullptr;
  if (p.freed.size() > quarantine) {
    s = p.freed.front();
    p.freed.pop_front();
  } else {
    s = &p.states.emplace_back();
  }
  s->word.store(0, std::memory_order_relaxed);
  s->holder.store(-1, std::memory_order_relaxed);
  s->serial.store(++p.serials, std::memory_order_relaxed);
  s->allocated_at.store(where, std::memory_order_relaxed);
  s->live.store(true, std::memory_order_release);
  return s;
}

void pool_put(lock_state* s) {
  lock_pool& p = pool();
  std::lock_guard g(p.mutex);
  s->live.store(false, std::memory_order_release);
  p.freed.push_back(s);
}

// `what` names the call; reports show the UPC name when a UPC function is the caller
// (pgas/detail/upc_call.hpp), looked up only when there is something to report.
lock_state& checked(lock_state* s, const std::source_location& where, const char* what) {
  if (s == nullptr) {
    const std::string_view name = shown_name(what);
    misuse(fmt::format("{} on a null {}", name,
                       name.starts_with("upc_") ? "upc_lock_t*" : "pgas::lock_t"),
           where);
  }
  if (!s->live.load(std::memory_order_acquire)) {
    misuse(fmt::format("{} on a lock that was freed", shown_name(what)), where);
  }
  return *s;
}

// Sleeps until the lock is ours, in slices: once the wait has lasted lock_detect_after_ns, the
// wait is published in the wait-for graph and each slice looks for a deadlock. Threads the
// program started itself are not in the graph (they have no record), so they only sleep.
void acquire_sleeping(lock_state& s, const std::source_location& where) {
  job* j = tls_job_thread ? job_current() : nullptr;
  const int me = mythread();
  const std::uint64_t start = os_now_ns();
  std::uint64_t next_check = start + lock_detect_after_ns;
  bool published = false;
  wait_graph_memory memory;
  // Mark the lock contended so the holder's unlock wakes us.
  while (s.word.exchange(2, std::memory_order_seq_cst) != 0) {
    os_futex_wait(&s.word, 2, wait_sleep_slice_ns);
    if (j == nullptr) continue;
    if (const std::uint64_t now = os_now_ns(); now >= next_check) {
      if (!published) wait_graph_enter_lock(*j, me, s, where);
      published = true;
      wait_graph_check(*j, memory);
      next_check = now + wait_sleep_slice_ns;
    }
  }
  if (published) wait_graph_leave(*j, me);
}

// Out of line: inlined, its registers cost the uncontended path of lock() two more saves.
[[gnu::noinline]] void acquire_slow(lock_state& s, const std::source_location& where) {
  for (backoff b(job_wait_policy()); b.step(s.word);) {
    std::uint32_t c = 0;
    if (s.word.load(std::memory_order_relaxed) == 0 &&
        s.word.compare_exchange_strong(c, 1, std::memory_order_seq_cst)) {
      return;
    }
  }
  acquire_sleeping(s, where);
}

}  // namespace

}  // namespace pgas::detail

namespace pgas {

namespace detail {
namespace {
// After a lock is held: the thread's software caches drop their copies (pgas/cache.hpp), and a
// traced job counts the call.
void lock_acquired(const std::source_location& where) {
  sync_point(sync_kind::lock);
  if (trace_on) [[unlikely]]
    trace_access(trace_kind::lock, trace_dir::sync, nullptr, 0, where);
}
}  // namespace
}  // namespace detail

using detail::checked;

void lock_t::lock(std::source_location where) {
  detail::lock_state& s = checked(state_, where, "pgas::lock_t::lock");
  const int me = mythread();
  if (s.holder.load(std::memory_order_relaxed) == me) {
    detail::misuse(fmt::format("{} on a lock this thread already holds (it would deadlock)",
                               detail::shown_name("pgas::lock_t::lock")),
                   where);
  }
  std::uint32_t c = 0;
  if (!s.word.compare_exchange_strong(c, 1, std::memory_order_seq_cst)) {
    const std::uint64_t started = detail::trace_on ? detail::trace_wait_start() : 0;
    detail::acquire_slow(s, where);
    if (started != 0) detail::trace_wait_end(detail::trace_kind::lock, started, where);
  }
  s.held_at.store(where, std::memory_order_relaxed);
  s.holder.store(me, std::memory_order_relaxed);
  detail::lock_acquired(where);
}

bool lock_t::try_lock(std::source_location where) {
  detail::lock_state& s = checked(state_, where, "pgas::lock_t::try_lock");
  std::uint32_t c = 0;
  if (!s.word.compare_exchange_strong(c, 1, std::memory_order_seq_cst)) {
    if (detail::trace_on) [[unlikely]]
      detail::trace_access(detail::trace_kind::lock, detail::trace_dir::sync, nullptr, 0, where);
    return false;
  }
  s.held_at.store(where, std::memory_order_relaxed);
  s.holder.store(mythread(), std::memory_order_relaxed);
  detail::lock_acquired(where);
  return true;
}

void lock_t::unlock(std::source_location where) {
  detail::lock_state& s = checked(state_, where, "pgas::lock_t::unlock");
  const int holder = s.holder.load(std::memory_order_relaxed);
  if (holder != mythread()) {
    const char* name = detail::shown_name("pgas::lock_t::unlock");
    detail::misuse(holder < 0 ? fmt::format("{} on a lock no thread holds", name)
                              : fmt::format("{} on a lock held by thread {}, not by this thread",
                                            name, holder),
                   where);
  }
  detail::sync_point(detail::sync_kind::unlock);
  if (detail::trace_on) [[unlikely]]
    detail::trace_access(detail::trace_kind::lock, detail::trace_dir::sync, nullptr, 0, where);
  s.holder.store(-1, std::memory_order_relaxed);
  if (s.word.exchange(0, std::memory_order_seq_cst) == 2) detail::os_futex_wake(&s.word, 1);
}

int lock_t::holder() const noexcept {
  return state_ != nullptr ? state_->holder.load(std::memory_order_relaxed) : -1;
}

lock_t all_lock_alloc(std::source_location where) {
  detail::job* j = detail::job_current();
  if (j == nullptr) return lock_t(detail::pool_get(where));
  void* mine = mythread() == 0 ? detail::pool_get(where) : nullptr;
  void* s = detail::collective_bcast(
      *j,
      detail::barrier_op{detail::op_kind::all_lock_alloc,
                         detail::shown_name("pgas::all_lock_alloc"), false, 0, "id", where},
      mine);
  return lock_t(static_cast<detail::lock_state*>(s));
}

lock_t global_lock_alloc(std::source_location where) {
  return lock_t(detail::pool_get(where));
}

void lock_free(lock_t l, std::source_location where) {
  const char* name = detail::shown_name("pgas::lock_free");
  detail::lock_state& s = checked(l.state_, where, name);
  const int holder = s.holder.load(std::memory_order_relaxed);
  if (holder >= 0) {
    detail::misuse(fmt::format("{} on a lock held by thread {}", name, holder), where);
  }
  detail::pool_put(&s);
}

void all_lock_free(lock_t l, std::source_location where) {
  const char* name = detail::shown_name("pgas::all_lock_free");
  checked(l.state_, where, name);
  detail::job* j = detail::job_current();
  if (j != nullptr) {
    // Every thread must pass the same lock: its address is what the threads agree on.
    // Freed by the last arriver, before anyone leaves (as pgas::all_free).
    struct free_args {
      lock_t* l;
      const std::source_location* where;
      const char* name;
    } const mine{&l, &where, name};
    detail::barrier_op op =
        detail::agreement(detail::op_kind::all_lock_free, name, "lock",
                          fmt::format("lock={}", static_cast<const void*>(l.state_)), where);
    op.last = [](const void* arg) {
      const auto& f = *static_cast<const free_args*>(arg);
      detail::lock_state& s = *f.l->state_;
      if (const int holder = s.holder.load(std::memory_order_relaxed); holder >= 0) {
        detail::misuse(fmt::format("{} on a lock held by thread {}", f.name, holder), *f.where);
      }
      detail::pool_put(&s);
    };
    op.last_arg = &mine;
    detail::barrier_arrive(*j, op);
    detail::barrier_complete(*j);
    return;
  }
  lock_free(l, where);
}

}  // namespace pgas
