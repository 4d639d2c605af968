// src/objects/shared_array.cpp — the out-of-line parts of shared arrays (pgas/shared_array.hpp):
// the creation barrier that checks every thread made the same array, and the error paths (an
// invalid layout at creation and, in checked builds, an index outside the extents).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <pgas/shared_array.hpp>

#include <string>

#include "src/base/os.hpp"
#include "src/job/barrier.hpp"
#include "src/job/collective.hpp"
#include "src/job/job.hpp"
#include "src/objects/table_build.hpp"

namespace pgas::detail {

void index_error(std::span<const std::size_t> index, std::span<const std::size_t> extents,
                 const std::source_location& where) {
  std::string shown;
  for (std::size_t d = 0; d < index.size(); ++d) {
    // An index written as a negative number arrives as a huge unsigned one; show it signed.
    const auto v = index[d];
    shown += fmt::format("{}{}", d == 0 ? "" : ", ",
                         v > (~std::size_t{0} >> 1) ? fmt::format("{}", static_cast<long long>(v))
                                                    : fmt::format("{}", v));
  }
  std::string dims;
  for (std::size_t e : extents)
    dims += fmt::format("[{}]", e);
  misuse(fmt::format("shared array index ({}) is out of range for an array of extents {}", shown,
                     dims),
         where);
}

void layout_error(const char* what, const std::source_location& where) {
  misuse(fmt::format("cannot create a shared array: {}", what), where);
}

void shared_array_check_storage(const void* object, const std::source_location& where) {
  // Only inside a job: outside one the creation fails anyway (no shared space), and a
  // namespace-scope array constructed before main() gets that usage_error.
  if (job_current() == nullptr || !os_in_static_storage(object)) return;
  misuse(
      "a pgas::shared_array with static storage duration (a block-scope `static`, or one inside "
      "a global) is created inside the job: only one thread runs a static's initialisation "
      "while the others wait for it, so its collective creation can never complete; declare it "
      "at namespace scope as pgas::static_array (<pgas/static_shared.hpp>), or create it in the "
      "body and pass it on",
      where);
}

void shared_array_agree(const pgas::layout& l, std::size_t element_size,
                        const std::source_location& where) {
  // The declaration is what the threads must agree on, and what a mismatch report shows.
  job& j = *job_current();
  barrier_arrive(
      j,
      agreement(op_kind::all_alloc, "pgas::shared_array", "layout",
                fmt::format("{}, {}-byte elements", l.declaration("T", "A"), element_size), where));
  barrier_complete(j);
}

table_ref shared_array_table(const pgas::layout& l, std::size_t element_size, char* data0,
                             table_shape* shape, const std::source_location& where) {
  // Every input is the same on every thread (checked by shared_array_agree), so every thread
  // takes the same branch and table_build is called by all or none.
  if (!tables_auto_enabled() || !table_shape::why_not(l).empty()) return {};
  try {
    *shape = table_shape(l, table_levels::one, false);
  } catch (const table_error&) {
    return {};  // too many pointers to count: certainly too many to pay
  }
  if (shape->entries() == 0) return {nullptr, reinterpret_cast<const void* const*>(data0)};
  if (!table_auto_pays(l, element_size, *shape, job_replica_plan(replicate::automatic))) return {};
  return table_build(l, element_size, data0, *shape, replicate::automatic, true, nullptr, where);
}

}  // namespace pgas::detail
