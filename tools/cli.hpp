// tools/cli.hpp — what every pgas command-line tool does the same way: one-line error messages
// "TOOL: error: …" on stderr with the conventional exit statuses (2 for a bad command line), and
// CLI11's multi-line texts folded into one line so scripts can match them.
#pragma once

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include <pgas/config.hpp>

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

/// What a tool's main returns: `status` when everything it printed reached standard output;
/// otherwise, as coreutils do, "TOOL: error: cannot write to standard output: REASON" on stderr
/// and status 1 (a full disk, a closed pipe, stdout on /dev/full): a listing that was not
/// written must not look like one that was, whatever status the tool meant to return.
[[nodiscard]] inline int finish_output(const char* tool, int status) {
  if (std::ferror(stdout) == 0) {
    errno = 0;
    if (std::fflush(stdout) == 0) return status;
  }
  // A failure seen earlier (a flush inside the tool) left its reason in errno.
  const int reason = errno != 0 ? errno : EIO;
  std::fprintf(stderr, "%s: error: cannot write to standard output: %s\n", tool,
               std::strerror(reason));
  return 1;
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

/// A tool's main: runs `run` (returning the exit status) and ends through finish_output; a
/// usage_error or one of the tool's own input errors (`InputErrors`: a malformed file) is
/// reported on one line with exit status 2, any other exception with status 1.
template <class... InputErrors, class Run>
int tool_main(const char* tool, Run&& run) {
  try {
    return finish_output(tool, run());
  } catch (const std::exception& e) {
    const bool input = dynamic_cast<const usage_error*>(&e) != nullptr ||
                       ((dynamic_cast<const InputErrors*>(&e) != nullptr) || ...);
    fail(tool, input ? exit_usage : 1, one_line(e.what()));
  }
}

/// Parses the command line with CLI11. Returns false when --help or --version was printed (the
/// tool then exits 0); throws usage_error for anything CLI11 rejects, as one line. A value
/// missing after a trailing option reads "OPT needs a value", with CLI11's name `from` shown
/// as `to` (e.g. --np as -n); `hint` (e.g. " (see pgasrun --help)") follows that message, and
/// every other one too when `hint_all`.
inline bool parse_command_line(CLI::App& app, int argc, char** argv, const std::string& hint,
                               bool hint_all, std::string_view from = {},
                               std::string_view to = {}) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return false;
  } catch (const CLI::CallForVersion& e) {
    std::printf("%s\n", e.what());
    return false;
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "--np: 1 required N missing" for a trailing option.
    std::string what = one_line(e.what());
    const auto colon = what.find(": 1 required ");
    if (colon != std::string::npos && what.ends_with(" missing")) {
      std::string name = what.substr(0, colon);
      if (!from.empty() && name == from) name = to;
      what = name + " needs a value";
    }
    throw usage_error(what + hint);
  } catch (const CLI::ParseError& e) {
    throw usage_error(one_line(e.what()) + (hint_all ? hint : std::string()));
  }
  return true;
}

/// A whole number typed on the command line (spaces around it allowed), or nothing when the
/// text is not one.
inline std::optional<std::size_t> parse_count(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  std::size_t value = 0;
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(text.data(), last, value);
  if (text.empty() || end != last || ec != std::errc{}) return std::nullopt;
  return value;
}

/// A CLI11 formatter whose usage section is `text` (CLI11's own lists every option on one
/// line, which reads badly for tools with many).
class usage_formatter : public CLI::Formatter {
 public:
  explicit usage_formatter(std::string text) : text_(std::move(text)) {}
  std::string make_usage(const CLI::App*, std::string) const override { return text_; }

 private:
  std::string text_;
};

/// What every pgas tool's command line shares: the usage text, the footer, the width of the
/// option column, -h/--help and --version ("NAME (pgas) VERSION").
inline void configure_app(CLI::App& app, const std::string& name, std::string usage,
                          const std::string& footer, std::size_t column_width) {
  app.formatter(std::make_shared<usage_formatter>(std::move(usage)));
  app.get_formatter()->column_width(column_width);
  app.footer(footer);
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.set_version_flag("--version", name + " (pgas) " + pgas::config::version,
                       "Print the version and exit");
}

}  // namespace pgas::tools
