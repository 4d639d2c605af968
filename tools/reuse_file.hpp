// tools/reuse_file.hpp — a reuse-distance recording (the JSON file pgasrun --reuse writes,
// format "pgas-reuse" version 1) as pgas-reuse reads and writes it: read_reuse() parses one
// file and checks every field, write_reuse() gives the text of one (a prediction is written in
// the same format, so every command reads it back). The analysis starts from here
// (reuse_patterns.hpp, reuse_threads.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pgas::tools {

/// A recording that cannot be used, or recordings that cannot be used together: the message
/// names the file and what is wrong ("a.reuse: histograms[3].bins[1].min: 9 is outside bin 3
/// (distances 4 to 7)"). pgas-reuse reports it with exit status 2.
struct reuse_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The largest recording read: 256 MiB (a recording has one histogram per thread and site).
inline constexpr std::size_t max_reuse_bytes = std::size_t{1} << 28;

/// The largest thread count a recording may declare.
inline constexpr int max_reuse_threads = 1 << 16;

/// Bins are numbered 0 (distance 0) and k >= 1 (2^(k-1) <= d < 2^k); 64 is the last a 64-bit
/// distance reaches.
inline constexpr int max_reuse_bin = 64;

/// The bin of distance `d`.
int reuse_bin_of(std::uint64_t d);

/// The smallest and largest distance bin `k` holds.
std::uint64_t reuse_bin_low(int k);
std::uint64_t reuse_bin_high(int k);

/// One non-empty bin: `count` reuses whose distances lie from `min` to `max` (inside the bin)
/// with mean `mean`.
struct reuse_bin {
  int bin = 0;
  std::uint64_t count = 0;
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  double mean = 0;
};

/// A source site, identified across runs by all four fields (never by its number).
struct reuse_site {
  std::string file;
  std::int64_t line = 0;
  std::string function;
  std::string kind;  // pgas-trace's kind names: "element", "bulk", ...

  bool operator==(const reuse_site&) const = default;
  auto operator<=>(const reuse_site&) const = default;
};

/// One thread's reuses at one site: `infinite` first accesses plus the bins' counts make
/// `accesses`; bins ascending by bin number.
struct reuse_histogram {
  int thread = 0;
  int site = 0;  // index into reuse_recording::sites
  std::uint64_t accesses = 0;
  std::uint64_t infinite = 0;
  std::vector<reuse_bin> bins;
};

struct reuse_recording {
  std::string program;
  std::vector<std::string> arguments;
  int threads = 1;
  std::optional<std::int64_t> size;  // the problem size the program declared
  std::string grain;                 // "element", "line" or "block"
  std::uint64_t grain_bytes = 1;
  std::string mode;  // "exact" or "approximate"
  double error_bound = 0;
  std::vector<reuse_site> sites;
  std::vector<reuse_histogram> histograms;  // sorted by (thread, site), one per pair
};

/// Parses `text`, read from `path` (named in errors), and checks every field: the format and
/// version, types and ranges, site numbers, histograms sorted and unique, each bin's distances
/// inside the bin and its mean between them, and infinite + counts == accesses. Throws
/// reuse_error naming the file and the field.
reuse_recording parse_reuse(const std::string& path, const std::string& text);

/// Reads and parses `path` (at most max_reuse_bytes, a regular file). Throws reuse_error.
reuse_recording read_reuse(const std::string& path);

/// The JSON text of `r` in the recording format (what parse_reuse reads back).
std::string write_reuse(const reuse_recording& r);

/// `text` with its control characters (a newline, an escape sequence) written as \xNN, so
/// that names read from a recording print as one line and cannot drive the terminal.
std::string printable(std::string_view text);

/// "file:line function (kind)", as tables name a site (printable).
std::string describe_site(const reuse_site& s);

}  // namespace pgas::tools
