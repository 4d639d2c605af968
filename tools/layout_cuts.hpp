// tools/layout_cuts.hpp — `pgas-layout --cuts`: each thread's runs of a loop box split by
// locality cuts (pgas/cuts.hpp), with the paper's cut values per tile, as text or JSON.
#pragma once

#include <string>
#include <vector>

#include <pgas/cut_model.hpp>
#include <pgas/layout.hpp>

#include "declaration.hpp"

namespace pgas::tools {

/// What --cuts, --offset and --threads-per-node asked for, parsed and checked.
struct cuts_request {
  std::vector<pgas::interval> box;
  std::vector<std::vector<std::ptrdiff_t>> offsets;
  int threads_per_node = 1;
};

/// Parses "lo:hi,lo:hi,…", the offsets "k0,k1,…" and the node size against the declaration;
/// throws usage_error naming the option and what it expects.
cuts_request parse_cuts(const std::string& box, const std::vector<std::string>& offsets,
                        const std::string& threads_per_node, const declaration& d,
                        const pgas::layout& l);

/// The report: every thread's runs and the cut values of each of its tiles. Throws usage_error
/// for what the model refuses (an access leaving the array, a block that is not a tile).
std::string cuts_report(const declaration& d, const pgas::layout& l, const cuts_request& r);
std::string cuts_json(const declaration& d, const pgas::layout& l, const cuts_request& r);

}  // namespace pgas::tools
