// src/job/value.cpp — the value collectives' exchange (pgas/collectives.hpp,
// pgas/detail/value_exchange.hpp): a thread copies its value into its next slot and arrives at
// one barrier whose signature carries the agreement hash of the call. For small results the
// last arriver combines every slot (the header's combine function) into the barrier's payload,
// which shares the generation's cache line, so the result reaches each waiter with the release
// and costs it no extra transfer; otherwise each thread reads the slots after the barrier. In
// small jobs, values of at most 8 bytes skip the slots altogether: they travel beside the
// arrival word, so that such an allreduce moves no more cache lines than a barrier. Up to three
// threads, every thread stores its value there before it arrives and folds them all after the
// release (value_line_exchange, called by the header); up to five, the last arriver combines
// them before the release (line_exchange).
//
// The agreement text of a call ("type=double (8 bytes), count=1, op=std::plus<void>") is made
// only when it differs from the thread's previous value collective: a loop of identical calls
// pays a few comparisons, not a format and a hash per call, which matters next to a barrier of a
// few hundred nanoseconds.

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include <pgas/detail/value_exchange.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>

#include "src/job/barrier.hpp"
#include "src/job/collective.hpp"
#include "src/job/job.hpp"
#include "src/job/trace.hpp"

namespace pgas::detail {

namespace {

struct kind_info {
  op_kind kind;
  const char* name;
};

kind_info info(value_kind k) noexcept {
  switch (k) {
    case value_kind::broadcast:
      return {op_kind::value_broadcast, "pgas::broadcast"};
    case value_kind::reduce:
      return {op_kind::value_reduce, "pgas::reduce"};
    case value_kind::allreduce:
      return {op_kind::value_allreduce, "pgas::allreduce"};
    case value_kind::scan:
      return {op_kind::value_scan, "pgas::scan"};
    case value_kind::exscan:
      return {op_kind::value_exscan, "pgas::exscan"};
    case value_kind::allgather:
      return {op_kind::value_allgather, "pgas::allgather"};
    case value_kind::allreduce_span:
      break;
  }
  return {op_kind::value_allreduce_span, "pgas::allreduce (span)"};
}

bool same_call(const value_call& a, const value_call& b) noexcept {
  return a.kind == b.kind && a.root == b.root && a.size == b.size && a.count == b.count &&
         a.type == b.type && a.op == b.op && a.op_function == b.op_function;
}

// The agreement text, hash and barrier of a call that differs from the thread's previous one.
[[gnu::noinline]] void agree(value_agreement& cache, const value_call& c) {
  cache.text = fmt::format("type={} ({} bytes)", c.type, c.size);
  if (c.count != 1 || c.kind == value_kind::allreduce_span) {
    cache.text += fmt::format(", count={}", c.count);
  }
  if (c.root >= 0) cache.text += fmt::format(", root={}", c.root);
  if (c.op != nullptr) cache.text += fmt::format(", op={}", c.op);
  if (c.op_function != nullptr) cache.text += fmt::format(" at {}", c.op_function);
  cache.hash = static_cast<std::int32_t>(agreement_hash(cache.text));
  cache.call = c;
  const kind_info k = info(c.kind);
  cache.op = barrier_op{k.kind, k.name, true, cache.hash, "arguments", {}, cache.text.c_str()};
  cache.valid = true;
}

value_agreement& agreement_for(value_agreement& cache, const value_call& c) {
  if (!cache.valid || !same_call(cache.call, c)) agree(cache, c);
  return cache;
}

// A buffer of at least `bytes` bytes in place of `buffer`. Only the owner calls this, and only
// while no other thread reads the buffer (see value_exchange.hpp); its old contents are dropped.
unsigned char* grow(unsigned char*& buffer, std::size_t& have, std::size_t bytes) {
  if (have < bytes) {
    auto* fresh = new unsigned char[bytes];
    delete[] buffer;
    buffer = fresh;
    have = bytes;
  }
  return buffer;
}

// A value's bytes into a slot: the common sizes as fixed-size copies (one move each), the
// others through memcpy.
void copy_value(void* to, const void* from, std::size_t bytes) noexcept {
  switch (bytes) {
    case 4:
      std::memcpy(to, from, 4);
      break;
    case 8:
      std::memcpy(to, from, 8);
      break;
    case 16:
      std::memcpy(to, from, 16);
      break;
    default:
      std::memcpy(to, from, bytes);
  }
}

// A value of at most 8 bytes as the 8-byte word a line slot holds (the bytes past `bytes`
// are zero and never read).
std::uint64_t line_word(const void* data, std::size_t bytes) noexcept {
  std::uint64_t word = 0;
  if (bytes == sizeof word) {
    std::memcpy(&word, data, sizeof word);
  } else {
    std::memcpy(&word, data, bytes);
  }
  return word;
}

// The last arriver's part of a call with a combine function: the result goes into the
// barrier's payload, in the cache line of the generation that every waiter reads anyway.
static_assert(sizeof(barrier_state::payload) >= value_result_bytes);

struct combining {
  const value_call* call;
  const value_view* view;
  unsigned char* payload;
  std::exception_ptr* failure;  // job::combine_failure
};

// An exception from the user's operation must not leave the phase half released (the arrival
// count reset, the waiters never woken): it is kept for every thread to rethrow after the
// release (rethrow_combine_failure), as each thread throws it where it folds the values itself.
void combine_last(const void* arg) noexcept {
  const auto& ctx = *static_cast<const combining*>(arg);
  try {
    ctx.call->combine(*ctx.view, ctx.payload, ctx.call->op_object);
    if (*ctx.failure) *ctx.failure = nullptr;
  } catch (...) {
    *ctx.failure = std::current_exception();
  }
}

// After the release of a phase whose last arriver combined: its operation's exception, on
// every thread. The next writer is the last arriver of a later phase, which every thread must
// first reach, so reading here races with no one.
void rethrow_combine_failure(const job& j) {
  if (j.combine_failure) [[unlikely]]
    std::rethrow_exception(j.combine_failure);
}

// A job of 4 or 5 threads, a small value with a combine function: every thread stores its value
// into its slot in the arrival word's line (barrier.hpp) right before its arrival CAS
// (barrier_sync_line); the last arriver combines the slots in its hook and writes the result
// beside them before it releases the phase; each waiter finds the result in the line it spins
// on. So the exchange moves the same lines as a barrier. The slots need no double-buffering:
// only the last arriver reads them, before the release, and a thread writes its next value only
// after that release.
value_view line_exchange(job& j, thread_record& rec, const value_call& c, const kind_info& k,
                         const void* data, std::size_t bytes, const std::source_location& where) {
  barrier_state& b = j.barrier;
  const value_agreement& a = agreement_for(rec.value_args, c);
  value_view w{j.values.get(), 0, false, nullptr, line_slot(b, 0)};
  const combining ctx{&c, &w, line_result(b), &j.combine_failure};
  barrier_op op{k.kind, k.name, true, a.hash, "arguments", where, a.text.c_str()};
  op.last = combine_last;
  op.last_arg = &ctx;
  barrier_sync_line(j, op, data != nullptr ? line_slot(b, mythread()) : nullptr,
                    data != nullptr ? line_word(data, bytes) : 0, nullptr, nullptr);
  w.packed = nullptr;  // the slots belong to the next phase from here on
  rethrow_combine_failure(j);
  w.result = line_result(b);
  return w;
}

}  // namespace

value_view value_exchange(const value_call& c, const void* data, const void* address,
                          const std::source_location& where) {
  const kind_info k = info(c.kind);
  job& j = job_or_misuse(where, k.name);
  if (c.root >= j.threads ||
      (c.root < 0 && (c.kind == value_kind::broadcast || c.kind == value_kind::reduce))) {
    misuse(fmt::format("{}: root {} is not a thread of this job (THREADS is {})", k.name, c.root,
                       j.threads),
           where);
  }
  const int me = mythread();
  thread_record& rec = j.record(me);
  if (rec.notified) {
    misuse(fmt::format("{} called between {} (the notify has already counted this thread in "
                       "the barrier's phase)",
                       k.name, notified_at(rec)),
           where);
  }
  const collective_scope traced(where, c.size * c.count);
  const std::size_t bytes = c.size * c.count;
  if (c.combine != nullptr && bytes <= 8 && j.threads <= line_values_threads) {
    return line_exchange(j, rec, c, k, data, bytes, where);
  }
  const int parity = static_cast<int>(rec.value_collectives++ & 1);
  value_slot& s = j.values[static_cast<std::size_t>(me)].slot[parity];
  const bool heap = bytes > value_inline_bytes;
  if (data != nullptr && bytes != 0) {
    copy_value(heap ? grow(s.heap, s.heap_bytes, bytes) : s.bytes, data, bytes);
  }
  s.ptr = address;

  const value_agreement& a = agreement_for(rec.value_args, c);
  value_view w{j.values.get(), parity, heap, nullptr};
  barrier_op op{k.kind, k.name, true, a.hash, "arguments", where, a.text.c_str()};
  combining ctx{&c, &w, j.barrier.payload, &j.combine_failure};
  if (c.combine != nullptr) {
    op.last = combine_last;
    op.last_arg = &ctx;
  }
  barrier_arrive(j, op);
  barrier_complete(j);
  // The other threads read this thread's other slot in the previous collective and still hold
  // its line: ask for it back now (the others are past that collective), so that the next
  // call's copy does not stall the barrier's CAS on the transfer.
  __builtin_prefetch(j.values[static_cast<std::size_t>(me)].slot[parity ^ 1].bytes, 1, 3);
  if (c.combine != nullptr) {
    rethrow_combine_failure(j);
    w.result = j.barrier.payload;
  }
  return w;
}

// A job of up to value_line_threads threads, at most 8 bytes a thread: the thread stores its
// value into its slot for this phase in the arrival word's line right before it arrives (the
// arrival CAS fetches that line to own it anyway, so the store costs no transfer of its own),
// and copies every slot out as soon as it sees the release, before another thread's next
// arrival can take the line away. The last arriver releases the phase in its arrival CAS as at
// a plain barrier, and a waiter finds every value in the line it spun on, so the exchange moves
// exactly a barrier's cache lines and puts nothing between the last arrival and the release.
// The slots alternate by phase parity: those of phase g are written again at phase g+2, which
// no thread reaches before every thread has left phase g+1, after copying them.
//
// Its work is on a small allreduce's critical path twice (the waiter's return and the arriver's
// call), so it is kept short: the call's barrier is kept beside the agreement text, and a call
// like the thread's previous one only fills in its source location and passes the line's
// addresses in registers.
bool value_line_exchange(const value_call& c, const void* data, const std::source_location& where,
                         value_line& out) {
  static_assert(value_line_threads == line_fold_threads && value_line_bytes == 8);
  job* j = job_current();
  if (j == nullptr || j->threads > value_line_threads || c.size * c.count > value_line_bytes ||
      c.root >= j->threads ||
      (c.root < 0 && (c.kind == value_kind::broadcast || c.kind == value_kind::reduce))) {
    return false;
  }
  const int me = mythread();
  thread_record& rec = j->record(me);
  if (rec.notified) return false;  // misuse, which value_exchange reports
  const collective_scope traced(where, c.size * c.count);
  barrier_op& op = agreement_for(rec.value_args, c).op;
  op.where = where;
  barrier_state& b = j->barrier;
  const int parity = static_cast<int>(rec.wait_generation & 1);
  barrier_sync_line(*j, op, data != nullptr ? line_fold_slot(b, parity, me) : nullptr,
                    data != nullptr ? line_word(data, c.size * c.count) : 0,
                    line_fold_slot(b, parity, 0), out.bytes);
  return true;
}

void* value_scratch(std::size_t bytes) {
  job* j = job_current();
  value_slots& mine = j->values[static_cast<std::size_t>(mythread())];
  return grow(mine.scratch, mine.scratch_bytes, bytes);
}

std::string type_name(const std::type_info& t) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> readable(
      abi::__cxa_demangle(t.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && readable ? std::string(readable.get()) : std::string(t.name());
}

}  // namespace pgas::detail
