// src/job/wait_graph.cpp — the wait-for graph over locks, barriers, collective waits on one
// thread and returned threads (see wait_graph.hpp); entry point wait_graph_check, run by lock
// waiters that have slept long.
//
// A deadlock is the largest set D of blocked threads in which every member can only be released
// from inside D or by a thread that has returned: a lock waiter whose holder is in D or has
// returned; a thread waiter whose target is in D (a target that returned is reported by the
// collective's own wait); a barrier waiter whose phase lacks the arrival of a lock or thread
// waiter in D or of a returned thread (a barrier completes only when every thread arrives). D
// is computed as a
// greatest fixed point: start from every blocked thread and drop those with a way out until
// none is dropped. A thread that is running — even one holding a lock for seconds — is never
// in D, so long critical sections are not deadlocks.

#include "src/job/wait_graph.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "src/base/faults.hpp"
#include "src/job/job.hpp"
#include "src/job/lock.hpp"

namespace pgas::detail {

namespace {

// One thread as one look at the graph saw it.
struct seen {
  thread_state state = thread_state::running;
  std::uint32_t seq = 0;
  wait_kind kind = wait_kind::none;  // none also when the slot was being rewritten
  const lock_state* lock = nullptr;
  std::source_location where;
  bool arrived = false;
  std::uint32_t generation = 0;
  int holder = -1;  // of `lock`
  std::source_location held_at;
  int target = -1;  // of a thread wait
  const char* call = nullptr;
  const char* what = nullptr;
  bool in_deadlock = false;
};

// What a thread wait adds to a slot.
struct thread_wait {
  int target = -1;
  const char* call = nullptr;
  const char* what = nullptr;
  const std::atomic<std::uint32_t>* word = nullptr;
  std::uint32_t until = 0;
};

void slot_publish(wait_slot& s, wait_kind kind, const lock_state* lock,
                  const std::source_location& where, bool arrived, std::uint32_t generation,
                  const thread_wait& tw = {}) {
  const std::uint32_t seq = s.seq.load(std::memory_order_relaxed);
  s.seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.kind.store(kind, std::memory_order_relaxed);
  s.lock.store(lock, std::memory_order_relaxed);
  s.where.store(where, std::memory_order_relaxed);
  s.arrived.store(arrived, std::memory_order_relaxed);
  s.generation.store(generation, std::memory_order_relaxed);
  s.target.store(tw.target, std::memory_order_relaxed);
  s.call.store(tw.call, std::memory_order_relaxed);
  s.what.store(tw.what, std::memory_order_relaxed);
  s.word.store(tw.word, std::memory_order_relaxed);
  s.until.store(tw.until, std::memory_order_relaxed);
  s.seq.store(seq + 2, std::memory_order_release);
}

seen look_at(job& j, int t) {
  const thread_record& r = j.record(t);
  const wait_slot& s = r.blocked;
  seen v;
  v.state = r.state.load(std::memory_order_acquire);
  v.seq = s.seq.load(std::memory_order_acquire);
  if (v.seq % 2 != 0) return v;
  v.kind = s.kind.load(std::memory_order_relaxed);
  v.lock = s.lock.load(std::memory_order_relaxed);
  v.where = s.where.load(std::memory_order_relaxed);
  v.arrived = s.arrived.load(std::memory_order_relaxed);
  v.generation = s.generation.load(std::memory_order_relaxed);
  v.target = s.target.load(std::memory_order_relaxed);
  v.call = s.call.load(std::memory_order_relaxed);
  v.what = s.what.load(std::memory_order_relaxed);
  const std::atomic<std::uint32_t>* word = s.word.load(std::memory_order_relaxed);
  const std::uint32_t until = s.until.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (s.seq.load(std::memory_order_relaxed) != v.seq) {
    v.kind = wait_kind::none;
    return v;
  }
  // A thread wait whose word has reached its goal is over, whether or not the waiter has woken.
  if (v.kind == wait_kind::thread && word != nullptr &&
      static_cast<std::int32_t>(word->load(std::memory_order_acquire) - until) >= 0) {
    v.kind = wait_kind::none;
    return v;
  }
  if (v.kind == wait_kind::lock && v.lock != nullptr) {
    v.holder = v.lock->holder.load(std::memory_order_relaxed);
    v.held_at = v.lock->held_at.load(std::memory_order_relaxed);
  }
  return v;
}

// A thread that has not arrived at the pending barrier phase and never will: stuck in a lock or
// thread wait (only meaningful once `in_deadlock` is settled) or returned.
bool never_arrives(const seen& v, std::uint32_t generation) {
  return v.state == thread_state::returned ||
         (v.in_deadlock && (v.kind == wait_kind::lock || v.kind == wait_kind::thread) &&
          !(v.arrived && v.generation == generation));
}

// The thread a lock or thread waiter waits for (-1 for others).
int waited_for(const seen& v) {
  return v.kind == wait_kind::lock ? v.holder : v.kind == wait_kind::thread ? v.target : -1;
}

// Marks the deadlocked threads of one look; returns whether there are any.
bool find_deadlock(std::vector<seen>& g, std::uint32_t generation) {
  const int n = static_cast<int>(g.size());
  auto returned = [&](int t) { return g[t].state == thread_state::returned; };
  for (int t = 0; t < n; ++t) {
    seen& v = g[t];
    const int w = waited_for(v);
    v.in_deadlock = (w >= 0 && w < n && w != t) ||
                    (v.kind == wait_kind::barrier && v.state == thread_state::waiting &&
                     v.arrived && v.generation == generation);
  }
  for (bool dropped = true; dropped;) {
    dropped = false;
    // The pending barrier phase can never complete if a thread that has not arrived at it is
    // stuck in a lock wait, or has returned.
    const bool phase_stuck = std::any_of(
        g.begin(), g.end(), [&](const seen& u) { return never_arrives(u, generation); });
    for (int t = 0; t < n; ++t) {
      seen& v = g[t];
      if (!v.in_deadlock) continue;
      const int w = waited_for(v);
      const bool stuck = v.kind == wait_kind::lock     ? g[w].in_deadlock || returned(w)
                         : v.kind == wait_kind::thread ? g[w].in_deadlock
                                                       : phase_stuck;
      if (!stuck) {
        v.in_deadlock = false;
        dropped = true;
      }
    }
  }
  return std::any_of(g.begin(), g.end(), [](const seen& v) { return v.in_deadlock; });
}

// Whether following the threads waited for from some deadlocked lock or thread waiter, through
// such waiters only, comes back to a thread already passed (AB/BA and longer rings).
bool wait_cycle(const std::vector<seen>& g) {
  const int n = static_cast<int>(g.size());
  auto waiter = [&](int t) { return g[t].in_deadlock && waited_for(g[t]) >= 0; };
  for (int t = 0; t < n; ++t) {
    int at = t;
    for (int steps = 0; waiter(at) && steps <= n; ++steps) {
      at = waited_for(g[at]);
      if (at == t) return true;
    }
  }
  return false;
}

std::string lock_name(const lock_state& l) {
  const std::source_location at = l.allocated_at.load(std::memory_order_relaxed);
  return fmt::format("lock {} (allocated at {})", l.serial.load(std::memory_order_relaxed),
                     where_string(at));
}

std::string describe_lock_wait(int t, const seen& v) {
  return fmt::format("thread {} waits for {} at {}; thread {} holds it, locked at {}", t,
                     lock_name(*v.lock), where_string(v.where), v.holder, where_string(v.held_at));
}

std::string describe_thread_wait(int t, const seen& v) {
  return fmt::format("thread {} waits in {} at {} for thread {} to {}", t,
                     v.call != nullptr ? v.call : "?", where_string(v.where), v.target,
                     v.what != nullptr ? v.what : "reach it");
}

[[noreturn]] void report(job& j, const std::vector<seen>& g, std::uint32_t generation) {
  if (!fault_claim()) fault_park();
  const int n = static_cast<int>(g.size());
  bool holder_returned = false;
  bool barrier = false;
  bool collective = false;
  for (const seen& v : g) {
    if (!v.in_deadlock) continue;
    if (v.kind == wait_kind::lock && g[v.holder].state == thread_state::returned) {
      holder_returned = true;
    }
    if (v.kind == wait_kind::barrier) barrier = true;
    if (v.kind == wait_kind::thread) collective = true;
  }
  const bool cycle = wait_cycle(g);
  std::string msg =
      holder_returned ? "deadlock: threads wait for a lock held by a thread that returned from "
                        "its body and can never release it:"
      : cycle && collective
          ? "deadlock: threads wait for each other (a cycle through locks and UPC collective "
            "calls):"
      : cycle ? "deadlock: threads wait for locks held by each other (a cycle):"
              : "deadlock: threads wait at a barrier for a thread that waits for a lock "
                "held by a thread at that barrier:";
  for (int t = 0; t < n; ++t) {
    const seen& v = g[t];
    if (!v.in_deadlock) continue;
    if (v.kind == wait_kind::lock) {
      msg += "\n  " + describe_lock_wait(t, v);
    } else if (v.kind == wait_kind::thread) {
      msg += "\n  " + describe_thread_wait(t, v);
    } else {
      const thread_record& r = j.record(t);
      const char* op = r.op.load(std::memory_order_relaxed);
      const char* file = r.file.load(std::memory_order_relaxed);
      msg += fmt::format("\n  thread {} waits in {} at {}:{}", t, op != nullptr ? op : "?",
                         file != nullptr ? file : "?", r.line.load(std::memory_order_relaxed));
    }
  }
  std::vector<const lock_state*> named;
  for (int t = 0; t < n; ++t) {
    const seen& v = g[t];
    if (!v.in_deadlock || v.kind != wait_kind::lock) continue;
    if (g[v.holder].state != thread_state::returned) continue;
    if (std::find(named.begin(), named.end(), v.lock) != named.end()) continue;
    named.push_back(v.lock);
    msg += fmt::format("\n  thread {} returned from its body holding {}, locked at {}", v.holder,
                       lock_name(*v.lock), where_string(v.held_at));
  }
  if (barrier) {
    std::string missing;
    for (int t = 0; t < n; ++t) {
      if (never_arrives(g[t], generation))
        missing += fmt::format("{}{}", missing.empty() ? "" : ", ", t);
    }
    msg += fmt::format("\n  the barrier cannot complete before thread{} {} arrive{}",
                       missing.find(',') != std::string::npos ? "s" : "", missing,
                       missing.find(',') != std::string::npos ? "" : "s");
  }
  fault_end_job(msg, 1);
}

}  // namespace

void wait_graph_enter_lock(job& j, int me, const lock_state& lock,
                           const std::source_location& where) {
  thread_record& r = j.record(me);
  // A thread between notify and wait has arrived at its phase: the phase does not need it.
  const bool arrived = r.state.load(std::memory_order_relaxed) == thread_state::waiting;
  slot_publish(r.blocked, wait_kind::lock, &lock, where, arrived, r.wait_generation);
}

void wait_graph_enter_barrier(job& j, int me) {
  thread_record& r = j.record(me);
  slot_publish(r.blocked, wait_kind::barrier, nullptr, std::source_location(), true,
               r.wait_generation);
}

void wait_graph_enter_thread(job& j, int me, int target, const char* call, const char* what,
                             const std::source_location& where,
                             const std::atomic<std::uint32_t>& word, std::uint32_t until) {
  thread_record& r = j.record(me);
  slot_publish(r.blocked, wait_kind::thread, nullptr, where, false, r.wait_generation,
               thread_wait{target, call, what, &word, until});
}

void wait_graph_leave(job& j, int me) {
  slot_publish(j.record(me).blocked, wait_kind::none, nullptr, std::source_location(), false, 0);
}

void wait_graph_check(job& j, wait_graph_memory& memory) {
  const std::uint32_t generation = j.barrier.generation.load(std::memory_order_acquire);
  std::vector<seen> g(static_cast<std::size_t>(j.threads));
  for (int t = 0; t < j.threads; ++t)
    g[static_cast<std::size_t>(t)] = look_at(j, t);
  // A phase that completed while we looked leaves barrier waiters that are about to leave.
  if (!find_deadlock(g, generation) ||
      j.barrier.generation.load(std::memory_order_acquire) != generation) {
    memory.candidate.clear();
    return;
  }
  std::vector<wait_graph_memory::member> candidate;
  for (int t = 0; t < j.threads; ++t) {
    const seen& v = g[static_cast<std::size_t>(t)];
    if (v.in_deadlock) candidate.push_back({t, v.seq, v.kind == wait_kind::lock ? v.holder : -1});
  }
  // The same threads in the same waits one sleep slice apart: each was blocked throughout, and
  // a lock held by a thread blocked throughout was not released.
  if (candidate == memory.candidate) report(j, g, generation);
  memory.candidate = std::move(candidate);
}

std::string wait_graph_describe(job& j, int t) {
  const seen v = look_at(j, t);
  if (v.kind == wait_kind::thread && v.target >= 0) return describe_thread_wait(t, v);
  if (v.kind != wait_kind::lock || v.holder < 0) return {};
  return describe_lock_wait(t, v);
}

}  // namespace pgas::detail
