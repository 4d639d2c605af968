// tests/unit/src/base/file_test.cpp — reading user-named files within limits
// (src/base/file.hpp): regular files read whole, everything else refused with the path named;
// files written by renaming a new one over the name, so planted links are never followed.

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/base/file.hpp"

using Catch::Matchers::Contains;
using pgas::detail::describe_bytes;
using pgas::detail::file_error;
using pgas::detail::read_bounded_file;

namespace {

// A temporary file holding `content`, removed at the end of the scope.
struct temp_file {
  std::string path;
  explicit temp_file(const std::string& content) {
    char name[] = "/tmp/pgas-file-test-XXXXXX";
    const int fd = mkstemp(name);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
    close(fd);
    path = name;
  }
  ~temp_file() { std::remove(path.c_str()); }
};

}  // namespace

TEST_CASE("a regular file is read whole, up to and including the limit", "[file]") {
  const temp_file f(std::string(1000, 'x') + "end");
  CHECK(read_bounded_file(f.path, 1003) == std::string(1000, 'x') + "end");
  CHECK(read_bounded_file(f.path, 1 << 20).size() == 1003);
  const temp_file empty("");
  CHECK(read_bounded_file(empty.path, 0).empty());
}

TEST_CASE("a file above the limit is refused, naming both sizes", "[file]") {
  const temp_file f(std::string(5000, 'x'));
  CHECK_THROWS_AS(read_bounded_file(f.path, 4999), file_error);
  CHECK_THROWS_WITH(read_bounded_file(f.path, 1024),
                    Contains(f.path) && Contains("4 KiB, above the limit of 1 KiB"));
}

TEST_CASE("devices, directories, FIFOs and missing paths are refused at once", "[file]") {
  CHECK_THROWS_WITH(read_bounded_file("/dev/zero", 1 << 20),
                    Contains("/dev/zero: not a regular file"));
  CHECK_THROWS_WITH(read_bounded_file("/tmp", 1 << 20),
                    Contains("/tmp: cannot read: Is a directory"));
  CHECK_THROWS_WITH(read_bounded_file("/nonexistent/x", 1 << 20),
                    Contains("/nonexistent/x: cannot read: No such file or directory"));
  // A FIFO with no writer: opening it must not block.
  char dir[] = "/tmp/pgas-fifo-test-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string fifo = std::string(dir) + "/f";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_bounded_file(fifo, 1 << 20), Contains("not a regular file"));
  std::remove(fifo.c_str());
  rmdir(dir);
}

TEST_CASE("sizes are described as people read them", "[file]") {
  CHECK(describe_bytes(0) == "0 bytes");
  CHECK(describe_bytes(1023) == "1023 bytes");
  CHECK(describe_bytes(1024) == "1 KiB");
  CHECK(describe_bytes(std::size_t{70} << 20) == "70 MiB");
  CHECK(describe_bytes(std::size_t{3} << 40) == "3 TiB");
}

TEST_CASE("replace_file writes a new file and never writes through a planted link", "[file]") {
  char dir[] = "/tmp/pgas-replace-test-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string target = std::string(dir) + "/target";
  const std::string link = std::string(dir) + "/runs.json";
  FILE* f = std::fopen(target.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs("precious\n", f);
  std::fclose(f);
  REQUIRE(symlink(target.c_str(), link.c_str()) == 0);

  pgas::detail::replace_file(link, "results\n");
  CHECK(read_bounded_file(target, 100) == "precious\n");  // the link's target is untouched
  struct stat st {};
  REQUIRE(lstat(link.c_str(), &st) == 0);
  CHECK(S_ISREG(st.st_mode));  // the link itself was replaced by a regular file
  CHECK((st.st_mode & 0777) == (0644 & ~[] {
          const mode_t m = umask(0);
          umask(m);
          return m;
        }()));
  CHECK(read_bounded_file(link, 100) == "results\n");

  // Writing again replaces the content; nothing but the two files is left behind.
  pgas::detail::replace_file(link, "again\n");
  CHECK(read_bounded_file(link, 100) == "again\n");
  CHECK_THROWS_WITH(pgas::detail::replace_file(std::string(dir) + "/no/such/dir/x", "x"),
                    Contains("cannot write") && Contains("No such file or directory"));
  std::remove(link.c_str());
  std::remove(target.c_str());
  CHECK(rmdir(dir) == 0);
}

TEST_CASE("replace_file and check_replaceable refuse a FIFO or device, never replacing it",
          "[file]") {
  char dir[] = "/tmp/pgas-replace-test-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string fifo = std::string(dir) + "/fifo";
  const std::string link = std::string(dir) + "/out.reuse";  // a link to the FIFO
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(symlink(fifo.c_str(), link.c_str()) == 0);
  for (const std::string& path : {fifo, link}) {
    CHECK_THROWS_WITH(pgas::detail::replace_file(path, "x"),
                      Contains("cannot write " + path) && Contains("a FIFO"));
    CHECK_THROWS_WITH(pgas::detail::check_replaceable(path), Contains("a FIFO"));
  }
  struct stat st {};
  REQUIRE(lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));  // still the FIFO
  REQUIRE(lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));  // still the link
  // A character device, reached through a link as /dev/stdout is: checked, not replaced.
  CHECK_THROWS_WITH(pgas::detail::check_replaceable("/dev/null"), Contains("a device"));
  std::remove(link.c_str());
  std::remove(fifo.c_str());
  CHECK(rmdir(dir) == 0);
}
