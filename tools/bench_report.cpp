// tools/bench_report.cpp — pgas-bench's tables and plot: Table I and the speedup tables as
// aligned text, and scaling.svg written by hand (no plotting library): panels of speedup over
// seq against threads, one line per variant, with the ideal speedup dashed.

#include "bench_report.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace pgas::tools::bench {

namespace {

// Columns count characters, not bytes: "×" is two bytes of UTF-8 and one column.
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// Rows of cells: the first column left-aligned, the others right-aligned, two spaces apart,
// each line indented by `indent`.
std::string render(const std::vector<std::vector<std::string>>& rows, std::size_t indent) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], display_width(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line(indent, ' ');
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - display_width(row[c]), ' ');
      line += c == 0 ? row[c] + pad : "  " + pad + row[c];
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string passes_text(const summary& s) {
  return s.passes() == 1 ? "one pass" : fmt::format("medians of {} passes", s.passes());
}

// A ratio cell: "failed" when either side failed, "-" when either is missing.
std::string ratio_cell(const summary& s, const std::string& kernel, const cell* c,
                       std::optional<double> value) {
  const cell* seq = s.find(kernel, "seq", 1);
  if ((c != nullptr && c->is_failed()) || (seq != nullptr && seq->is_failed())) return "failed";
  return value ? format_ratio(*value) : "-";
}

std::string size_text(const summary& s, const std::string& kernel) {
  return s.size(kernel) ? std::to_string(*s.size(kernel)) : "default";
}

std::string seq_text(const summary& s, const std::string& kernel) {
  const cell* c = s.find(kernel, "seq", 1);
  if (c == nullptr) return "-";
  if (c->is_failed()) return "failed";
  return format_seconds(*c->median);
}

std::string notes(const summary& s) {
  std::string out;
  if (std::find(s.variants().begin(), s.variants().end(), "seq") == s.variants().end())
    out += "  (no seq runs: the ratios need seq among the variants)\n";
  if (s.failed_runs() > 0)
    out += "  (failed: a run of that cell failed or did not verify: see \"Failed runs\")\n";
  return out;
}

}  // namespace

std::string format_seconds(double seconds) {
  if (!(seconds > 0)) return "0";
  const int exponent = static_cast<int>(std::floor(std::log10(seconds)));
  return fmt::format("{:.{}f}", seconds, std::clamp(2 - exponent, 0, 6));
}

std::string format_ratio(double ratio) {
  // Two significant digits at least: 0.043×, 0.95×, 23.0×.
  int decimals = ratio < 9.995 ? 2 : ratio < 99.95 ? 1 : 0;
  if (ratio > 0 && ratio < 0.0995)
    decimals = std::min(6, 1 - static_cast<int>(std::floor(std::log10(ratio))));
  return fmt::format("{:.{}f}×", ratio, decimals);
}

std::string table_one(const summary& s) {
  std::string out = "Table I: overhead over sequential C at 1 thread\n";
  out += fmt::format("  (time of each variant at 1 thread / time of seq; {})\n\n", passes_text(s));
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {""}, sizes = {"size"}, seq = {"seq (s)"};
  for (const std::string& k : s.kernels()) {
    head.push_back(k);
    sizes.push_back(size_text(s, k));
    seq.push_back(seq_text(s, k));
  }
  rows.push_back(head);
  rows.push_back(sizes);
  rows.push_back(seq);
  if (std::find(s.variants().begin(), s.variants().end(), "c") != s.variants().end()) {
    std::vector<std::string> c = {"plain C (s)"}, over = {"seq / plain C"};
    for (const std::string& k : s.kernels()) {
      const cell* ck = s.find(k, "c", 1);
      c.push_back(ck == nullptr ? "-" : ck->is_failed() ? "failed" : format_seconds(*ck->median));
      over.push_back((ck != nullptr && ck->is_failed())
                         ? "failed"
                         : ratio_cell(s, k, nullptr, s.seq_over_c(k)));
    }
    rows.push_back(c);
    rows.push_back(over);
  }
  for (const std::string& v : s.parallel_variants()) {
    std::vector<std::string> row = {v};
    for (const std::string& k : s.kernels())
      row.push_back(ratio_cell(s, k, s.find(k, v, 1), s.overhead(k, v)));
    rows.push_back(row);
  }
  return out + render(rows, 2) + notes(s);
}

bool baseline_failed(const summary& s) {
  return std::any_of(s.kernels().begin(), s.kernels().end(), [&](const std::string& k) {
    const auto r = s.seq_over_c(k);
    return r && *r > baseline_limit;
  });
}

std::string baseline_check(const summary& s) {
  if (std::find(s.variants().begin(), s.variants().end(), "c") == s.variants().end())
    return "Baseline check: not made (variant c, the plain C loops, did not run)\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> without;  // kernels with no plain C baseline
  for (const std::string& k : s.kernels()) {
    if (!kernel_has_variant(k, "c")) {
      without.push_back(k);
      continue;
    }
    const cell *c = s.find(k, "c", 1), *seq = s.find(k, "seq", 1);
    if (c == nullptr && seq == nullptr) continue;
    const auto r = s.seq_over_c(k);
    std::string verdict;
    if ((c != nullptr && c->is_failed()) || (seq != nullptr && seq->is_failed())) {
      verdict = "not checked: a run failed";
    } else if (!r) {
      verdict = fmt::format("not checked: {} did not run", c == nullptr ? "plain C" : "seq");
    } else {
      verdict = *r > baseline_limit ? "SLOWER than plain C" : "ok";
    }
    rows.push_back({k, r ? format_ratio(*r) : "-", verdict});
  }
  if (rows.empty()) return "";
  std::string out = fmt::format("Baseline check: seq / plain C (kernels/plain/), at most {}\n\n",
                                format_ratio(baseline_limit)) +
                    render(rows, 2);
  if (!without.empty()) {
    out += fmt::format("\n  No plain C baseline (their seq is the baseline): {}\n",
                       fmt::join(without, ", "));
  }
  return out;
}

std::string scaling_tables(const summary& s) {
  std::string out = "Scaling: speedup over seq\n";
  out += fmt::format("  (time of seq / time of each variant at T threads; {})\n", passes_text(s));
  for (const std::string& k : s.kernels()) {
    // Without a seq time there is no speedup; the variants' own seconds say more than dashes.
    const bool speedups = s.seq_seconds(k).has_value();
    if (speedups) {
      out += fmt::format("\n  {} (size {}, seq {} s)\n", k, size_text(s, k), seq_text(s, k));
    } else {
      out += fmt::format("\n  {} (size {}, seq {}: median seconds instead)\n", k, size_text(s, k),
                         s.find(k, "seq", 1) != nullptr ? "failed" : "not run");
    }
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head = {"threads"};
    for (int t : s.threads())
      head.push_back(std::to_string(t));
    rows.push_back(head);
    for (const std::string& v : s.parallel_variants()) {
      if (!kernel_has_variant(k, v)) continue;  // cc has no tables row, matmul no cached row
      std::vector<std::string> row = {v};
      for (int t : s.threads()) {
        const cell* c = s.find(k, v, t);
        if (speedups) {
          row.push_back(ratio_cell(s, k, c, s.speedup(k, v, t)));
        } else {
          row.push_back(c == nullptr     ? "-"
                        : c->is_failed() ? "failed"
                                         : format_seconds(*c->median) + " s");
        }
      }
      rows.push_back(row);
    }
    out += render(rows, 4);
  }
  return out;
}

std::string failed_runs(const std::vector<run_record>& runs, std::size_t limit) {
  std::vector<const run_record*> failed;
  for (const run_record& r : runs) {
    if (!r.ok()) failed.push_back(&r);
  }
  if (failed.empty()) return {};
  std::string out = fmt::format("Failed runs ({} of {}):\n", failed.size(), runs.size());
  for (std::size_t i = 0; i < failed.size() && i < limit; ++i) {
    const run_record& r = *failed[i];
    out += fmt::format("  pass {}  {} {} -n {}: {}\n", r.pass, r.kernel, r.variant, r.threads,
                       r.why());
  }
  if (failed.size() > limit)
    out += fmt::format("  ... and {} more (runs.csv lists them all)\n", failed.size() - limit);
  return out;
}

// ---------------------------------------------------------------------------------------------
// scaling.svg

namespace {

std::string f1(double v) {
  return fmt::format("{:.1f}", v);
}

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// About how wide `text` is in a sans-serif font of `size` pixels (DejaVu Sans's advances for
// lower-case letters), for laying out the legend without measuring.
double text_width(const std::string& text, double size) {
  double em = 0;
  for (char c : text) {
    switch (c) {
      case 'i':
      case 'j':
      case 'l':
        em += 0.28;
        break;
      case 'f':
      case 't':
        em += 0.37;
        break;
      case 'r':
        em += 0.41;
        break;
      case ' ':
        em += 0.32;
        break;
      case 'c':
      case 's':
      case 'z':
        em += 0.53;
        break;
      case 'w':
        em += 0.82;
        break;
      case 'm':
        em += 0.97;
        break;
      default:
        em += 0.62;
    }
  }
  return em * size;
}

// Okabe-Ito colours (distinct for colour-blind readers) and a marker shape per variant, so
// the lines stay apart in grey print too.
struct style {
  const char* variant;
  const char* colour;
  int marker;  // 0 circle, 1 square, 2 diamond, 3 triangle up, 4 triangle down
};
constexpr style styles[] = {{"naive", "#D55E00", 0},
                            {"privatized", "#E69F00", 1},
                            {"tables", "#0072B2", 2},
                            {"auto", "#009E73", 3},
                            {"openmp", "#CC79A7", 4}};

style style_of(const std::string& variant) {
  for (const style& st : styles) {
    if (variant == st.variant) return st;
  }
  return {"", "#555555", 0};
}

std::string marker(int shape, double x, double y, const char* colour) {
  const std::string paint = fmt::format(R"(fill="{}" stroke="#ffffff" stroke-width="1")", colour);
  switch (shape) {
    case 1:
      return fmt::format(R"(<rect x="{}" y="{}" width="7.6" height="7.6" {}/>)", f1(x - 3.8),
                         f1(y - 3.8), paint);
    case 2:
      return fmt::format(R"(<polygon points="{},{} {},{} {},{} {},{}" {}/>)", f1(x), f1(y - 5.5),
                         f1(x + 5.5), f1(y), f1(x), f1(y + 5.5), f1(x - 5.5), f1(y), paint);
    case 3:
      return fmt::format(R"(<polygon points="{},{} {},{} {},{}" {}/>)", f1(x), f1(y - 5.5),
                         f1(x + 5), f1(y + 3.5), f1(x - 5), f1(y + 3.5), paint);
    case 4:
      return fmt::format(R"(<polygon points="{},{} {},{} {},{}" {}/>)", f1(x), f1(y + 5.5),
                         f1(x + 5), f1(y - 3.5), f1(x - 5), f1(y - 3.5), paint);
    default:
      return fmt::format(R"(<circle cx="{}" cy="{}" r="4.2" {}/>)", f1(x), f1(y), paint);
  }
}

// A tick value as people write it: "0.05", "2", "1000".
std::string tick_label(double v) {
  if (v >= 1 && std::abs(v - std::round(v)) < 1e-9) return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

// The smallest of 1, 2, 5 × 10^k at or above v (or the largest at or below, with `down`).
double nice_125(double v, bool down) {
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  const double steps[] = {1, 2, 5, 10};
  if (down) {
    for (int i = 3; i >= 0; --i) {
      if (steps[i] * decade <= v * (1 + 1e-9)) return steps[i] * decade;
    }
    return decade;
  }
  for (double m : steps) {
    if (m * decade >= v * (1 - 1e-9)) return m * decade;
  }
  return 10 * decade;
}

// A linear or logarithmic axis from data values to pixels.
struct axis {
  bool log = false;
  double lo = 0, hi = 1;  // the data range shown
  double p0 = 0, p1 = 1;  // its pixels (p0 for lo)
  std::vector<double> ticks;

  double at(double v) const {
    const double a = log ? std::log(v) : v, b = log ? std::log(lo) : lo,
                 c = log ? std::log(hi) : hi;
    return c == b ? (p0 + p1) / 2 : p0 + (a - b) / (c - b) * (p1 - p0);
  }
};

// Speedups: logarithmic when they span more than 20x (naive is often 1/20 of seq), bounds and
// ticks on 1-2-5 steps; else linear from 0.
axis speedup_axis(double lo, double hi, double p0, double p1) {
  axis a;
  a.p0 = p0;
  a.p1 = p1;
  if (hi / lo > 20) {
    a.log = true;
    a.lo = nice_125(lo, true);
    a.hi = nice_125(hi, false);
    const int d0 = static_cast<int>(std::floor(std::log10(a.lo) + 1e-9));
    const int d1 = static_cast<int>(std::ceil(std::log10(a.hi) - 1e-9));
    const bool fine = d1 - d0 <= 3;
    if (!fine) {  // ticks at decades only, and the axis ends at ticks
      a.lo = std::pow(10.0, d0);
      a.hi = std::pow(10.0, d1);
    }
    for (int d = d0; d <= d1; ++d) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, d);
        if ((fine || m == 1.0) && v >= a.lo * (1 - 1e-9) && v <= a.hi * (1 + 1e-9))
          a.ticks.push_back(v);
      }
    }
    return a;
  }
  const double step = nice_125(hi / 5, false);
  a.lo = 0;
  a.hi = std::ceil(hi * 1.04 / step) * step;
  for (int i = 0; i * step <= a.hi * (1 + 1e-9); ++i)
    a.ticks.push_back(i * step);
  return a;
}

// Threads: log2 when they span 8x or more (1, 2, 4, … 64), else linear; ticks at the counts
// run when there are few.
axis threads_axis(const std::vector<int>& threads, double p0, double p1) {
  axis a;
  a.p0 = p0;
  a.p1 = p1;
  a.lo = threads.front();
  a.hi = threads.back();
  a.log = a.hi / a.lo >= 8;
  if (threads.size() <= 12) {
    a.ticks.assign(threads.begin(), threads.end());
  } else if (a.log) {
    for (double v = 1; v <= a.hi; v *= 2) {
      if (v >= a.lo) a.ticks.push_back(v);
    }
  } else {
    const double step = nice_125((a.hi - a.lo) / 8, false);
    for (double v = std::ceil(a.lo / step) * step; v <= a.hi; v += step)
      a.ticks.push_back(v);
  }
  return a;
}

constexpr double margin = 16;
constexpr double panel_w = 330, panel_gap = 12;
constexpr double plot_left = 62, plot_w = 250, plot_top = 44, plot_h = 220;
constexpr double panels_top = 94;
constexpr double panel_h = plot_top + plot_h + 44;  // and 18 more for a line of failures
const char* const grid_colour = "#e6e6e6";
const char* const text_colour = "#333333";
const char* const muted_colour = "#6b6b6b";

// The legend's width, to size the figure.
double legend_width(const std::vector<std::string>& variants) {
  double w = 32 + text_width("ideal", 12);
  for (const std::string& v : variants)
    w += 32 + text_width(v, 12) + 24;
  return w;
}

std::string legend(const std::vector<std::string>& variants) {
  std::string out = R"(<g class="legend" font-size="12">)"
                    "\n";
  double x = margin;
  const double y = 74;
  for (const std::string& v : variants) {
    const style st = style_of(v);
    out += fmt::format(R"(  <line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2.2"/>)"
                       "\n",
                       f1(x), f1(y), f1(x + 26), f1(y), st.colour);
    out += "  " + marker(st.marker, x + 13, y, st.colour) + "\n";
    out += fmt::format(R"(  <text x="{}" y="{}" dy="0.32em" fill="{}">{}</text>)"
                       "\n",
                       f1(x + 32), f1(y), text_colour, xml_escape(v));
    x += 32 + text_width(v, 12) + 24;
  }
  out += fmt::format(
      R"(  <line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#888888" stroke-width="1.5" stroke-dasharray="5 4"/>)"
      "\n",
      f1(x), f1(y), f1(x + 26), f1(y));
  out += fmt::format(R"(  <text x="{}" y="{}" dy="0.32em" fill="{}">ideal</text>)"
                     "\n",
                     f1(x + 32), f1(y), text_colour);
  return out + "</g>\n";
}

std::string panel(const summary& s, const std::string& kernel, double x0, double y0) {
  const double left = x0 + plot_left, top = y0 + plot_top;
  const double right = left + plot_w, bottom = top + plot_h;
  const std::vector<int>& threads = s.threads();
  const std::vector<std::string> variants = s.parallel_variants();

  // The range covers every speedup and the ideal line (1 at one thread, T at T).
  double lo = std::min(1.0, static_cast<double>(threads.front()));
  double hi = std::max(1.0, static_cast<double>(threads.back()));
  std::vector<std::string> failures;
  for (const std::string& v : variants) {
    std::vector<std::string> failed_at;
    for (int t : threads) {
      if (const auto sp = s.speedup(kernel, v, t); sp && *sp > 0) {
        lo = std::min(lo, *sp);
        hi = std::max(hi, *sp);
      }
      if (const cell* c = s.find(kernel, v, t); c != nullptr && c->is_failed())
        failed_at.push_back(std::to_string(t));
    }
    if (!failed_at.empty())
      failures.push_back(fmt::format("{} at {}", v, fmt::join(failed_at, ",")));
  }
  const axis xa = threads_axis(threads, left + 14, right - 14);
  const axis ya = speedup_axis(lo, hi, bottom, top);

  std::string out = fmt::format(R"(<g class="panel" id="{}">)"
                                "\n",
                                xml_escape(kernel));
  const double mid = left + plot_w / 2;
  out += fmt::format(
      R"(  <text x="{}" y="{}" text-anchor="middle" font-size="14" font-weight="bold" fill="{}">{}</text>)"
      "\n",
      f1(mid), f1(y0 + 14), text_colour, xml_escape(kernel));
  const std::string seq = s.seq_seconds(kernel)                 ? seq_text(s, kernel) + " s"
                          : s.find(kernel, "seq", 1) != nullptr ? "failed"
                                                                : "not run";
  out += fmt::format(
      R"(  <text x="{}" y="{}" text-anchor="middle" font-size="11" fill="{}">size {} · seq {}</text>)"
      "\n",
      f1(mid), f1(y0 + 30), muted_colour, xml_escape(size_text(s, kernel)), seq);

  // Grid, ticks and labels.
  for (double v : ya.ticks) {
    const double y = ya.at(v);
    out += fmt::format(R"(  <line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)"
                       "\n",
                       f1(left), f1(y), f1(right), f1(y), grid_colour);
    out += fmt::format(
        R"(  <text x="{}" y="{}" dy="0.32em" text-anchor="end" font-size="11" fill="{}">{}</text>)"
        "\n",
        f1(left - 6), f1(y), text_colour, tick_label(v));
  }
  for (double v : xa.ticks) {
    const double x = xa.at(v);
    out += fmt::format(R"(  <line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)"
                       "\n",
                       f1(x), f1(top), f1(x), f1(bottom), grid_colour);
    out += fmt::format(R"(  <line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}"/>)"
                       "\n",
                       f1(x), f1(bottom), f1(x), f1(bottom + 4), text_colour);
    out += fmt::format(
        R"(  <text x="{}" y="{}" text-anchor="middle" font-size="11" fill="{}">{}</text>)"
        "\n",
        f1(x), f1(bottom + 17), text_colour, tick_label(v));
  }
  out += fmt::format(R"(  <path d="M{},{} V{} H{}" fill="none" stroke="{}" stroke-width="1"/>)"
                     "\n",
                     f1(left), f1(top), f1(bottom), f1(right), text_colour);
  out += fmt::format(
      R"(  <text x="{}" y="{}" text-anchor="middle" font-size="12" fill="{}">threads</text>)"
      "\n",
      f1(mid), f1(bottom + 36), text_colour);
  const double ly = (top + bottom) / 2;
  out += fmt::format(
      R"svg(  <text x="{}" y="{}" transform="rotate(-90 {} {})" text-anchor="middle" font-size="12" fill="{}">speedup over seq{}</text>)svg"
      "\n",
      f1(x0 + 14), f1(ly), f1(x0 + 14), f1(ly), text_colour, ya.log ? " (log scale)" : "");

  // The ideal speedup T, sampled finely so that it curves where the y axis is logarithmic.
  std::vector<std::string> ideal;
  const double a = threads.front(), b = threads.back();
  const int samples = a == b ? 0 : xa.log || ya.log ? 48 : 1;
  for (int i = 0; i <= samples; ++i) {
    const double f = samples == 0 ? 0 : i / static_cast<double>(samples);
    const double t = xa.log ? a * std::pow(b / a, f) : a + (b - a) * f;
    ideal.push_back(f1(xa.at(t)) + "," + f1(ya.at(t)));
  }
  out += fmt::format(
      R"(  <polyline points="{}" fill="none" stroke="#888888" stroke-width="1.5" stroke-dasharray="5 4"/>)"
      "\n",
      fmt::join(ideal, " "));

  if (!s.seq_seconds(kernel)) {
    out += fmt::format(
        R"(  <text x="{}" y="{}" text-anchor="middle" font-size="12" fill="#b00020">no seq time: no speedups</text>)"
        "\n",
        f1(mid), f1(top + 24));
  }
  // One line per variant, broken where a run failed or is missing; tables (the paper's
  // subject) drawn last, on top.
  std::vector<std::string> order = variants;
  std::stable_partition(order.begin(), order.end(), [](const auto& v) { return v != "tables"; });
  for (const std::string& v : order) {
    const style st = style_of(v);
    std::vector<std::vector<std::pair<double, double>>> pieces(1);
    for (int t : threads) {
      if (const auto sp = s.speedup(kernel, v, t); sp && *sp > 0) {
        pieces.back().emplace_back(xa.at(t), ya.at(*sp));
      } else if (!pieces.back().empty()) {
        pieces.emplace_back();
      }
    }
    out += fmt::format(R"(  <g class="series" id="{}-{}">)"
                       "\n",
                       xml_escape(kernel), xml_escape(v));
    for (const auto& piece : pieces) {
      if (piece.size() < 2) continue;
      std::vector<std::string> points;
      for (const auto& [x, y] : piece)
        points.push_back(f1(x) + "," + f1(y));
      out += fmt::format(
          R"(    <polyline points="{}" fill="none" stroke="{}" stroke-width="2.2" stroke-linejoin="round"/>)"
          "\n",
          fmt::join(points, " "), st.colour);
    }
    for (const auto& piece : pieces) {
      for (const auto& [x, y] : piece)
        out += "    " + marker(st.marker, x, y, st.colour) + "\n";
    }
    out += "  </g>\n";
  }
  if (!failures.empty()) {
    out += fmt::format(
        R"(  <text x="{}" y="{}" text-anchor="middle" font-size="11" fill="#b00020">failed: {}</text>)"
        "\n",
        f1(mid), f1(bottom + 54), xml_escape(fmt::format("{}", fmt::join(failures, "; "))));
  }
  return out + "</g>\n";
}

}  // namespace

std::string scaling_svg(const summary& s) {
  const auto n = static_cast<double>(s.kernels().size());
  const std::string subtitle =
      fmt::format("time of seq / time of each variant at T threads; {}; dashed: ideal speedup T",
                  passes_text(s));
  const double panels_w = n * panel_w + (n - 1) * panel_gap;
  const double width = 2 * margin + std::max({panels_w, legend_width(s.parallel_variants()),
                                              text_width(subtitle, 12)});
  const double panels_left = (width - panels_w) / 2;
  const bool failures = s.failed_runs() > 0;
  const double height = panels_top + panel_h + (failures ? 18 : 0) + margin;
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">)"
      "\n",
      f1(width), f1(height));
  out += "<title>pgas-bench: speedup over sequential C</title>\n";
  out += fmt::format(R"(<rect width="{}" height="{}" fill="#ffffff"/>)"
                     "\n",
                     f1(width), f1(height));
  out += fmt::format(
      R"(<text x="{}" y="30" font-size="17" font-weight="bold" fill="{}">Speedup over sequential C</text>)"
      "\n",
      f1(margin), text_colour);
  out += fmt::format(R"(<text x="{}" y="50" font-size="12" fill="{}">{}</text>)"
                     "\n",
                     f1(margin), muted_colour, subtitle);
  out += legend(s.parallel_variants());
  for (std::size_t i = 0; i < s.kernels().size(); ++i) {
    out += panel(s, s.kernels()[i], panels_left + static_cast<double>(i) * (panel_w + panel_gap),
                 panels_top);
  }
  return out + "</svg>\n";
}

}  // namespace pgas::tools::bench
