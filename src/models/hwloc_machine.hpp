// src/models/hwloc_machine.hpp — turning an hwloc topology into a pgas::machine.
//
// machine::current() and the runtime share this: the runtime keeps the hwloc handle of the
// current machine for binding threads, while the public machine value is a plain summary.
#pragma once

#include <hwloc.h>

#include <memory>

#include <pgas/topology.hpp>

namespace pgas::detail {

struct hwloc_topology_deleter {
  void operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
};
using topology_handle = std::unique_ptr<hwloc_topology, hwloc_topology_deleter>;

/// Loads this machine restricted to the calling thread's allowed CPUs. Throws topology_error.
topology_handle topology_load_current();

/// Summarises a loaded topology; `source` ends up in the description.
machine machine_from_hwloc(hwloc_topology_t topo, std::string_view source, bool current);

}  // namespace pgas::detail
