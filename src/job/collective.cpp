// src/job/collective.cpp — the agreement check and broadcast every collective uses (see
// collective.hpp). The hash is 32-bit FNV-1a over the argument text: a mismatch that collides
// goes undetected with probability 2^-32, and the text is what reports show.

#include "src/job/collective.hpp"

#include <cstdint>
#include <string>

#include <pgas/runtime.hpp>

namespace pgas::detail {

std::uint32_t agreement_hash(std::string_view s) noexcept {
  std::uint32_t h = 2166136261u;
  for (const char c : s)
    h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

barrier_op agreement(op_kind kind, const char* name, const char* label, std::string_view text,
                     const std::source_location& where) {
  thread_local std::string args;
  args.assign(text);
  return barrier_op{kind,  name,  true,        static_cast<std::int32_t>(agreement_hash(args)),
                    label, where, args.c_str()};
}

void* collective_bcast(job& j, const barrier_op& op, void* value) {
  thread_record& me = j.record(mythread());
  // Double buffering: broadcast k writes slot k%2; a slow reader of broadcast k has passed
  // broadcast k's barrier but may not have read yet, and slot k%2 is next written by broadcast
  // k+2, whose barrier that reader must reach first.
  std::atomic<void*>& slot = j.bcast[me.broadcasts++ & 1];
  if (mythread() == 0) slot.store(value, std::memory_order_relaxed);
  barrier_arrive(j, op);
  barrier_complete(j);
  return slot.load(std::memory_order_relaxed);
}

}  // namespace pgas::detail
