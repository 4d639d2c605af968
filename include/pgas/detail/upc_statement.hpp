// pgas/detail/upc_statement.hpp — the machinery behind <pgas/upc.hpp>: the object that makes
// `upc_barrier;` and `upc_barrier(id);` both statements, the translation of UPC's integer codes
// (upc_op_t, upc_type_t, upc_atomichint_t) to pgas's enums, and the record that lets upc_free
// take back a distributed allocation by its pointer.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <source_location>
#include <string>
#include <type_traits>

#include <pgas/alloc.hpp>
#include <pgas/atomic.hpp>
#include <pgas/detail/upc_call.hpp>
#include <pgas/error.hpp>
#include <pgas/lock.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sptr.hpp>
#include <pgas/sync.hpp>
#include <pgas/upc_collectives.hpp>

/// UPC's opaque lock type (<pgas/upc.hpp>); only `upc_lock_t *` is used.
struct upc_lock_t;

namespace pgas::detail {
static_assert(sizeof(lock_t) == sizeof(upc_lock_t*) && std::is_trivially_copyable_v<lock_t>,
              "a upc_lock_t * carries a pgas::lock_t bit for bit");
inline lock_t upc_lock_of(upc_lock_t* l) noexcept {
  return std::bit_cast<lock_t>(l);
}
inline upc_lock_t* upc_lock_ptr(lock_t l) noexcept {
  return std::bit_cast<upc_lock_t*>(l);
}

enum class upc_statement_kind { barrier, notify, wait };

/// What `upc_barrier` expands to: a temporary that either is called with an id
/// (`upc_barrier(id);` runs barrier(id)) or is not (`upc_barrier;` runs barrier() when the
/// temporary dies at the end of the statement). The call site is the macro's.
class upc_statement {
 public:
  upc_statement(upc_statement_kind kind, std::source_location where) noexcept
      : kind_(kind), where_(where) {}
  upc_statement(const upc_statement&) = delete;
  upc_statement& operator=(const upc_statement&) = delete;

  void operator()(int id) && {
    done_ = true;
    const upc_call_scope call = scope();
    switch (kind_) {
      case upc_statement_kind::barrier:
        pgas::barrier(id, where_);
        break;
      case upc_statement_kind::notify:
        pgas::notify(id, where_);
        break;
      case upc_statement_kind::wait:
        pgas::wait(id, where_);
        break;
    }
  }
  // Outside a job the calls throw pgas::usage_error (pgas/error.hpp): let it through.
  ~upc_statement() noexcept(false) {
    if (done_) return;
    const upc_call_scope call = scope();
    switch (kind_) {
      case upc_statement_kind::barrier:
        pgas::barrier(where_);
        break;
      case upc_statement_kind::notify:
        pgas::notify(where_);
        break;
      case upc_statement_kind::wait:
        pgas::wait(where_);
        break;
    }
  }

 private:
  // Reports name the statement as written (upc_notify at f:l), not its pgas call.
  upc_call_scope scope() const noexcept {
    switch (kind_) {
      case upc_statement_kind::barrier:
        return {"upc_barrier", "pgas::barrier"};
      case upc_statement_kind::notify:
        return {"upc_notify", "pgas::notify"};
      case upc_statement_kind::wait:
        break;
    }
    return {"upc_wait", "pgas::wait"};
  }

  upc_statement_kind kind_;
  bool done_ = false;
  std::source_location where_;
};

/// UPC_ADD … UPC_NONCOMM_FUNC as a collective's operation; anything else is misuse.
inline reduce_op upc_reduce_op(unsigned op, const char* call, const std::source_location& where) {
  switch (op) {
    case static_cast<unsigned>(atomic_op::add):
      return reduce_op::add;
    case static_cast<unsigned>(atomic_op::mult):
      return reduce_op::mult;
    case static_cast<unsigned>(atomic_op::and_):
      return reduce_op::bit_and;
    case static_cast<unsigned>(atomic_op::or_):
      return reduce_op::bit_or;
    case static_cast<unsigned>(atomic_op::xor_):
      return reduce_op::bit_xor;
    case static_cast<unsigned>(atomic_op::min):
      return reduce_op::min;
    case static_cast<unsigned>(atomic_op::max):
      return reduce_op::max;
    case 1u << 23:
      return reduce_op::log_and;
    case 1u << 24:
      return reduce_op::log_or;
    case 1u << 25:
      return reduce_op::func;
    case 1u << 26:
      return reduce_op::noncomm_func;
    default:
      break;
  }
  misuse(std::string(call) + ": operation " + std::to_string(op) +
             " is not one of UPC_ADD, UPC_MULT, UPC_AND, UPC_OR, UPC_XOR, UPC_LOGAND, UPC_LOGOR, "
             "UPC_MIN, UPC_MAX, UPC_FUNC, UPC_NONCOMM_FUNC",
         where);
}

inline constexpr unsigned upc_collective_only_ops = 0xfu << 23;

/// UPC operation bits for the atomics: misuse when they include an operation of the
/// collectives only (pgas checks the others).
inline std::uint32_t upc_atomic_bits(unsigned ops, const char* call,
                                     const std::source_location& where) {
  if ((ops & upc_collective_only_ops) != 0) {
    misuse(std::string(call) +
               ": UPC_LOGAND, UPC_LOGOR, UPC_FUNC and UPC_NONCOMM_FUNC are operations of the "
               "collectives, not of the atomics",
           where);
  }
  return ops;
}
/// A set of UPC operations for an atomic domain.
inline atomic_ops upc_atomic_ops(unsigned ops, const std::source_location& where) {
  return atomic_ops::from_bits(upc_atomic_bits(ops, "upc_all_atomicdomain_alloc", where));
}
/// One UPC operation for upc_atomic_strict / upc_atomic_relaxed.
inline atomic_op upc_atomic_op(unsigned op, const std::source_location& where) {
  return static_cast<atomic_op>(upc_atomic_bits(op, "upc_atomic_strict/relaxed", where));
}
inline atomic_type upc_atomic_type(int type, const std::source_location& where) {
  if (type < static_cast<int>(atomic_type::int_) || type > static_cast<int>(atomic_type::pts))
    misuse("upc_all_atomicdomain_alloc: type " + std::to_string(type) +
               " is not one of UPC_INT … UPC_DOUBLE, UPC_PTS",
           where);
  return static_cast<atomic_type>(type);
}
inline atomic_hint upc_atomic_hint(int hint, const std::source_location& where) {
  if (hint < 0 || hint > static_cast<int>(atomic_hint::throughput))
    misuse("upc_all_atomicdomain_alloc: hint " + std::to_string(hint) +
               " is not one of UPC_ATOMIC_HINT_DEFAULT, _LATENCY, _THROUGHPUT",
           where);
  return static_cast<atomic_hint>(hint);
}

// The distributed allocations made through upc_all_alloc / upc_global_alloc and not yet freed,
// by the address field of the pointer returned (on thread 0): upc_free gets a pointer, and
// pgas::free needs the allocation. One record per process, as there is one job at a time.
struct upc_alloc_entry {
  shared_alloc alloc;
  int lookups = 0;  // threads of a upc_all_free that have found it
};
struct upc_alloc_record {
  std::mutex mutex;
  std::map<std::size_t, upc_alloc_entry> live;
};
inline upc_alloc_record& upc_allocations() {
  static upc_alloc_record r;
  return r;
}

inline sptr<void> upc_alloc_remember(const shared_alloc& a, const std::source_location& where) {
  if (!a) return nullptr;
  {
    upc_alloc_record& r = upc_allocations();
    std::lock_guard g(r.mutex);
    // Every thread of upc_all_alloc records it; the first one makes the entry.
    auto [it, made] = r.live.try_emplace(a.offset(), upc_alloc_entry{a, 0});
    if (!made && it->second.alloc != a) it->second = upc_alloc_entry{a, 0};
  }
  return sptr<char>::from_parts(0, a.offset(), 0, where);
}

/// The allocation `p` names, forgotten (an empty one when it names none). For a collective
/// free every thread must find it, so the last of the job's threads to look forgets it — before
/// any thread leaves the free's barrier, hence before the offset can be handed out again.
inline shared_alloc upc_alloc_forget(sptr<const void> p, bool collective) {
  upc_alloc_record& r = upc_allocations();
  std::lock_guard g(r.mutex);
  if (p.thread() != 0) return {};
  auto it = r.live.find(p.addrfield());
  if (it == r.live.end()) return {};
  const shared_alloc a = it->second.alloc;
  if (!collective || ++it->second.lookups == threads()) r.live.erase(it);
  return a;
}

}  // namespace pgas::detail
