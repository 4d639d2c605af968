// src/base/file.hpp — reading and writing files the user named, safely.
//
// Every file a tool or the runtime reads on the user's word (a topology XML, a benchmark's
// runs.json) goes through read_bounded_file(): it must be a regular file (not a directory, a
// FIFO or a device such as /dev/zero) no larger than the caller's limit, and it is read whole
// into memory. A hostile path then costs one stat() and an error, never gigabytes.
// Every file a tool writes into a user-named directory goes through replace_file(): a new file
// renamed over the old name, so a symbolic link planted there is replaced, never followed.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pgas::detail {

/// Why a file could not be read: the message names the path and the reason, e.g.
/// "/dev/zero: not a regular file" or "big.xml: 70 MiB, above the limit of 16 MiB".
class file_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The whole content of `path`. Throws file_error when the path cannot be opened, is not a
/// regular file, is larger than `max_bytes`, or grows past it while it is read. Allocates.
std::string read_bounded_file(const std::string& path, std::size_t max_bytes);

/// Writes `text` to `path` as a new file (mode 0644 less the umask) in the same directory,
/// then renames it over `path`: a reader sees the old content or the new, and a symbolic link
/// at `path` is replaced rather than written through. A `path` that names a directory, a
/// device, a FIFO or a socket (itself or through a link, as /dev/null or /dev/stdout) is
/// refused, never replaced. Throws file_error naming the path.
void replace_file(const std::string& path, std::string_view text);

/// Throws file_error, as replace_file would, when `path` could not be replaced now: its
/// directory does not let this process create a file there, or `path` names a directory, a
/// device, a FIFO or a socket. For
/// checking a file that will be written at the end of a long run before the run starts.
void check_replaceable(const std::string& path);

/// `bytes` as people read sizes: "512 bytes", "3 KiB", "70 MiB" (rounded down).
std::string describe_bytes(std::size_t bytes);

}  // namespace pgas::detail
