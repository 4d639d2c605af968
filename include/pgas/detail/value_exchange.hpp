// pgas/detail/value_exchange.hpp — the machinery under pgas/collectives.hpp: per-thread slots
// that each thread fills with its value before one checked barrier and that every thread reads
// after it (src/job/value.cpp).
//
// Each thread owns two slots, used alternately by its value collectives (the n-th uses slot
// n % 2). A thread that has left collective n may fill its slot for collective n+1 while a
// slower thread still reads collective n's values, which are in the other slot; it can fill
// that one again only in collective n+2, whose barrier the slow thread reaches only after it
// has finished reading. So one barrier per collective suffices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <typeinfo>

#include <pgas/detail/export.hpp>

namespace pgas::detail {

/// Values up to this size travel in the slot's own cache line; larger ones in a buffer the
/// slot owns (grown on demand, freed when the job ends).
inline constexpr std::size_t value_inline_bytes = 40;

struct alignas(64) value_slot {
  unsigned char bytes[value_inline_bytes];
  const void* ptr = nullptr;      // a published address (span forms), or null
  unsigned char* heap = nullptr;  // values beyond value_inline_bytes
  std::size_t heap_bytes = 0;
};
static_assert(sizeof(value_slot) == 64);

/// One thread's slots, and the scratch buffer of the span forms. Written only by the owner;
/// read by the others between the barriers that the collectives' protocol puts around it.
struct value_slots {
  value_slot slot[2];
  unsigned char* scratch = nullptr;
  std::size_t scratch_bytes = 0;

  value_slots() = default;
  value_slots(const value_slots&) = delete;
  value_slots& operator=(const value_slots&) = delete;
  ~value_slots() {
    delete[] slot[0].heap;
    delete[] slot[1].heap;
    delete[] scratch;
  }
};

/// The value collectives, each its own kind of barrier for the agreement check.
enum class value_kind : std::uint8_t {
  broadcast,
  reduce,
  allreduce,
  scan,
  exscan,
  allgather,
  allreduce_span
};

/// Where the values of one collective lie after its barrier: thread t's value is at(t), or
/// the address it published is pointer(t).
struct value_view {
  const value_slots* all = nullptr;
  int parity = 0;
  bool heap = false;
  const void* result = nullptr;  // the combined result, when the call had a combine function
  // Small jobs' values of at most 8 bytes with a combine function travel in 8-byte slots
  // beside the barrier's arrival word instead (src/job/value.cpp): thread t's is at
  // packed + 8 * t, readable by the combine function only.
  const unsigned char* packed = nullptr;

  const void* at(int t) const noexcept {
    if (packed != nullptr) return packed + 8 * t;
    const value_slot& s = all[t].slot[parity];
    return heap ? static_cast<const void*>(s.heap) : static_cast<const void*>(s.bytes);
  }
  const void* pointer(int t) const noexcept { return all[t].slot[parity].ptr; }
};

/// What every thread must pass alike (checked in the barrier), and what it publishes.
// The field order is about how the runtime reads a call that the caller has just written.
// A load is forwarded from the store buffer only when one store covers it, and a stall
// otherwise costs more than the rest of a small allreduce: so no two small fields that the
// runtime compares are adjacent (a compiler would read them with one wider load spanning
// two stores), and constants alternate with loaded values (a compiler would write two
// adjacent constants with one 16-byte store, whose upper half an 8-byte load cannot take).
struct value_call {
  value_kind kind;
  std::size_t size;   // sizeof(T)
  const char* type;   // T's name
  int root;           // broadcast and reduce; -1 for the others
  std::size_t count;  // elements per thread
  const char* op;     // the operation's name; null for broadcast and allgather
  // Optional, for results of at most value_result_bytes: run once, by the last thread to
  // arrive, after every thread has published and before any leaves, to write the result into
  // `result`; value_view::result then points to it on every thread. `op_object` is the calling
  // thread's operation.
  void (*combine)(const value_view& w, void* result, const void* op_object) = nullptr;
  const void* op_object = nullptr;
  // A plain function passed as the operation: its address, which every thread must pass alike
  // too (two functions of one type have one name); null for any other operation.
  const void* op_function = nullptr;
};

/// The largest result a combine function may write.
inline constexpr std::size_t value_result_bytes = 56;

/// The collective step: checks `c` (root in range; misuse otherwise), copies `c.size *
/// c.count` bytes from `data` into this thread's next slot (nothing when `data` is null) and
/// records `address` there, then arrives at a barrier of c's kind whose agreement covers c,
/// and waits. Outside a job: misuse (pgas::usage_error).
PGAS_API value_view value_exchange(const value_call& c, const void* data, const void* address,
                                   const std::source_location& where);

/// Values of at most value_line_bytes bytes, in jobs of at most value_line_threads threads,
/// travel beside the barrier's arrival word instead of in the slots: every thread stores its
/// value there right before its arrival and copies every thread's value out right at the
/// release, so the exchange moves exactly a barrier's cache lines (src/job/value.cpp).
inline constexpr std::size_t value_line_bytes = 8;
inline constexpr int value_line_threads = 3;

/// Every thread's value of one such exchange: thread t's at at(t).
struct value_line {
  alignas(8) unsigned char bytes[value_line_bytes * value_line_threads];
  const void* at(int t) const noexcept { return bytes + value_line_bytes * t; }
};

/// The small jobs' exchange: for a call of at most value_line_bytes in all (c.size * c.count)
/// in a job of at most value_line_threads threads, what value_exchange does (the same checks,
/// agreement and barrier), with every thread's value copied into `out`, then true. `data`
/// null: this thread contributes nothing (its bytes in `out` are undefined). Returns false,
/// having done nothing, in any other case (a larger job, no job, a root out of range, a call
/// between notify and wait): call value_exchange then, which also reports the misuse.
PGAS_API bool value_line_exchange(const value_call& c, const void* data,
                                  const std::source_location& where, value_line& out);

/// This thread's scratch buffer of at least `bytes` bytes, owned by the job: for the span
/// forms, which publish it in their second exchange.
PGAS_API void* value_scratch(std::size_t bytes);

/// The readable name of a type ("double", "std::plus<void>").
PGAS_API std::string type_name(const std::type_info& t);

/// type_name(typeid(X)), made once per type.
template <class X>
const char* name_of() {
  static const std::string name = type_name(typeid(X));
  return name.c_str();
}

}  // namespace pgas::detail
