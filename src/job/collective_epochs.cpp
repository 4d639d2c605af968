// src/job/collective_epochs.cpp — the UPC collectives' per-thread epochs (see
// collective_epochs.hpp): entering a call with its barrier-free agreement check, the MYSYNC
// waits on one other thread, and the ALLSYNC barrier. A MYSYNC waiter escalates like a barrier
// waiter (src/base/backoff.hpp) and, once asleep, checks every slice that the thread it waits
// for can still come: not returned, not waiting at a barrier phase the waiter has not reached.

#include "src/job/collective_epochs.hpp"

#include <pgas/detail/sync_listener.hpp>
#include <pgas/detail/trace_hook.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <pgas/detail/upc_call.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>

#include "src/base/backoff.hpp"
#include "src/base/os.hpp"
#include "src/job/barrier.hpp"
#include "src/job/collective.hpp"
#include "src/job/job.hpp"
#include "src/job/wait_graph.hpp"

namespace pgas::detail {

namespace {

std::uint32_t call_hash(const char* name, std::string_view text) {
  const std::size_t h =
      std::hash<std::string_view>{}(name)*31 + std::hash<std::string_view>{}(text);
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

std::string entry_text(const epoch_entry& e) {
  std::string s;
  for (const std::atomic<char>& c : e.text) {
    const char ch = c.load(std::memory_order_relaxed);
    if (ch == '\0') break;
    s += ch;
  }
  return s;
}

// Another thread's entry for call k disagrees with ours: say both, if the entry still holds
// call k after reading it (else it moved on and the caller looks no further).
void report_disagreement(const epoch_call& c, std::string_view text, std::uint32_t phase, int t,
                         const epoch_entry& o, std::uint64_t key) {
  const char* name = o.name.load(std::memory_order_relaxed);
  const char* file = o.file.load(std::memory_order_relaxed);
  const std::uint32_t line = o.line.load(std::memory_order_relaxed);
  const std::uint32_t other_phase = o.phase.load(std::memory_order_relaxed);
  const std::string other_text = entry_text(o);
  if (o.key.load(std::memory_order_acquire) != key) return;
  std::string why;
  if (other_phase != phase) {
    why = fmt::format(
        " (thread {} made it after {} barrier phases of the job, this thread after "
        "{}: a barrier or collective call is missing on one of them)",
        t, other_phase, phase);
  }
  misuse(fmt::format("collective mismatch: thread {} calls {}({}) at {}:{} as its UPC collective "
                     "call {}, where this thread calls {}({}){}",
                     t, name != nullptr ? name : "?", other_text, file != nullptr ? file : "?",
                     line, c.k, c.name, text, why),
         c.where);
}

struct wait_context {
  const epoch_call* c;
  int t;
  const char* what;                        // "enter it", "finish its part of it", ...
  const std::atomic<std::uint32_t>* word;  // what the waiter waits on, for c->k
  bool published = false;                  // in the wait-for graph (wait_graph.hpp)
};

// Every sleep slice of a MYSYNC wait: can thread t still come? What is seen of t is read
// before the waited word is read again: t may have published the word and then returned or
// gone on to a barrier between the waiter's last look at the word and this check, and its
// publication comes before both in its own order, so the second look sees it.
void check_waited(void* arg) {
  auto& w = *static_cast<wait_context*>(arg);
  job& j = *w.c->j;
  // Asleep: a lock waiter's deadlock check can now follow this wait to thread t (a lock held
  // here that t waits for is a cycle). Published once, so that two looks see one wait.
  if (!w.published) {
    wait_graph_enter_thread(j, w.c->me, w.t, w.c->name, w.what, w.c->where, *w.word, w.c->k);
    w.published = true;
  }
  const thread_record& r = j.record(w.t);
  const auto still_waiting = [&w] { return !wait_reached(*w.word, w.c->k); };
  if (r.state.load(std::memory_order_acquire) == thread_state::returned && still_waiting()) {
    misuse(fmt::format("{} waits for thread {} to {} (UPC collective call {}), but thread {} "
                       "returned from its body",
                       w.c->name, w.t, w.what, w.c->k, w.t),
           w.c->where);
  }
  const wait_slot& s = r.blocked;
  if (s.kind.load(std::memory_order_acquire) == wait_kind::barrier &&
      s.arrived.load(std::memory_order_relaxed) &&
      s.generation.load(std::memory_order_relaxed) ==
          j.barrier.generation.load(std::memory_order_acquire) &&
      still_waiting()) {
    // t waits for a phase this thread has not arrived at, and this thread waits for t.
    const char* op = r.op.load(std::memory_order_relaxed);
    const char* file = r.file.load(std::memory_order_relaxed);
    misuse(fmt::format("collective mismatch: thread {} waits in {} at {}:{} while this thread "
                       "waits in {} for it to {} (UPC collective call {})",
                       w.t, op != nullptr ? op : "?", file != nullptr ? file : "?",
                       r.line.load(std::memory_order_relaxed), w.c->name, w.what, w.c->k),
           w.c->where);
  }
}

void wait_at_least(const epoch_call& c, int t, std::atomic<std::uint32_t>& word,
                   std::atomic<std::uint32_t>& sleepers, const char* what) {
  wait_context ctx{&c, t, what, &word};
  if (wait_reached(word, c.k)) return;
  wait_until(c.j->wait, word, c.k, sleepers, c.j->barrier.arrivals, check_waited, &ctx);
  if (ctx.published) wait_graph_leave(*c.j, c.me);
}

// Sequentially consistent on both sides (the waiter adds itself to `sleepers`, then reads the
// word), so a waiter that went to sleep is always woken.
void publish(std::atomic<std::uint32_t>& word, std::atomic<std::uint32_t>& sleepers,
             std::uint32_t k) {
  word.store(k, std::memory_order_seq_cst);
  if (sleepers.load(std::memory_order_seq_cst) != 0) os_futex_wake(&word, INT_MAX);
}

}  // namespace

epoch_call epoch_enter(const char* name, std::string_view text, const std::source_location& where) {
  job& j = job_or_misuse(where, name);
  const int me = mythread();
  thread_record& r = j.record(me);
  if (r.notified) {
    misuse(fmt::format("{} called between {}: UPC allows no collective call there", name,
                       notified_at(r)),
           where);
  }
  collective_epoch& mine = j.epoch(me);
  sync_point(sync_kind::barrier);
  if (trace_on) [[unlikely]]
    trace_access(trace_kind::collective, trace_dir::sync, nullptr, 0, where);
  const epoch_call c{&j, me, ++mine.calls, name, where};
  r.call_bits = barrier_call_bits(c.k);
  // The number of barrier phases this thread has passed, by its own count: the job's generation
  // can lag behind it (in a 2-thread job a waiter leaves at the release, before the last
  // arriver stores the new generation), and a thread that read it there would seem a phase
  // behind the others.
  const std::uint32_t phase = r.wait_generation;
  // The pgas name, not the shown one: a UPC spelling of the same collective agrees with it.
  const std::uint32_t h = call_hash(agreed_name(name), text);
  const std::size_t slot = c.k % epoch_ring_size;
  epoch_entry& e = mine.ring[slot];
  e.key.store(0, std::memory_order_relaxed);
  e.name.store(name, std::memory_order_relaxed);
  e.file.store(where.file_name(), std::memory_order_relaxed);
  e.line.store(where.line(), std::memory_order_relaxed);
  e.phase.store(phase, std::memory_order_relaxed);
  const bool cut = text.size() > epoch_text_size - 1;
  const std::size_t n = cut ? epoch_text_size - 4 : text.size();
  for (std::size_t i = 0; i < n; ++i)
    e.text[i].store(text[i], std::memory_order_relaxed);
  for (std::size_t i = n; cut && i < n + 3; ++i)
    e.text[i].store('.', std::memory_order_relaxed);
  e.text[cut ? n + 3 : n].store('\0', std::memory_order_relaxed);
  const std::uint64_t key = (std::uint64_t{c.k} << 32) | h;
  e.key.store(key, std::memory_order_seq_cst);

  for (int t = 0; t < j.threads; ++t) {
    if (t == me) continue;
    const epoch_entry& o = j.epoch(t).ring[slot];
    const std::uint64_t other = o.key.load(std::memory_order_seq_cst);
    if ((other >> 32) != c.k) continue;
    if (other != key || o.phase.load(std::memory_order_relaxed) != phase) {
      report_disagreement(c, text, phase, t, o, other);
    }
  }
  publish(mine.entered, mine.entered_sleepers, c.k);
  return c;
}

std::string epoch_counts_differ(job& j) {
  std::vector<std::uint32_t> entered(static_cast<std::size_t>(j.threads));
  for (int t = 0; t < j.threads; ++t)
    entered[static_cast<std::size_t>(t)] = j.epoch(t).entered.load(std::memory_order_acquire);
  const auto [lo, hi] = std::minmax_element(entered.begin(), entered.end());
  if (*lo == *hi) return {};
  // "thread 0: 0; threads 1, 2: 1", by count.
  std::map<std::uint32_t, std::vector<int>> by_count;
  for (int t = 0; t < j.threads; ++t)
    by_count[entered[static_cast<std::size_t>(t)]].push_back(t);
  std::string counts;
  for (const auto& [k, who] : by_count) {
    counts += fmt::format("{}thread{} {}: {}", counts.empty() ? "" : "; ",
                          who.size() > 1 ? "s" : "", fmt::join(who, ", "), k);
  }
  const int ahead = static_cast<int>(hi - entered.begin());
  const epoch_entry& e = j.epoch(ahead).ring[*hi % epoch_ring_size];
  const char* name = e.name.load(std::memory_order_relaxed);
  const char* file = e.file.load(std::memory_order_relaxed);
  const std::uint32_t line = e.line.load(std::memory_order_relaxed);
  std::string last;
  if ((e.key.load(std::memory_order_acquire) >> 32) == *hi && name != nullptr && file != nullptr) {
    last = fmt::format(" (thread {}'s last: {} at {}:{})", ahead, name, file, line);
  }
  return fmt::format(
      "UPC collective calls entered so far differ: {}{}; every thread must make "
      "the same collective calls in the same order",
      counts, last);
}

void epoch_wait_entered(const epoch_call& c, int t) {
  if (t == c.me) return;
  collective_epoch& e = c.j->epoch(t);
  wait_at_least(c, t, e.entered, e.entered_sleepers, "enter it");
}

void epoch_finish(const epoch_call& c) {
  collective_epoch& mine = c.j->epoch(c.me);
  publish(mine.done, mine.done_sleepers, c.k);
}

void epoch_wait_done(const epoch_call& c, int t) {
  if (t == c.me) return;
  collective_epoch& e = c.j->epoch(t);
  wait_at_least(c, t, e.done, e.done_sleepers, "finish its part of it");
}

void* epoch_partial_slot(const epoch_call& c, int reader) {
  collective_epoch& mine = c.j->epoch(c.me);
  const std::size_t b = c.k % 2;
  if (const int reader_before = mine.partial_reader[b];
      reader_before >= 0 && reader_before != c.me) {
    // This call waits (in its own name and line) for an earlier one's goal.
    epoch_call previous = c;
    previous.k = mine.partial_call[b];
    collective_epoch& e = c.j->epoch(reader_before);
    wait_at_least(previous, reader_before, e.done, e.done_sleepers,
                  "finish an earlier collective call, which reads this thread's partial result "
                  "from the buffer this call reuses");
  }
  mine.partial_call[b] = c.k;
  mine.partial_reader[b] = reader;
  return mine.partial[b].data();
}

const void* epoch_partial_of(const epoch_call& c, int t) {
  epoch_wait_done(c, t);
  return c.j->epoch(t).partial[c.k % 2].data();
}

void epoch_barrier(const epoch_call& c, std::string_view text) {
  const barrier_op op = agreement(op_kind::upc_collective, c.name, "arguments", text, c.where);
  barrier_arrive(*c.j, op);
  barrier_complete(*c.j);
}

}  // namespace pgas::detail
