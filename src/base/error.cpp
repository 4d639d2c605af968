// src/base/error.cpp — the error door (pgas/error.hpp): every always-on misuse check ends here.
// Inside a job it ends the job through the fault reporter, naming the thread; outside a job it
// throws pgas::usage_error with the same text, so the behaviour is one rule for every call.

#include <fmt/format.h>

#include <pgas/detail/identity.hpp>
#include <pgas/error.hpp>

#include "src/base/backtrace.hpp"
#include "src/base/faults.hpp"

namespace pgas::detail {

void misuse(std::string_view what, const std::source_location& where) {
  if (!job_live.load(std::memory_order_acquire)) {
    throw usage_error(fmt::format("pgas: {} at {}", what, where_string(where)));
  }
  fault_end_job(fmt::format("{}: {} at {}", fault_who(), what, where_string(where)), 1);
}

void misuse_here(std::string_view what) {
  if (!job_live.load(std::memory_order_acquire)) {
    throw usage_error(fmt::format("pgas: {}", what));
  }
  if (!fault_claim()) fault_park();
  // One report: the message, then where the call came from (the first frame outside the
  // runtime is the caller's; with debug information, its line, also through inlined code).
  std::string frames = backtrace_format(backtrace_of_self(0), "  ");
  if (!frames.empty() && frames.back() == '\n') frames.pop_back();
  fault_end_job(fmt::format("{}: {}; backtrace:\n{}", fault_who(), what, frames), 1);
}

}  // namespace pgas::detail
