// src/job/barrier.cpp — the job barrier (pgas::barrier, notify/wait).
//
// A centralised barrier: arrivals CAS one 64-bit word that holds the arrival count, the phase's
// signature (operation kind + optional id) and a sense bit; the last arriver flips the sense,
// resets the count and bumps a 32-bit generation (the futex word). Putting the signature in the
// count word makes the agreement check (UPC named-barrier matching, and "a barrier met a
// different collective") free: the same cache-line transfer that counts an arrival checks it.
// Small jobs spin on the arrival word's sense bit, large ones on the generation; waiters
// escalate pause -> sched_yield -> futex (src/base/backoff.hpp), and the waiters of an
// oversubscribed job yield without spinning first.

#include "src/job/barrier.hpp"

#include <pgas/detail/sync_listener.hpp>
#include <pgas/detail/trace_hook.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <pgas/detail/upc_call.hpp>
#include <pgas/error.hpp>
#include <pgas/sync.hpp>

#include "src/base/backoff.hpp"
#include "src/base/faults.hpp"
#include "src/base/os.hpp"
#include "src/job/collective_epochs.hpp"
#include "src/job/job.hpp"
#include "src/job/wait_graph.hpp"

namespace pgas::detail {

namespace {

constexpr std::uint64_t count_mask = (1u << 20) - 1;
constexpr int kind_shift = 20;
constexpr std::uint64_t has_id_bit = 1u << 28;
// Flips when a phase completes: waiters of a small job spin on it (see barrier_complete).
constexpr std::uint64_t sense_bit = 1u << 29;
// Bits 30-31: barrier_call_bits (barrier.hpp).
constexpr int id_shift = 32;

// Jobs up to this many threads spin on the arrival word instead of the generation. The last
// arriver already owns that line when it releases, so a waiter sees the release one cache-line
// transfer after the last arrival instead of two (arrival line, then generation line); with
// more spinners every arrival would invalidate them all. Measured at 2 threads only (the
// development machine has 2 cores).
constexpr int arrival_spin_threads = 2;

struct signature {
  std::uint32_t count;
  std::uint8_t kind;
  bool has_id;
  std::int32_t id;
};

signature unpack(std::uint64_t w) noexcept {
  return {static_cast<std::uint32_t>(w & count_mask),
          static_cast<std::uint8_t>((w >> kind_shift) & 0xff), (w & has_id_bit) != 0,
          static_cast<std::int32_t>(static_cast<std::uint32_t>(w >> id_shift))};
}

std::uint64_t pack(std::uint32_t count, std::uint8_t kind, bool has_id, std::int32_t id) noexcept {
  return count | (std::uint64_t{kind} << kind_shift) | (has_id ? has_id_bit : 0) |
         (std::uint64_t{static_cast<std::uint32_t>(id)} << id_shift);
}

// The sense bit of the arrival word while phase `generation` is pending.
std::uint64_t sense_of(std::uint32_t generation) noexcept {
  return (generation & 1) != 0 ? sense_bit : 0;
}

// What a mismatch report compares of a thread's recorded call: what the arrival signature
// compares, the kind of call (not its spelling: upc_X and pgas::X are one call), its arguments
// and its id. (A barrier without an id agrees with one that has an id; such a pair never causes
// a mismatch, but may leave the odd call out unmarked when it meets another difference.)
std::string compared_call(const thread_record& r) {
  const char* detail = r.detail.load(std::memory_order_relaxed);
  std::string s =
      fmt::format("{}:{}", r.kind.load(std::memory_order_relaxed), detail != nullptr ? detail : "");
  if (r.has_id.load(std::memory_order_relaxed)) {
    s += fmt::format(":{}", r.id.load(std::memory_order_relaxed));
  }
  return s;
}

// The call a thread's record holds, without where it was made, as reports show it.
std::string call_of(const thread_record& r) {
  const char* op = r.op.load(std::memory_order_relaxed);
  std::string s = op != nullptr ? op : "?";
  if (const char* detail = r.detail.load(std::memory_order_relaxed)) {
    s += fmt::format("({})", detail);
  } else if (r.has_id.load(std::memory_order_relaxed)) {
    const char* label = r.id_label.load(std::memory_order_relaxed);
    if (label != nullptr && std::string_view(label) == "id") {
      s += fmt::format("({})", r.id.load(std::memory_order_relaxed));
    } else {
      s += fmt::format(" [{} {}]", label != nullptr ? label : "value",
                       r.id.load(std::memory_order_relaxed));
    }
  }
  return s;
}

std::string describe(const thread_record& r) {
  std::string s = call_of(r);
  const char* file = r.file.load(std::memory_order_relaxed);
  if (file != nullptr) s += fmt::format(" at {}:{}", file, r.line.load(std::memory_order_relaxed));
  return s;
}

// A thread is at rest for a report once it has returned, or waits at the pending phase. A
// thread still in the wait of a phase that was released (it has not seen the release yet,
// perhaps without a processor) will move on, and its recorded call is stale: the report waits
// for it. The pending phase is the one whose sense bit the arrival word holds (a thread is at
// most one phase behind the pending one).
bool waits_at_pending(job& j, const thread_record& r) {
  return sense_of(r.waits_for.load(std::memory_order_relaxed)) ==
         (j.barrier.arrivals.load(std::memory_order_seq_cst) & sense_bit);
}

bool at_rest(int t) {
  job* j = job_current();
  const thread_record& r = j->record(t);
  const thread_state st = r.state.load(std::memory_order_acquire);
  if (st != thread_state::waiting) return st == thread_state::returned;
  return waits_at_pending(*j, r);
}

// A thread still recorded as waiting whose phase was released: it is between pgas::notify()
// and pgas::wait(), running, or has not run since the release (the settle gave up on it).
std::string past(const thread_record& r) {
  return fmt::format("is running, past {} (its phase has completed)", describe(r));
}

[[noreturn]] void report_mismatch(job& j, const barrier_op& mine, const signature& established) {
  if (!fault_claim()) fault_park();
  fault_settle(j.threads, at_rest);
  const bool both_barriers = mine.kind == op_kind::barrier &&
                             established.kind == static_cast<std::uint8_t>(op_kind::barrier);
  const bool same_call = static_cast<std::uint8_t>(mine.kind) == established.kind &&
                         (!mine.has_id || !established.has_id || mine.id == established.id);
  const std::string call_counts = epoch_counts_differ(j);
  std::string msg = same_call && !call_counts.empty()
                        ? std::string(
                              "collective mismatch: threads reached this phase after different UPC "
                              "collective calls:\n")
                    : both_barriers
                        ? std::string("barrier mismatch: threads passed different barrier ids:\n")
                        : std::string(
                              "collective mismatch: threads reached different barriers or "
                              "collective operations, or passed different values:\n");
  // Which calls to mark: those unlike the call most threads made, or unlike the lowest
  // thread's when no call has a majority (two threads, or a three-way split). The reporter is
  // merely the thread that saw the difference, often from the majority's side.
  std::vector<std::string> calls(static_cast<std::size_t>(j.threads));
  std::map<std::string, int> made;
  for (int t = 0; t < j.threads; ++t) {
    const thread_record& r = j.record(t);
    if (t == mythread() || (r.state.load(std::memory_order_acquire) == thread_state::waiting &&
                            waits_at_pending(j, r))) {
      calls[static_cast<std::size_t>(t)] = compared_call(r);
      ++made[calls[static_cast<std::size_t>(t)]];
    }
  }
  const auto most = std::max_element(
      made.begin(), made.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const bool majority = std::count_if(made.begin(), made.end(),
                                      [&](const auto& m) { return m.second == most->second; }) == 1;
  const auto first = std::find_if(calls.begin(), calls.end(), [](auto& c) { return !c.empty(); });
  const std::string& norm = majority ? most->first : *first;
  const std::string mark = majority
                               ? std::string(" <- differs from the others")
                               : fmt::format(" <- differs from thread {}", first - calls.begin());
  for (int t = 0; t < j.threads; ++t) {
    const thread_record& r = j.record(t);
    const std::string& call = calls[static_cast<std::size_t>(t)];
    if (!call.empty()) {
      msg += fmt::format("  thread {}: {}{}\n", t, describe(r), call != norm ? mark : "");
    } else if (r.state.load(std::memory_order_acquire) == thread_state::waiting) {
      msg += fmt::format("  thread {} {}\n", t, past(r));
    } else if (r.state.load(std::memory_order_acquire) == thread_state::returned) {
      msg += fmt::format("  thread {}: returned from its body\n", t);
    } else {
      msg += fmt::format("  thread {}: not arrived yet\n", t);
    }
  }
  if (same_call && !call_counts.empty()) msg += "  " + call_counts + "\n";
  msg.pop_back();
  fault_end_job(msg, 1);
}

[[noreturn]] void report_deadlock(job& j) {
  if (!fault_claim()) fault_park();
  fault_settle(j.threads, at_rest);
  std::string returned;
  std::string waiting;
  for (int t = 0; t < j.threads; ++t) {
    const thread_record& r = j.record(t);
    thread_state st = r.state.load(std::memory_order_acquire);
    if (st == thread_state::returned) {
      returned += fmt::format("{}{} (status {})", returned.empty() ? "" : ", ", t, r.status);
    } else if (st == thread_state::waiting) {
      waiting += waits_at_pending(j, r) ? fmt::format("\n  thread {} waits in {}", t, describe(r))
                                        : fmt::format("\n  thread {} {}", t, past(r));
    } else if (std::string lock = wait_graph_describe(j, t); !lock.empty()) {
      waiting += "\n  " + lock;
    } else {
      waiting += fmt::format("\n  thread {} is running (not at a barrier)", t);
    }
  }
  const std::string calls = epoch_counts_differ(j);
  fault_end_job(fmt::format("deadlock: thread{} {} returned from the body while other threads "
                            "wait at a barrier it will never reach:{}{}",
                            returned.find(',') != std::string::npos ? "s" : "", returned, waiting,
                            calls.empty() ? "" : "\n  " + calls),
                1);
}

// A returned thread deadlocks a thread that waits for phase `pending` (the sense bit of the
// arrival word while it is pending) only if the phase is still pending after the return was
// seen: the returned thread may have been the last arriver of this very phase, released it and
// returned between this thread's arrival (or its last look at the sense bit) and this check.
// Its release comes before its return in its own order, and both loads here are sequentially
// consistent, so a return seen here brings that release with it.
void check_deadlock(job& j, std::uint64_t pending) {
  if (j.returned.load(std::memory_order_seq_cst) > 0 &&
      (j.barrier.arrivals.load(std::memory_order_seq_cst) & sense_bit) == pending) {
    report_deadlock(j);
  }
}

// Called every sleep slice of a barrier wait: the sleeper enters the wait-for graph (once per
// wait), where lock waiters that it blocks can see it, and looks for returned threads.
void barrier_sleeping(job& j, std::uint64_t pending) {
  const int me = mythread();
  if (j.record(me).blocked.kind.load(std::memory_order_relaxed) != wait_kind::barrier) {
    wait_graph_enter_barrier(j, me);
  }
  check_deadlock(j, pending);
}

// What the reports of other threads read about this thread's call (describe), and that it
// waits. A thread records it after its arrival, or before it reports a mismatch or runs a
// hook, never on a plain last arrival: the last arriver does not wait, and the stores would
// delay its releasing CAS, which drains them first. A report that catches a thread between
// its arrival and this record waits for it (fault_settle waits for every thread to come to
// rest).
void record_arrival(thread_record& me, const barrier_op& op) noexcept {
  me.waits_for.store(me.wait_generation, std::memory_order_relaxed);
  me.op.store(op.name, std::memory_order_relaxed);
  me.kind.store(static_cast<std::uint8_t>(op.kind), std::memory_order_relaxed);
  me.file.store(op.where.file_name(), std::memory_order_relaxed);
  me.line.store(op.where.line(), std::memory_order_relaxed);
  me.has_id.store(op.has_id, std::memory_order_relaxed);
  me.id.store(op.id, std::memory_order_relaxed);
  me.id_label.store(op.id_label, std::memory_order_relaxed);
  me.detail.store(op.detail, std::memory_order_relaxed);
  me.state.store(thread_state::waiting, std::memory_order_release);
}

// The bodies of barrier_arrive and barrier_complete, inlined into pgas::barrier (two calls,
// their register saves and restores, are a measurable share of a 2-thread barrier on the
// critical path from one thread's release to the other's next arrival).
[[gnu::always_inline]] inline void arrive(job& j, const barrier_op& op,
                                          unsigned char* store_to = nullptr,
                                          std::uint64_t value = 0) {
  thread_record& me = j.record(mythread());

  barrier_state& b = j.barrier;
  // Every thread takes part in every phase, so this thread's count of phases is the job's.
  const std::uint32_t generation = me.wait_generation;
  const std::uint64_t sense = sense_of(generation);
  const auto n = static_cast<std::uint32_t>(j.threads);
  const auto kind = static_cast<std::uint8_t>(op.kind);
  // The CAS starts from a guess instead of a read: a read would fetch the line shared and the
  // CAS would need a second transfer to own it, while a CAS that fails returns the word with
  // the line owned, so the retry usually succeeds without another transfer. A small job, whose
  // waiters spin on this word and would take the line back between a failed CAS and its retry,
  // guesses that this thread arrives last after the others made the same call: the last
  // arrival is the one on the critical path. A larger job guesses the empty word.
  const bool guess_last = n > 1 && j.threads <= arrival_spin_threads;
  std::uint32_t count = guess_last ? n : 1;
  const std::uint64_t calls = me.call_bits;
  std::uint64_t w = sense | (guess_last ? calls | pack(n - 1, kind, op.has_id, op.id) : 0);
  std::uint64_t next = sense | calls | pack(count, kind, op.has_id, op.id);
  const std::uint64_t mine = sense | calls | pack(0, kind, op.has_id, op.id);
  if (store_to != nullptr) std::memcpy(store_to, &value, sizeof value);
  for (;;) {
    // The last arriver of a phase without a `last` hook releases it in the same CAS: the
    // count goes back to 0 and the sense flips.
    if (count == n && op.last == nullptr) next = sense ^ sense_bit;
    if (b.arrivals.compare_exchange_weak(w, next, std::memory_order_seq_cst,
                                         std::memory_order_relaxed)) {
      break;
    }
    // The common failures first, in a few instructions: the retry races the other arrivals for
    // the line this failed CAS just fetched, so the shorter the way to it, the fewer retries.
    if ((w & ~count_mask) == mine) {  // this phase, the same signature: one more arrival
      count = static_cast<std::uint32_t>(w & count_mask) + 1;
      next = w + 1;
      continue;
    }
    if (w == sense) {  // the first arrival of the phase (a released word holds no signature)
      count = 1;
      next = mine | 1;
      continue;
    }
    // Arrivals with another signature: a mismatch, or the same barrier with and without an id.
    const signature s = unpack(w);
    if (s.kind != kind || (s.has_id && op.has_id && s.id != op.id) ||
        (w & barrier_call_mask) != calls) {
      record_arrival(me, op);
      report_mismatch(j, op, s);
    }
    count = s.count + 1;
    next = sense | calls | pack(count, s.kind, s.has_id || op.has_id, s.has_id ? s.id : op.id);
  }

  if (count == n) {
    // Last arriver. With a hook, the word stays at a full count (waiters keep waiting and
    // nobody can arrive at the next phase) until the hook has run.
    if (op.last != nullptr) {
      record_arrival(me, op);  // the hook may end the job, whose report names this call
      op.last(op.last_arg);
      // Sequentially consistent, as the CAS that releases a phase without a hook: see below.
      b.arrivals.store(sense ^ sense_bit, std::memory_order_seq_cst);
    }
    // Wake-ups need no fence. A sleeper adds itself to the sleepers and then reads the sense
    // bit, both sequentially consistent; the release above (a locked CAS or an xchg on x86)
    // comes before this sequentially consistent load of the sleepers (a plain load on x86).
    // In the single order of those operations either the sleeper's increment comes first, and
    // this load sees it, or the release does, and the sleeper sees the flipped sense and does
    // not sleep. The generation store after the load is what sleepers wait on in the kernel.
    const bool sleeping = b.sleepers.load(std::memory_order_seq_cst) != 0;
    b.generation.store(generation + 1, std::memory_order_release);
    if (sleeping) os_futex_wake(&b.generation, INT_MAX);
    return;
  }
  record_arrival(me, op);
  // A thread that has returned will never arrive: pairs with barrier_thread_returned (both
  // sides are sequentially consistent, so at least one of them sees the other).
  check_deadlock(j, sense);
}

[[gnu::always_inline]] inline void complete(job& j, const unsigned char* copy_from = nullptr,
                                            unsigned char* copy_to = nullptr) {
  // barrier_sync_line's copy, right at the release.
  const auto copy_line = [copy_from, copy_to] {
    if (copy_from != nullptr) {
      // Slot by slot, in 8-byte moves: the caller reads the slots back one by one, and a load
      // is forwarded from a store of the same width at once.
      for (std::size_t i = 0; i < line_copy_bytes; i += 8) {
        std::uint64_t slot;
        std::memcpy(&slot, copy_from + i, 8);
        asm("" : "+r"(slot));
        std::memcpy(copy_to + i, &slot, 8);
      }
    }
  };
  thread_record& me = j.record(mythread());
  barrier_state& b = j.barrier;
  const std::uint32_t target = me.wait_generation + 1;
  // The sense bit flips when the phase is released, before the generation moves (see
  // barrier_arrive).
  const std::uint64_t pending = sense_of(me.wait_generation);
  const auto released = [&b, pending] {
    return (b.arrivals.load(std::memory_order_seq_cst) & sense_bit) != pending;
  };
  if (released()) {
    copy_line();
  } else {
    backoff bo(j.wait);
    if (j.threads <= arrival_spin_threads && !j.oversubscribed) {
      while (!released() && bo.step(b.arrivals)) {
      }
    } else {
      while (!wait_reached(b.generation, target) && bo.step(b.arrivals)) {
      }
    }
    if (!released()) {
      // Sleep on the generation; see barrier_arrive for why no wake-up is missed.
      b.sleepers.fetch_add(1, std::memory_order_seq_cst);
      for (;;) {
        const std::uint32_t seen = b.generation.load(std::memory_order_seq_cst);
        if (released()) break;
        os_futex_wait(&b.generation, seen, wait_sleep_slice_ns);
        if (!released()) barrier_sleeping(j, pending);
      }
      b.sleepers.fetch_sub(1, std::memory_order_relaxed);
    }
    copy_line();
    if (me.blocked.kind.load(std::memory_order_relaxed) != wait_kind::none) {
      wait_graph_leave(j, mythread());
    }
  }
  // Larger jobs also see the generation reach this phase before they leave (the last arriver
  // stores it right after the release), so that a thread past the barrier never observes the
  // job's phase behind its own (the deadlock checks compare them).
  if (j.threads > arrival_spin_threads) {
    while (!wait_reached(b.generation, target)) {
      if (j.oversubscribed) {
        os_yield();  // the last arriver may have lost its CPU between the two stores
      } else {
        os_pause();
      }
    }
  }
  me.wait_generation = target;
  me.state.store(thread_state::running, std::memory_order_relaxed);
}

}  // namespace

void barrier_arrive(job& j, const barrier_op& op) {
  // A collective call between notify and wait would arrive at the notified phase, where the
  // other threads' barrier would meet it as a mismatch: say what it is instead. (pgas::notify
  // and pgas::barrier arrive directly; the value collectives check before their fast path.)
  if (op.kind != op_kind::barrier) {
    if (const thread_record& me = j.record(mythread()); me.notified) {
      misuse(fmt::format("{} called between {}: UPC allows no collective call there", op.name,
                         notified_at(me)),
             op.where);
    }
  }
  arrive(j, op);
}

void barrier_complete(job& j) {
  complete(j);
}

void barrier_sync_line(job& j, const barrier_op& op, unsigned char* store_to, std::uint64_t value,
                       const unsigned char* copy_from, unsigned char* copy_to) {
  arrive(j, op, store_to, value);
  complete(j, copy_from, copy_to);
}

namespace {

// "upc_notify at f:l" or "pgas::notify() at f:l", and the wait that matches it.
struct notify_spelling {
  std::string notify;
  const char* wait;
};
notify_spelling spelling(const thread_record& r) {
  const std::string_view name = r.notify_name;
  const bool upc = name.starts_with("upc_");
  return {fmt::format("{}{} at {}:{}", name, upc ? "" : "()", r.notify_file, r.notify_line),
          upc ? "upc_wait" : "pgas::wait()"};
}

}  // namespace

std::string notified_at(const thread_record& r) {
  const notify_spelling s = spelling(r);
  return fmt::format("{} and its {}", s.notify, s.wait);
}

void barrier_check_not_notified_at_return(job& j, int thread) {
  const thread_record& me = j.record(thread);
  if (me.notified) {
    const notify_spelling n = spelling(me);
    fault_end_job(fmt::format("thread {} of {}: returned from the body after {} without the "
                              "matching {}",
                              thread, j.threads, n.notify, n.wait),
                  1);
  }
}

void barrier_thread_returned(job& j, int thread) {
  barrier_check_not_notified_at_return(j, thread);
  thread_record& me = j.record(thread);
  me.state.store(thread_state::returned, std::memory_order_release);
  const int returned = j.returned.fetch_add(1, std::memory_order_seq_cst) + 1;
  if (unpack(j.barrier.arrivals.load(std::memory_order_seq_cst)).count != 0) report_deadlock(j);
  // The last body to return: every thread has made all its collective calls. A barrier-free
  // UPC collective call that some thread skipped after the job's last barrier shows only here.
  // Not when a body returned a failure status: the program has said what went wrong, and a
  // thread that gave up early skipped the calls after it on purpose. (Each thread wrote its
  // status before its increment of `returned`, which the last one's increment reads.)
  const auto all_succeeded = [&j] {
    for (int t = 0; t < j.threads; ++t) {
      if (j.record(t).status != 0) return false;
    }
    return true;
  };
  if (returned == j.threads && all_succeeded()) {
    if (const std::string calls = epoch_counts_differ(j); !calls.empty()) {
      fault_end_job(fmt::format("collective mismatch: the threads returned from their bodies "
                                "after different UPC collective calls:\n  {}",
                                calls),
                    1);
    }
  }
}

}  // namespace pgas::detail

namespace pgas {

using detail::barrier_op;

namespace {

// The job and this thread's record are looked up once per call by the public functions and
// passed down: barrier() is notify + wait and must not pay for the look-ups twice.
[[gnu::always_inline]] inline void do_notify(detail::job& j, detail::thread_record& me, bool has_id,
                                             int id, const std::source_location& where,
                                             const char* name) {
  if (me.notified) {
    detail::misuse(fmt::format("{} called between {} (a notify must be followed by its wait)",
                               detail::shown_name(name), detail::notified_at(me)),
                   where);
  }
  me.notified = true;
  me.notify_has_id = has_id;
  me.notify_id = id;
  me.notify_name = detail::shown_name(name);
  me.notify_file = where.file_name();
  me.notify_line = where.line();
  detail::arrive(j, barrier_op{detail::op_kind::barrier, me.notify_name, has_id, id, "id", where});
}

[[gnu::always_inline]] inline void do_wait(detail::job& j, detail::thread_record& me, bool has_id,
                                           int id, const std::source_location& where) {
  if (!me.notified) {
    detail::misuse(std::string_view(detail::shown_name("pgas::wait")) == "upc_wait"
                       ? "upc_wait without a preceding upc_notify"
                       : "pgas::wait() called without a preceding pgas::notify()",
                   where);
  }
  if (has_id && me.notify_has_id && id != me.notify_id) {
    const bool upc_wait = std::string_view(detail::shown_name("pgas::wait")) == "upc_wait";
    const bool upc_notify = std::string_view(me.notify_name).starts_with("upc_");
    const std::string wait_text =
        upc_wait ? fmt::format("upc_wait {}", id) : fmt::format("pgas::wait({})", id);
    const std::string notify_text = upc_notify
                                        ? fmt::format("{} {}", me.notify_name, me.notify_id)
                                        : fmt::format("{}({})", me.notify_name, me.notify_id);
    detail::misuse(fmt::format("{} does not match {} at {}:{}", wait_text, notify_text,
                               me.notify_file, me.notify_line),
                   where);
  }
  me.notified = false;
  detail::complete(j);
}

// What every thread arriving at a barrier does first: its software caches write back
// (pgas/detail/sync_listener.hpp), and a traced job counts the call.
void before_arrival(const std::source_location& where) {
  detail::sync_point(detail::sync_kind::barrier);
  if (detail::trace_on) [[unlikely]]
    detail::trace_access(detail::trace_kind::barrier, detail::trace_dir::sync, nullptr, 0, where);
}

void split_notify(bool has_id, int id, const std::source_location& where, const char* name) {
  detail::job& j = detail::job_or_misuse(where, name);
  before_arrival(where);
  do_notify(j, j.record(mythread()), has_id, id, where, name);
}

void split_wait(bool has_id, int id, const std::source_location& where) {
  detail::job& j = detail::job_or_misuse(where, "pgas::wait");
  const std::uint64_t started = detail::trace_on ? detail::trace_wait_start() : 0;
  do_wait(j, j.record(mythread()), has_id, id, where);
  if (started != 0) detail::trace_wait_end(detail::trace_kind::barrier, started, where);
}

void full_barrier(bool has_id, int id, const std::source_location& where) {
  detail::job& j = detail::job_or_misuse(where, "pgas::barrier");
  detail::thread_record& me = j.record(mythread());
  before_arrival(where);
  const std::uint64_t started = detail::trace_on ? detail::trace_wait_start() : 0;
  do_notify(j, me, has_id, id, where, "pgas::barrier");
  do_wait(j, me, false, 0, where);
  if (started != 0) detail::trace_wait_end(detail::trace_kind::barrier, started, where);
}

}  // namespace

void detail::barrier_collective(const detail::barrier_op& op) {
  assert(op.kind != detail::op_kind::barrier);
  detail::job& j = detail::job_or_misuse(op.where, op.name);
  before_arrival(op.where);
  const std::uint64_t started = detail::trace_on ? detail::trace_wait_start() : 0;
  detail::barrier_arrive(j, op);
  detail::barrier_complete(j);
  if (started != 0) detail::trace_wait_end(detail::trace_kind::barrier, started, op.where);
}

void barrier(std::source_location where) {
  full_barrier(false, 0, where);
}
void barrier(int id, std::source_location where) {
  full_barrier(true, id, where);
}
void notify(std::source_location where) {
  split_notify(false, 0, where, "pgas::notify");
}
void notify(int id, std::source_location where) {
  split_notify(true, id, where, "pgas::notify");
}
void wait(std::source_location where) {
  split_wait(false, 0, where);
}
void wait(int id, std::source_location where) {
  split_wait(true, id, where);
}

void fence(std::source_location where) {
  detail::sync_point(detail::sync_kind::fence);
  if (detail::trace_on) [[unlikely]]
    detail::trace_access(detail::trace_kind::fence, detail::trace_dir::sync, nullptr, 0, where);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace pgas
