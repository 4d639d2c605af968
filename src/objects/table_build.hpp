// src/objects/table_build.hpp — what the runtime's own shared arrays ask of the table build
// (src/objects/table_build.cpp) beyond the entry points of pgas/detail/table_index.hpp.
#pragma once

#include <cstddef>

#include <pgas/layout.hpp>
#include <pgas/table_model.hpp>

namespace pgas::detail {

/// True when shared arrays may build automatic tables: the running job's tables mode
/// (PGAS_TABLES, read by the run options), true outside a job.
bool tables_auto_enabled() noexcept;
/// Whether an automatic table pays for `l`: it applies and all replicas together cost at most
/// 1/32 of the data. Identical on every thread.
bool table_auto_pays(const layout& l, std::size_t element_size, const table_shape& shape,
                     const replica_plan& plan);
/// The replica plan of the running job.
replica_plan job_replica_plan(replicate policy);

}  // namespace pgas::detail
