// tools/reuse_report.hpp — what pgas-reuse prints: a recording's histograms per site (text,
// JSON, SVG, PARDA's histogram text), how a prediction was made, and an evaluation's coverage
// and accuracy tables. Pure functions from the analysis (reuse_patterns.hpp,
// reuse_threads.hpp) to text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reuse_file.hpp"
#include "reuse_patterns.hpp"
#include "reuse_threads.hpp"

namespace pgas::tools {

/// The histograms of `r` per site, summed over its threads or of `thread` only: each bin's
/// distances, count and share of the site's accesses, and the site's locality patterns.
std::string show_text(const reuse_recording& r, std::optional<int> thread);
std::string show_json(const reuse_recording& r, std::optional<int> thread);

/// The same histograms as bar charts, one panel per site (bins left to right, first accesses
/// last), as an SVG document.
std::string show_svg(const reuse_recording& r, std::optional<int> thread);

/// All of `r`'s reuses as PARDA prints a histogram: a "# Dist" header, one row per distance
/// (a bin's reuses at its mean rounded), then #OVFL (none) and #INF (first accesses), with
/// shares and cumulative counts.
std::string parda_text(const reuse_recording& r);

/// How a prediction was made: for each histogram, the training threads and each pattern's
/// fits; with `from` (thread scaling) the training threads of every target thread.
struct prediction_summary {
  std::string output;
  std::vector<std::string> training;
  const reuse_recording* predicted = nullptr;
  std::vector<prediction_note> notes;
  std::optional<thread_pattern> pattern;
  std::vector<std::vector<int>> from;
};

std::string prediction_text(const prediction_summary& s);
std::string prediction_json(const prediction_summary& s);

/// Coverage and accuracy per site and in total, then the threads' predictions: coverage and
/// accuracy as minimum, average and maximum, and the share above 80, 90 and 95 % accuracy, of
/// all of them and of those with full coverage.
std::string evaluation_text(const evaluation& e, const std::string& predicted,
                            const std::string& observed);
std::string evaluation_json(const evaluation& e, const std::string& predicted,
                            const std::string& observed);

}  // namespace pgas::tools
