// tools/bench_results.hpp — what pgas-bench measures and keeps: one record per kernel run, the
// runs.json and runs.csv files that hold them, and the summary computed from them (the median
// over passes of each kernel × variant × thread count, Table I's overhead (Serres et al.) over
// sequential C, and speedups over seq). The text tables and the SVG plot are in
// bench_report.hpp.
//
// Error model: reading a runs.json that is not one (bad JSON, a missing or mistyped field, two
// runs of the same thing in one pass) throws results_error naming the file and the line or the
// field; the tool reports it as a usage error.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

namespace pgas::tools::bench {

using json = nlohmann::ordered_json;

/// The kernels and variants of the kernel contract (kernels/harness.hpp), in table order.
/// Variant "c" is the plain C baseline beside each kernel (kernels/plain/), which seq is
/// checked against.
inline const std::vector<std::string> known_kernels = {
    "matmul",       "sobel",    "randomaccess", "cc",       "stencil2d",
    "matmul_tiled", "cholesky", "matvec",       "stencil5", "jacobi",
    "lu",           "stencil7", "npb_cg",       "npb_ft",   "npb_mg"};
inline const std::vector<std::string> known_variants = {
    "c",         "seq", "naive",   "privatized", "tables", "auto",   "cached",
    "coalesced", "cut", "ndarray", "openmp",     "blas",   "library"};

/// Each known kernel's variants, c (its plain C baseline) included: kernels/harness.hpp's
/// all_variants (matmul, sobel, randomaccess), cache_variants (cc, stencil2d), tile_variants
/// (matmul_tiled, cholesky), cut_variants (matvec, stencil5), reuse_variants (jacobi, lu) and
/// the local-view N-D array kernels' seq, ndarray and openmp (stencil7 and the NAS kernels).
/// jacobi, lu, stencil7 and the NAS kernels have no plain C baseline: their seq is the
/// baseline.
inline const std::map<std::string, std::vector<std::string>> kernel_variants = {
    {"matmul", {"c", "seq", "naive", "privatized", "tables", "auto", "openmp"}},
    {"sobel", {"c", "seq", "naive", "privatized", "tables", "auto", "openmp"}},
    {"randomaccess", {"c", "seq", "naive", "privatized", "tables", "auto", "openmp"}},
    {"cc", {"c", "seq", "naive", "cached", "coalesced", "openmp"}},
    {"stencil2d", {"c", "seq", "naive", "cached", "coalesced", "openmp"}},
    {"matmul_tiled", {"c", "seq", "naive", "cut", "openmp", "blas", "library"}},
    {"cholesky", {"c", "seq", "naive", "cut", "openmp", "blas", "library"}},
    {"matvec", {"c", "seq", "naive", "privatized", "cut", "openmp"}},
    {"stencil5", {"c", "seq", "naive", "privatized", "cut", "openmp"}},
    {"jacobi", {"seq", "naive", "openmp"}},
    {"lu", {"seq", "naive", "openmp"}},
    {"stencil7", {"seq", "ndarray", "openmp"}},
    {"npb_cg", {"seq", "ndarray", "openmp"}},
    {"npb_ft", {"seq", "ndarray", "openmp"}},
    {"npb_mg", {"seq", "ndarray", "openmp"}},
};

/// The NAS Parallel Benchmarks kernels: their problem is a class (--class S|W|A), not a size.
/// pgas-bench gives them `--class`, W unless --size KERNEL=CLASS says otherwise (S with --quick).
inline const std::vector<std::string> class_kernels = {"npb_cg", "npb_ft", "npb_mg"};
inline constexpr std::string_view nas_classes = "SWA";

/// True for the kernels whose problem is a NAS class (class_kernels).
inline bool class_kernel(const std::string& kernel) {
  return std::find(class_kernels.begin(), class_kernels.end(), kernel) != class_kernels.end();
}

/// True when `kernel` has `variant` (kernel_variants); a kernel this driver does not know has
/// every variant.
inline bool kernel_has_variant(const std::string& kernel, const std::string& variant) {
  const auto it = kernel_variants.find(kernel);
  return it == kernel_variants.end() ||
         std::find(it->second.begin(), it->second.end(), variant) != it->second.end();
}

/// True for the variants that run at 1 thread only: seq and the plain C baseline.
inline bool sequential_variant(const std::string& variant) {
  return variant == "seq" || variant == "c";
}

/// The baseline check: seq may take at most this many times the plain C loop's time.
inline constexpr double baseline_limit = 1.05;

/// A runs.json that cannot be read: the message names the file and the line or field.
struct results_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One run of one kernel: what the driver asked for and what came back.
struct run_record {
  int pass = 1;  // 1-based
  std::string kernel;
  std::string variant;
  int threads = 1;
  std::optional<std::size_t> size;  // as the kernel reported it (or as asked, if it failed)
  std::optional<double> seconds;    // the kernel's median of its reps; none when it failed
  bool verified = false;
  int exit_status = 0;          // 128 + N for a run killed by signal N
  std::string error;            // why the run failed (empty when it did not)
  json extra = json::object();  // the kernel's other JSON fields (min_seconds, reps, …)

  /// True when the run counts: exit status 0, verified, timed, no error.
  bool ok() const { return exit_status == 0 && verified && seconds.has_value() && error.empty(); }
  /// Why a run that is not ok() failed: its error, or what its fields say.
  std::string why() const;
};

/// One run as a JSON object: the fields above, then the kernel's own.
json run_to_json(const run_record& r);

/// runs.json: `meta` (the tool, its version, the configuration) and one run per line, so the
/// file reads and diffs well.
std::string runs_json(const std::vector<run_record>& runs, const json& meta);

/// runs.csv: a header, then one row per run; the kernel's extra fields follow the fixed
/// columns, in the order they first appear.
std::string runs_csv(const std::vector<run_record>& runs);

/// The largest runs.json read_runs() reads, in bytes (a full sweep writes a few MiB).
inline constexpr std::size_t max_runs_bytes = 256 << 20;

/// Reads a runs.json written by runs_json() (or by hand). `meta` receives the file's top-level
/// fields other than "runs". Throws results_error, also when the path is not a regular file or
/// is larger than max_runs_bytes.
std::vector<run_record> read_runs(const std::string& path, json& meta);

/// Every run of one kernel × variant × thread count, over the passes.
struct cell {
  std::vector<std::optional<double>> seconds;  // by pass (index pass - 1); none: failed/missing
  int runs = 0;
  int failed = 0;
  std::optional<double> median;  // the median over passes, only when no run failed

  bool is_failed() const { return failed > 0; }
};

/// The medians and ratios the tables, summary.json and the plot show.
class summary {
 public:
  /// Throws results_error when one kernel ran at several sizes (the ratios would compare
  /// different problems).
  explicit summary(const std::vector<run_record>& runs);

  const std::vector<std::string>& kernels() const { return kernels_; }
  /// The variants that ran, seq included, in known_variants order.
  const std::vector<std::string>& variants() const { return variants_; }
  /// The variants other than seq and c (the ones that run at every thread count).
  std::vector<std::string> parallel_variants() const;
  /// The thread counts the variants other than seq ran at, ascending ({1} when only seq ran).
  const std::vector<int>& threads() const { return threads_; }
  int passes() const { return passes_; }
  std::size_t runs() const { return runs_; }
  std::size_t failed_runs() const { return failed_runs_; }
  std::optional<std::size_t> size(const std::string& kernel) const;

  /// The cell of a kernel × variant × thread count, or null when it never ran.
  const cell* find(const std::string& kernel, const std::string& variant, int threads) const;
  /// seq's median seconds (at 1 thread), when it ran and never failed.
  std::optional<double> seq_seconds(const std::string& kernel) const;
  /// The plain C baseline's median seconds, when it ran and never failed.
  std::optional<double> c_seconds(const std::string& kernel) const;
  /// The baseline check: the median over passes of seq's time over the plain C baseline's in
  /// the same pass (they run one after the other), so that a pass the machine slowed down
  /// counts as one pass, not as one side's median.
  std::optional<double> seq_over_c(const std::string& kernel) const;
  /// Table I: the variant's median at 1 thread over seq's.
  std::optional<double> overhead(const std::string& kernel, const std::string& variant) const;
  /// seq's median over the variant's at `threads`.
  std::optional<double> speedup(const std::string& kernel, const std::string& variant,
                                int threads) const;

  /// summary.json: the cells with their medians, Table I and the speedups.
  std::string to_json() const;

 private:
  std::vector<std::string> kernels_;
  std::vector<std::string> variants_;
  std::vector<int> threads_;
  int passes_ = 0;
  std::size_t runs_ = 0;
  std::size_t failed_runs_ = 0;
  std::map<std::string, std::optional<std::size_t>> sizes_;
  std::map<std::tuple<std::string, std::string, int>, cell> cells_;
};

/// The median of non-empty values (the mean of the middle two for an even count).
double median(std::vector<double> values);

}  // namespace pgas::tools::bench
