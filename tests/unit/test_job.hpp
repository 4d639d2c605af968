// tests/unit/test_job.hpp — run_options for unit tests that start jobs: an explicit thread
// count, binding off unless asked for (tests must not depend on the CI machine's CPUs), and
// nothing taken from a PGAS_* environment the test runner might inherit.
#pragma once

#include <pgas/runtime.hpp>

inline pgas::run_options test_job(int threads, pgas::bind_policy bind = pgas::bind_policy::none) {
  pgas::run_options o;
  o.threads = threads;
  o.bind_to = bind;
  o.map_by = pgas::map_policy::core;
  o.report_bindings = false;
  o.topology = "";
  return o;
}
