// pgas/detail/static_registry.hpp — the process-wide registry of static shared objects
// (pgas/static_shared.hpp): what a namespace-scope declaration registers, and what pgas::run
// calls on it (src/job/static_registry.cpp). Not part of the API.
#pragma once

#include <pgas/detail/export.hpp>

#include <source_location>

namespace pgas::detail {

/// A static shared object. Its constructor registers it (static_register); pgas::run then,
/// for every registered object in registration order:
///   job_begin(threads)   once, on the thread that called run(), before any thread starts;
///   thread_create()      on every job thread before its body (collective, in order);
///   thread_destroy()     on every job thread after its body (collective, in reverse order);
///   job_end()            once, after the join.
/// The order is the same on every thread: one process, one registry.
class PGAS_API static_object {
 public:
  const std::source_location& declared_at() const noexcept { return where_; }
  /// What it is, as the program names it ("pgas::static_array").
  const char* kind() const noexcept { return kind_; }

 protected:
  /// Registers the object; misuse (ending the job) when a job is running: a block-scope static
  /// or a dynamically created object cannot take part in the job's collective creation.
  static_object(const char* kind, std::source_location where);
  ~static_object();
  static_object(const static_object&) = delete;
  static_object& operator=(const static_object&) = delete;

  /// Misuse naming the declaration: the object was used where no job runs (or from a thread
  /// of no job), so it has no storage.
  [[noreturn]] void no_job_error() const;

 private:
  // Called by pgas::run only (src/job/static_registry.cpp), through static_registry_access.
  friend struct static_registry_access;
  virtual void job_begin(int threads) = 0;
  virtual void thread_create() = 0;
  virtual void thread_destroy() noexcept = 0;
  virtual void job_end() noexcept = 0;

  const char* kind_;
  std::source_location where_;
};

}  // namespace pgas::detail
