// alloc/shared_check.cpp — the checked build's test that a pointer-to-shared or a bulk copy
// stays inside one live allocation (detail::check_shared_range, pgas/detail/geometry.hpp).
//
// A symmetric-region offset must fall inside one live all_alloc/global_alloc allocation (the
// heap's exact live map); a local-region offset inside what the owner's arena has carved so
// far (jemalloc hands out sub-ranges of those extents, so this check is coarser).

#include <fmt/format.h>

#include <pgas/detail/geometry.hpp>
#include <pgas/error.hpp>

#include "alloc/space.hpp"

namespace pgas::detail {

void check_shared_range(std::uint64_t offset, std::size_t bytes, std::string_view what,
                        const std::source_location* where) {
  const space* s = space_current();
  std::string why;
  if (s == nullptr) {
    why = "no job is running";
  } else if (offset == 0) {
    why = "it is the null pointer-to-shared";
  } else if (offset >= geometry.span) {
    why = fmt::format("its thread {} is not below THREADS ({})", offset >> geometry.shift,
                      geometry.threads);
  } else {
    const int owner = static_cast<int>(offset >> geometry.shift);
    const std::size_t addr = offset & (geometry.segment - 1);
    bool ok = false;
    if (addr < s->symmetric_size()) {
      ok = s->heap->contains(addr, bytes);
    } else {
      const std::size_t local = addr - s->symmetric_size();
      const std::size_t top = s->account(owner).local_top.load(std::memory_order_relaxed);
      ok = local < top && bytes <= top - local;
    }
    if (ok) return;
    why = fmt::format(
        "{} byte{} at address {:#x} of thread {} are not inside one live shared "
        "allocation",
        bytes, bytes == 1 ? "" : "s", addr, owner);
  }
  const std::string message = fmt::format("{}: {}", what, why);
  if (where != nullptr) misuse(message, *where);
  // No call site to name (operator*, operator->): the backtrace shows it.
  misuse_here(message);
}

}  // namespace pgas::detail
