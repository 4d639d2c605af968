// tools/reuse_patterns.cpp — locality patterns, curve fits, predicted histograms and their
// evaluation (reuse_patterns.hpp). The method is instruction-based reuse-distance prediction:
// each operation's histogram is cut into patterns, each pattern's distances and frequency are
// fitted against the problem size over two or more training runs, and the fits evaluated at
// the target size give the predicted patterns; a prediction is judged by pattern overlap.

#include "reuse_patterns.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <span>

#include <fmt/format.h>

namespace pgas::tools {

namespace {

constexpr std::array<std::string_view, 8> model_names = {"constant", "linear", "sqrt",    "square",
                                                         "log",      "power",  "inverse", "affine"};

// The models of each fit_family, in fit_model's order (ties go to the first).
constexpr std::array<fit_model, 6> size_models = {fit_model::constant, fit_model::linear,
                                                  fit_model::sqrt,     fit_model::square,
                                                  fit_model::log,      fit_model::power};
constexpr std::array<fit_model, 2> thread_distance_models = {fit_model::constant,
                                                             fit_model::inverse};
constexpr std::array<fit_model, 3> thread_count_models = {fit_model::constant, fit_model::inverse,
                                                          fit_model::affine};

std::span<const fit_model> models_of(fit_family f) {
  switch (f) {
    case fit_family::size:
      break;
    case fit_family::thread_distance:
      return thread_distance_models;
    case fit_family::thread_count:
      return thread_count_models;
  }
  return size_models;
}

// Least squares of y = a + b u(x) over the points.
template <class U>
void fit_two(fit& f, const std::vector<std::pair<double, double>>& points, U u) {
  double su = 0, sy = 0, suu = 0, suy = 0;
  for (const auto& [x, y] : points) {
    const double v = u(x);
    su += v, sy += y, suu += v * v, suy += v * y;
  }
  const auto n = static_cast<double>(points.size());
  f.b = (n * suy - su * sy) / (n * suu - su * su);
  f.a = (sy - f.b * su) / n;
}

// g(x) of the one-coefficient models.
double basis(fit_model m, double x) {
  switch (m) {
    case fit_model::constant:
      return 1;
    case fit_model::linear:
      return x;
    case fit_model::sqrt:
      return std::sqrt(x);
    case fit_model::square:
      return x * x;
    case fit_model::log:
      return std::log2(x);
    case fit_model::power:
    case fit_model::inverse:
    case fit_model::affine:
      break;
  }
  return 0;
}

double rms_relative_error(const fit& f, const std::vector<std::pair<double, double>>& points) {
  double sum = 0;
  for (const auto& [x, y] : points) {
    const double e = (f.at(x) - y) / std::max(std::abs(y), 1.0);
    sum += e * e;
  }
  return std::sqrt(sum / static_cast<double>(points.size()));
}

// Samples ordered by x, with their patterns.
struct ordered_sample {
  double x;
  const reuse_histogram* h;
  std::vector<reuse_pattern> patterns;
};

std::uint64_t whole(double v) {
  if (!(v > 0)) return 0;
  if (v >= 1.8e19) return UINT64_MAX;
  return static_cast<std::uint64_t>(std::round(v));  // llround stops at 2^63
}

void add_piece(std::map<int, std::pair<reuse_bin, double>>& bins, std::uint64_t lo,
               std::uint64_t hi, std::uint64_t count, double mean) {
  if (count == 0) return;
  const int k = reuse_bin_of(lo);
  auto [it, fresh] = bins.try_emplace(k, reuse_bin{k, count, lo, hi, mean}, mean * count);
  if (fresh) return;
  reuse_bin& b = it->second.first;
  b.count += count;
  b.min = std::min(b.min, lo);
  b.max = std::max(b.max, hi);
  it->second.second += mean * static_cast<double>(count);
}

}  // namespace

std::vector<reuse_pattern> form_patterns(const std::vector<reuse_bin>& bins) {
  std::vector<reuse_pattern> out;
  bool open = false;
  bool down = false;
  std::uint64_t peak = 0;
  for (std::size_t i = 0; i < bins.size(); ++i) {
    const reuse_bin& b = bins[i];
    // An empty bin between two closes the pattern.
    if (i > 0 && bins[i - 1].bin != b.bin - 1) open = false;
    const auto min = static_cast<double>(b.min);
    const auto max = static_cast<double>(b.max);
    const bool second_peak = down && bins[i - 1].count < b.count;
    if (!open || min - out.back().max > out.back().max - out.back().min || second_peak) {
      out.push_back({min, max, static_cast<double>(b.count), b.mean});
      open = true;
      down = false;
      peak = b.count;
      continue;
    }
    reuse_pattern& p = out.back();
    p.max = max;
    p.freq += static_cast<double>(b.count);
    if (b.count > peak) {
      p.mean = b.mean;
      peak = b.count;
    }
    if (bins[i - 1].count > b.count) down = true;
  }
  return out;
}

std::string_view to_string(fit_model m) {
  return model_names[static_cast<std::size_t>(m)];
}

double fit::at(double x) const {
  if (model == fit_model::power) return a * std::pow(x, b);
  if (model == fit_model::inverse) return a + b / x;
  if (model == fit_model::affine) return a + b * x;
  return a * basis(model, x);
}

fit fit_points(const std::vector<std::pair<double, double>>& points, fit_family family) {
  bool all_y_positive = true;
  bool all_x_above_one = true;
  std::set<double> xs;
  for (const auto& [x, y] : points) {
    all_y_positive = all_y_positive && y > 0;
    all_x_above_one = all_x_above_one && x > 1;
    xs.insert(x);
  }
  fit best;
  bool have = false;
  for (const fit_model m : models_of(family)) {
    fit f;
    f.model = m;
    if (f.model == fit_model::log && !all_x_above_one) continue;
    const bool two_coefficients = f.model == fit_model::power || f.model == fit_model::inverse ||
                                  f.model == fit_model::affine;
    if (two_coefficients && xs.size() < 2) continue;
    if (f.model == fit_model::power) {
      if (!all_y_positive) continue;
      // Least squares of ln y = ln a + b ln x.
      std::vector<std::pair<double, double>> logs;
      for (const auto& [x, y] : points)
        logs.emplace_back(std::log(x), std::log(y));
      fit_two(f, logs, [](double lx) { return lx; });
      f.a = std::exp(f.a);
    } else if (f.model == fit_model::inverse) {
      fit_two(f, points, [](double x) { return 1 / x; });
    } else if (f.model == fit_model::affine) {
      fit_two(f, points, [](double x) { return x; });
    } else {
      double gy = 0, gg = 0;
      for (const auto& [x, y] : points) {
        const double g = basis(f.model, x);
        gy += g * y, gg += g * g;
      }
      f.a = gg > 0 ? gy / gg : 0;
    }
    f.error = rms_relative_error(f, points);
    if (!have || f.error < best.error - 1e-9) best = f, have = true;
  }
  return best;
}

std::vector<reuse_bin> patterns_to_bins(const std::vector<reuse_pattern>& patterns) {
  std::map<int, std::pair<reuse_bin, double>> bins;  // bin -> (bin, sum of mean x count)
  for (const reuse_pattern& p : patterns) {
    const std::uint64_t lo = whole(p.min);
    const std::uint64_t hi = std::max(lo, whole(p.max));
    const std::uint64_t freq = whole(p.freq);
    const double mean = std::clamp(p.mean, static_cast<double>(lo), static_cast<double>(hi));
    const int first = reuse_bin_of(lo), last = reuse_bin_of(hi);
    if (first == last) {
      add_piece(bins, lo, hi, freq, mean);
      continue;
    }
    // Spread over the bins spanned in proportion to the distances each holds; what rounding
    // leaves goes to the bin of the mean.
    const double span = static_cast<double>(hi - lo) + 1;
    const int mean_bin = reuse_bin_of(whole(mean));
    std::uint64_t given = 0;
    std::vector<std::array<std::uint64_t, 3>> pieces;  // lo, hi, count
    for (int k = first; k <= last; ++k) {
      const std::uint64_t plo = std::max(lo, reuse_bin_low(k));
      const std::uint64_t phi = std::min(hi, reuse_bin_high(k));
      const auto c = static_cast<std::uint64_t>(static_cast<double>(freq) *
                                                (static_cast<double>(phi - plo) + 1) / span);
      pieces.push_back({plo, phi, c});
      given += c;
    }
    pieces[static_cast<std::size_t>(mean_bin - first)][2] += freq - std::min(freq, given);
    for (std::size_t j = 0; j < pieces.size(); ++j) {
      const auto [plo, phi, c] = pieces[j];
      const double pm = static_cast<int>(j) + first == mean_bin
                            ? std::clamp(mean, static_cast<double>(plo), static_cast<double>(phi))
                            : (static_cast<double>(plo) + static_cast<double>(phi)) / 2;
      add_piece(bins, plo, phi, c, pm);
    }
  }
  std::vector<reuse_bin> out;
  for (auto& [k, entry] : bins) {
    reuse_bin b = entry.first;
    b.mean = std::clamp(entry.second / static_cast<double>(b.count), static_cast<double>(b.min),
                        static_cast<double>(b.max));
    out.push_back(b);
  }
  return out;
}

std::optional<histogram_prediction> predict_histogram(const std::vector<reuse_sample>& samples,
                                                      double x, std::string* why, scaling axis) {
  const fit_family distances =
      axis == scaling::threads ? fit_family::thread_distance : fit_family::size;
  const fit_family counts = axis == scaling::threads ? fit_family::thread_count : fit_family::size;
  const auto left_out = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  std::vector<ordered_sample> s;
  for (const reuse_sample& r : samples) {
    if (r.histogram == nullptr)
      return left_out(fmt::format("the training run at {} does not have it", r.x));
    s.push_back({r.x, r.histogram, form_patterns(r.histogram->bins)});
  }
  std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  const std::size_t n = s.front().patterns.size();
  for (const ordered_sample& o : s) {
    if (o.patterns.size() != n) {
      return left_out(fmt::format("{} pattern{} at {} but {} at {}", n, n == 1 ? "" : "s",
                                  s.front().x, o.patterns.size(), o.x));
    }
  }
  histogram_prediction out;
  std::vector<reuse_pattern> predicted;
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<std::pair<double, double>> mins, maxs, means, freqs;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const reuse_pattern& p = s[i].patterns[j];
      // Regular: the distances do not shrink as the size grows.
      if (i > 0 && (p.max < s[i - 1].patterns[j].max || p.mean < s[i - 1].patterns[j].mean)) {
        return left_out(
            fmt::format("pattern {}'s distances shrink from {} to {}", j, s[i - 1].x, s[i].x));
      }
      mins.emplace_back(s[i].x, p.min);
      maxs.emplace_back(s[i].x, p.max);
      means.emplace_back(s[i].x, p.mean);
      freqs.emplace_back(s[i].x, p.freq);
    }
    pattern_fits f{fit_points(mins, distances), fit_points(maxs, distances),
                   fit_points(means, distances), fit_points(freqs, counts)};
    reuse_pattern p;
    p.max = std::max(0.0, f.max.at(x));
    p.min = std::clamp(f.min.at(x), 0.0, p.max);
    p.mean = std::clamp(f.mean.at(x), p.min, p.max);
    p.freq = std::max(0.0, f.freq.at(x));
    predicted.push_back(p);
    out.fits.push_back(f);
  }
  std::vector<std::pair<double, double>> infinite;
  for (const ordered_sample& o : s)
    infinite.emplace_back(o.x, static_cast<double>(o.h->infinite));
  out.infinite = fit_points(infinite, counts);
  // Every count below is at most its pattern's rounded frequency: bound their sum first.
  double total = std::max(0.0, out.infinite.at(x));
  for (const reuse_pattern& p : predicted)
    total += p.freq;
  if (!(total < 1.8e19))
    return left_out(
        fmt::format("its predicted accesses at {} ({:.3g}) overflow 64 bits", x, total));
  reuse_histogram& h = out.histogram;
  h.bins = patterns_to_bins(predicted);
  h.infinite = whole(out.infinite.at(x));
  h.accesses = h.infinite;
  for (const reuse_bin& b : h.bins)
    h.accesses += b.count;
  if (h.accesses == 0) return left_out(fmt::format("it predicts no access at {}", x));
  return out;
}

double pattern_overlap(const reuse_pattern& a, const reuse_pattern& b) {
  // Two single distances share no range unless equal; a fitted distance is an estimate, so
  // they are compared as numbers instead (3071 predicted as 3068 agrees to 99.9 %).
  if (a.min == a.max && b.min == b.max) {
    const double larger = std::max(a.max, b.max);
    return larger == 0 ? 1 : std::min(a.max, b.max) / larger;
  }
  const double both = std::min(a.max, b.max) - std::max(a.min, b.min) + 1;
  const double wider = std::max(a.max - a.min, b.max - b.min) + 1;
  return both <= 0 ? 0 : both / wider;
}

bool predicted_correctly(const std::vector<reuse_pattern>& predicted,
                         const std::vector<reuse_pattern>& observed) {
  if (predicted.size() != observed.size()) return false;
  for (std::size_t j = 0; j < predicted.size(); ++j) {
    if (pattern_overlap(predicted[j], observed[j]) < correct_overlap) return false;
  }
  return true;
}

void check_training(const std::vector<reuse_recording>& runs,
                    const std::vector<std::string>& paths) {
  if (runs.size() < 2) {
    throw reuse_error(fmt::format("a prediction needs two training runs (--train A B); got one, {}",
                                  paths.front()));
  }
  const reuse_recording& a = runs.front();
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const reuse_recording& r = runs[i];
    if (r.program != a.program) {
      throw reuse_error(
          fmt::format("{} records {} and {} records {}: training runs must be of one program",
                      paths[0], a.program, paths[i], r.program));
    }
    if (r.grain != a.grain || r.grain_bytes != a.grain_bytes) {
      throw reuse_error(fmt::format(
          "{} counts distances in {}s of {} bytes and {} in {}s of {}: training runs must use "
          "one grain",
          paths[0], a.grain, a.grain_bytes, paths[i], r.grain, r.grain_bytes));
    }
    const bool shared = std::any_of(r.sites.begin(), r.sites.end(), [&](const reuse_site& s) {
      return std::find(a.sites.begin(), a.sites.end(), s) != a.sites.end();
    });
    if (!shared) {
      throw reuse_error(fmt::format(
          "{} and {} have no site in common (file, line, function and kind): training runs "
          "must be of one build of one program",
          paths[0], paths[i]));
    }
  }
}

std::vector<reuse_site> site_union(const std::vector<reuse_recording>& runs) {
  std::vector<reuse_site> out;
  std::set<reuse_site> seen;
  for (const reuse_recording& r : runs) {
    for (const reuse_site& s : r.sites) {
      if (seen.insert(s).second) out.push_back(s);
    }
  }
  return out;
}

const reuse_histogram* find_histogram(const reuse_recording& r, int thread,
                                      const reuse_site& site) {
  const auto s = std::find(r.sites.begin(), r.sites.end(), site);
  if (s == r.sites.end()) return nullptr;
  const auto key = std::pair(thread, static_cast<int>(s - r.sites.begin()));
  const auto it = std::lower_bound(
      r.histograms.begin(), r.histograms.end(), key,
      [](const reuse_histogram& h, const auto& k) { return std::pair(h.thread, h.site) < k; });
  return it != r.histograms.end() && std::pair(it->thread, it->site) == key ? &*it : nullptr;
}

reuse_recording prediction_header(const std::vector<reuse_recording>& runs, int threads,
                                  std::optional<std::int64_t> size) {
  reuse_recording out;
  out.program = runs.front().program;
  out.threads = threads;
  out.size = size;
  out.grain = runs.front().grain;
  out.grain_bytes = runs.front().grain_bytes;
  out.mode = "exact";
  for (const reuse_recording& r : runs) {
    if (r.mode == "approximate") out.mode = r.mode;
    out.error_bound = std::max(out.error_bound, r.error_bound);
  }
  out.sites = site_union(runs);
  return out;
}

void predict_thread(const std::vector<reuse_recording>& runs, const std::vector<double>& xs,
                    const std::vector<int>& from, int thread, double x, reuse_recording& out,
                    std::vector<prediction_note>& notes, scaling axis) {
  for (std::size_t s = 0; s < out.sites.size(); ++s) {
    std::vector<reuse_sample> samples;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (from[i] >= 0) samples.push_back({xs[i], find_histogram(runs[i], from[i], out.sites[s])});
    }
    std::string why;
    auto p = predict_histogram(samples, x, &why, axis);
    if (!p) {
      // An operation no training run has is not the prediction's to cover.
      const bool trained = std::any_of(samples.begin(), samples.end(), [](const reuse_sample& r) {
        return r.histogram != nullptr;
      });
      if (trained) notes.push_back({thread, static_cast<int>(s), from, {}, {}, std::move(why)});
      continue;
    }
    p->histogram.thread = thread;
    p->histogram.site = static_cast<int>(s);
    out.histograms.push_back(std::move(p->histogram));
    notes.push_back({thread, static_cast<int>(s), from, std::move(p->fits), p->infinite, {}});
  }
}

reuse_recording predict_size(const std::vector<reuse_recording>& runs,
                             const std::vector<std::string>& paths, std::int64_t size,
                             std::vector<prediction_note>& notes) {
  check_training(runs, paths);
  std::vector<double> xs;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const reuse_recording& r = runs[i];
    if (!r.size) {
      throw reuse_error(fmt::format(
          "{}: the program declared no problem size (\"size\": null); predict --size fits "
          "against the size, so every training run needs one",
          paths[i]));
    }
    if (r.threads != runs[0].threads) {
      throw reuse_error(fmt::format(
          "{} ran {} threads and {} ran {}: predict --size scales the size at one thread "
          "count (predict --threads scales the threads)",
          paths[0], runs[0].threads, paths[i], r.threads));
    }
    for (std::size_t k = 0; k < i; ++k) {
      if (*runs[k].size == *r.size) {
        throw reuse_error(fmt::format(
            "{} and {} are both of size {}: the training sizes must differ to fit a curve",
            paths[k], paths[i], *r.size));
      }
    }
    xs.push_back(static_cast<double>(*r.size));
  }
  const double smallest = *std::min_element(xs.begin(), xs.end());
  if (static_cast<double>(size) < smallest) {
    throw reuse_error(fmt::format(
        "--size {} is below the training sizes (the smallest is {}): pgas-reuse predicts "
        "larger runs from smaller ones",
        size, static_cast<std::int64_t>(smallest)));
  }
  reuse_recording out = prediction_header(runs, runs[0].threads, size);
  for (int t = 0; t < out.threads; ++t)
    predict_thread(runs, xs, std::vector<int>(runs.size(), t), t, static_cast<double>(size), out,
                   notes);
  return out;
}

evaluation evaluate(const reuse_recording& predicted, const std::string& predicted_path,
                    const reuse_recording& observed, const std::string& observed_path) {
  if (predicted.program != observed.program) {
    throw reuse_error(fmt::format("{} predicts {} but {} records {}: not one program",
                                  predicted_path, predicted.program, observed_path,
                                  observed.program));
  }
  if (predicted.threads != observed.threads) {
    throw reuse_error(fmt::format("{} predicts {} threads but {} ran {}", predicted_path,
                                  predicted.threads, observed_path, observed.threads));
  }
  if (predicted.size && observed.size && *predicted.size != *observed.size) {
    throw reuse_error(fmt::format("{} is of size {} but {} ran size {}: not one problem",
                                  predicted_path, *predicted.size, observed_path, *observed.size));
  }
  if (predicted.grain != observed.grain || predicted.grain_bytes != observed.grain_bytes) {
    throw reuse_error(fmt::format("{} counts in {}s of {} bytes but {} in {}s of {}",
                                  predicted_path, predicted.grain, predicted.grain_bytes,
                                  observed_path, observed.grain, observed.grain_bytes));
  }
  evaluation e;
  for (const reuse_site& s : observed.sites)
    e.sites.push_back({s, 0, 0, 0});
  std::map<int, thread_evaluation> threads;
  for (const reuse_histogram& h : observed.histograms) {
    const reuse_histogram* p =
        find_histogram(predicted, h.thread, observed.sites[static_cast<std::size_t>(h.site)]);
    const int covered = p != nullptr ? 1 : 0;
    const int correct =
        p != nullptr && predicted_correctly(form_patterns(p->bins), form_patterns(h.bins)) ? 1 : 0;
    site_evaluation& se = e.sites[static_cast<std::size_t>(h.site)];
    thread_evaluation& te = threads[h.thread];
    te.thread = h.thread;
    for (int* count : {&se.observed, &te.observed, &e.observed})
      ++*count;
    for (int* count : {&se.covered, &te.covered, &e.covered})
      *count += covered;
    for (int* count : {&se.correct, &te.correct, &e.correct})
      *count += correct;
  }
  for (const auto& [t, te] : threads)
    e.threads.push_back(te);
  return e;
}

}  // namespace pgas::tools
