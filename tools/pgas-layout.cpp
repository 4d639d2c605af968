// tools/pgas-layout.cpp — `pgas-layout [--threads N] [--index i,j,…|--cuts …] [--json] DECL`: where
// the elements of a declared UPC shared array live.
//
// The declaration is read by tools/declaration.hpp and every number printed (owner, phase,
// offset, counts, part sizes) comes from pgas::layout, the model shared arrays use at run time;
// this file only chooses what to show and how, eliding large maps so they stay readable.

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <pgas/config.hpp>
#include <pgas/layout.hpp>

#include "cli.hpp"
#include "declaration.hpp"
#include "layout_cuts.hpp"

namespace {

using pgas::tools::declaration;
using pgas::tools::declaration_error;
using json = nlohmann::ordered_json;

using pgas::tools::exit_usage;
// Offline planning is not bound by this build's -Dmax_threads.
constexpr int max_threads = 65536;
// --json prints the owner of every element up to this many (1024 x 1024).
constexpr std::size_t json_map_limit = std::size_t{1} << 20;
// The human map fits 80 columns and about a screen of rows.
constexpr std::size_t line_width = 80;
constexpr std::size_t max_rows = 24;
constexpr std::size_t head_rows = 16;
constexpr std::size_t tail_rows = 4;
// 1-D arrays with blocks longer than this are listed as runs, not as a grid of repeated numbers.
constexpr std::size_t max_grid_block = 10;
// Per-thread rows are printed one per thread up to this many threads, then grouped.
constexpr int max_thread_rows = 16;

using pgas::tools::one_line;
using pgas::tools::usage_error;

[[noreturn]] void fail(int status, const std::string& message) {
  pgas::tools::fail("pgas-layout", status, message);
}

std::size_t digits(std::size_t n) {
  std::size_t d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

int parse_threads(const std::string& text) {
  const auto value = pgas::tools::parse_count(text);
  if (!value || *value < 1 || *value > static_cast<std::size_t>(max_threads)) {
    throw usage_error(fmt::format("--threads '{}': expected a number of threads from 1 to {}", text,
                                  max_threads));
  }
  return static_cast<int>(*value);
}

// "A[8][9]", to name the array in messages.
std::string array_name(const declaration& d, const pgas::layout& l) {
  return fmt::format("{}[{}]", d.name(), fmt::join(l.extents(), "]["));
}

std::vector<std::size_t> parse_index(const std::string& text, const declaration& d,
                                     const pgas::layout& l) {
  std::vector<std::size_t> index;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? comma : comma - start);
    const auto value = pgas::tools::parse_count(part);
    if (!value) {
      throw usage_error(fmt::format(
          "--index '{}': expected whole numbers separated by commas, one per dimension of {}", text,
          array_name(d, l)));
    }
    index.push_back(*value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (index.size() != l.rank()) {
    throw usage_error(fmt::format("--index '{}': {} ind{} for the {} dimension{} of {}", text,
                                  index.size(), index.size() == 1 ? "ex" : "ices", l.rank(),
                                  l.rank() == 1 ? "" : "s", array_name(d, l)));
  }
  for (std::size_t k = 0; k < index.size(); ++k) {
    if (index[k] >= l.extent(k)) {
      throw usage_error(
          fmt::format("--index '{}': index {} is out of range for dimension {} of {} "
                      "(0 to {})",
                      text, index[k], k, array_name(d, l), l.extent(k) - 1));
    }
  }
  return index;
}

// ---------------------------------------------------------------------------------------------
// The human report.

template <typename... Args>
void put(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// The indices shown along an axis of `count` with room for `room` entries: all of them, or the
// first `head` and last `tail` with an ellipsis between.
struct axis {
  std::size_t count = 0;
  std::size_t head = 0;
  std::size_t tail = 0;

  bool elided() const { return head + tail < count; }
  static axis fit(std::size_t count, std::size_t head, std::size_t tail) {
    if (count <= head + tail + 1) return {count, count, 0};
    return {count, head, tail};
  }
  // The shown indices in order, with nullopt where the ellipsis goes.
  std::vector<std::optional<std::size_t>> slots() const {
    std::vector<std::optional<std::size_t>> s;
    for (std::size_t i = 0; i < head; ++i)
      s.emplace_back(i);
    if (elided()) s.emplace_back(std::nullopt);
    for (std::size_t i = count - tail; i < count && tail > 0; ++i)
      s.emplace_back(i);
    return s;
  }
};

// A grid of thread numbers: `rows` × `cols` cells, row r labelled row_label(r), column c
// labelled c; owner(r, c) is the thread, or nullopt for no element (the end of a 1-D array).
// Columns elide when they do not fit line_width, rows beyond max_rows.
struct grid {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::function<std::size_t(std::size_t)> row_label;
  std::function<std::optional<int>(std::size_t, std::size_t)> owner;
};

// What a printed grid shows of its rows and columns.
struct shown_grid {
  axis rows;
  axis cols;
};

shown_grid print_grid(std::string& out, const grid& g, int threads) {
  const axis rows = axis::fit(g.rows, g.rows > max_rows ? head_rows : g.rows, tail_rows);
  const std::size_t last_label = g.row_label(g.rows - 1);
  const std::size_t label_w = std::max(digits(last_label), rows.elided() ? std::size_t{3} : 1);
  const std::size_t cell_w =
      std::max(digits(static_cast<std::size_t>(threads - 1)), digits(g.cols - 1));
  // "  LABEL  c c c … c": each cell takes cell_w + 1, an ellipsis " ..." max(cell_w, 3) + 1.
  const std::size_t room = line_width - 2 - label_w - 1;
  axis cols{g.cols, g.cols, 0};
  if (g.cols * (cell_w + 1) > room) {
    const std::size_t n = (room - (std::max<std::size_t>(cell_w, 3) + 1)) / (cell_w + 1);
    cols = axis{g.cols, (n + 1) / 2, n / 2};
  }
  const auto col_slots = cols.slots();
  const std::size_t gap_w = std::max<std::size_t>(cell_w, 3);

  std::string line = fmt::format("  {:>{}} ", "", label_w);
  for (const auto& c : col_slots) {
    line += c ? fmt::format(" {:>{}}", *c, cell_w) : fmt::format(" {:>{}}", "...", gap_w);
  }
  out += line + "\n";
  for (const auto& r : rows.slots()) {
    if (!r) {
      put(out, "  {:>{}}\n", "...", label_w);
      continue;
    }
    line = fmt::format("  {:>{}} ", g.row_label(*r), label_w);
    for (const auto& c : col_slots) {
      if (!c) {
        line += fmt::format(" {:>{}}", "...", gap_w);
        continue;
      }
      const auto t = g.owner(*r, *c);
      line += t ? fmt::format(" {:>{}}", *t, cell_w) : fmt::format(" {:>{}}", "", cell_w);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return {rows, cols};
}

// "rows 16 to 1019" for the part of an axis an ellipsis stands for.
std::string hidden(const char* what, const axis& a) {
  return fmt::format("{} {} to {}", what, a.head, a.count - a.tail - 1);
}

void print_elision(std::string& out, const std::vector<std::string>& elided,
                   const std::string& of) {
  if (elided.empty()) return;
  put(out, "  (not shown: {} of {};\n   --json prints maps of up to {} elements)\n",
      fmt::join(elided, " and "), of, json_map_limit);
}

// A 1-D array with long blocks: one line per block, "first - last  thread".
void print_runs(std::string& out, const declaration& d, const pgas::layout& l) {
  const std::size_t n = l.size();
  const std::size_t b = l.block_elements();
  put(out, "Owner of {}[i], by runs of consecutive elements (first i, last i):\n", d.name());
  struct run {
    std::size_t first, last;
    int thread;
  };
  std::vector<std::optional<run>> shown;
  axis runs;
  if (b == 0 || l.threads() == 1) {
    // Indefinite, or one thread: a single run.
    runs = axis{1, 1, 0};
    shown.emplace_back(run{0, n - 1, l.place_linear(0).thread});
  } else {
    runs = axis::fit(l.blocks(), l.blocks() > max_rows ? head_rows : l.blocks(), tail_rows);
    for (const auto& k : runs.slots()) {
      if (!k) {
        shown.emplace_back(std::nullopt);
        continue;
      }
      const std::size_t first = *k * b;
      shown.emplace_back(run{first, std::min(first + b, n) - 1, l.place_linear(first).thread});
    }
  }
  const std::size_t w = std::max<std::size_t>(digits(n - 1), 5);  // "first"
  const std::size_t tw =
      std::max<std::size_t>(digits(static_cast<std::size_t>(l.threads() - 1)), 6);
  put(out, "  {:>{}}  {:>{}}  {:>{}}\n", "first", w, "last", w, "thread", tw);
  for (const auto& r : shown) {
    if (!r) {
      put(out, "  {:>{}}\n", "...", w);
      continue;
    }
    put(out, "  {:>{}}  {:>{}}  {:>{}}\n", r->first, w, r->last, w, r->thread, tw);
  }
  if (runs.elided())
    print_elision(out, {hidden("blocks", runs)}, plural(runs.count, "block", "blocks"));
}

// A 1-D array with short blocks: rows of a whole number of periods (B × THREADS elements) where
// one fits, labelled with the index of their first element.
void print_row_map(std::string& out, const declaration& d, const pgas::layout& l) {
  const std::size_t n = l.size();
  const std::size_t period = l.block_elements() * static_cast<std::size_t>(l.threads());
  const std::size_t cell_w =
      std::max(digits(static_cast<std::size_t>(l.threads() - 1)), std::size_t{2});
  const std::size_t fit =
      std::min<std::size_t>((line_width - 2 - digits(n) - 1) / (cell_w + 1), 20);
  std::size_t per_row = fit;
  if (period <= fit) {
    per_row = fit / period * period;
  } else if (l.block_elements() <= fit) {
    per_row = fit / l.block_elements() * l.block_elements();
  }
  per_row = std::min(per_row, n);
  put(out, "Owner of {}[i] (thread number; i = row label + column):\n", d.name());
  grid g;
  g.rows = (n + per_row - 1) / per_row;
  g.cols = per_row;
  g.row_label = [&](std::size_t r) { return r * per_row; };
  g.owner = [&](std::size_t r, std::size_t c) -> std::optional<int> {
    const std::size_t i = r * per_row + c;
    if (i >= n) return std::nullopt;
    return l.place({i}).thread;
  };
  const shown_grid shown = print_grid(out, g, l.threads());
  if (shown.rows.elided()) {
    const std::size_t first = shown.rows.head * per_row;
    const std::size_t last = (shown.rows.count - shown.rows.tail) * per_row - 1;
    print_elision(out, {fmt::format("elements {} to {}", first, last)}, std::to_string(n));
  }
}

// 2-D, and the last two dimensions of higher ranks, one slice per leading index.
void print_plane_map(std::string& out, const declaration& d, const pgas::layout& l) {
  const std::size_t rank = l.rank();
  const std::size_t rows = l.extent(rank - 2);
  const std::size_t cols = l.extent(rank - 1);
  std::size_t slices = 1;
  for (std::size_t k = 0; k + 2 < rank; ++k)
    slices *= l.extent(k);
  const axis shown = axis::fit(slices, slices > 3 ? 2 : slices, 1);
  std::vector<std::size_t> index(rank);
  // "D[0][2]": slice s by its leading indices, row-major.
  const auto slice_name = [&](std::size_t s) {
    std::vector<std::size_t> lead(rank - 2);
    for (std::size_t k = rank - 2; k-- > 0;) {
      lead[k] = s % l.extent(k);
      s /= l.extent(k);
    }
    return fmt::format("{}[{}]", d.name(), fmt::join(lead, "]["));
  };
  if (rank == 2) {
    put(out, "Owner of {}[i][j] (thread number; row i, column j):\n", d.name());
  } else {
    put(out, "Owner of {}[...][i][j] (thread number; row i, column j), by 2-D slices:\n", d.name());
  }
  std::vector<std::string> elided;
  for (const auto& s : shown.slots()) {
    if (!s) {
      put(out, "\n  ... {} more slices ...\n", shown.count - shown.head - shown.tail);
      continue;
    }
    if (rank > 2) {
      std::size_t rest = *s;
      for (std::size_t k = rank - 2; k-- > 0;) {
        index[k] = rest % l.extent(k);
        rest /= l.extent(k);
      }
      put(out, "\n{}[i][j]:\n", slice_name(*s));
    }
    grid g;
    g.rows = rows;
    g.cols = cols;
    g.row_label = [](std::size_t r) { return r; };
    g.owner = [&](std::size_t r, std::size_t c) -> std::optional<int> {
      index[rank - 2] = r;
      index[rank - 1] = c;
      return l.place(index).thread;
    };
    const shown_grid seen = print_grid(out, g, l.threads());
    elided.clear();
    if (seen.rows.elided()) elided.push_back(hidden("rows", seen.rows));
    if (seen.cols.elided()) elided.push_back(hidden("columns", seen.cols));
  }
  if (shown.elided()) {
    elided.insert(elided.begin(), fmt::format("slices {} to {}", slice_name(shown.head),
                                              slice_name(shown.count - shown.tail - 1)));
  }
  print_elision(out, elided,
                rank == 2 ? fmt::format("{} x {}", rows, cols)
                          : fmt::format("{} slices of {} x {}", slices, rows, cols));
}

void print_counts(std::string& out, const declaration& d, const pgas::layout& l) {
  struct row {
    int first, last;
    std::size_t elements, blocks;
  };
  std::vector<row> groups;
  for (int t = 0; t < l.threads(); ++t) {
    const row r{t, t, l.elements_on(t), l.blocks_on(t)};
    // Past max_thread_rows threads, neighbours with the same counts share a line.
    if (l.threads() > max_thread_rows && !groups.empty() && groups.back().elements == r.elements &&
        groups.back().blocks == r.blocks) {
      groups.back().last = t;
    } else {
      groups.push_back(r);
    }
  }
  const std::size_t esize = d.type().size;
  const std::size_t part = l.part_elements();
  const std::size_t total_w =
      std::max<std::size_t>(digits(static_cast<std::size_t>(l.threads() - 1)) * 2 + 1, 6);
  const std::size_t ew = std::max<std::size_t>(digits(l.size()), 8);
  const std::size_t bw = std::max<std::size_t>(digits(l.size() * esize), 5);
  const std::size_t kw = std::max<std::size_t>(digits(l.blocks()), 6);
  const std::size_t pw =
      std::max<std::size_t>(digits(part * static_cast<std::size_t>(l.threads()) - l.size()), 7);
  put(out, "  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", "thread", total_w, "elements", ew, "bytes",
      bw, l.tiled() ? "tiles" : "blocks", kw, "padding", pw);
  const axis shown =
      axis::fit(groups.size(), groups.size() > max_rows ? head_rows : groups.size(), tail_rows);
  for (const auto& k : shown.slots()) {
    if (!k) {
      put(out, "  {:>{}}\n", "...", total_w);
      continue;
    }
    const row& r = groups[*k];
    const std::string who =
        r.first == r.last ? fmt::format("{}", r.first) : fmt::format("{}-{}", r.first, r.last);
    put(out, "  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", who, total_w, r.elements, ew,
        r.elements * esize, bw, r.blocks, kw, part - r.elements, pw);
  }
  put(out, "  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}\n", "total", total_w, l.size(), ew,
      l.size() * esize, bw, l.blocks(), kw, part * static_cast<std::size_t>(l.threads()) - l.size(),
      pw);
  if (shown.elided()) {
    put(out, "  (elided: rows {} to {} of {} groups of threads with equal counts)\n", shown.head,
        shown.count - shown.tail - 1, shown.count);
  }
}

// The "layout:" lines: how blocks are dealt, then how many there are, from the layout's own
// numbers.
std::string describe_layout(const pgas::layout& l) {
  const std::size_t b = l.block_elements();
  switch (l.which()) {
    case pgas::block_spec::kind::indefinite:
      return "indefinite block: the whole array on thread 0";
    case pgas::block_spec::kind::tiles:
      break;
    case pgas::block_spec::kind::star:
    case pgas::block_spec::kind::cyclic: {
      const std::size_t last = l.size() - (l.blocks() - 1) * b;
      const std::string rule =
          l.which() == pgas::block_spec::kind::star
              ? fmt::format("[*]: one block of ceil({} / THREADS) = {} per thread", l.size(),
                            plural(b, "element", "elements"))
              : fmt::format("blocks of {}{}, dealt round-robin", plural(b, "element", "elements"),
                            l.spec().to_string().empty() ? " (UPC's default)" : "");
      return fmt::format("{}\n            {}{}", rule, plural(l.blocks(), "block", "blocks"),
                         last != b
                             ? fmt::format(", the last one {}", plural(last, "element", "elements"))
                             : std::string());
    }
  }
  std::vector<std::size_t> along;
  bool padded = false;
  for (std::size_t d = 0; d < l.rank(); ++d) {
    along.push_back(l.tiles_along(d));
    padded = padded || l.tiles_along(d) * l.spec().tile()[d] != l.extent(d);
  }
  return fmt::format(
      "tiles of {} = {}, dealt round-robin in row-major tile order\n            {} = {}{}",
      fmt::join(l.spec().tile(), " x "), plural(b, "element", "elements"), fmt::join(along, " x "),
      plural(l.blocks(), "tile", "tiles"), padded ? ", edge tiles padded to full size" : "");
}

std::string report(const declaration& d, const pgas::layout& l) {
  std::string out;
  const std::size_t esize = d.type().size;
  const auto threads = static_cast<std::size_t>(l.threads());
  put(out, "{}, THREADS = {}\n", l.declaration(d.type().name, d.name()), l.threads());
  if (d.uses_threads()) put(out, "  declared: {}\n", d.text());
  put(out, "  elements: {} of type {} ({} bytes), {} bytes\n", l.size(), d.type().name, esize,
      l.size() * esize);
  put(out, "  layout:   {}\n", describe_layout(l));
  const std::size_t part = l.part_elements();
  const std::size_t padding = part * threads - l.size();
  // A part holds a whole number of blocks (tiles); an indefinite array is one block.
  const std::size_t part_blocks = l.block_elements() == 0 ? 1 : part / l.block_elements();
  put(out, "  parts:    {} = {} bytes reserved per thread, room for {}\n",
      plural(part, "element", "elements"), part * esize,
      plural(part_blocks, l.tiled() ? "tile" : "block", l.tiled() ? "tiles" : "blocks"));
  put(out, "            {} elements in all, {}\n", part * threads,
      padding == 0 ? std::string("no padding") : fmt::format("{} of them padding", padding));
  out += "\n";
  if (l.rank() == 1) {
    if (l.block_elements() == 0 || l.block_elements() > max_grid_block) {
      print_runs(out, d, l);
    } else {
      print_row_map(out, d, l);
    }
  } else {
    print_plane_map(out, d, l);
  }
  out += "\nPer thread:\n";
  print_counts(out, d, l);
  return out;
}

// ---------------------------------------------------------------------------------------------
// --json and --index.

json owners(const pgas::layout& l, std::vector<std::size_t>& index, std::size_t d) {
  json a = json::array();
  for (std::size_t i = 0; i < l.extent(d); ++i) {
    index[d] = i;
    if (d + 1 == l.rank()) {
      a.push_back(l.place(index).thread);
    } else {
      a.push_back(owners(l, index, d + 1));
    }
  }
  return a;
}

std::string json_report(const declaration& d, const pgas::layout& l) {
  json j;
  j["declaration"] = l.declaration(d.type().name, d.name());
  j["declared"] = d.text();
  j["type"] = d.type().name;
  j["element_bytes"] = d.type().size;
  j["name"] = d.name();
  j["threads"] = l.threads();
  j["extents"] = l.extents();
  json block;
  switch (l.which()) {
    case pgas::block_spec::kind::cyclic:
      block = {{"kind", "cyclic"}, {"size", l.block_elements()}};
      break;
    case pgas::block_spec::kind::indefinite:
      block = {{"kind", "indefinite"}};
      break;
    case pgas::block_spec::kind::star:
      block = {{"kind", "star"}, {"size", l.block_elements()}};
      break;
    case pgas::block_spec::kind::tiles: {
      std::vector<std::size_t> along;
      for (std::size_t k = 0; k < l.rank(); ++k)
        along.push_back(l.tiles_along(k));
      block = {{"kind", "tiles"}, {"tile", l.spec().tile()}, {"tiles_along", along}};
      break;
    }
  }
  j["block"] = block;
  j["elements"] = l.size();
  j["block_elements"] = l.block_elements();
  j["blocks"] = l.blocks();
  j["part_elements"] = l.part_elements();
  j["part_bytes"] = l.part_elements() * d.type().size;
  json per = json::array();
  for (int t = 0; t < l.threads(); ++t) {
    const std::size_t e = l.elements_on(t);
    per.push_back({{"thread", t},
                   {"elements", e},
                   {"bytes", e * d.type().size},
                   {"blocks", l.blocks_on(t)},
                   {"padding", l.part_elements() - e}});
  }
  j["per_thread"] = per;
  if (l.size() <= json_map_limit) {
    std::vector<std::size_t> index(l.rank());
    j["owners"] = owners(l, index, 0);
  } else {
    j["owners"] = nullptr;
    j["owners_omitted"] =
        fmt::format("{} elements: --json prints the owner map up to {}", l.size(), json_map_limit);
  }
  return j.dump() + "\n";
}

std::string index_report(const pgas::layout& l, const std::vector<std::size_t>& index) {
  const pgas::element_place p = l.place(index);
  const json j = {{"thread", p.thread}, {"phase", p.phase}, {"offset", p.offset}};
  return j.dump() + "\n";
}

// ---------------------------------------------------------------------------------------------
// The command line.

constexpr const char* description =
    "Prints where the elements of a UPC shared array live: the owner map (a grid\n"
    "of thread numbers for 1-D and 2-D arrays, 2-D slices beyond), how blocks or\n"
    "tiles are dealt, and each thread's element count, from the same layout model\n"
    "the pgas runtime uses. DECL is one declaration, quoted, such as\n"
    "'shared [2][3] int A[8][9]'; sizes may use THREADS.\n";

constexpr const char* footer =
    "Examples:\n"
    "  pgas-layout --threads 2 'shared [3] int array[4][3]'\n"
    "  pgas-layout --threads 8 'shared [2][3] int A[8][9]'\n"
    "  pgas-layout --threads 4 --index 5 'shared int A[10*THREADS]'\n"
    "  pgas-layout --threads 8 --cuts 0:7,0:6 --offset 1,2 --threads-per-node 2 \\\n"
    "      'shared [2][3] int A[8][9]'\n"
    "\n"
    "Exit status: 0 on success, 2 for a usage error or an invalid declaration.\n"
    "Manual: man pgas-layout.";

int run(int argc, char** argv) {
  std::string threads_text = "1";
  std::string index_text;
  bool as_json = false;
  std::string decl;
  std::string cuts_text;
  std::vector<std::string> offset_texts;
  std::string per_node_text = "1";

  CLI::App app(description, "pgas-layout");
  pgas::tools::configure_app(
      app, "pgas-layout",
      "Usage: pgas-layout [--threads N] [--index i,j,...] [--json] DECL\n"
      "       pgas-layout [--threads N] --cuts lo:hi,... --offset k0,k1,...\n"
      "           [--offset ...] [--threads-per-node T] [--json] DECL\n",
      footer, 28);
  app.add_option("-n,--threads", threads_text, "THREADS, 1 to 65536 (default 1)")
      ->type_name("N")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto* index_opt = app.add_option("--index", index_text,
                                   "Print only the place of this element as\n"
                                   "{\"thread\",\"phase\",\"offset\"} (offset in\n"
                                   "elements within the owner's part)")
                        ->type_name("i,j,...")
                        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto* cuts_opt = app.add_option("--cuts", cuts_text,
                                  "Split the loop over this box (lo:hi per\n"
                                  "dimension, affinity &A[i0][i1]...) into each\n"
                                  "thread's runs by locality cuts")
                       ->type_name("lo:hi,...")
                       ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto* offset_opt = app.add_option("--offset", offset_texts,
                                    "An access A[i0+k0][i1+k1]... of the --cuts\n"
                                    "loop (repeat for several; --offset=-1,0 for\n"
                                    "a negative first value)")
                         ->type_name("k0,k1,...")
                         ->allow_extra_args(false)
                         ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  auto* per_node_opt = app.add_option("--threads-per-node", per_node_text,
                                      "Locality by groups of T consecutive threads\n"
                                      "(the paper's nodes; default 1: the thread)")
                           ->type_name("T")
                           ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--json", as_json,
               "Print one JSON object: layout, per-thread\n"
               "counts and the owner map");
  auto* decl_opt =
      app.add_option("DECL", decl, "The UPC shared array declaration, quoted")->type_name("");
  // Extra words and unknown options are ours to report: a declaration left unquoted arrives as
  // several words, and deserves a hint rather than CLI11's message.
  app.allow_extras();

  if (!pgas::tools::parse_command_line(app, argc, argv, " (see pgas-layout --help)", true))
    return 0;
  const int threads = parse_threads(threads_text);
  std::vector<std::string> extra = app.remaining();
  std::erase(extra, "--");
  for (const auto& word : extra) {
    if (word.size() > 1 && word[0] == '-') {
      throw usage_error(fmt::format("unknown option '{}' (see pgas-layout --help)", word));
    }
  }
  if (!extra.empty()) {
    throw usage_error(
        fmt::format("{} arguments where one declaration was expected: quote it, as "
                    "in pgas-layout 'shared [3] int A[4][3]'",
                    extra.size() + 1));
  }
  if (decl_opt->count() == 0) {
    throw usage_error("no declaration given (for example: pgas-layout 'shared [3] int A[4][3]')");
  }

  const declaration d = declaration::parse(decl);
  const pgas::layout l = d.layout_for(threads);
  std::string out;
  if (cuts_opt->count() == 0 && (offset_opt->count() > 0 || per_node_opt->count() > 0))
    throw usage_error("--offset and --threads-per-node need --cuts (see pgas-layout --help)");
  if (cuts_opt->count() > 0 && index_opt->count() > 0)
    throw usage_error("--cuts and --index cannot be combined");
  if (cuts_opt->count() > 0) {
    const pgas::tools::cuts_request r =
        pgas::tools::parse_cuts(cuts_text, offset_texts, per_node_text, d, l);
    out = as_json ? pgas::tools::cuts_json(d, l, r) : pgas::tools::cuts_report(d, l, r);
  } else if (index_opt->count() > 0) {
    out = index_report(l, parse_index(index_text, d, l));
  } else if (as_json) {
    out = json_report(d, l);
  } else {
    out = report(d, l);
  }
  std::fputs(out.c_str(), stdout);
  return 0;  // main's finish_output flushes and reports a failed write
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return pgas::tools::finish_output("pgas-layout", run(argc, argv));
  } catch (const usage_error& e) {
    fail(exit_usage, e.what());
  } catch (const declaration_error& e) {
    fail(exit_usage, std::string(e.what()) + "\n" + e.excerpt());
  } catch (const std::exception& e) {
    fail(1, one_line(e.what()));
  }
}
