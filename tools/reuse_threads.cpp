// tools/reuse_threads.cpp — choosing training threads for a run with more threads
// (reuse_threads.hpp): behaviour groups, the pattern function's match, the selection, and
// predict_threads() which fits each chosen pair against the thread count.

#include "reuse_threads.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace pgas::tools {

namespace {

constexpr std::array<std::string_view, 3> pattern_names = {"diagonal", "grid", "line"};

constexpr std::array<std::string_view, 11> grid_values = {
    "top-left corner", "top-right corner", "bottom-left corner", "bottom-right corner",
    "top edge",        "bottom edge",      "left edge",          "right edge",
    "diagonal",        "upper triangle",   "lower triangle"};

bool close(double g, double t) {
  const double larger = std::max(std::abs(g), std::abs(t));
  return larger == 0 || std::abs(g - t) / larger <= group_tolerance;
}

int side_of(thread_pattern p, int n) {
  const auto s = static_cast<int>(std::lround(std::sqrt(static_cast<double>(n))));
  if (s * s != n) {
    throw reuse_error(
        fmt::format("pattern {} lays threads out in a square, and {} threads are not a square (use "
                    "--pattern line, or runs of 4, 9, 16, 25, ... threads)",
                    to_string(p), n));
  }
  return s;
}

// The group's mean behaviour takes in one more member (running means, as it grows).
void take_in(thread_behaviour& mean, const thread_behaviour& t, int members) {
  const auto m = static_cast<double>(members);
  for (auto& [site, patterns] : mean) {
    const std::vector<reuse_pattern>& tp = t.at(site);
    for (std::size_t j = 0; j < patterns.size(); ++j) {
      reuse_pattern& g = patterns[j];
      g.min = (g.min * m + tp[j].min) / (m + 1);
      g.max = (g.max * m + tp[j].max) / (m + 1);
      g.freq = (g.freq * m + tp[j].freq) / (m + 1);
      g.mean = (g.mean * m + tp[j].mean) / (m + 1);
    }
  }
}

// Whether thread a of run x behaves like thread b of run y: its patterns (behaviour_matches)
// and, as a stand-in carries them into the prediction too, its first accesses at each site.
bool alike(const reuse_recording& x, int a, const reuse_recording& y, int b) {
  if (!behaviour_matches(behaviour_of(x, a), behaviour_of(y, b))) return false;
  for (const reuse_histogram& h : x.histograms) {
    if (h.thread != a) continue;
    const reuse_histogram* other = find_histogram(y, b, x.sites[static_cast<std::size_t>(h.site)]);
    if (other == nullptr ||
        !close(static_cast<double>(h.infinite), static_cast<double>(other->infinite)))
      return false;
  }
  return true;
}

// The thread of runs[i] that stands for value v, which it lacks (select_training's rules 1
// and 2), or -1 to leave the run out; `having` lists the runs that have v.
int stand_in(const std::vector<reuse_recording>& runs, const std::vector<std::map<int, int>>& maps,
             const std::vector<std::size_t>& having, std::size_t i, int v, thread_pattern p, int t,
             int threads, const std::vector<std::string>& paths) {
  // 1. A value of the run that behaves like v wherever both are.
  for (const auto& [w, thread] : maps[i]) {
    bool one = true;
    for (const std::size_t j : having) {
      const auto wt = maps[j].find(w);
      one = one && wt != maps[j].end() && alike(runs[j], maps[j].at(v), runs[j], wt->second);
    }
    if (one) return thread;
  }
  // 2. The run's values behave alike in it and in the runs with v: nothing changes with the
  // thread count, so the runs with v predict it alone.
  for (const std::size_t j : having) {
    for (const auto& [w, thread] : maps[i]) {
      const auto wt = maps[j].find(w);
      if (wt != maps[j].end() && !alike(runs[i], thread, runs[j], wt->second)) {
        throw reuse_error(fmt::format(
            "thread {} of {} has value {} ({}) of pattern {}, which no thread of {} has; in {} "
            "it behaves unlike the other values, and {}'s {} thread {} behaves unlike {}'s "
            "thread {} (the behaviour changes with the thread count): train with runs whose "
            "threads cover every part of the pattern",
            t, threads, v, describe_value(p, v), to_string(p), paths[i], paths[j], paths[i],
            describe_value(p, w), thread, paths[j], wt->second));
      }
    }
  }
  return -1;
}

}  // namespace

std::string_view to_string(thread_pattern p) {
  return pattern_names[static_cast<std::size_t>(p)];
}

bool parse_thread_pattern(std::string_view text, thread_pattern& out) {
  const auto at = std::find(pattern_names.begin(), pattern_names.end(), text);
  if (at == pattern_names.end()) return false;
  out = static_cast<thread_pattern>(at - pattern_names.begin());
  return true;
}

int pattern_value(thread_pattern p, int t, int n) {
  if (p == thread_pattern::line) return t == 0 ? 0 : t == n - 1 ? 1 : 2;
  const int s = side_of(p, n);
  const int row = t / s, col = t % s, last = s - 1;
  if (p == thread_pattern::diagonal) return row == col ? 0 : 1;
  const bool top = row == 0, bottom = row == last, left = col == 0, right = col == last;
  if (top && left) return 0;
  if (top && right) return 1;
  if (bottom && left) return 2;
  if (bottom && right) return 3;
  if (top) return 4;
  if (bottom) return 5;
  if (left) return 6;
  if (right) return 7;
  return row == col ? 8 : col > row ? 9 : 10;
}

std::string_view describe_value(thread_pattern p, int value) {
  switch (p) {
    case thread_pattern::diagonal:
      return value == 0 ? "diagonal" : "off the diagonal";
    case thread_pattern::grid:
      return grid_values[static_cast<std::size_t>(value)];
    case thread_pattern::line:
      return value == 0 ? "first" : value == 1 ? "last" : "inner";
  }
  return "";
}

thread_behaviour behaviour_of(const reuse_recording& r, int thread) {
  thread_behaviour out;
  for (const reuse_histogram& h : r.histograms) {
    if (h.thread == thread)
      out.emplace(r.sites[static_cast<std::size_t>(h.site)], form_patterns(h.bins));
  }
  return out;
}

bool behaviour_matches(const thread_behaviour& group, const thread_behaviour& thread) {
  if (group.size() != thread.size()) return false;
  for (const auto& [site, gp] : group) {
    const auto it = thread.find(site);
    if (it == thread.end() || it->second.size() != gp.size()) return false;
    for (std::size_t j = 0; j < gp.size(); ++j) {
      const reuse_pattern& g = gp[j];
      const reuse_pattern& t = it->second[j];
      if (!close(g.min, t.min) || !close(g.max, t.max) || !close(g.freq, t.freq) ||
          !close(g.mean, t.mean))
        return false;
    }
  }
  return true;
}

std::vector<std::vector<int>> partition_threads(const reuse_recording& r) {
  std::vector<std::vector<int>> groups;
  std::vector<thread_behaviour> means;
  for (int t = 1; t < r.threads; ++t) {
    const thread_behaviour b = behaviour_of(r, t);
    std::size_t g = 0;
    while (g < groups.size() && !behaviour_matches(means[g], b))
      ++g;
    if (g == groups.size()) {
      groups.push_back({t});
      means.push_back(b);
    } else {
      take_in(means[g], b, static_cast<int>(groups[g].size()));
      groups[g].push_back(t);
    }
  }
  return groups;
}

std::map<int, int> match_pattern(const reuse_recording& r, const std::string& path,
                                 const std::vector<std::vector<int>>& groups, thread_pattern p) {
  std::map<int, int> lowest;    // value -> lowest thread
  std::map<int, int> group_of;  // value -> the group that has it
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const int t : groups[g]) {
      const int v = pattern_value(p, t, r.threads);
      lowest.try_emplace(v, t);
      const auto [it, fresh] = group_of.try_emplace(v, static_cast<int>(g));
      if (!fresh && it->second != static_cast<int>(g)) {
        throw reuse_error(fmt::format(
            "{}: threads {} and {} share value {} ({}) of pattern {} but behave differently "
            "(their reuse patterns differ by more than {} %): the pattern does not describe "
            "this run's threads",
            path, lowest.at(v), t, v, describe_value(p, v), to_string(p),
            static_cast<int>(group_tolerance * 100)));
      }
    }
  }
  return lowest;
}

std::vector<std::vector<int>> select_training(const std::vector<reuse_recording>& runs,
                                              thread_pattern p, int threads,
                                              const std::vector<std::map<int, int>>& maps,
                                              const std::vector<std::string>& paths) {
  std::vector<std::vector<int>> out;
  out.push_back(std::vector<int>(maps.size(), 0));
  for (int t = 1; t < threads; ++t) {
    const int v = pattern_value(p, t, threads);
    std::vector<int> from;
    std::vector<std::size_t> having;  // the runs with a thread of value v
    for (std::size_t i = 0; i < maps.size(); ++i) {
      if (maps[i].contains(v)) having.push_back(i);
    }
    for (std::size_t i = 0; i < maps.size(); ++i) {
      const auto it = maps[i].find(v);
      if (it != maps[i].end()) {
        from.push_back(it->second);
        continue;
      }
      if (having.empty()) {
        throw reuse_error(
            fmt::format("thread {} of {} has value {} ({}) of pattern {}, and no thread of {} has: "
                        "train with runs whose threads cover every part of the pattern",
                        t, threads, v, describe_value(p, v), to_string(p), paths[i]));
      }
      from.push_back(stand_in(runs, maps, having, i, v, p, t, threads, paths));
    }
    out.push_back(std::move(from));
  }
  return out;
}

reuse_recording predict_threads(const std::vector<reuse_recording>& runs,
                                const std::vector<std::string>& paths, int threads,
                                thread_pattern p, std::vector<std::vector<int>>& from,
                                std::vector<prediction_note>& notes) {
  check_training(runs, paths);
  std::vector<std::map<int, int>> maps;
  std::vector<double> xs;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (runs[k].threads == runs[i].threads) {
        throw reuse_error(fmt::format(
            "{} and {} both ran {} threads: the training thread counts must differ to fit a "
            "curve",
            paths[k], paths[i], runs[i].threads));
      }
    }
    if (runs[i].threads > threads) {
      throw reuse_error(fmt::format(
          "--threads {} is below the training runs' ({} ran {}): pgas-reuse predicts larger "
          "runs from smaller ones",
          threads, paths[i], runs[i].threads));
    }
    maps.push_back(match_pattern(runs[i], paths[i], partition_threads(runs[i]), p));
    xs.push_back(runs[i].threads);
  }
  pattern_value(p, 0, threads);  // a target count the pattern cannot lay out is an error
  from = select_training(runs, p, threads, maps, paths);
  std::optional<std::int64_t> size;
  reuse_recording out = prediction_header(runs, threads, size);
  for (int t = 0; t < threads; ++t)
    predict_thread(runs, xs, from[static_cast<std::size_t>(t)], t, threads, out, notes,
                   scaling::threads);
  return out;
}

}  // namespace pgas::tools
