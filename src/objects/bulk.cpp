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
  misuse(fmt::format("{}: {} byte{} from address {:#x} of thread {} run{} past the end of its "
                     "segment (address {:#x})",
                     what, n, n == 1 ? "" : "s", p.addrfield(), p.thread(), n == 1 ? "s" : "",
                     geometry.segment),
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
