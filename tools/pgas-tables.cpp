// tools/pgas-tables.cpp — `pgas-tables [--threads N|A..B] [--replicate POLICY] … DECL...`: the
// memory inter-thread privatization tables (Serres et al., section IV) cost for declared UPC shared
// arrays, per thread count, as a table or one JSON object per thread count.
//
// Every figure comes from the library: layouts from tools/declaration.hpp (pgas::layout), table
// sizes from pgas::table_shape, replica counts from pgas::plan_replicas over pgas::place; this
// file only adds them up, with every sum checked for overflow, and chooses how to show them.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <pgas/config.hpp>
#include <pgas/table_model.hpp>
#include <pgas/topology.hpp>

#include "cli.hpp"
#include "declaration.hpp"

namespace {

using pgas::tools::declaration;
using pgas::tools::declaration_error;
using pgas::tools::exit_usage;
using pgas::tools::one_line;
using pgas::tools::usage_error;
using json = nlohmann::ordered_json;

// Offline planning is bounded by what stays quick to compute, not by -Dmax_threads.
constexpr int max_threads = 1'000'000;

[[noreturn]] void fail(int status, const std::string& message) {
  pgas::tools::fail("pgas-tables", status, message);
}

// What the command line asks for.
struct options {
  int first = 1;  // the thread counts first..last
  int last = 1;
  pgas::replicate policy = pgas::replicate::automatic;
  pgas::map_policy map = pgas::map_policy::core;
  std::size_t pointer_size = 8;
  pgas::table_levels levels = pgas::table_levels::one;
  bool sort_dims = false;
  bool as_json = false;
  bool topology_given = false;
};

// "N" or "A..B".
void parse_threads(const std::string& text, options& o) {
  const std::size_t dots = text.find("..");
  const auto a = pgas::tools::parse_count(text.substr(0, dots));
  const auto b = dots == std::string::npos ? a : pgas::tools::parse_count(text.substr(dots + 2));
  for (const auto& v : {a, b}) {
    if (!v || *v < 1 || *v > static_cast<std::size_t>(max_threads)) {
      throw usage_error(fmt::format(
          "--threads '{}': expected a number of threads N or a range A..B, from 1 to {}", text,
          max_threads));
    }
  }
  if (*a > *b) {
    throw usage_error(
        fmt::format("--threads '{}': the range starts above its end ({} > {})", text, *a, *b));
  }
  o.first = static_cast<int>(*a);
  o.last = static_cast<int>(*b);
}

std::size_t parse_pointer_size(const std::string& text) {
  const auto v = pgas::tools::parse_count(text);
  if (!v || (*v != 2 && *v != 4 && *v != 8 && *v != 16)) {
    throw usage_error(fmt::format("--pointer-size '{}': expected 2, 4, 8 or 16 bytes", text));
  }
  return *v;
}

// ---------------------------------------------------------------------------------------------
// The figures for each thread count.

struct array_cost {
  pgas::table_shape shape;
  std::size_t table_bytes = 0;  // one replica
  std::size_t data_bytes = 0;

  bool operator==(const array_cost& o) const {
    return shape.which() == o.shape.which() && shape.level_entries() == o.shape.level_entries() &&
           table_bytes == o.table_bytes && data_bytes == o.data_bytes;
  }
};

// One thread count's totals over all arrays.
struct row {
  int threads = 0;
  pgas::replicate policy = pgas::replicate::single;  // resolved
  int replicas = 0;
  std::size_t data_bytes = 0;
  std::size_t table_bytes = 0;  // one replica of every array's table
  std::size_t table_bytes_total = 0;
};

// a + b, or a usage error naming `what` when that overflows 64 bits.
std::size_t add(std::size_t a, std::size_t b, const char* what, int threads) {
  std::size_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw usage_error(fmt::format("{} overflows 64 bits with THREADS = {}", what, threads));
  return r;
}

std::vector<array_cost> array_costs(const std::vector<declaration>& decls, const options& o,
                                    int threads) {
  std::vector<array_cost> costs;
  for (const declaration& d : decls) {
    const pgas::layout l = d.layout_for(threads);
    array_cost a;
    try {
      a.shape = pgas::table_shape(l, o.levels, o.sort_dims);
      a.table_bytes = a.shape.bytes(o.pointer_size);
    } catch (const pgas::table_error& e) {
      // The library names the array generically ("shared [5] T A[4][3]"); name it as declared.
      std::string why = e.what();
      const std::string generic = l.declaration("T", "A");
      if (const auto at = why.find(generic); at != std::string::npos)
        why.replace(at, generic.size(), l.declaration(d.type().name, d.name()));
      throw usage_error(fmt::format("'{}' with THREADS = {}: {}", d.text(), threads, why));
    }
    // layout_for() guarantees that one array's bytes fit 64 bits; their sum is checked below.
    a.data_bytes = l.size() * d.type().size;
    costs.push_back(std::move(a));
  }
  return costs;
}

// The replicas of jobs of o.first..o.last threads on `m`. plan_replicas() answers for one job;
// calling it for every count of a long range would cost time quadratic in the range. The
// library's plan for `last` threads answers for every count up to it: place() deals threads
// in an order that does not depend on their number (pgas/topology.hpp), so a job of T threads
// is the first T of them, and plan_replicas() numbers replicas by their first user, so those
// T threads use replicas 0 .. max(replica_of[0..T-1]). `auto` resolves per job: per-numa when
// its threads span several NUMA nodes — when its per-numa plan has several replicas — else
// single, one replica either way. Direct calls check this for every count of a range when
// they are cheap (up to 2^22 threads placed: 1..2048, say), else for its ends.
class replica_counter {
 public:
  replica_counter(const pgas::machine& m, const options& o) {
    const auto placement = pgas::place(m, o.last, pgas::bind_policy::core, o.map);
    auto_ = o.policy == pgas::replicate::automatic;
    plan_ = pgas::plan_replicas(m, placement, auto_ ? pgas::replicate::per_numa : o.policy);
    for (const pgas::thread_place& p : placement)
      numa_.push_back(m.pus()[static_cast<std::size_t>(p.pu)].numa);
    constexpr std::int64_t check_budget = std::int64_t{1} << 22;  // threads placed
    const bool check_all = std::int64_t{o.last} * (o.last - o.first + 1) <= check_budget;
    for (int t = o.first; t <= o.last; t = check_all || t == o.last ? t + 1 : o.last) {
      const auto direct =
          pgas::plan_replicas(m, pgas::place(m, t, pgas::bind_policy::core, o.map), o.policy);
      const auto [policy, count] = at(t);
      if (direct.count() != count || direct.policy != policy) {
        throw std::logic_error(fmt::format(
            "internal error: {} replicas ({}) for {} threads, where plan_replicas() plans {} ({})",
            count, pgas::to_string(policy), t, direct.count(), pgas::to_string(direct.policy)));
      }
    }
  }
  // The resolved policy and the number of replicas for `threads` threads (ascending calls are
  // cheapest).
  std::pair<pgas::replicate, int> at(int threads) {
    if (threads < seen_) {
      seen_ = 0;
      used_ = 0;
      several_nodes_ = false;
    }
    for (; seen_ < threads; ++seen_) {
      used_ = std::max(used_, plan_.replica_of[static_cast<std::size_t>(seen_)] + 1);
      several_nodes_ = several_nodes_ || numa_[static_cast<std::size_t>(seen_)] != numa_[0];
    }
    if (!auto_) return {plan_.policy, used_};
    // auto: per-numa when the threads use several reported NUMA nodes, else one replica.
    return several_nodes_ ? std::pair{pgas::replicate::per_numa, used_}
                          : std::pair{pgas::replicate::single, 1};
  }

 private:
  pgas::replica_plan plan_;
  std::vector<int> numa_;  // each thread's NUMA node (logical; -1 when none is reported)
  bool several_nodes_ = false;
  bool auto_ = false;
  int seen_ = 0;
  int used_ = 0;
};

row totals(const std::vector<array_cost>& costs, replica_counter& replicas, int threads) {
  row r;
  r.threads = threads;
  for (const array_cost& a : costs) {
    r.data_bytes = add(r.data_bytes, a.data_bytes, "the sum of the arrays' data bytes", threads);
    r.table_bytes = add(r.table_bytes, a.table_bytes, "the sum of the tables' bytes", threads);
  }
  std::tie(r.policy, r.replicas) = replicas.at(threads);
  if (__builtin_mul_overflow(r.table_bytes, static_cast<std::size_t>(r.replicas),
                             &r.table_bytes_total)) {
    throw usage_error(fmt::format(
        "the total table bytes ({} per replica x {} replicas) overflows 64 bits with THREADS = {}",
        r.table_bytes, r.replicas, threads));
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output.

template <typename... Args>
void put(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

double overhead_percent(const row& r) {
  return 100.0 * static_cast<double>(r.table_bytes_total) / static_cast<double>(r.data_bytes);
}

std::string json_row(const row& r, const std::vector<array_cost>& costs,
                     const std::vector<declaration>& decls, const options& o,
                     const pgas::machine& m) {
  json j;
  j["threads"] = r.threads;
  j["replicas"] = r.replicas;
  j["policy"] = pgas::to_string(r.policy);
  j["pointer_size"] = o.pointer_size;
  j["levels"] = pgas::to_string(o.levels);
  j["sort_dims"] = o.sort_dims;
  j["map_by"] = pgas::to_string(o.map);
  j["machine"] = m.description();
  j["data_bytes"] = r.data_bytes;
  j["table_bytes"] = r.table_bytes;
  j["table_bytes_total"] = r.table_bytes_total;
  j["overhead_percent"] = overhead_percent(r);
  json arrays = json::array();
  for (std::size_t k = 0; k < decls.size(); ++k) {
    const array_cost& a = costs[k];
    arrays.push_back({{"declaration", decls[k].text()},
                      {"layout", pgas::table_shape::to_string(a.shape.which())},
                      {"entries", a.shape.entries()},
                      {"level_entries", a.shape.level_entries()},
                      {"table_bytes", a.table_bytes},
                      {"data_bytes", a.data_bytes}});
  }
  j["arrays"] = arrays;
  return j.dump() + "\n";
}

// The overhead rounded half up to two decimals from the exact ratio ("3.13 %" for 3.125, which
// a double would print as 3.12), or "<0.01 %" for a cost that two decimals would show as none.
std::string percent(const row& r) {
  __extension__ using u128 = unsigned __int128;  // table_bytes_total * 20000 needs 79 bits
  const u128 hundredths =
      (u128{r.table_bytes_total} * 20000 + r.data_bytes) / (u128{r.data_bytes} * 2);
  if (hundredths == 0 && r.table_bytes_total > 0) return "<0.01 %";
  const auto h = static_cast<std::size_t>(hundredths);
  return fmt::format("{}.{:02} %", h / 100, h % 100);
}

// "per-socket (one per package the threads use)".
std::string replicas_words(pgas::replicate p) {
  constexpr const char* what[] = {
      "one for the job",
      "one per NUMA node the threads use",
      "one per package the threads use",
      "one per L3 cache the threads use",
      "one per thread",
      "per-numa when the threads span several NUMA nodes, else single",
  };
  return fmt::format("{} ({})", pgas::to_string(p), what[static_cast<int>(p)]);
}

// A table's pointer count, with each level's for n-1 levels: "144 = 16 + 128".
std::string pointers(const pgas::table_shape& s) {
  if (s.level_entries().size() < 2) return fmt::format("{}", s.entries());
  return fmt::format("{} = {}", s.entries(), fmt::join(s.level_entries(), " + "));
}

// Left-aligned text columns then right-aligned numbers, two spaces apart, widths from content.
std::string aligned(const std::vector<std::vector<std::string>>& cells, std::size_t left) {
  std::vector<std::size_t> w(cells.front().size(), 0);
  for (const auto& line : cells) {
    for (std::size_t c = 0; c < line.size(); ++c)
      w[c] = std::max(w[c], line[c].size());
  }
  std::string out;
  for (const auto& line : cells) {
    std::string s;
    for (std::size_t c = 0; c < line.size(); ++c)
      s += c < left ? fmt::format("  {:<{}}", line[c], w[c])
                    : fmt::format("  {:>{}}", line[c], w[c]);
    while (s.back() == ' ')
      s.pop_back();
    out += s + "\n";
  }
  return out;
}

std::string report(const std::vector<row>& rows, const std::vector<array_cost>& first_costs,
                   bool varies, const std::vector<declaration>& decls, const options& o,
                   const pgas::machine& m) {
  std::string out;
  const row& first = rows.front();
  put(out, "Tables:   {}, {}-byte pointers{}\n",
      o.levels == pgas::table_levels::one ? "one level" : "n-1 levels", o.pointer_size,
      o.sort_dims && o.levels == pgas::table_levels::n_minus_1 ? ", dimensions sorted" : "");
  put(out, "Replicas: {}\n", replicas_words(o.policy));
  // A single replica or one per thread does not depend on the machine: the report does not
  // either unless a machine was asked for.
  const bool machine_matters = o.topology_given || (o.policy != pgas::replicate::single &&
                                                    o.policy != pgas::replicate::per_thread);
  if (machine_matters) {
    put(out, "Machine:  {}; threads mapped by {}\n", m.description(), pgas::to_string(o.map));
  }
  put(out, "\n");

  std::vector<std::vector<std::string>> cells{
      {"array", "layout", "pointers", "bytes/replica", "data bytes"}};
  for (std::size_t k = 0; k < decls.size(); ++k) {
    const array_cost& a = first_costs[k];
    cells.push_back({decls[k].text(), std::string(pgas::table_shape::to_string(a.shape.which())),
                     pointers(a.shape), std::to_string(a.table_bytes),
                     std::to_string(a.data_bytes)});
  }
  if (decls.size() > 1) {
    cells.push_back(
        {"total", "", "", std::to_string(first.table_bytes), std::to_string(first.data_bytes)});
  }
  if (varies)
    put(out, "Arrays at THREADS = {} (their sizes change with THREADS; each row has its own):\n",
        first.threads);
  out += aligned(cells, 2);
  put(out, "\n");

  const bool show_policy = o.policy == pgas::replicate::automatic;
  cells.clear();
  cells.push_back({"threads", "replicas"});
  if (show_policy) cells.front().push_back("policy");
  cells.front().insert(cells.front().end(),
                       {"data bytes", "table bytes", "total table bytes", "overhead"});
  for (const row& r : rows) {
    std::vector<std::string> line{std::to_string(r.threads), std::to_string(r.replicas)};
    if (show_policy) line.emplace_back(pgas::to_string(r.policy));
    line.insert(line.end(), {std::to_string(r.data_bytes), std::to_string(r.table_bytes),
                             std::to_string(r.table_bytes_total), percent(r)});
    cells.push_back(std::move(line));
  }
  out += aligned(cells, 0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The command line.

constexpr const char* description =
    "Prints what inter-thread privatization tables cost for UPC shared arrays: the\n"
    "pointer table of each array, its bytes per replica, and for each thread count\n"
    "the replicas, total table bytes and overhead over the arrays' data, from the\n"
    "same model the pgas runtime uses. Each DECL is one declaration, quoted, such\n"
    "as 'shared [1024] int A[1024][1024]'; sizes may use THREADS.\n";

constexpr const char* footer =
    "Examples:\n"
    "  pgas-tables --threads 1..32 --pointer-size 4 --replicate per-thread \\\n"
    "      'shared [1024] int A[1024][1024]'\n"
    "  pgas-tables --levels n-1 --sort-dims 'shared [4] int array[16][8][4]'\n"
    "  pgas-tables --threads 16 --replicate per-socket \\\n"
    "      --topology 'synthetic:package:2 core:4 pu:2' 'shared [1024] int A[1024][1024]'\n"
    "\n"
    "Exit status: 0 on success, 2 for a usage error, an invalid declaration or one\n"
    "that no table applies to.\n"
    "Manual: man pgas-tables.";

int run(int argc, char** argv) {
  std::string threads_text = "1", replicate_text = "auto", topology, map_text = "core";
  std::string pointer_text = "8", levels_text = "one";
  std::vector<std::string> decl_texts;
  options o;

  CLI::App app(description, "pgas-tables");
  pgas::tools::configure_app(
      app, "pgas-tables",
      "Usage: pgas-tables [--threads N|A..B] [--replicate POLICY]\n"
      "                   [--topology synthetic:DESC|FILE.xml] [--map-by core|numa|socket]\n"
      "                   [--pointer-size BYTES] [--levels one|n-1] [--sort-dims] [--json]\n"
      "                   DECL...\n",
      footer, 34);
  const auto last = CLI::MultiOptionPolicy::TakeLast;
  app.add_option("-n,--threads", threads_text,
                 "THREADS, or a range of them: one row each\n(1 to 1000000; default 1)")
      ->type_name("N|A..B")
      ->multi_option_policy(last);
  app.add_option("--replicate", replicate_text,
                 "single, per-numa, per-socket, per-l3,\nper-thread or auto (default)")
      ->type_name("POLICY")
      ->multi_option_policy(last);
  auto* topo_opt =
      app.add_option("--topology", topology,
                     "synthetic:DESC or FILE.xml: plan for that\nmachine (default: this one)")
          ->type_name("SPEC")
          ->multi_option_policy(last);
  app.add_option("--map-by", map_text, "How threads are dealt: core (default),\nnuma or socket")
      ->type_name("core|numa|socket")
      ->multi_option_policy(last);
  app.add_option("--pointer-size", pointer_text,
                 "Bytes per table pointer: 2, 4, 8 (default)\nor 16")
      ->type_name("BYTES")
      ->multi_option_policy(last);
  app.add_option("--levels", levels_text,
                 "One table of row pointers (default) or\nn-1 levels (paper eq. 1)")
      ->type_name("one|n-1")
      ->multi_option_policy(last);
  app.add_flag("--sort-dims", o.sort_dims,
               "Build n-1 levels over the dimensions\nsorted by extent");
  app.add_flag("--json", o.as_json, "Print one JSON object per thread count");
  app.add_option("DECL", decl_texts, "UPC shared array declarations, each quoted")->type_name("");
  // Unknown options are ours to report, in one line with a hint.
  app.allow_extras();

  if (!pgas::tools::parse_command_line(app, argc, argv, " (see pgas-tables --help)", true))
    return 0;
  for (const auto& word : app.remaining()) {
    if (word != "--") {
      throw usage_error(fmt::format("unknown option '{}' (see pgas-tables --help)", word));
    }
  }
  parse_threads(threads_text, o);
  try {
    o.policy = pgas::parse_replicate(replicate_text);
  } catch (const pgas::table_error& e) {
    throw usage_error(std::string("--replicate: ") + e.what());
  }
  try {
    o.levels = pgas::parse_table_levels(levels_text);
  } catch (const pgas::table_error& e) {
    throw usage_error(std::string("--levels: ") + e.what());
  }
  if (o.sort_dims && o.levels != pgas::table_levels::n_minus_1) {
    throw usage_error(
        "--sort-dims orders the dimensions of n-1 levels of tables: add --levels n-1 (one level "
        "has nothing to sort)");
  }
  try {
    o.map = pgas::parse_map_policy(map_text);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--map-by: ") + e.what());
  }
  o.pointer_size = parse_pointer_size(pointer_text);
  o.topology_given = topo_opt->count() > 0;
  if (o.topology_given && topology.empty())
    throw usage_error("--topology needs a synthetic:DESC or an XML file");
  if (decl_texts.empty()) {
    throw usage_error(
        "no declaration given (for example: pgas-tables 'shared [1024] int A[1024][1024]')");
  }

  std::vector<declaration> decls;
  for (const std::string& text : decl_texts)
    decls.push_back(declaration::parse(text));
  pgas::machine m;
  try {
    m = pgas::machine::from_spec(topology);
  } catch (const pgas::topology_error& e) {
    // A bad description is the user's mistake; failing to read this machine is not.
    if (!o.topology_given) throw std::runtime_error(e.what());
    throw usage_error(std::string("--topology: ") + e.what());
  }

  // Everything is computed, and so every error found, before anything is printed; --json
  // computes each count's arrays again rather than keeping them all.
  replica_counter replicas(m, o);
  const std::vector<array_cost> first_costs = array_costs(decls, o, o.first);
  std::vector<row> rows;
  bool varies = false;
  for (int t = o.first; t <= o.last; ++t) {
    const std::vector<array_cost> costs = t == o.first ? first_costs : array_costs(decls, o, t);
    varies = varies || costs != first_costs;
    rows.push_back(totals(costs, replicas, t));
  }
  if (o.as_json) {
    for (const row& r : rows) {
      const std::string line = json_row(r, array_costs(decls, o, r.threads), decls, o, m);
      std::fputs(line.c_str(), stdout);
    }
  } else {
    std::fputs(report(rows, first_costs, varies, decls, o, m).c_str(), stdout);
  }
  return 0;  // main's finish_output flushes and reports a failed write
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return pgas::tools::finish_output("pgas-tables", run(argc, argv));
  } catch (const usage_error& e) {
    fail(exit_usage, one_line(e.what()));
  } catch (const declaration_error& e) {
    fail(exit_usage, std::string(e.what()) + "\n" + e.excerpt());
  } catch (const std::exception& e) {
    fail(1, one_line(e.what()));
  }
}
