// src/base/file.cpp — reading and writing files the user named, safely (src/base/file.hpp).

#include "src/base/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace pgas::detail {

namespace {

// Closes the descriptor on every path out of read_bounded_file().
struct descriptor {
  int fd;
  ~descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string describe_bytes(std::size_t bytes) {
  constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  std::size_t value = bytes / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", value, units[unit]);
}

std::string read_bounded_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer before fstat() can refuse it.
  const descriptor d{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (d.fd < 0) throw file_error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(d.fd, &st) != 0) {
    throw file_error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) throw file_error(fmt::format("{}: cannot read: Is a directory", path));
  if (!S_ISREG(st.st_mode)) throw file_error(fmt::format("{}: not a regular file", path));
  const auto too_big = [&](std::size_t size) {
    return file_error(fmt::format("{}: {}, above the limit of {}", path, describe_bytes(size),
                                  describe_bytes(max_bytes)));
  };
  if (static_cast<std::size_t>(st.st_size) > max_bytes) throw too_big(st.st_size);

  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t have = 0;
  for (;;) {
    if (have == text.size()) {
      if (have > max_bytes) throw too_big(have);
      text.resize(std::min(max_bytes + 1, have + 4096));  // the file grew since fstat()
    }
    const ssize_t n = ::read(d.fd, text.data() + have, text.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw file_error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  if (have > max_bytes) throw too_big(have);
  text.resize(have);
  return text;
}

namespace {

// A path that already names something other than a regular file (a directory, a device such
// as /dev/null, a FIFO, a socket; through a symbolic link too, as /dev/stdout) is refused:
// renaming a new file over it would replace the device node or the link in /dev, which is
// never what the user meant. A dangling link, or a link to a regular file, is replaced.
void check_target(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;
  throw file_error(fmt::format("cannot write {}: it is {}", path,
                               S_ISDIR(st.st_mode) ? "a directory"
                               : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                                   ? "a device, not a regular file"
                               : S_ISFIFO(st.st_mode) ? "a FIFO, not a regular file"
                                                      : "not a regular file"));
}

}  // namespace

void replace_file(const std::string& path, std::string_view text) {
  check_target(path);
  std::string temp = path + ".XXXXXX";
  const descriptor d{::mkstemp(temp.data())};
  if (d.fd < 0) throw file_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  const auto fail = [&](int err) {
    ::unlink(temp.c_str());
    return file_error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
  };
  // mkstemp makes the file 0600; give it what a plain create would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fchmod(d.fd, 0644 & ~mask) != 0) throw fail(errno);
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(d.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(errno);
    done += static_cast<std::size_t>(n);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) throw fail(errno);
}

void check_replaceable(const std::string& path) {
  check_target(path);
  std::string temp = path + ".XXXXXX";
  const descriptor d{::mkstemp(temp.data())};
  if (d.fd < 0) throw file_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  ::unlink(temp.c_str());
}

}  // namespace pgas::detail
