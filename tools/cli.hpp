// tools/cli.hpp — what every pgas command-line tool does the same way: one-line error messages
// "TOOL: error: …" on stderr with the conventional exit statuses (2 for a bad command line), and
// CLI11's multi-line texts folded into one line so scripts can match them.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pgas::tools {

/// A bad command line: reported with exit status 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int exit_usage = 2;

/// Prints "TOOL: error: MESSAGE" (after flushing stdout, so the line comes last) and exits.
[[noreturn]] inline void fail(const char* tool, int status, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", tool, message.c_str());
  std::exit(status);
}

/// Folds a message that may span lines (CLI11's) into one line without trailing blanks.
inline std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

}  // namespace pgas::tools
