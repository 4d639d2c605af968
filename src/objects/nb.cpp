// src/objects/nb.cpp — the non-blocking transfers of pgas/nb.hpp (UPC <upc_nb.h>): argument
// checks, the choice between copying in the call and handing to a copy engine
// (src/objects/copy_engine.cpp), handles and their completion (sync, test, synci, testi), and
// what the end of a job does with transfers never completed (a job_on_end hook).
//
// Each UPC thread's outstanding transfers are in its slot of a per-job array made at the first
// transfer of the job: explicit ones in a list (for the end-of-job report), implicit ones in a
// vector that synci() empties. Only the owner touches its slot until the job's threads are
// joined.

#include <pgas/nb.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include <pgas/detail/bulk_check.hpp>
#include <pgas/detail/identity.hpp>
#include <pgas/detail/upc_call.hpp>

#include "src/base/faults.hpp"
#include "src/base/os.hpp"
#include "src/job/job.hpp"
#include "src/objects/copy_engine.hpp"

namespace pgas {
namespace detail {
namespace {

struct alignas(64) nb_thread {
  nb_op* live = nullptr;  // explicit transfers not completed, newest first
  std::vector<nb_op*> implicit;
};

std::atomic<nb_thread*> slots{nullptr};  // job_threads of them while a job has made transfers

nb_thread& my_slot() {
  nb_thread* s = slots.load(std::memory_order_acquire);
  if (s == nullptr) {
    auto* made = new nb_thread[static_cast<std::size_t>(job_threads)];
    if (slots.compare_exchange_strong(s, made, std::memory_order_acq_rel)) {
      s = made;
    } else {
      delete[] made;
    }
  }
  return s[tls_mythread];
}

// The calling thread's slot when it may have transfers outstanding, else null.
nb_thread* my_slot_if_any() noexcept {
  if (!tls_job_thread) return nullptr;
  nb_thread* s = slots.load(std::memory_order_acquire);
  return s != nullptr ? &s[tls_mythread] : nullptr;
}

void live_link(nb_thread& t, nb_op* op) noexcept {
  op->live_next = t.live;
  if (t.live != nullptr) t.live->live_prev = op;
  t.live = op;
}

void live_unlink(nb_thread& t, nb_op* op) noexcept {
  if (op->live_prev != nullptr) {
    op->live_prev->live_next = op->live_next;
  } else {
    t.live = op->live_next;
  }
  if (op->live_next != nullptr) op->live_next->live_prev = op->live_prev;
}

// Who may start a transfer: a UPC thread of a running job.
const job& check_caller(const char* name, const std::source_location& where) {
  const job& j = job_or_misuse(where, name);
  if (!tls_job_thread) {
    misuse(fmt::format("{} called from a thread that is not one of the job's {} UPC threads "
                       "(a transfer belongs to the UPC thread that starts it)",
                       name, j.threads),
           where);
  }
  return j;
}

// Starts a checked transfer: copies it here below the threshold (returns null), else hands it to
// the engine of `node` and returns it (owned by the caller's slot as explicit or implicit).
nb_op* start(const job& j, nb_kind kind, char* dst, const char* src, int value, std::size_t n,
             int node, bool implicit, const char* name, const std::source_location& where) {
  if (n < j.nb_threshold) {
    if (kind == nb_kind::set) {
      std::memset(dst, value, n);
    } else {
      std::memcpy(dst, src, n);
    }
    return nullptr;
  }
  auto* op = new nb_op;
  op->dst = dst;
  op->src = src;
  op->value = value;
  op->bytes = n;
  op->kind = kind;
  op->implicit = implicit;
  op->owner = tls_mythread;
  op->name = name;
  op->where = where;
  nb_op_cut(*op);
  nb_thread& t = my_slot();
  if (implicit) {
    t.implicit.push_back(op);
  } else {
    live_link(t, op);
  }
  engine_submit(j, node, op);
  return op;
}

int node_of(const job& j, int thread) noexcept {
  return j.private_node[static_cast<std::size_t>(thread)];
}

nb_op* start_copy(sptr<void> dst, sptr<const void> src, std::size_t n, bool implicit,
                  const char* name, const char* src_what, const char* dst_what,
                  const std::source_location& where) {
  if (n == 0) return nullptr;
  const job& j = check_caller(name, where);
  check_bulk(src, n, src_what, where);
  check_bulk(sptr<const void>(dst), n, dst_what, where);
  if (!check_bulk_overlap(dst.get(), src.get(), n, name, where)) return nullptr;
  if (trace_on) [[unlikely]] {
    trace_access(trace_kind::nonblocking, trace_dir::read, src.get(), n, where);
    trace_access(trace_kind::nonblocking, trace_dir::write, dst.get(), n, where);
  }
  return start(j, nb_kind::copy, static_cast<char*>(dst.get()), static_cast<const char*>(src.get()),
               0, n, node_of(j, dst.thread()), implicit, name, where);
}

nb_op* start_get(void* dst, sptr<const void> src, std::size_t n, bool implicit, const char* name,
                 const char* src_what, const char* dst_what, const std::source_location& where) {
  if (n == 0) return nullptr;
  const job& j = check_caller(name, where);
  check_bulk_private(dst, dst_what, where);
  check_bulk(src, n, src_what, where);
  if (!check_bulk_overlap(dst, src.get(), n, name, where)) return nullptr;
  if (trace_on) [[unlikely]]
    trace_access(trace_kind::nonblocking, trace_dir::read, src.get(), n, where);
  return start(j, nb_kind::get, static_cast<char*>(dst), static_cast<const char*>(src.get()), 0, n,
               node_of(j, tls_mythread), implicit, name, where);
}

nb_op* start_put(sptr<void> dst, const void* src, std::size_t n, bool implicit, const char* name,
                 const char* src_what, const char* dst_what, const std::source_location& where) {
  if (n == 0) return nullptr;
  const job& j = check_caller(name, where);
  check_bulk_private(src, src_what, where);
  check_bulk(sptr<const void>(dst), n, dst_what, where);
  if (!check_bulk_overlap(dst.get(), src, n, name, where)) return nullptr;
  if (trace_on) [[unlikely]]
    trace_access(trace_kind::nonblocking, trace_dir::write, dst.get(), n, where);
  return start(j, nb_kind::put, static_cast<char*>(dst.get()), static_cast<const char*>(src), 0, n,
               node_of(j, dst.thread()), implicit, name, where);
}

nb_op* start_set(sptr<void> dst, int c, std::size_t n, bool implicit, const char* name,
                 const char* dst_what, const std::source_location& where) {
  if (n == 0) return nullptr;
  const job& j = check_caller(name, where);
  check_bulk(sptr<const void>(dst), n, dst_what, where);
  if (trace_on) [[unlikely]]
    trace_access(trace_kind::nonblocking, trace_dir::write, dst.get(), n, where);
  return start(j, nb_kind::set, static_cast<char*>(dst.get()), nullptr, c, n,
               node_of(j, dst.thread()), implicit, name, where);
}

// The handle `h` is about to be completed by `call` on this thread: its transfer, or misuse.
nb_op* owned_op(const nb_handle& h, const char* call, const std::source_location& where) {
  if (h.spent()) {
    misuse(fmt::format("{} of a handle already completed (by pgas::sync or a successful "
                       "pgas::test) or moved from",
                       call),
           where);
  }
  nb_op* op = h.op();
  if (op->orphaned) {
    misuse(fmt::format("{} of a handle whose job has ended ({} at {})", call, op->name,
                       where_string(op->where)),
           where);
  }
  if (!tls_job_thread || tls_mythread != op->owner) {
    misuse(fmt::format("{} of a handle that thread {} started (its {} at {}; only that thread "
                       "may complete it)",
                       call, op->owner, op->name, where_string(op->where)),
           where);
  }
  return op;
}

void complete(nb_handle& h, nb_op* op) noexcept {
  live_unlink(my_slot(), op);
  h.mark_spent();
  nb_op_release(op);
}

// The values of <pgas/upc.hpp>'s upc_handle_t: a tag in the top byte (so that most stray
// bytes name nothing), the starting thread in the next 16 bits, and in the low 40 bits a number
// counted over the whole process (never reused, across jobs too).
constexpr std::uint64_t upc_value_tag = std::uint64_t{0xa5} << 56;
constexpr int upc_value_thread_shift = 40;
constexpr std::uint64_t upc_value_count_mask = (std::uint64_t{1} << upc_value_thread_shift) - 1;
std::atomic<std::uint64_t> upc_values_made{0};

std::string upc_value_name(std::uint64_t value) {
  return fmt::format("0x{:016x}", value);
}

// After the join: every transfer is finished (the engines have drained). Implicit ones are
// forgotten silently; explicit ones whose handles were never completed are reported.
void nb_at_job_end(const job& j) {
  engines_stop();
  nb_thread* s = slots.exchange(nullptr, std::memory_order_acq_rel);
  if (s == nullptr) return;
  for (int t = 0; t < j.threads; ++t) {
    nb_thread& slot = s[t];
    for (nb_op* op : slot.implicit)
      nb_op_release(op);
    int count = 0;
    const char* oldest_name = "";
    std::source_location oldest_where;
    for (nb_op* op = slot.live; op != nullptr;) {
      nb_op* next = op->live_next;
      oldest_name = op->name;
      oldest_where = op->where;
      if (op->upc_value != 0) {
        nb_op_release(op);  // no handle object refers to it: a value names it
      } else {
        op->orphaned = true;  // the handle still refers to it; its destruction releases it
      }
      ++count;
      op = next;
    }
    if (count != 0) {
      os_write_stderr(fmt::format(
          "pgas: warning: thread {} of {}: {} non-blocking transfer{} never completed by "
          "pgas::sync or pgas::test (the first: {} at {}); completed when the job ended\n",
          t, j.threads, count, count == 1 ? " was" : "s were", oldest_name,
          where_string(oldest_where)));
    }
  }
  delete[] s;
}

const bool registered = (job_on_end(nb_at_job_end), true);

}  // namespace

nb_handle nb_start_task(const job& j, nb_op* op, int node) {
  op->implicit = false;
  op->owner = tls_mythread;
  live_link(my_slot(), op);
  engine_submit(j, node, op);
  return nb_handle::from_op(op);
}

void nb_discard(nb_op* op) noexcept {
  if (op->orphaned) {
    nb_op_release(op);
    return;
  }
  if (std::uncaught_exceptions() > 0 && tls_job_thread && tls_mythread == op->owner) {
    // Unwinding: the handle's scope is left without a sync; wait so that the memory the
    // transfer writes is not reused under it.
    nb_op_finish(*op);
    live_unlink(my_slot(), op);
    nb_op_release(op);
    return;
  }
  misuse(fmt::format("a non-blocking handle was destroyed without pgas::sync() or a successful "
                     "pgas::test() (UPC requires every handle to be completed); its transfer ({}) "
                     "started",
                     op->name),
         op->where);
}

std::uint64_t nb_handle_value(nb_handle&& h) noexcept {
  nb_op* op = h.op();
  if (op == nullptr) return 0;
  const std::uint64_t count =
      (upc_values_made.fetch_add(1, std::memory_order_relaxed) + 1) & upc_value_count_mask;
  op->upc_value =
      upc_value_tag | (static_cast<std::uint64_t>(op->owner) << upc_value_thread_shift) | count;
  h.mark_spent();
  return op->upc_value;
}

bool nb_value_complete(std::uint64_t value, bool wait, const char* call,
                       std::source_location where) {
  const job& j = job_or_misuse(where, call);
  const auto thread = static_cast<std::int64_t>((value & ~upc_value_tag) >> upc_value_thread_shift);
  const std::uint64_t count = value & upc_value_count_mask;
  if ((value & (std::uint64_t{0xff} << 56)) != upc_value_tag || thread >= j.threads || count == 0 ||
      count > upc_values_made.load(std::memory_order_relaxed)) {
    misuse(fmt::format("{}() of {}, a value that no upc_memcpy_nb, upc_memget_nb, upc_memput_nb "
                       "or upc_memset_nb call returned (a handle must hold such a value or "
                       "UPC_COMPLETE_HANDLE: is it uninitialised?)",
                       call, upc_value_name(value)),
           where);
  }
  if (!tls_job_thread || tls_mythread != thread) {
    misuse(fmt::format("{}() of a handle that thread {} started (only that thread may complete "
                       "it)",
                       call, thread),
           where);
  }
  nb_thread* t = my_slot_if_any();
  nb_op* op = t != nullptr ? t->live : nullptr;
  while (op != nullptr && op->upc_value != value)
    op = op->live_next;
  if (op == nullptr) {
    misuse(fmt::format("{}() of a handle already completed (by upc_sync or a successful "
                       "upc_sync_attempt) or started in an earlier job ({})",
                       call, upc_value_name(value)),
           where);
  }
  if (wait) {
    nb_op_finish(*op);
  } else if (!nb_op_complete(*op)) {
    return false;
  }
  live_unlink(*t, op);
  nb_op_release(op);
  return true;
}

}  // namespace detail

namespace {

// The names a transfer's reports give: the pgas function's, or the UPC function's when a
// function of pgas/upc.hpp called it (pgas/detail/upc_call.hpp).
struct copy_names {
  const char* name;
  const char* source;
  const char* destination;
};

copy_names shown(const copy_names& pgas_names, const copy_names& upc_names) noexcept {
  return detail::shown_name(pgas_names.name) == pgas_names.name ? pgas_names : upc_names;
}

// Both spellings of the names of the transfer `fn` ("memcpy_nb").
#define PGAS_COPY_NAMES(fn)                                                                \
  copy_names{"pgas::" fn, "pgas::" fn " source", "pgas::" fn " destination"}, copy_names { \
    "upc_" fn, "upc_" fn " source", "upc_" fn " destination"                               \
  }

}  // namespace

nb_handle memcpy_nb(sptr<void> dst, sptr<const void> src, std::size_t n,
                    std::source_location where) {
  const copy_names c = shown(PGAS_COPY_NAMES("memcpy_nb"));
  return nb_handle::from_op(
      detail::start_copy(dst, src, n, false, c.name, c.source, c.destination, where));
}

nb_handle memget_nb(void* dst, sptr<const void> src, std::size_t n, std::source_location where) {
  const copy_names c = shown(PGAS_COPY_NAMES("memget_nb"));
  return nb_handle::from_op(
      detail::start_get(dst, src, n, false, c.name, c.source, c.destination, where));
}

nb_handle memput_nb(sptr<void> dst, const void* src, std::size_t n, std::source_location where) {
  const copy_names c = shown(PGAS_COPY_NAMES("memput_nb"));
  return nb_handle::from_op(
      detail::start_put(dst, src, n, false, c.name, c.source, c.destination, where));
}

nb_handle memset_nb(sptr<void> dst, int c, std::size_t n, std::source_location where) {
  const copy_names names = shown(PGAS_COPY_NAMES("memset_nb"));
  return nb_handle::from_op(
      detail::start_set(dst, c, n, false, names.name, names.destination, where));
}

void memcpy_nbi(sptr<void> dst, sptr<const void> src, std::size_t n, std::source_location where) {
  const copy_names c = shown(PGAS_COPY_NAMES("memcpy_nbi"));
  detail::start_copy(dst, src, n, true, c.name, c.source, c.destination, where);
}

void memget_nbi(void* dst, sptr<const void> src, std::size_t n, std::source_location where) {
  const copy_names c = shown(PGAS_COPY_NAMES("memget_nbi"));
  detail::start_get(dst, src, n, true, c.name, c.source, c.destination, where);
}

void memput_nbi(sptr<void> dst, const void* src, std::size_t n, std::source_location where) {
  const copy_names c = shown(PGAS_COPY_NAMES("memput_nbi"));
  detail::start_put(dst, src, n, true, c.name, c.source, c.destination, where);
}

void memset_nbi(sptr<void> dst, int c, std::size_t n, std::source_location where) {
  const copy_names names = shown(PGAS_COPY_NAMES("memset_nbi"));
  detail::start_set(dst, c, n, true, names.name, names.destination, where);
}

void sync(nb_handle& h, std::source_location where) {
  if (h == complete_handle) return;
  constexpr const char* name = "pgas::sync";
  detail::nb_op* op =
      detail::owned_op(h, detail::shown_name(name) == name ? "pgas::sync()" : "upc_sync()", where);
  detail::nb_op_finish(*op);
  detail::complete(h, op);
}

bool test(nb_handle& h, std::source_location where) {
  if (h == complete_handle) return true;
  constexpr const char* name = "pgas::test";
  detail::nb_op* op = detail::owned_op(
      h, detail::shown_name(name) == name ? "pgas::test()" : "upc_sync_attempt()", where);
  if (!detail::nb_op_complete(*op)) return false;
  detail::complete(h, op);
  return true;
}

void synci(std::source_location) {
  detail::nb_thread* t = detail::my_slot_if_any();
  if (t == nullptr) return;
  for (detail::nb_op* op : t->implicit) {
    detail::nb_op_finish(*op);
    detail::nb_op_release(op);
  }
  t->implicit.clear();
}

bool testi(std::source_location) {
  detail::nb_thread* t = detail::my_slot_if_any();
  if (t == nullptr) return true;
  // Completed ones are released now (unobservable: only the answer for all of them counts).
  std::erase_if(t->implicit, [](detail::nb_op* op) {
    if (!detail::nb_op_complete(*op)) return false;
    detail::nb_op_release(op);
    return true;
  });
  return t->implicit.empty();
}

#undef PGAS_COPY_NAMES

std::size_t nb_threshold() noexcept {
  const detail::job* j = detail::job_current();
  return j != nullptr ? j->nb_threshold : detail::nb_default_threshold;
}

}  // namespace pgas
