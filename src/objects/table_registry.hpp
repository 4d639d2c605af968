// src/table_registry.hpp — the job's list of privatization tables (src/privatize.cpp), for the
// `pgasrun --report tables` report printed when the job ends.
#pragma once

#include <string>

namespace pgas::detail {

/// Every table the job built: array, layout kind, policy, levels, entries, bytes per replica,
/// replicas, total and mapped bytes, overhead against the array's data, live or freed, and
/// where it was built.
std::string tables_report();

/// Forgets the job's tables (called when a job ends).
void tables_job_end() noexcept;

}  // namespace pgas::detail
