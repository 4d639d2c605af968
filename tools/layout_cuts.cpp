// tools/layout_cuts.cpp — `pgas-layout --cuts`: parses the loop box, the access offsets and the
// node size, asks pgas::cut_plan for every thread's runs and pgas::cut_formula_of for the
// paper's cut values (Cut_i, Cut^Upper, Cut^Lower) of each tile a thread's runs lie in, and
// prints them as text or JSON. Every number comes from the model forall_cuts uses.

#include "layout_cuts.hpp"

#include <charconv>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <pgas/error.hpp>

#include "cli.hpp"

namespace pgas::tools {
namespace {

using json = nlohmann::ordered_json;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? at : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

std::optional<std::ptrdiff_t> parse_signed(std::string_view text) {
  std::ptrdiff_t v = 0;
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::string array_text(const declaration& d, const pgas::layout& l) {
  return fmt::format("{}[{}]", d.name(), fmt::join(l.extents(), "]["));
}

// A[i0+1][i1-2] for offset k.
std::string access_text(const declaration& d, const std::vector<std::ptrdiff_t>& k) {
  std::string s = d.name();
  for (std::size_t x = 0; x < k.size(); ++x) {
    if (k[x] == 0)
      s += fmt::format("[i{}]", x);
    else
      s += fmt::format("[i{}{:+}]", x, k[x]);
  }
  return s;
}

std::string box_text(std::span<const std::size_t> lo, std::span<const std::size_t> hi) {
  std::vector<std::string> dims;
  for (std::size_t x = 0; x < lo.size(); ++x)
    dims.push_back(fmt::format("[{}, {})", lo[x], hi[x]));
  return fmt::format("{}", fmt::join(dims, " x "));
}

// The model's misuse arrives as pgas::usage_error "pgas: <what> at FILE:LINE": the file and
// line are this tool's, so the user sees <what> only.
[[noreturn]] void refuse(const pgas::usage_error& e) {
  std::string what = e.what();
  if (what.starts_with("pgas: ")) what.erase(0, 6);
  if (const auto at = what.rfind(" at "); at != std::string::npos) what.erase(at);
  throw usage_error(fmt::format("--cuts: {}", what));
}

// Past this many tiles met by the box the report runs to gigabytes and the plans, which hold
// every run, may not fit in memory: refused, as --json leaves out owners past 2^20 elements.
constexpr double max_cut_tiles = 1 << 20;

// Refuses a box that meets more than max_cut_tiles tiles. The tiles are an empty plan's (cheap);
// a box the model refuses is left to the plans, whose message names it as given.
void check_tile_count(const pgas::layout& l, const cuts_request& r) {
  std::vector<pgas::interval> corner;
  for (const pgas::interval& v : r.box) {
    if (v.lo >= v.hi) return;
    corner.emplace_back(v.lo, v.lo);
  }
  std::vector<std::size_t> tile;
  try {
    const pgas::cut_plan probe(l, pgas::box(corner), pgas::offsets(r.offsets), 0);
    tile.assign(probe.tile().begin(), probe.tile().end());
  } catch (const pgas::usage_error&) {
    return;
  }
  double tiles = 1;
  for (std::size_t d = 0; d < tile.size(); ++d) {
    const auto lo = static_cast<std::size_t>(r.box[d].lo);
    const auto hi = static_cast<std::size_t>(r.box[d].hi);
    tiles *= static_cast<double>((hi - 1) / tile[d] - lo / tile[d] + 1);
  }
  if (tiles > max_cut_tiles) {
    throw usage_error(fmt::format(
        "--cuts: the box meets {:.0f} tiles of [{}], more than pgas-layout reports ({:.0f}): "
        "give a smaller box (the runs repeat from tile to tile)",
        tiles, fmt::join(tile, "]["), max_cut_tiles));
  }
}

std::vector<pgas::cut_plan> plans_of(const pgas::layout& l, const cuts_request& r) {
  check_tile_count(l, r);
  std::vector<pgas::cut_plan> plans;
  try {
    const pgas::box b(r.box);
    const pgas::offsets k(r.offsets);
    for (int t = 0; t < l.threads(); ++t)
      plans.emplace_back(l, b, k, t, pgas::cut_options{.threads_per_node = r.threads_per_node});
  } catch (const pgas::usage_error& e) {
    refuse(e);
  }
  return plans;
}

// The tiles a plan's runs lie in, in order, each with its runs.
struct tile_group {
  std::vector<std::size_t> coords;
  std::size_t linear = 0;
  std::vector<pgas::cut_run> runs;
};

std::vector<tile_group> tiles_of(const pgas::layout& l, const pgas::cut_plan& p) {
  std::vector<tile_group> groups;
  for (const pgas::cut_run& run : p.runs()) {
    std::vector<std::size_t> c(p.rank());
    std::size_t linear = 0;
    for (std::size_t d = 0; d < p.rank(); ++d) {
      c[d] = run.lo[d] / p.tile()[d];
      linear = linear * ((l.extent(d) + p.tile()[d] - 1) / p.tile()[d]) + c[d];
    }
    if (groups.empty() || groups.back().coords != c) groups.push_back({c, linear, {}});
    groups.back().runs.push_back(run);
  }
  return groups;
}

std::string cut_values_text(const pgas::cut_formula& f) {
  std::string s;
  for (std::size_t d = 0; d < f.cut.size(); ++d)
    s += fmt::format("Cut_{} = {}, ", d, f.cut[d]);
  const auto value = [](std::ptrdiff_t v) { return v < 0 ? std::string("-") : std::to_string(v); };
  s += fmt::format("Cut^Upper = {}, Cut^Lower = {}", value(f.upper), value(f.lower));
  return s;
}

}  // namespace

cuts_request parse_cuts(const std::string& box, const std::vector<std::string>& offsets,
                        const std::string& threads_per_node, const declaration& d,
                        const pgas::layout& l) {
  cuts_request r;
  const std::vector<std::string> dims = split(box, ',');
  for (const std::string& dim : dims) {
    const std::vector<std::string> ends = split(dim, ':');
    const auto lo = ends.size() == 2 ? parse_count(ends[0]) : std::nullopt;
    const auto hi = ends.size() == 2 ? parse_count(ends[1]) : std::nullopt;
    if (!lo || !hi) {
      throw usage_error(fmt::format(
          "--cuts '{}': expected lo:hi (whole numbers) for each dimension of {}, separated by "
          "commas",
          box, array_text(d, l)));
    }
    // Past PTRDIFF_MAX an end would wrap to a negative index in the model's interval.
    for (const std::size_t end : {*lo, *hi}) {
      if (end > static_cast<std::size_t>(PTRDIFF_MAX)) {
        throw usage_error(fmt::format("--cuts '{}': {} lies beyond every extent of {}", box, end,
                                      array_text(d, l)));
      }
    }
    r.box.emplace_back(*lo, *hi);
  }
  if (r.box.size() != l.rank()) {
    throw usage_error(fmt::format("--cuts '{}': {} range{} for the {} dimension{} of {}", box,
                                  r.box.size(), r.box.size() == 1 ? "" : "s", l.rank(),
                                  l.rank() == 1 ? "" : "s", array_text(d, l)));
  }
  if (offsets.empty())
    throw usage_error(
        "--cuts needs at least one --offset k0,k1,... (an access A[i0+k0][i1+k1]...)");
  for (const std::string& text : offsets) {
    std::vector<std::ptrdiff_t> k;
    for (const std::string& part : split(text, ',')) {
      const auto v = parse_signed(part);
      if (!v) {
        throw usage_error(fmt::format(
            "--offset '{}': expected integers separated by commas, one per dimension of {}", text,
            array_text(d, l)));
      }
      k.push_back(*v);
    }
    // An offset as long as its dimension leaves the array for every iteration; refused here,
    // before the model adds it to an index (where 2^63 - 1 would wrap).
    for (std::size_t x = 0; x < k.size() && x < l.rank(); ++x) {
      const auto extent = static_cast<std::ptrdiff_t>(l.extent(x));
      if (k[x] >= extent || k[x] <= -extent) {
        throw usage_error(fmt::format(
            "--offset '{}': the access moves by {} along dimension {}, whose extent is {}, so it "
            "leaves {} for every iteration",
            text, k[x], x, extent, array_text(d, l)));
      }
    }
    if (k.size() != l.rank()) {
      throw usage_error(fmt::format("--offset '{}': {} value{} for the {} dimension{} of {}", text,
                                    k.size(), k.size() == 1 ? "" : "s", l.rank(),
                                    l.rank() == 1 ? "" : "s", array_text(d, l)));
    }
    r.offsets.push_back(std::move(k));
  }
  if (r.offsets.size() > pgas::max_cut_accesses) {
    throw usage_error(
        fmt::format("{} --offset options: at most {}", r.offsets.size(), pgas::max_cut_accesses));
  }
  const auto tpn = parse_count(threads_per_node);
  if (!tpn || *tpn < 1 || *tpn > static_cast<std::size_t>(l.threads())) {
    throw usage_error(
        fmt::format("--threads-per-node '{}': expected a number from 1 to THREADS ({})",
                    threads_per_node, l.threads()));
  }
  r.threads_per_node = static_cast<int>(*tpn);
  return r;
}

std::string cuts_report(const declaration& d, const pgas::layout& l, const cuts_request& r) {
  const std::vector<pgas::cut_plan> plans = plans_of(l, r);
  const int tpn = r.threads_per_node;
  std::string out;
  out += fmt::format("{}, THREADS = {}, {} thread{} per node\n",
                     l.declaration(d.type().name, d.name()), l.threads(), tpn, tpn == 1 ? "" : "s");
  std::vector<std::size_t> lo;
  std::vector<std::size_t> hi;
  std::vector<std::string> index;
  for (std::size_t x = 0; x < r.box.size(); ++x) {
    lo.push_back(static_cast<std::size_t>(r.box[x].lo));
    hi.push_back(static_cast<std::size_t>(r.box[x].hi));
    index.push_back(fmt::format("[i{}]", x));
  }
  out += fmt::format("  loop:     {}, affinity &{}{}\n", box_text(lo, hi), d.name(),
                     fmt::join(index, ""));
  for (std::size_t a = 0; a < r.offsets.size(); ++a) {
    out += fmt::format("  {} {}: {}, offset ({})\n", a == 0 ? "accesses:" : "         ", a,
                       access_text(d, r.offsets[a]), fmt::join(r.offsets[a], ", "));
  }
  out += fmt::format("  tiles:    [{}]; Cut values count from the tile's first index\n",
                     fmt::join(plans.front().tile(), "]["));
  out += fmt::format(
      "  runs:     iterations, local when every access is {}, then each access's\n"
      "            owner (* when remote)\n",
      tpn == 1 ? "the iterating thread's" : "on the iterating thread's node");
  for (const pgas::cut_plan& p : plans) {
    out += fmt::format("\nThread {}{}: {} iteration{}, {} local, {} remote, {} run{}\n", p.thread(),
                       tpn == 1 ? std::string() : fmt::format(" (node {})", p.thread() / tpn),
                       p.iterations(), p.iterations() == 1 ? "" : "s", p.local_iterations(),
                       p.iterations() - p.local_iterations(), p.runs().size(),
                       p.runs().size() == 1 ? "" : "s");
    for (const tile_group& g : tiles_of(l, p)) {
      out += fmt::format("  tile ({})\n", fmt::join(g.coords, ", "));
      for (std::size_t a = 0; a < r.offsets.size(); ++a) {
        out += fmt::format("    access {}: {}\n", a,
                           cut_values_text(pgas::cut_formula_of(l, g.linear, r.offsets[a], tpn)));
      }
      for (const pgas::cut_run& run : g.runs) {
        std::vector<std::string> owners;
        for (const pgas::cut_target& t : p.targets(run))
          owners.push_back(fmt::format("T{}{}", t.owner, t.local ? "" : "*"));
        out += fmt::format("    {:<24} {:<6}  {}\n",
                           box_text({run.lo.data(), p.rank()}, {run.hi.data(), p.rank()}),
                           run.local ? "local" : "remote", fmt::join(owners, " "));
      }
    }
  }
  return out;
}

std::string cuts_json(const declaration& d, const pgas::layout& l, const cuts_request& r) {
  const std::vector<pgas::cut_plan> plans = plans_of(l, r);
  json j;
  j["declaration"] = l.declaration(d.type().name, d.name());
  j["threads"] = l.threads();
  j["threads_per_node"] = r.threads_per_node;
  json box = json::array();
  for (const pgas::interval& v : r.box)
    box.push_back({v.lo, v.hi});
  j["loop"] = box;
  j["offsets"] = r.offsets;
  j["tile"] = std::vector<std::size_t>(plans.front().tile().begin(), plans.front().tile().end());
  json per = json::array();
  for (const pgas::cut_plan& p : plans) {
    json tiles = json::array();
    for (const tile_group& g : tiles_of(l, p)) {
      json cuts = json::array();
      for (const auto& k : r.offsets) {
        const pgas::cut_formula f = pgas::cut_formula_of(l, g.linear, k, r.threads_per_node);
        cuts.push_back({{"cut", f.cut},
                        {"upper", f.upper < 0 ? json(nullptr) : json(f.upper)},
                        {"lower", f.lower < 0 ? json(nullptr) : json(f.lower)}});
      }
      json runs = json::array();
      for (const pgas::cut_run& run : g.runs) {
        json owners = json::array();
        json local = json::array();
        for (const pgas::cut_target& t : p.targets(run)) {
          owners.push_back(t.owner);
          local.push_back(t.local);
        }
        runs.push_back(
            {{"lo", std::vector<std::size_t>(
                        run.lo.begin(), run.lo.begin() + static_cast<std::ptrdiff_t>(p.rank()))},
             {"hi", std::vector<std::size_t>(
                        run.hi.begin(), run.hi.begin() + static_cast<std::ptrdiff_t>(p.rank()))},
             {"local", run.local},
             {"owners", owners},
             {"owner_local", local}});
      }
      tiles.push_back({{"tile", g.coords}, {"cuts", cuts}, {"runs", runs}});
    }
    per.push_back({{"thread", p.thread()},
                   {"node", p.thread() / r.threads_per_node},
                   {"iterations", p.iterations()},
                   {"local_iterations", p.local_iterations()},
                   {"tiles", tiles}});
  }
  j["per_thread"] = per;
  return j.dump() + "\n";
}

}  // namespace pgas::tools
