// Integration program: shows whether it started. main() creates the file $TRACE_MARKER.main
// before pgas::run, and every thread's body creates $TRACE_MARKER.body, so that the driver can
// tell a job refused before its threads ran (PGAS_TRACE naming a file that cannot be written)
// from one that ran, and pgasrun refusing before it ran the program at all.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <pgas/pgas.hpp>

namespace {
void touch(const char* suffix) {
  const char* marker = std::getenv("TRACE_MARKER");
  if (marker == nullptr) return;
  if (std::FILE* f = std::fopen((std::string(marker) + suffix).c_str(), "w")) std::fclose(f);
}
}  // namespace

int main(int argc, char** argv) {
  touch(".main");
  return pgas::run(argc, argv, [] {
    touch(".body");
    pgas::barrier();
    return 0;
  });
}
