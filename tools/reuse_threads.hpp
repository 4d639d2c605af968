// tools/reuse_threads.hpp — which training threads predict each thread of a run with more
// threads: the threads of each training run are grouped by behaviour (patterns within 5 %),
// the groups are matched against a pattern function of the thread layout (the groups' values
// must not overlap), and each target thread is predicted from the lowest thread of each
// training run that has its value. Thread 0, which does a program's extra work, is always
// predicted from thread 0. Pure functions of recordings; pgas-reuse predict --threads uses them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reuse_file.hpp"
#include "reuse_patterns.hpp"

namespace pgas::tools {

/// A function of a thread's place among n threads, as the data layout puts it.
///  diagonal: n must be a square s x s (thread t at row t / s, column t % s); 0 on the
///            diagonal, 1 off it (a blocked LU's diagonal threads do extra work).
///  grid:     n a square; a value per region: the four corners (0-3), the four edges without
///            the corners (top 4, bottom 5, left 6, right 7), the diagonal (8), above it (9),
///            below it (10) (2-D stencils: the edges lack neighbours).
///  line:     the first thread (0), the last (1), the others (2) (1-D neighbour exchanges).
enum class thread_pattern : std::uint8_t { diagonal, grid, line };

std::string_view to_string(thread_pattern p);
bool parse_thread_pattern(std::string_view text, thread_pattern& out);

/// The pattern's value for thread t of n. Throws reuse_error when n does not suit it (not a
/// square for diagonal and grid).
int pattern_value(thread_pattern p, int t, int n);

/// What a value means, for tables ("diagonal", "upper triangle", "top edge").
std::string_view describe_value(thread_pattern p, int value);

/// The patterns of a thread at each site it has a histogram at.
using thread_behaviour = std::map<reuse_site, std::vector<reuse_pattern>>;

thread_behaviour behaviour_of(const reuse_recording& r, int thread);

/// Whether a thread's behaviour matches a group's mean behaviour: the same sites, as many
/// patterns at each, and min, max, freq and mean each within `tolerance` (relative to the
/// larger of the two).
inline constexpr double group_tolerance = 0.05;

bool behaviour_matches(const thread_behaviour& group, const thread_behaviour& thread);

/// The threads 1..threads-1 of `r` in groups of matching behaviour, in order of their lowest
/// thread; a thread joins the first group it matches, whose mean then takes it in.
std::vector<std::vector<int>> partition_threads(const reuse_recording& r);

/// Each pattern value of `r`'s threads 1.. mapped to the lowest thread that has it. Throws
/// reuse_error (naming `path`) when two groups share a value: the pattern does not describe
/// how the run's threads behave.
std::map<int, int> match_pattern(const reuse_recording& r, const std::string& path,
                                 const std::vector<std::vector<int>>& groups, thread_pattern p);

/// For each thread of a `threads`-thread run, the thread of each training run (maps[i] is
/// match_pattern's of runs[i]) to predict it from (thread 0 from thread 0). A run that lacks
/// the thread's value (2 threads have no inner thread of pattern line) stands in for it:
///  1. with its thread of another value w, when in every run that has both values their
///     threads behave alike (behaviour_matches, and first accesses at each site within 5 %):
///     the values are one behaviour there;
///  2. else not at all (-1: the thread is predicted from the other runs alone, as a constant
///     when one run is left), when every value the run shares with each run that has the
///     missing one behaves alike in both: the runs show no change with the thread count.
/// So from 2 and 4 threads, pattern line predicts the inner threads of matmul (every thread
/// alike) from the last thread of the 2-thread run, and those of a neighbour exchange (the
/// inner threads read from two neighbours, the edges from one, at any thread count) from the
/// 4-thread run alone.
/// Throws reuse_error when a thread's value is in no map, or in some but neither rule holds.
std::vector<std::vector<int>> select_training(const std::vector<reuse_recording>& runs,
                                              thread_pattern p, int threads,
                                              const std::vector<std::map<int, int>>& maps,
                                              const std::vector<std::string>& paths);

/// Predicts the recording of `threads` threads from two runs of fewer, at one problem size
/// per thread (distances and counts are fitted against the thread count). Throws reuse_error
/// (check_training; thread counts equal or above `threads`; a pattern that does not match).
/// `from` receives the training threads chosen for each thread.
reuse_recording predict_threads(const std::vector<reuse_recording>& runs,
                                const std::vector<std::string>& paths, int threads,
                                thread_pattern p, std::vector<std::vector<int>>& from,
                                std::vector<prediction_note>& notes);

}  // namespace pgas::tools
