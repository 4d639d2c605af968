// src/objects/static_shared.cpp — the out-of-line parts of static shared objects
// (pgas/static_shared.hpp): the error for an extent that evaluates to a negative number, and
// the collective freeing of a static lock. The registry and the calls at job start and end
// are in src/job/static_registry.cpp.

#include <fmt/format.h>

#include <pgas/static_shared.hpp>

namespace pgas {

namespace detail {

void static_extent_error(std::size_t dimension, long long value,
                         const std::source_location& where) {
  misuse(fmt::format("cannot create a static shared array: extent {} evaluates to {} for "
                     "THREADS = {}",
                     dimension, value, threads()),
         where);
}

}  // namespace detail

void static_lock::thread_destroy() noexcept {
  all_lock_free(std::exchange(mine(), lock_t{}), declared_at());
}

}  // namespace pgas
