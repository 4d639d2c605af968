// src/objects/bulk.cpp — the report of the bulk copies' always-on range check
// (pgas/detail/bulk_check.hpp): pgas::memget/memput/memcpy/memset, their UPC names, and the
// shared side of every non-blocking transfer.

#include <fmt/format.h>

#include <pgas/detail/bulk_check.hpp>
#include <pgas/error.hpp>

namespace pgas::detail {

void bulk_range_misuse(sptr<const void> p, std::size_t n, const char* what,
                       const std::source_location& where) {
  if (geometry.segment == 0) {
    misuse(fmt::format("{}: no job is running, so there is no shared memory to copy {} byte{}",
                       what, n, n == 1 ? "" : "s"),
           where);
  }
  if (p.word() == 0) misuse(fmt::format("{} is the null pointer-to-shared", what), where);
  if ((p.word() & offset_mask) >= geometry.span) {
    misuse(fmt::format("{}: its thread {} is not below THREADS ({})", what, p.thread(),
                       geometry.threads),
           where);
  }
  misuse(fmt::format("{}: {} byte{} from address {:#x} of thread {} run past the end of its "
                     "segment ({} bytes)",
                     what, n, n == 1 ? "" : "s", p.addrfield(), p.thread(), geometry.segment),
         where);
}

}  // namespace pgas::detail
