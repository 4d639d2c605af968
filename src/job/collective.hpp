// src/job/collective.hpp — what every collective operation shares: the agreement check (all
// threads passed the same arguments) and the one-to-all broadcast of thread 0's result.
//
// Every collective's barrier carries a 32-bit hash of its arguments in the arrival word, so the
// CAS that counts an arrival also checks that this thread agrees with the others (barrier.cpp);
// the arguments as text are kept in the thread's record for the mismatch report, which names
// each thread's call with its file and line.
#pragma once

#include <cstdint>
#include <source_location>
#include <string_view>

#include "src/job/barrier.hpp"
#include "src/job/job.hpp"

namespace pgas::detail {

/// The barrier operation of a collective `name` (e.g. "pgas::all_alloc") of kind `kind`, whose
/// arguments, as `text` ("nblocks=4, nbytes=100"), every thread must pass alike. `label` says
/// what the text is about in reports ("arguments", "layout", "table"). The text is copied into
/// a per-thread buffer that stays valid until this thread's next agreement (a thread is in one
/// collective at a time), as the report of another thread's mismatch may read it meanwhile.
barrier_op agreement(op_kind kind, const char* name, const char* label, std::string_view text,
                     const std::source_location& where);

/// The 32-bit hash of an agreement text (what agreement() puts in the barrier), for
/// collectives that keep their own text buffer.
std::uint32_t agreement_hash(std::string_view text) noexcept;

/// One-to-all broadcast inside a collective operation: thread 0's `value` is returned on every
/// thread. Contains one barrier of `op` (so it is checked against the other threads' calls like
/// any barrier).
void* collective_bcast(job& j, const barrier_op& op, void* value);

}  // namespace pgas::detail
