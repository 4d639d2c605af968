// tools/bench_report.hpp — how pgas-bench shows a summary (bench_results.hpp): Serres et al.
// Table I (each variant's overhead over sequential C at 1 thread), the speedup tables (one per
// kernel, variants by thread counts) and scaling.svg, a plot of the same speedups, one panel per
// kernel. Everything here is a pure function of the summary, so golden tests pin it down.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_results.hpp"

namespace pgas::tools::bench {

/// Seconds with three significant digits and no exponent ("0.0231", "1.50", "123").
std::string format_seconds(double seconds);

/// A ratio as "1.03×": two decimals below 10 (two significant digits below 0.1), one
/// below 100, none beyond.
std::string format_ratio(double ratio);

/// Table I: rows = variants other than seq and c, columns = kernels, cells = time at 1 thread /
/// time of seq, under rows with each kernel's size, seq seconds and, when the plain C baseline
/// ran, its seconds and seq's time over it. "failed" marks a cell with a failed or unverified
/// run, "-" one that did not run or has no seq time to compare with.
std::string table_one(const summary& s);

/// The baseline check: for each kernel, seq's time over its plain C baseline's and "ok", or
/// "SLOWER" when it exceeds baseline_limit (or why it could not be checked); one line saying
/// so when no plain C baseline ran.
std::string baseline_check(const summary& s);

/// True when some kernel's seq took more than baseline_limit times its plain C baseline.
bool baseline_failed(const summary& s);

/// One table per kernel: rows = variants other than seq, columns = thread counts, cells = seq
/// seconds / the variant's seconds (the variant's median seconds when seq has no time).
std::string scaling_tables(const summary& s);

/// The runs that failed, one line each ("pass 2  sobel naive -n 2: exit 1: …"), at most
/// `limit` of them; empty when none did.
std::string failed_runs(const std::vector<run_record>& runs, std::size_t limit = 20);

/// scaling.svg: one panel per kernel, x = threads, y = speedup over seq (log scale when the
/// values span more than 20×), a line and markers per variant, a dashed ideal line, a legend.
std::string scaling_svg(const summary& s);

}  // namespace pgas::tools::bench
