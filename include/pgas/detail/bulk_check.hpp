// pgas/detail/bulk_check.hpp — the range check of the bulk copies (pgas/bulk.hpp). Not part of
// the API.
#pragma once

#include <cstddef>
#include <source_location>

#include <pgas/config.hpp>
#include <pgas/detail/geometry.hpp>
#include <pgas/detail/sptr_word.hpp>
#include <pgas/sptr.hpp>

namespace pgas::detail {

// Checked builds: the shared side of a bulk call must lie inside one live allocation (misuse,
// pgas/error.hpp, otherwise). Other builds check nothing.
inline void check_bulk(sptr<const void> p, std::size_t n, const char* what,
                       const std::source_location& where) {
  if constexpr (config::bounds_check) {
    if (n != 0) check_shared_range(p.word() & offset_mask, n, what, &where);
  }
}

}  // namespace pgas::detail
