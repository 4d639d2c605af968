// sptr_bench — what one shared access costs: pointer-to-shared traversal (`++p`, `*p`), the
// general `p + k`, and `A(i, j)` on 2-D shared arrays, each against a plain `int*` loop over
// private memory measured beside it, as ns and retired instructions per access.
// Entry point: main() parses options and starts the job; job_body() builds the selected cases
// on every thread (sptr_cases.hpp; arrays are collective) and takes --reps samples of each,
// right after samples of its raw baselines. Output: one JSON line per (variant, block), medians.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pgas/pgas.hpp>

#include "instruction_counter.hpp"
#include "micro.hpp"
#include "sptr_cases.hpp"
#include "sptr_loops.hpp"  // cols

namespace {

using namespace pgas::micro;

// Where thread 0 keeps one case's samples.
struct samples {
  std::vector<double> ns;
  std::vector<double> instructions;
  std::map<std::string, std::vector<double>> ratio;  // per paired baseline
};

// Set by any thread whose checksum was wrong, by case index.
std::array<std::atomic<bool>, 256> checksum_bad{};

// One sample of case k: `passes` traversals between two barriers. Every thread calls it;
// thread 0 (or, with --threads-measure all, every thread) traverses, the others wait at the
// closing barrier. Returns {ns, instructions} per access on a measuring thread.
std::pair<double, std::optional<double>> sample(const sptr_case& c, std::size_t k,
                                                std::size_t passes, bool all,
                                                const instruction_counter& ic) {
  const bool measuring = pgas::mythread() == 0 || (all && !c.shared_write);
  pgas::barrier();
  double ns = 0;
  std::optional<double> instr;
  if (measuring) {
    bool ok = true;
    const std::uint64_t i0 = ic.read_count();
    const auto t0 = clock_type::now();
    for (std::size_t p = 0; p < passes; ++p)
      ok = (c.pass() == c.expected) && ok;
    const auto t1 = clock_type::now();
    const std::uint64_t i1 = ic.read_count();
    if (c.verify) ok = c.verify() && ok;
    if (!ok) checksum_bad[k].store(true, std::memory_order_relaxed);
    const double accesses = static_cast<double>(passes * c.accesses);
    ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / accesses;
    if (ic.available()) instr = static_cast<double>(i1 - i0) / accesses;
  }
  pgas::barrier();
  return {ns, instr};
}

// One case's row: its figures are medians over its samples.
nlohmann::ordered_json report_row(const sptr_options& o, const sptr_case& c, const samples& s,
                                  std::size_t passes, std::size_t stride, bool ok) {
  const double med = median(s.ns);
  const bool all = o.measure == "all";
  nlohmann::ordered_json j;
  j["bench"] = "sptr";
  j["kernel"] = "sptr";
  j["variant"] = c.variant;
  j["block"] = c.block.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.block);
  if (c.uses_table >= 0) j["uses_table"] = c.uses_table == 1;
  j["threads"] = pgas::threads();
  j["measure"] = all ? "all" : "thread0";
  j["elements"] = o.elements;
  j["size"] = o.elements;
  j["accesses"] = c.accesses;
  j["passes"] = passes;
  if (c.variant == "raw_strided" || c.variant.starts_with("sptr_add")) j["stride"] = stride;
  j["reps"] = s.ns.size();
  j["ns_per_access"] = round_places(med, 3);
  j["min_ns_per_access"] = round_places(*std::min_element(s.ns.begin(), s.ns.end()), 3);
  j["max_ns_per_access"] = round_places(*std::max_element(s.ns.begin(), s.ns.end()), 3);
  j["instructions_per_access"] = s.instructions.empty()
                                     ? nlohmann::json(nullptr)
                                     : nlohmann::json(round_places(median(s.instructions), 3));
  if (!c.baselines.empty()) {
    j["baseline"] = c.baselines.front();
    j["vs_raw"] = round_places(median(s.ratio.at(c.baselines.front())), 3);
    for (std::size_t i = 1; i < c.baselines.size(); ++i)
      j["vs_" + c.baselines[i]] = round_places(median(s.ratio.at(c.baselines[i])), 3);
  }
  j["seconds"] = med * 1e-9 * static_cast<double>(passes * c.accesses);
  j["checksum_ok"] = ok;
  j["verified"] = ok;
  return j;
}

int job_body(const sptr_options& o) {
  const bool all = o.measure == "all";
  const bool me0 = pgas::mythread() == 0;
  const instruction_counter ic;
  if (me0 && !ic.available()) {
    std::fprintf(stderr,
                 "sptr_bench: no instruction counter (perf_event_open: %s; "
                 "perf_event_paranoid must be <= 2 and the machine must expose a PMU)\n",
                 ic.why_unavailable().c_str());
  }
  const sptr_case_set set = sptr_cases_build(o);
  const std::vector<sptr_case>& cases = set.cases;
  if (cases.size() > checksum_bad.size()) return 1;
  std::map<std::string, std::size_t> index;
  for (std::size_t k = 0; k < cases.size(); ++k)
    index[cases[k].variant] = k;  // the raw baselines are unique by name

  std::vector<samples> got(cases.size());
  const auto passes_of = [&](const sptr_case& c) {
    return std::max<std::size_t>(1, o.min_accesses / std::max<std::size_t>(c.accesses, 1));
  };
  const auto take = [&](std::size_t k) {
    return sample(cases[k], k, passes_of(cases[k]), all, ic);
  };
  // Baselines no selected variant pairs with (`--only raw`) are sampled on their own.
  std::vector<bool> paired(cases.size(), false);
  for (const sptr_case& c : cases) {
    for (const std::string& name : c.baselines)
      paired[index.at(name)] = true;
  }
  // Rep -1 warms caches, pages and branch predictors and is not recorded. Then, in each rep,
  // each variant is measured right after its baselines, so a ratio compares samples taken
  // within milliseconds of each other (this VM's speed drifts over seconds).
  for (int rep = -1; rep < o.reps; ++rep) {
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const sptr_case& c = cases[k];
      if (c.baselines.empty() && (paired[k] || !sptr_selected(o, c.variant))) continue;
      std::map<std::string, double> base_ns;
      for (const std::string& name : c.baselines) {
        const std::size_t bk = index.at(name);
        const auto [ns, instr] = take(bk);
        base_ns[name] = ns;
        if (rep >= 0) {
          got[bk].ns.push_back(ns);
          if (instr) got[bk].instructions.push_back(*instr);
        }
      }
      const auto [ns, instr] = take(k);
      if (rep < 0) continue;
      got[k].ns.push_back(ns);
      if (instr) got[k].instructions.push_back(*instr);
      for (const auto& [name, bns] : base_ns)
        got[k].ratio[name].push_back(ns / bns);
    }
  }

  bool all_ok = true;
  for (std::size_t k = 0; k < cases.size(); ++k)
    all_ok = all_ok && !checksum_bad[k].load();
  if (!me0) return 0;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const sptr_case& c = cases[k];
    if (got[k].ns.empty()) continue;  // a baseline no selected variant needed
    if (!sptr_selected(o, c.variant, c.block) && !c.baselines.empty()) continue;
    print_row(report_row(o, c, got[k], passes_of(c), set.stride, !checksum_bad[k].load()));
  }
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  sptr_options o;
  CLI::App app{
      "Cost of shared accesses: pointer-to-shared and shared-array indexing against "
      "plain pointers."};
  app.add_option("--elements,--size", o.elements,
                 "Elements per array (a multiple of 1024: the 2-D arrays are N/1024 x 1024).")
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", o.reps, "Samples per benchmark; medians are reported.")
      ->check(CLI::PositiveNumber);
  app.add_option("--only,--variant", o.only,
                 "Variants to run, comma-separated, each VARIANT or VARIANT:BLOCK (a prefix such "
                 "as `sptr` or `array_2d` selects its family): sptr_static, sptr_dynamic, "
                 "sptr_add, sptr_add_dynamic, sptr_write, sptr_write_dynamic, array_2d_static, "
                 "array_2d_dynamic, local_part, my_chunks, table, table_row; blocks as printed (3, "
                 "indefinite, [32][32]). "
                 "The raw baselines a variant is compared with always run.")
      ->delimiter(',')
      ->check(
          [](const std::string& entry) {
            const std::string v = entry.substr(0, entry.find(':'));
            return sptr_variant_known(v) ? std::string() : "no variant is named " + v;
          },
          "VARIANT[:BLOCK]");
  app.add_option("--threads-measure", o.measure,
                 "Who traverses: 0 (thread 0 while the others wait at a barrier) or all (every "
                 "thread at once; stores to shared arrays stay on thread 0).")
      ->check(CLI::IsMember({"0", "all"}));
  app.add_option("--min-accesses", o.min_accesses,
                 "Accesses per sample: passes over the array are repeated up to this many.")
      ->check(CLI::PositiveNumber);
  app.add_option("--stride", o.stride,
                 "Element stride of sptr_add and raw_strided (raised to the next value coprime "
                 "with --elements).")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines.");
  CLI11_PARSE(app, argc, argv);
  if (o.elements % cols != 0) {
    std::fprintf(stderr, "sptr_bench: --elements must be a multiple of %zu\n", cols);
    return 2;
  }
  return pgas::run(argc, argv, [&o] { return job_body(o); });
}
