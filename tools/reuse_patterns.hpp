// tools/reuse_patterns.hpp — from histograms to predictions: locality patterns (adjacent bins
// merged), curve fits of a pattern's distances and frequency against the problem size, the
// predicted histogram of a larger run, and how well a prediction matches an observed run
// (coverage and accuracy). Pure functions of recordings (reuse_file.hpp); pgas-reuse predict
// and evaluate are built on them, reuse_threads.hpp adds the choice of training threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reuse_file.hpp"

namespace pgas::tools {

/// A locality pattern: a run of adjacent non-empty bins whose distances belong together.
/// `mean` is the mean distance of its most frequent bin, `freq` the reuses it holds.
struct reuse_pattern {
  double min = 0;
  double max = 0;
  double freq = 0;
  double mean = 0;
};

/// The patterns of one histogram's bins (ascending). A bin starts a new pattern after an empty
/// bin, when the gap from the pattern's largest distance to the bin's smallest is wider than
/// the pattern itself, or when the frequency rises again after it had fallen (a second peak).
std::vector<reuse_pattern> form_patterns(const std::vector<reuse_bin>& bins);

/// The functions a pattern's values are fitted with. constant to log have one coefficient
/// (y = a g(x)); constant is y = a; power is y = a x^b, fitted in log space; inverse is
/// y = a + b / x and affine y = a + b x (least squares in 1/x and in x).
enum class fit_model : std::uint8_t { constant, linear, sqrt, square, log, power, inverse, affine };

/// Which models a fit may choose from, by what x is and what y is.
///  size:            x the problem size: constant, linear, sqrt, square, log, power.
///  thread_distance: x the thread count at one problem size, y a distance: constant, inverse.
///                   A distance counts distinct addresses of a data set the thread count does
///                   not change, so it is bounded as the threads grow: it tends to a limit a,
///                   from below when it grows (b < 0: a thread's own share 1/T of the data set
///                   drops out) or from above when it shrinks (b > 0).
///  thread_count:    x the thread count, y a count of accesses: constant, inverse, affine.
///                   A thread's share of work of a fixed size is a + b / T, and its accesses to
///                   others' data are bounded by that share (a rising count, as the others'
///                   share 1 - 1/T of the data grows, tends to its limit too), so two training
///                   runs, which fit inverse and affine alike exactly, give inverse; a + b T (a
///                   count that grows with the partners a thread has, such as one read from
///                   each other thread) is chosen only where three or more runs fit it better.
enum class fit_family : std::uint8_t { size, thread_distance, thread_count };

/// What the x of a prediction is: the problem size or the thread count.
enum class scaling : std::uint8_t { size, threads };

std::string_view to_string(fit_model m);

struct fit {
  fit_model model = fit_model::constant;
  double a = 0;
  double b = 0;      // power's exponent; inverse's and affine's second coefficient
  double error = 0;  // root mean square of the relative errors at the training points

  double at(double x) const;
};

/// The model of `family` of least error through the points (x, y), x > 0; of models whose
/// errors are equal (within 1e-9), the first in fit_model's order, so two points on a line
/// give linear and not a power of exponent 1, and two against the thread count inverse and not
/// affine. Power is tried only where every y > 0, log where every x > 1,
/// power, inverse and affine only with two different x. Needs at least one point.
fit fit_points(const std::vector<std::pair<double, double>>& points,
               fit_family family = fit_family::size);

/// One training run's histogram of an operation, at problem size (or thread count) x.
struct reuse_sample {
  double x = 0;
  const reuse_histogram* histogram = nullptr;
};

/// How one histogram was predicted: per pattern, the fits of its min, max, mean and freq.
struct pattern_fits {
  fit min, max, mean, freq;
};

struct histogram_prediction {
  reuse_histogram histogram;       // thread and site left for the caller to set
  std::vector<pattern_fits> fits;  // one per pattern
  fit infinite;
};

/// The histogram at `x` from the samples (at problem sizes, or at thread counts when `axis` is
/// threads: distances are then fitted with fit_family::thread_distance, counts with
/// thread_count), or nothing when the operation cannot be predicted: a sample lacks it, the samples
/// have different numbers of patterns, a pattern is irregular (its distances shrink as x grows), or
/// the predicted counts do not fit 64 bits (a target far beyond the training runs); `why`, when
/// given, then says which. Predicted patterns are written back as bins (a pattern spread over the
/// bins it spans in proportion to the distances each holds).
std::optional<histogram_prediction> predict_histogram(const std::vector<reuse_sample>& samples,
                                                      double x, std::string* why = nullptr,
                                                      scaling axis = scaling::size);

/// The bins of `patterns` (counts and distances rounded to whole numbers; bins two patterns
/// share are merged).
std::vector<reuse_bin> patterns_to_bins(const std::vector<reuse_pattern>& patterns);

/// The overlap of two patterns' distance ranges: the distances both hold over the number the
/// wider holds (whole distances, so [4, 7] holds 4), from 0 to 1. Two patterns of one distance
/// each are compared as numbers: the smaller over the larger (1 when both are 0).
double pattern_overlap(const reuse_pattern& a, const reuse_pattern& b);

/// An operation is predicted correctly when it has as many patterns as observed and each
/// overlaps its observed pattern by at least this.
inline constexpr double correct_overlap = 0.9;

bool predicted_correctly(const std::vector<reuse_pattern>& predicted,
                         const std::vector<reuse_pattern>& observed);

/// Training recordings usable together: at least two, of one program, grain and grain size,
/// sharing a site. Throws reuse_error naming the files (`paths`, in the same order).
void check_training(const std::vector<reuse_recording>& runs,
                    const std::vector<std::string>& paths);

/// The sites of all runs, each once, in order of first appearance (run by run).
std::vector<reuse_site> site_union(const std::vector<reuse_recording>& runs);

/// The histogram of `thread` at `site` in `r`, or null.
const reuse_histogram* find_histogram(const reuse_recording& r, int thread, const reuse_site& site);

/// A prediction's header: the training runs' program, grain and mode, no arguments, `threads`
/// threads at `size`, the union of their sites and no histograms yet.
reuse_recording prediction_header(const std::vector<reuse_recording>& runs, int threads,
                                  std::optional<std::int64_t> size);

/// How one thread's histogram at one site of a prediction was made: from which training
/// threads (one per run), with which fits; or, when `left_out` is not empty, why it was left
/// out of the prediction (no fits then).
struct prediction_note {
  int thread = 0;
  int site = 0;  // index into the prediction's sites
  std::vector<int> from;
  std::vector<pattern_fits> fits;
  fit infinite;
  std::string left_out;
};

/// Adds to `out` the histogram of `thread` at each site of `out`, predicted at `x` (along
/// `axis`) from thread from[i] of runs[i] at xs[i], leaving out the runs whose from[i] is
/// negative (a thread predicted from one run alone is predicted as a constant); appends a note for
/// each histogram it adds to `notes`, and one with `left_out` set for each it cannot predict
/// although a training run has it.
void predict_thread(const std::vector<reuse_recording>& runs, const std::vector<double>& xs,
                    const std::vector<int>& from, int thread, double x, reuse_recording& out,
                    std::vector<prediction_note>& notes, scaling axis = scaling::size);

/// Predicts the recording at problem size `size` from runs of the same thread count at
/// smaller sizes (thread t from thread t of each run). Throws reuse_error (via check_training;
/// a run without a size, two of one size, thread counts that differ, `size` below them all).
reuse_recording predict_size(const std::vector<reuse_recording>& runs,
                             const std::vector<std::string>& paths, std::int64_t size,
                             std::vector<prediction_note>& notes);

/// Coverage and accuracy of a prediction against an observed run. An operation is one
/// thread's histogram at one site of the observed run; it is covered when the prediction has
/// it, correct when covered and predicted_correctly.
struct site_evaluation {
  reuse_site site;
  int observed = 0;
  int covered = 0;
  int correct = 0;
};

struct thread_evaluation {
  int thread = 0;
  int observed = 0;
  int covered = 0;
  int correct = 0;
};

struct evaluation {
  std::vector<site_evaluation> sites;      // the observed run's sites, in its order
  std::vector<thread_evaluation> threads;  // threads with an operation, ascending
  int observed = 0;
  int covered = 0;
  int correct = 0;
};

/// Throws reuse_error when the two are not of one program, grain and thread count, or both
/// declare a size and the sizes differ.
evaluation evaluate(const reuse_recording& predicted, const std::string& predicted_path,
                    const reuse_recording& observed, const std::string& observed_path);

}  // namespace pgas::tools
