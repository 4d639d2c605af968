// src/objects/bulk.cpp — the reports of the bulk copies' always-on argument checks
// (pgas/detail/bulk_check.hpp): pgas::memget/memput/memcpy/memset, their UPC names, and every
// non-blocking transfer.

#include <fmt/format.h>

#include <pgas/detail/bulk_check.hpp>
#include <pgas/error.hpp>

namespace pgas::detail {

void bulk_range_misuse(sptr<const void> p, std::size_t n, const char* what,
                       const std::source_location& where) {
  if (geometry.segment == 0) {
    misuse(fmt::format("{}: no job is running (outside pgas::run there is no shared memory)", what),
           where);
  }
  if ((p.word() & offset_mask) == 0) {
    misuse(fmt::format("{} is the null pointer-to-shared", what), where);
  }
  if ((p.word() & offset_mask) >= geometry.span) {
    misuse(fmt::format("{} is not a valid pointer-to-shared: its thread, {}, is not below "
                       "THREADS ({})",
                       what, p.thread(), geometry.threads),
           where);
  }
  if (n > geometry.segment || p.addrfield() > geometry.segment - n) {
    misuse(fmt::format("{}: {} byte{} from address {:#x} of thread {} run{} past the end of its "
                       "segment (address {:#x})",
                       what, n, n == 1 ? "" : "s", p.addrfield(), p.thread(), n == 1 ? "s" : "",
                       geometry.segment),
           where);
  }
  // Inside the segment, but not in its mapped part (geometry.hpp): memory no allocation of
  // that thread ever reached, which the copy would fault on.
  const std::uint64_t half = geometry.segment / 2;
  misuse(fmt::format("{}: {} byte{} from address {:#x} of thread {} are not inside any shared "
                     "allocation (thread {}'s segment has held allocations only in [0, {:#x}) "
                     "and [{:#x}, {:#x}); the rest of it is not mapped)",
                     what, n, n == 1 ? "" : "s", p.addrfield(), p.thread(), p.thread(),
                     geometry.symmetric_committed->load(std::memory_order_relaxed), half,
                     half + geometry.local_committed[static_cast<std::size_t>(p.thread())].load(
                                std::memory_order_relaxed)),
         where);
}

void bulk_null_misuse(const char* what, const std::source_location& where) {
  misuse(fmt::format("{} is a null pointer", what), where);
}

void bulk_overlap_misuse(const void* dst, const void* src, std::size_t n, const char* call,
                         const std::source_location& where) {
  misuse(fmt::format("{}: source and destination overlap ({} byte{} at {} and at {}; UPC leaves "
                     "an overlapping copy undefined)",
                     call, n, n == 1 ? "" : "s", src, dst),
         where);
}

}  // namespace pgas::detail
