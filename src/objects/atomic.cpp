// src/objects/atomic.cpp — atomic domains (pgas/atomic.hpp, UPC upc_atomicdomain_t): making and
// freeing them collectively, the UPC-form entries that take the type from the domain, isfast,
// and the misuse reports of the inline fast path.
//
// Domains live in a process-wide pool that is never unmapped, and freed ones are quarantined
// before reuse (as locks are), so an operation through a freed domain reads an empty set of
// operations and is reported rather than applied.

#include <fmt/format.h>

#include <bit>
#include <deque>
#include <mutex>
#include <string>

#include <pgas/atomic.hpp>
#include <pgas/detail/upc_call.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>

#include "src/job/barrier.hpp"
#include "src/job/collective.hpp"
#include "src/job/job.hpp"

namespace pgas::detail {

atomicdomain atomic_null_domain;

namespace {

constexpr std::size_t quarantine = 1024;

struct domain_pool {
  std::mutex mutex;
  std::uint32_t serials = 0;
  std::deque<atomicdomain> domains;  // deque: growing never moves existing domains
  std::deque<atomicdomain*> freed;   // FIFO, reused only past the quarantine length
};

domain_pool& pool() {
  static domain_pool* p = new domain_pool;  // never destroyed: handles may outlive teardown
  return *p;
}

atomicdomain* pool_get(atomic_type type, std::uint32_t ops, atomic_hint hint,
                       const std::source_location& where) {
  domain_pool& p = pool();
  std::lock_guard g(p.mutex);
  atomicdomain* d = nullptr;
  if (p.freed.size() > quarantine) {
    d = p.freed.front();
    p.freed.pop_front();
  } else {
    d = &p.domains.emplace_back();
  }
  d->type_ = type;
  d->hint_ = hint;
  d->serial_ = ++p.serials;
  d->allocated_at_ = where;
  d->freed_.store(false, std::memory_order_relaxed);
  d->ops_.store(ops, std::memory_order_release);
  return d;
}

void pool_put(atomicdomain* d) {
  domain_pool& p = pool();
  std::lock_guard g(p.mutex);
  d->ops_.store(0, std::memory_order_relaxed);
  d->freed_.store(true, std::memory_order_release);
  p.freed.push_back(d);
}

constexpr const char* op_names[] = {"GET",  "SET",  "CSWAP", "ADD", "SUB",  "MULT", "INC",  "DEC",
                                    "AND",  "OR",   "XOR",   "MIN", "MAX",  "FADD", "FSUB", "FMULT",
                                    "FINC", "FDEC", "FAND",  "FOR", "FXOR", "FMIN", "FMAX"};

std::string ops_text(std::uint32_t ops) {
  std::string s;
  for (std::uint32_t bits = ops & atomic_all_ops; bits != 0; bits &= bits - 1) {
    if (!s.empty()) s += '|';
    s += op_names[std::countr_zero(bits)];
  }
  if (ops & ~atomic_all_ops)
    s += fmt::format("{}unknown bits {:#x}", s.empty() ? "" : "|", ops & ~atomic_all_ops);
  return s.empty() ? "none" : s;
}

// One operation's name; for a mask that is not one operation, the mask.
std::string op_text(std::uint32_t op) {
  return op != 0 && (op & (op - 1)) == 0 && (op & atomic_all_ops) ? op_names[std::countr_zero(op)]
                                                                  : fmt::format("{:#x}", op);
}

const char* type_text(atomic_type t) {
  switch (t) {
    case atomic_type::int_:
      return "int (UPC_INT)";
    case atomic_type::uint_:
      return "unsigned (UPC_UINT)";
    case atomic_type::long_:
      return "long (UPC_LONG)";
    case atomic_type::ulong_:
      return "unsigned long (UPC_ULONG)";
    case atomic_type::int32:
      return "int32_t (UPC_INT32)";
    case atomic_type::uint32:
      return "uint32_t (UPC_UINT32)";
    case atomic_type::int64:
      return "int64_t (UPC_INT64)";
    case atomic_type::uint64:
      return "uint64_t (UPC_UINT64)";
    case atomic_type::float_:
      return "float (UPC_FLOAT)";
    case atomic_type::double_:
      return "double (UPC_DOUBLE)";
    case atomic_type::pts:
      return "shared void * (UPC_PTS)";
  }
  return nullptr;
}

const char* hint_text(atomic_hint h) {
  switch (h) {
    case atomic_hint::default_:
      return "default";
    case atomic_hint::latency:
      return "latency";
    case atomic_hint::throughput:
      return "throughput";
  }
  return nullptr;
}

bool floating(atomic_type t) {
  return t == atomic_type::float_ || t == atomic_type::double_;
}

// The operations of `ops` that `type` does not define: bitwise ones for float and double,
// all but GET, SET and CSWAP for UPC_PTS; and why, for the report.
std::uint32_t undefined_ops(atomic_type type, std::uint32_t ops, const char** why) {
  if (type == atomic_type::pts) {
    *why = "UPC_PTS supports only GET, SET and CSWAP";
    return ops & atomic_all_ops & ~atomic_pts_ops;
  }
  *why = "bitwise operations need an integer type";
  return floating(type) ? ops & atomic_bitwise_ops : 0;
}

std::size_t size_of(atomic_type t) {
  switch (t) {
    case atomic_type::int_:
    case atomic_type::uint_:
    case atomic_type::int32:
    case atomic_type::uint32:
    case atomic_type::float_:
      return 4;
    default:
      return 8;
  }
}

std::string domain_text(const atomicdomain& d) {
  return fmt::format("atomic domain #{} ({}, made at {}:{})", d.serial_, type_text(d.type_),
                     d.allocated_at_.file_name(), d.allocated_at_.line());
}

// Misuse of a domain argument (null, never made, freed) for `what`, or returns it.
atomicdomain& live_domain(atomicdomain* d, const char* what, const std::source_location& where) {
  if (d == nullptr || d == &atomic_null_domain) {
    misuse(fmt::format("{} through no atomic domain (a null domain, or a default-constructed or "
                       "moved-from pgas::atomic_domain)",
                       what),
           where);
  }
  if (d->freed_.load(std::memory_order_acquire)) {
    misuse(fmt::format("{} through {}, which was freed", what, domain_text(*d)), where);
  }
  return *d;
}

// The UPC form for one type: checks, applies, writes the fetched value.
template <class T>
void apply_upc_form(atomicdomain& d, void* fetch_ptr, std::uint32_t op, void* target,
                    const void* operand1, const void* operand2, atomic_order o,
                    const std::source_location& where) {
  T* t = static_cast<T*>(target);
  atomic_check(d, op, t, where);
  atomic_trace(op, t, sizeof(T), where);
  const T a = operand1 != nullptr ? *static_cast<const T*>(operand1) : T();
  const T b = operand2 != nullptr ? *static_cast<const T*>(operand2) : T();
  T old;
  if constexpr (std::is_same_v<T, sptr<void>>) {
    old = atomic_apply_pts(op, t, a, b, o);
  } else {
    old = atomic_apply(op, t, a, b, o);
  }
  if (fetch_ptr != nullptr) *static_cast<T*>(fetch_ptr) = old;
}

void upc_form(atomicdomain* domain, void* fetch_ptr, atomic_op op, sptr<void> target,
              const void* operand1, const void* operand2, atomic_order o,
              const std::source_location& where) {
  const char* what =
      shown_name(o == atomic_order::strict ? "pgas::atomic_strict" : "pgas::atomic_relaxed");
  atomicdomain& d = live_domain(domain, what, where);
  const auto bit = static_cast<std::uint32_t>(op);
  atomic_check_upc_form(bit, fetch_ptr, operand1, operand2, where);
  void* t = static_cast<void*>(target);
  switch (d.type_) {
    case atomic_type::int_:
    case atomic_type::int32:
      return apply_upc_form<int>(d, fetch_ptr, bit, t, operand1, operand2, o, where);
    case atomic_type::uint_:
    case atomic_type::uint32:
      return apply_upc_form<unsigned>(d, fetch_ptr, bit, t, operand1, operand2, o, where);
    case atomic_type::long_:
    case atomic_type::int64:
      return apply_upc_form<long>(d, fetch_ptr, bit, t, operand1, operand2, o, where);
    case atomic_type::ulong_:
    case atomic_type::uint64:
      return apply_upc_form<unsigned long>(d, fetch_ptr, bit, t, operand1, operand2, o, where);
    case atomic_type::float_:
      return apply_upc_form<float>(d, fetch_ptr, bit, t, operand1, operand2, o, where);
    case atomic_type::double_:
      return apply_upc_form<double>(d, fetch_ptr, bit, t, operand1, operand2, o, where);
    case atomic_type::pts:
      return apply_upc_form<sptr<void>>(d, fetch_ptr, bit, t, operand1, operand2, o, where);
  }
}

}  // namespace

void atomic_refuse(const atomicdomain* d, std::uint32_t op, const void* target, std::size_t size,
                   const std::source_location& where) {
  const std::string what = fmt::format("atomic {}", op_text(op));
  live_domain(const_cast<atomicdomain*>(d), what.c_str(), where);
  const std::uint32_t set = d->ops_.load(std::memory_order_relaxed);
  if ((set & op) == 0) {
    const char* why = nullptr;
    if (undefined_ops(d->type_, op, &why) != 0) {
      misuse(fmt::format("{} is not defined for {} ({})", what, type_text(d->type_), why), where);
    }
    misuse(fmt::format("{} is not in the operations of {}, which are {}", what, domain_text(*d),
                       ops_text(set)),
           where);
  }
  const auto a = reinterpret_cast<std::uintptr_t>(target);
  if (target == nullptr) misuse(fmt::format("{} on a null target", what), where);
  if (a % size != 0) {
    misuse(fmt::format("{} on target {} that is not aligned to its {} bytes", what, target, size),
           where);
  }
  misuse(fmt::format("{} on target {}, which is not in the shared space{}", what, target,
                     geometry.span == 0 ? " (no job is running)" : ""),
         where);
}

void atomic_refuse_upc_form(std::uint32_t op, const void* fetch_ptr, const void* operand1,
                            const void* operand2, const std::source_location& where) {
  if (op == 0 || (op & (op - 1)) != 0 || (op & ~atomic_all_ops) != 0) {
    misuse(fmt::format("atomic operation {} is not exactly one operation ({})", op_text(op),
                       ops_text(op)),
           where);
  }
  const char* missing = fetch_ptr == nullptr && (op & atomic_needs_fetch)     ? "fetch_ptr"
                        : operand1 == nullptr && (op & atomic_needs_operand1) ? "operand1"
                                                                              : "operand2";
  (void)operand2;
  misuse(fmt::format("atomic {} with a null {} (it needs one)", op_text(op), missing), where);
}

}  // namespace pgas::detail

namespace pgas {

atomicdomain* all_atomicdomain_alloc(atomic_type type, atomic_ops ops, atomic_hint hints,
                                     std::source_location where) {
  const std::uint32_t bits = ops.bits();
  const char* name = detail::shown_name("pgas::all_atomicdomain_alloc");
  if (detail::type_text(type) == nullptr) {
    detail::misuse(fmt::format("{}: unknown type code {}", name, static_cast<int>(type)), where);
  }
  if (detail::hint_text(hints) == nullptr) {
    detail::misuse(fmt::format("{}: unknown hint {}", name, static_cast<int>(hints)), where);
  }
  if (bits == 0) {
    detail::misuse(fmt::format("{}: the set of operations is empty (a domain supports at least "
                               "one)",
                               name),
                   where);
  }
  if ((bits & ~detail::atomic_all_ops) != 0) {
    detail::misuse(fmt::format("{}: the set of operations {:#x} holds bits {:#x} that are no "
                               "operation",
                               name, bits, bits & ~detail::atomic_all_ops),
                   where);
  }
  const char* why = nullptr;
  if (const std::uint32_t undefined = detail::undefined_ops(type, bits, &why); undefined != 0) {
    detail::misuse(fmt::format("{}: {} is not defined for {} ({})", name,
                               detail::ops_text(undefined), detail::type_text(type), why),
                   where);
  }
  detail::job* j = detail::job_current();
  if (j == nullptr) return detail::pool_get(type, bits, hints, where);
  const detail::barrier_op op =
      detail::agreement(detail::op_kind::atomicdomain_alloc, name, "domain",
                        fmt::format("type={}, ops={}, hint={}", detail::type_text(type),
                                    detail::ops_text(bits), detail::hint_text(hints)),
                        where);
  void* mine = mythread() == 0 ? detail::pool_get(type, bits, hints, where) : nullptr;
  return static_cast<atomicdomain*>(detail::collective_bcast(*j, op, mine));
}

void all_atomicdomain_free(atomicdomain* domain, std::source_location where) {
  const char* name = detail::shown_name("pgas::all_atomicdomain_free");
  atomicdomain& d = detail::live_domain(domain, name, where);
  detail::job* j = detail::job_current();
  if (j == nullptr) return detail::pool_put(&d);
  // Freed by the last arriver, before anyone leaves (as pgas::all_lock_free).
  detail::barrier_op op = detail::agreement(detail::op_kind::atomicdomain_free, name, "domain",
                                            fmt::format("domain=#{}", d.serial_), where);
  op.last = [](const void* arg) {
    detail::pool_put(const_cast<atomicdomain*>(static_cast<const atomicdomain*>(arg)));
  };
  op.last_arg = &d;
  detail::barrier_arrive(*j, op);
  detail::barrier_complete(*j);
}

void atomic_strict(atomicdomain* domain, void* fetch_ptr, atomic_op op, sptr<void> target,
                   const void* operand1, const void* operand2, std::source_location where) {
  detail::upc_form(domain, fetch_ptr, op, target, operand1, operand2, atomic_order::strict, where);
}

void atomic_relaxed(atomicdomain* domain, void* fetch_ptr, atomic_op op, sptr<void> target,
                    const void* operand1, const void* operand2, std::source_location where) {
  detail::upc_form(domain, fetch_ptr, op, target, operand1, operand2, atomic_order::relaxed, where);
}

bool atomic_isfast(atomic_type type, atomic_ops ops, sptr<void> addr) noexcept {
  const std::uint32_t bits = ops.bits();
  if (detail::type_text(type) == nullptr || (bits & ~detail::atomic_all_ops) != 0) return false;
  const char* why = nullptr;
  if (detail::undefined_ops(type, bits, &why) != 0) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(static_cast<void*>(addr));
  const std::uint64_t offset = a - reinterpret_cast<std::uintptr_t>(detail::geometry.base);
  static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free &&
                std::atomic_ref<std::uint32_t>::is_always_lock_free &&
                std::atomic_ref<double>::is_always_lock_free &&
                std::atomic_ref<float>::is_always_lock_free);
  return offset < detail::geometry.span && a % detail::size_of(type) == 0;
}

}  // namespace pgas
