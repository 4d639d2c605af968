// src/shared_array.cpp — the out-of-line error paths of shared arrays (pgas/shared_array.hpp):
// an invalid layout at creation and, in checked builds, an index outside the extents.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <pgas/shared_array.hpp>

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

}  // namespace pgas::detail
