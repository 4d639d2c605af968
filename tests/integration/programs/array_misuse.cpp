// Integration program: misuse of shared arrays and pointers-to-shared that every build
// catches. Usage: array_misuse MODE, where MODE is zero_extent, tile_volume, star_block, tiles,
// block_factory, empty_tiles, zero_tile, from_parts, sptr_from, thread_distance or mismatch.
// The misuse happens at the line with the MODE's marker (in every thread for the collective
// array creations and the block specifications, in thread 1 otherwise); the job must end with
// status 1 naming a thread, what was wrong and this file and line. block_factory, empty_tiles
// and zero_tile are block_spec's own misuse, named where the caller wrote the block_spec.
#include <array>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const std::string mode = ac > 1 ? av[1] : "zero_extent";
    const std::size_t zero = mode == "zero_extent" ? 0 : 5;
    const std::size_t big = pgas::config::max_runtime_block + 1;
    const std::size_t huge = 2 * pgas::config::max_runtime_block * pgas::threads();
    pgas::barrier();
    if (mode == "zero_extent") {
      pgas::shared_array<int, 2> a({4, zero});  // @array_misuse:zero_extent
    } else if (mode == "tile_volume") {
      const auto tiles = pgas::block_spec::tiles({1 << 19, (1 << 19) + 1});  // 2^38 + 2^19
      pgas::shared_array<int, 2> a({4, 4}, tiles);  // @array_misuse:tile_volume
    } else if (mode == "star_block") {
      pgas::shared_array<char> a({huge}, pgas::block_spec::star());  // @array_misuse:star_block
    } else if (mode == "block_factory") {
      pgas::shared_array<int> a({10},
                                pgas::block_spec::cyclic(big));  // @array_misuse:block_factory
    } else if (mode == "empty_tiles") {
      const std::vector<std::size_t> none;
      (void)pgas::block_spec::tiles(none);  // @array_misuse:empty_tiles
    } else if (mode == "zero_tile") {
      pgas::shared_array<int, 2> a({4, 4},
                                   pgas::block_spec::tiles({2, 0}));  // @array_misuse:zero_tile
    } else if (mode == "tiles") {
      pgas::shared_array<int, 2> a({4, 4}, pgas::block_spec::tiles({2}));  // @array_misuse:tiles
    } else if (mode == "mismatch") {
      // Same number of elements and block size, different shapes: one allocation size, but
      // the threads would disagree on where every element lives.
      const bool odd = pgas::mythread() == 1;
      const std::array<std::size_t, 2> shape{odd ? 6u : 4u, odd ? 4u : 6u};
      pgas::shared_array<int, 2> a(shape, pgas::block_spec::cyclic(2));  // @array_misuse:mismatch
    } else if (pgas::mythread() == 1) {
      int local = 0;
      if (mode == "from_parts") {
        (void)pgas::sptr<int>::from_parts(pgas::threads(), 64);  // @array_misuse:from_parts
      } else if (mode == "sptr_from") {
        (void)pgas::sptr_from(&local);  // @array_misuse:sptr_from
      } else if (mode == "thread_distance") {
        (void)pgas::thread_distance(0, pgas::threads());  // @array_misuse:thread_distance
      }
    }
    pgas::barrier();
    return 0;
  });
}
