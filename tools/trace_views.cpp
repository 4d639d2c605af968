// tools/trace_views.cpp — the heat map (SVG, written with fmt) and the Perfetto timeline of a
// trace (trace_views.hpp). Numbers are written as integers or fixed decimals, so that the
// files are the same on every machine and the tests can compare them byte for byte.

#include "trace_views.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pgas::tools {

namespace {

std::string xml_escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const char* entity = c == '<'   ? "&lt;"
                         : c == '>' ? "&gt;"
                         : c == '&' ? "&amp;"
                         : c == '"' ? "&quot;"
                                    : nullptr;
    out += entity != nullptr ? std::string_view(entity) : std::string_view(&c, 1);
  }
  return out;
}

// A sequential palette from pale yellow to dark red (light for few bytes, dark for many).
constexpr std::array<std::array<int, 3>, 5> palette = {
    {{255, 255, 204}, {254, 217, 118}, {253, 141, 60}, {227, 26, 28}, {128, 0, 38}}};
constexpr const char* empty_colour = "#eeeeee";

// The colour of `fraction` (0 to 1) of the scale.
std::string colour(double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0) * (palette.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(fraction), palette.size() - 2);
  const double f = fraction - static_cast<double>(i);
  std::array<int, 3> rgb{};
  for (std::size_t c = 0; c < 3; ++c)
    rgb[c] = static_cast<int>(palette[i][c] + f * (palette[i + 1][c] - palette[i][c]) + 0.5);
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

// Microseconds from nanoseconds, exactly: "12.345".
std::string micros(std::uint64_t ns) {
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

}  // namespace

std::string heatmap_svg(const trace& t, const trace_filter& f, bool by_calls) {
  const int n = t.threads;
  std::map<std::pair<int, int>, tally> cells;
  std::uint64_t no_owner = 0;
  for (const trace_access& a : t.accesses) {
    if (!keeps(t, f, a)) continue;
    if (a.to < 0) {
      no_owner += a.calls;
      continue;
    }
    cells[{a.from, a.to}].add(a.calls, a.bytes);
  }
  auto value = [by_calls](const tally& s) { return by_calls ? s.calls : s.bytes; };
  std::uint64_t low = 0, high = 0;
  for (const auto& [pair, sum] : cells) {
    const std::uint64_t v = value(sum);
    if (v == 0) continue;
    low = low == 0 ? v : std::min(low, v);
    high = std::max(high, v);
  }
  const char* unit = by_calls ? "calls" : "bytes";

  // Geometry: cells of 2 to 28 pixels in a grid of at most 512; a tick label every `step`
  // threads, far enough apart for the widest number.
  const int cell = std::clamp(512 / n, 2, 28);
  const int grid = cell * n;
  const int digits = static_cast<int>(fmt::format("{}", n - 1).size());
  int step = 1;
  while (step * cell < 7 * digits + 6)
    step *= 2;
  const int left = 90, top = 80, legend_x = left + grid + 30, legend_h = std::max(grid, 160);
  // At least wide enough for the title and the caption.
  const int width = std::max(legend_x + 130, 560), height = top + legend_h + 60;

  std::string out;
  auto put = [&out](std::string_view s) { out += s; };
  put(fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n",
      width, height, width, height));
  put(fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", width, height));
  put(
      fmt::format("<text x=\"{}\" y=\"20\" font-size=\"14\">{} from issuing thread to owner: "
                  "{}</text>\n",
                  left, by_calls ? "Calls" : "Bytes", xml_escaped(t.program)));
  const std::string filter = f.describe();
  put(fmt::format("<text x=\"{}\" y=\"38\" fill=\"#555\">{} thread{}{}{}</text>\n", left, n,
                  n == 1 ? "" : "s", filter.empty() ? "" : ", ", xml_escaped(filter)));
  // Axes: owners along the top, issuing threads down the left.
  put(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">owner thread</text>\n",
                  left + grid / 2, top - 24));
  put(
      fmt::format("<text transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\">"
                  "issuing thread</text>\n",
                  left - 50, top + grid / 2));
  for (int i = 0; i < n; i += step) {
    const int mid = i * cell + cell / 2;
    put(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n",
                    left + mid, top - 6, i));
    put(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"10\">{}</text>\n",
                    left - 6, top + mid + 4, i));
  }
  put(fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", left, top,
                  grid, grid, empty_colour));
  const char* stroke = cell >= 8 ? " stroke=\"white\" stroke-width=\"1\"" : "";
  for (const auto& [pair, sum] : cells) {
    const std::uint64_t v = value(sum);
    if (v == 0) continue;
    const double fraction =
        high == low ? 1.0 : static_cast<double>(v - low) / static_cast<double>(high - low);
    put(
        fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}>"
                    "<title>{} to {}: {} bytes, {} calls</title></rect>\n",
                    left + pair.second * cell, top + pair.first * cell, cell, cell,
                    colour(fraction), stroke, pair.first, pair.second, sum.bytes, sum.calls));
  }
  put(
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                  "stroke=\"#888\"/>\n",
                  left, top, grid, grid));

  // The legend: the scale from the largest value (top) to the smallest (bottom), then none.
  put(fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", legend_x, top - 10, unit));
  put("<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">");
  for (std::size_t i = 0; i < palette.size(); ++i) {
    put(fmt::format("<stop offset=\"{}%\" stop-color=\"{}\"/>", i * 100 / (palette.size() - 1),
                    colour(static_cast<double>(i) / (palette.size() - 1))));
  }
  put("</linearGradient></defs>\n");
  const int bar = legend_h - 40;
  put(
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"18\" height=\"{}\" fill=\"url(#scale)\" "
                  "stroke=\"#888\"/>\n",
                  legend_x, top, bar));
  const std::uint64_t mid_value = low + (high - low) / 2;
  const std::pair<int, std::uint64_t> labels[] = {{0, high}, {bar / 2, mid_value}, {bar, low}};
  for (const auto& [y, v] : labels) {
    put(fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\">{}</text>\n", legend_x + 24,
                    top + y + 4,
                    high == 0  ? "-"
                    : by_calls ? fmt::format("{}", v)
                               : human_bytes(v)));
  }
  put(
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"18\" height=\"12\" fill=\"{}\" "
                  "stroke=\"#888\"/>\n",
                  legend_x, top + bar + 16, empty_colour));
  put(fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\">none</text>\n", legend_x + 24,
                  top + bar + 26));
  put(
      fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555\">{} calls without an owner (barriers, "
                  "fences, locks) not shown</text>\n",
                  left, top + legend_h + 30, no_owner));
  put("</svg>\n");
  return out;
}

std::string timeline_json(const trace& t, const trace_filter& f) {
  using json = nlohmann::json;
  auto quoted = [](const std::string& s) {
    return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  std::set<std::pair<int, int>> threads;  // (run, thread) with events
  std::string events;
  for (const trace_event& e : t.timeline) {
    if (!keeps(t, f, e)) continue;
    threads.emplace(e.run, e.thread);
    events += fmt::format(
        ",\n{{\"name\":{},\"cat\":\"{}\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},"
        "\"args\":{{\"site\":{}}}}}",
        quoted(fmt::format("{} {}", to_string(e.kind), site_name(t, e.site))), to_string(e.kind),
        e.run, e.thread, micros(e.start_ns), micros(e.ns), quoted(site_name(t, e.site)));
  }
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  bool first = true;
  auto meta = [&](const std::string& event) {
    out += first ? "\n" : ",\n";
    first = false;
    out += event;
  };
  for (std::size_t run = 0; run < t.files.size() && t.files.size() > 1; ++run) {
    meta(fmt::format(
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":{}}}}}", run,
        quoted(t.files[run])));
  }
  for (const auto& [run, thread] : threads) {
    meta(
        fmt::format("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},"
                    "\"args\":{{\"name\":\"thread {}\"}}}}",
                    run, thread, thread));
  }
  if (first && !events.empty()) events.erase(0, 1);
  out += events;
  out += "\n]}\n";
  return out;
}

}  // namespace pgas::tools
