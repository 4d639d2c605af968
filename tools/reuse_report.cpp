// tools/reuse_report.cpp — pgas-reuse's output (reuse_report.hpp): tables, JSON, SVG and
// PARDA text from recordings, predictions and evaluations. Nothing here computes a pattern or
// a fit; it shows what reuse_patterns and reuse_threads computed.

#include "reuse_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace pgas::tools {

namespace {

using ojson = nlohmann::ordered_json;

// One site's histograms summed (over threads, or one thread's).
struct site_sum {
  int threads = 0;
  std::uint64_t accesses = 0;
  std::uint64_t infinite = 0;
  std::vector<reuse_bin> bins;
};

std::vector<site_sum> sum_sites(const reuse_recording& r, std::optional<int> thread) {
  std::vector<site_sum> out(r.sites.size());
  std::vector<std::map<int, std::pair<reuse_bin, double>>> bins(r.sites.size());
  for (const reuse_histogram& h : r.histograms) {
    if (thread && h.thread != *thread) continue;
    const auto s = static_cast<std::size_t>(h.site);
    ++out[s].threads;
    out[s].accesses += h.accesses;
    out[s].infinite += h.infinite;
    for (const reuse_bin& b : h.bins) {
      auto [it, fresh] = bins[s].try_emplace(b.bin, b, 0.0);
      reuse_bin& m = it->second.first;
      if (!fresh) {
        m.count += b.count;
        m.min = std::min(m.min, b.min);
        m.max = std::max(m.max, b.max);
      }
      it->second.second += b.mean * static_cast<double>(b.count);
    }
  }
  for (std::size_t s = 0; s < out.size(); ++s) {
    for (auto& [k, e] : bins[s]) {
      e.first.mean = e.second / static_cast<double>(e.first.count);
      out[s].bins.push_back(e.first);
    }
  }
  return out;
}

std::string distances(std::uint64_t min, std::uint64_t max) {
  return min == max ? fmt::format("{}", min) : fmt::format("{}-{}", min, max);
}

double percent(double part, double whole) {
  return whole > 0 ? 100 * part / whole : 0;
}

std::string header(const reuse_recording& r, std::optional<int> thread) {
  std::string args;
  for (const std::string& a : r.arguments) {
    args += ' ';
    args += printable(a);
  }
  return fmt::format(
      "{}{}: {} threads, size {}, distances in {}s{} ({}{}){}\n", printable(r.program), args,
      r.threads, r.size ? fmt::format("{}", *r.size) : std::string("not declared"), r.grain,
      r.grain_bytes > 0 ? fmt::format(" of {} bytes", r.grain_bytes) : std::string(), r.mode,
      r.mode == "approximate" ? fmt::format(", within {}", r.error_bound) : std::string(),
      thread ? fmt::format(", thread {} only", *thread) : std::string());
}

ojson site_json(const reuse_site& s) {
  return {{"file", s.file}, {"line", s.line}, {"function", s.function}, {"kind", s.kind}};
}

ojson pattern_json(const reuse_pattern& p) {
  return {{"min", p.min}, {"max", p.max}, {"freq", p.freq}, {"mean", p.mean}};
}

ojson fit_json(const fit& f) {
  ojson j = {{"model", to_string(f.model)}, {"a", f.a}};
  if (f.model == fit_model::power || f.model == fit_model::inverse || f.model == fit_model::affine)
    j["b"] = f.b;
  j["error"] = f.error;
  return j;
}

// Training threads, null for a run a thread is not predicted from.
ojson from_json(const std::vector<int>& from) {
  ojson j = ojson::array();
  for (const int f : from)
    j.push_back(f < 0 ? ojson(nullptr) : ojson(f));
  return j;
}

std::string fit_text(const fit& f) {
  if (f.model == fit_model::power) return fmt::format("power {:.4g}x^{:.4g}", f.a, f.b);
  if (f.model == fit_model::constant) return fmt::format("constant {:.4g}", f.a);
  if (f.model == fit_model::inverse) return fmt::format("inverse {:.4g} + {:.4g}/x", f.a, f.b);
  if (f.model == fit_model::affine) return fmt::format("affine {:.4g} + {:.4g}x", f.a, f.b);
  return fmt::format("{} {:.4g}", to_string(f.model), f.a);
}

// min / average / max of `values` in percent, "-" when there are none.
struct spread {
  std::size_t n = 0;
  double min = 0, avg = 0, max = 0;
};

spread spread_of(const std::vector<double>& v) {
  spread s;
  s.n = v.size();
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  for (double x : v)
    s.avg += x;
  s.avg /= static_cast<double>(v.size());
  return s;
}

double share_above(const std::vector<double>& v, double limit) {
  if (v.empty()) return 0;
  return percent(
      static_cast<double>(std::count_if(v.begin(), v.end(), [&](double x) { return x > limit; })),
      static_cast<double>(v.size()));
}

// Per thread: coverage, accuracy (threads with a covered operation), and accuracy of the
// fully covered ones.
struct thread_figures {
  std::vector<double> coverage, accuracy, accuracy_full;
};

thread_figures figures_of(const evaluation& e) {
  thread_figures f;
  for (const thread_evaluation& t : e.threads) {
    f.coverage.push_back(percent(t.covered, t.observed));
    if (t.covered == 0) continue;
    const double a = percent(t.correct, t.covered);
    f.accuracy.push_back(a);
    if (t.covered == t.observed) f.accuracy_full.push_back(a);
  }
  return f;
}

}  // namespace

std::string show_text(const reuse_recording& r, std::optional<int> thread) {
  std::string out = header(r, thread);
  if (r.histograms.empty()) {
    out +=
        "No remote accesses were recorded (element accesses are recorded only in programs\n"
        "compiled with -DPGAS_TRACE_ELEMENTS=1; copies, atomics and the software cache always).\n";
  }
  const std::vector<site_sum> sums = sum_sites(r, thread);
  for (std::size_t s = 0; s < sums.size(); ++s) {
    const site_sum& ss = sums[s];
    if (ss.threads == 0) continue;
    out +=
        fmt::format("\nsite {}: {}\n  {} thread{}, {} access{}, {} first ({:.1f}%)\n", s,
                    describe_site(r.sites[s]), ss.threads, ss.threads == 1 ? "" : "s", ss.accesses,
                    ss.accesses == 1 ? "" : "es", ss.infinite, percent(ss.infinite, ss.accesses));
    if (ss.bins.empty()) continue;
    out += fmt::format("  {:>4}  {:>21}  {:>12}  {:>6}  {:>12}\n", "bin", "distances", "reuses",
                       "share", "mean");
    std::uint64_t peak = 0;
    for (const reuse_bin& b : ss.bins)
      peak = std::max(peak, b.count);
    for (const reuse_bin& b : ss.bins) {
      const auto bar = static_cast<std::size_t>(
          std::ceil(20.0 * static_cast<double>(b.count) / static_cast<double>(peak)));
      out += fmt::format("  {:>4}  {:>21}  {:>12}  {:>5.1f}%  {:>12.2f}  {}\n", b.bin,
                         distances(b.min, b.max), b.count, percent(b.count, ss.accesses), b.mean,
                         std::string(bar, '#'));
    }
    const std::vector<reuse_pattern> ps = form_patterns(ss.bins);
    out += fmt::format("  {} pattern{}:", ps.size(), ps.size() == 1 ? "" : "s");
    for (const reuse_pattern& p : ps)
      out += fmt::format(" [{}, {}] x {} (mean {:.2f})", p.min, p.max, p.freq, p.mean);
    out += "\n";
  }
  return out;
}

std::string show_json(const reuse_recording& r, std::optional<int> thread) {
  ojson sites = ojson::array();
  const std::vector<site_sum> sums = sum_sites(r, thread);
  for (std::size_t s = 0; s < sums.size(); ++s) {
    const site_sum& ss = sums[s];
    if (ss.threads == 0) continue;
    ojson bins = ojson::array(), patterns = ojson::array();
    for (const reuse_bin& b : ss.bins)
      bins.push_back(
          {{"bin", b.bin}, {"count", b.count}, {"min", b.min}, {"max", b.max}, {"mean", b.mean}});
    for (const reuse_pattern& p : form_patterns(ss.bins))
      patterns.push_back(pattern_json(p));
    ojson j = {{"id", s}};
    j.update(site_json(r.sites[s]));
    j["threads"] = ss.threads;
    j["accesses"] = ss.accesses;
    j["infinite"] = ss.infinite;
    j["bins"] = std::move(bins);
    j["patterns"] = std::move(patterns);
    sites.push_back(std::move(j));
  }
  const ojson j = {{"program", r.program},
                   {"threads", r.threads},
                   {"size", r.size ? ojson(*r.size) : ojson(nullptr)},
                   {"thread", thread ? ojson(*thread) : ojson(nullptr)},
                   {"sites", std::move(sites)}};
  return j.dump(2) + "\n";
}

std::string show_svg(const reuse_recording& r, std::optional<int> thread) {
  const std::vector<site_sum> sums = sum_sites(r, thread);
  constexpr int width = 640, panel = 180, bar_area = 120, left = 50;
  int panels = 0;
  for (const site_sum& s : sums)
    panels += s.threads > 0 ? 1 : 0;
  std::string body;
  int y = 10;
  for (std::size_t s = 0; s < sums.size(); ++s) {
    const site_sum& ss = sums[s];
    if (ss.threads == 0) continue;
    std::string title = describe_site(r.sites[s]);
    for (const auto& [from, to] : {std::pair{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}}) {
      for (std::size_t at = title.find(from); at != std::string::npos;
           at = title.find(from, at + 1))
        title.replace(at, 1, to);
    }
    body += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\">site {}: {}</text>\n", left,
                        y + 14, s, title);
    const int last = ss.bins.empty() ? 0 : ss.bins.back().bin;
    const int columns = last + 2;  // bins 0..last, then first accesses
    const double column = static_cast<double>(width - left - 20) / columns;
    std::uint64_t peak = ss.infinite;
    for (const reuse_bin& b : ss.bins)
      peak = std::max(peak, b.count);
    const int base = y + 24 + bar_area;
    auto bar = [&](int col, std::uint64_t count, const char* colour, const std::string& label) {
      const double h = peak == 0 ? 0 : bar_area * static_cast<double>(count) / peak;
      body += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>{}: {}</title></rect>\n",
          left + col * column + 1, base - h, column - 2, h, colour, label, count);
      body += fmt::format(
          "<text x=\"{:.1f}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{}</text>\n",
          left + (col + 0.5) * column, base + 12, col <= last ? fmt::format("{}", col) : "inf");
    };
    for (const reuse_bin& b : ss.bins)
      bar(b.bin, b.count, "#4878a8",
          fmt::format("bin {} (distances {})", b.bin, distances(b.min, b.max)));
    if (ss.infinite > 0) bar(last + 1, ss.infinite, "#b0b0b0", "first accesses");
    body += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n"
        "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{}</text>\n",
        left, base, width - 20, base, left - 4, y + 34, peak);
    y += panel;
  }
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\">\n{}</svg>\n",
      width, std::max(panels, 1) * panel + 20, body);
}

std::string parda_text(const reuse_recording& r) {
  std::map<std::uint64_t, std::uint64_t> rows;
  std::uint64_t infinite = 0, total = 0;
  for (const reuse_histogram& h : r.histograms) {
    infinite += h.infinite;
    total += h.accesses;
    for (const reuse_bin& b : h.bins)
      rows[static_cast<std::uint64_t>(std::llround(b.mean))] += b.count;
  }
  const double sum = static_cast<double>(total);
  std::string out = "# Dist\t     Refs\t   Refs(%)\t  Cum_Ref\tCum_Ref(%)\n";
  std::uint64_t cum = 0;
  for (const auto& [d, n] : rows) {
    cum += n;
    out += fmt::format("{:6}\t{:9}\t{:.8f}\t{:9}\t{:.8f}\n", d, n, n / sum, cum, cum / sum);
  }
  out += fmt::format("#OVFL \t{:9}\t{:.8f}\t{:9}\t{:.8f}\n", 0, 0.0, cum, total ? cum / sum : 0);
  cum += infinite;
  out += fmt::format("#INF  \t{:9}\t{:.8f}\t{:9}\t{:.8f}\n", infinite, total ? infinite / sum : 0,
                     cum, total ? cum / sum : 0);
  return out;
}

std::string prediction_text(const prediction_summary& s) {
  const reuse_recording& p = *s.predicted;
  std::string out = fmt::format(
      "{}: {} threads{} from {}; {} histogram{} of {} site{}\n", s.output, p.threads,
      p.size ? fmt::format(", size {}", *p.size) : std::string(), fmt::join(s.training, " and "),
      p.histograms.size(), p.histograms.size() == 1 ? "" : "s", p.sites.size(),
      p.sites.size() == 1 ? "" : "s");
  if (s.pattern) {
    out += fmt::format("\nTraining threads (pattern {}; thread 0 from thread 0)\n",
                       to_string(*s.pattern));
    for (std::size_t i = 0; i < s.training.size(); ++i)
      out += fmt::format("  run {}: {}\n", i + 1, s.training[i]);
    out += fmt::format("  {:>6}", "thread");
    for (std::size_t i = 0; i < s.training.size(); ++i)
      out += fmt::format("  {:>6}", fmt::format("run {}", i + 1));
    out += "  part\n";
    for (std::size_t t = 0; t < s.from.size(); ++t) {
      out += fmt::format("  {:>6}", t);
      for (int f : s.from[t])
        out += fmt::format("  {:>6}", f < 0 ? std::string("-") : std::to_string(f));
      out += t == 0 ? std::string("  thread 0\n")
                    : fmt::format(
                          "  {}\n",
                          describe_value(*s.pattern, pattern_value(*s.pattern, static_cast<int>(t),
                                                                   p.threads)));
    }
  }
  out += "\nFits (per pattern: max distance and frequency against the " +
         std::string(s.pattern ? "thread count" : "size") + ")\n";
  std::string left_out;
  for (const prediction_note& n : s.notes) {
    if (!n.left_out.empty()) {
      left_out += fmt::format("  thread {} site {}: {}\n", n.thread, n.site, n.left_out);
      continue;
    }
    out += fmt::format("  thread {} site {}: {} pattern{}, first accesses {}\n", n.thread, n.site,
                       n.fits.size(), n.fits.size() == 1 ? "" : "s", fit_text(n.infinite));
    for (std::size_t j = 0; j < n.fits.size(); ++j)
      out += fmt::format("    pattern {}: max {}, freq {}\n", j, fit_text(n.fits[j].max),
                         fit_text(n.fits[j].freq));
  }
  if (!left_out.empty())
    out += "\nLeft out (operations the training runs have but the prediction lacks)\n" + left_out;
  return out;
}

std::string prediction_json(const prediction_summary& s) {
  const reuse_recording& p = *s.predicted;
  ojson notes = ojson::array();
  ojson left_out = ojson::array();
  for (const prediction_note& n : s.notes) {
    if (!n.left_out.empty()) {
      left_out.push_back({{"thread", n.thread}, {"site", n.site}, {"why", n.left_out}});
      continue;
    }
    ojson fits = ojson::array();
    for (const pattern_fits& f : n.fits)
      fits.push_back({{"min", fit_json(f.min)},
                      {"max", fit_json(f.max)},
                      {"mean", fit_json(f.mean)},
                      {"freq", fit_json(f.freq)}});
    notes.push_back({{"thread", n.thread},
                     {"site", n.site},
                     {"from", from_json(n.from)},
                     {"infinite", fit_json(n.infinite)},
                     {"patterns", std::move(fits)}});
  }
  ojson from_all = ojson::array();
  for (const std::vector<int>& f : s.from)
    from_all.push_back(from_json(f));
  ojson j = {{"output", s.output},
             {"training", s.training},
             {"threads", p.threads},
             {"size", p.size ? ojson(*p.size) : ojson(nullptr)},
             {"pattern", s.pattern ? ojson(to_string(*s.pattern)) : ojson(nullptr)},
             {"from", from_all},
             {"histograms", std::move(notes)},
             {"left_out", std::move(left_out)}};
  return j.dump(2) + "\n";
}

std::string evaluation_text(const evaluation& e, const std::string& predicted,
                            const std::string& observed) {
  std::string out = fmt::format("{} against {}: {} operations (a thread's accesses at a site)\n\n",
                                predicted, observed, e.observed);
  out += fmt::format("  {:<44}  {:>10}  {:>7}  {:>8}  {:>7}  {:>8}\n", "site", "operations",
                     "covered", "coverage", "correct", "accuracy");
  auto row = [&](const std::string& name, int n, int covered, int correct) {
    out += fmt::format("  {:<44}  {:>10}  {:>7}  {:>7.2f}%  {:>7}  {:>7.2f}%\n", name, n, covered,
                       percent(covered, n), correct, percent(correct, covered));
  };
  for (const site_evaluation& s : e.sites) {
    // A long function name (a lambda's) is cut so that the file and line stay readable.
    reuse_site short_site = s.site;
    const std::size_t room =
        44 - std::min<std::size_t>(
                 44, describe_site({s.site.file, s.site.line, "", s.site.kind}).size());
    if (short_site.function.size() > room)
      short_site.function = short_site.function.substr(0, room > 3 ? room - 3 : 0) + "...";
    std::string name = describe_site(short_site);
    if (s.observed > 0) row(name, s.observed, s.covered, s.correct);
  }
  row("total", e.observed, e.covered, e.correct);
  const thread_figures f = figures_of(e);
  out += fmt::format("\nPer thread: {} predictions\n  {:<16}  {:>11}  {:>8}  {:>8}  {:>8}\n",
                     e.threads.size(), "", "predictions", "minimum", "average", "maximum");
  for (const auto& [name, v] : {std::pair{"accuracy", &f.accuracy}, {"coverage", &f.coverage}}) {
    const spread s = spread_of(*v);
    out += fmt::format("  {:<16}  {:>11}  {:>7.2f}%  {:>7.2f}%  {:>7.2f}%\n", name, s.n, s.min,
                       s.avg, s.max);
  }
  out += fmt::format("\n  {:<16}  {:>11}  {:>8}  {:>8}  {:>8}\n", "accuracy of", "predictions",
                     ">80%", ">90%", ">95%");
  for (const auto& [name, v] :
       {std::pair{"all", &f.accuracy}, {"100% coverage", &f.accuracy_full}}) {
    out += fmt::format("  {:<16}  {:>11}  {:>7.2f}%  {:>7.2f}%  {:>7.2f}%\n", name, v->size(),
                       share_above(*v, 80), share_above(*v, 90), share_above(*v, 95));
  }
  return out;
}

std::string evaluation_json(const evaluation& e, const std::string& predicted,
                            const std::string& observed) {
  auto counts = [](int n, int covered, int correct) {
    return ojson{{"operations", n},
                 {"covered", covered},
                 {"correct", correct},
                 {"coverage", percent(covered, n)},
                 {"accuracy", percent(correct, covered)}};
  };
  ojson sites = ojson::array();
  for (const site_evaluation& s : e.sites) {
    if (s.observed == 0) continue;
    ojson j = site_json(s.site);
    j.update(counts(s.observed, s.covered, s.correct));
    sites.push_back(std::move(j));
  }
  ojson threads = ojson::array();
  for (const thread_evaluation& t : e.threads) {
    ojson j = {{"thread", t.thread}};
    j.update(counts(t.observed, t.covered, t.correct));
    threads.push_back(std::move(j));
  }
  const thread_figures f = figures_of(e);
  auto dist = [](const std::vector<double>& v) {
    const spread s = spread_of(v);
    return ojson{{"predictions", s.n}, {"minimum", s.min}, {"average", s.avg}, {"maximum", s.max}};
  };
  auto above = [](const std::vector<double>& v) {
    return ojson{{"predictions", v.size()},
                 {"above_80", share_above(v, 80)},
                 {"above_90", share_above(v, 90)},
                 {"above_95", share_above(v, 95)}};
  };
  const ojson j = {{"predicted", predicted},
                   {"observed", observed},
                   {"sites", std::move(sites)},
                   {"total", counts(e.observed, e.covered, e.correct)},
                   {"threads", std::move(threads)},
                   {"accuracy", dist(f.accuracy)},
                   {"coverage", dist(f.coverage)},
                   {"accuracy_all", above(f.accuracy)},
                   {"accuracy_full_coverage", above(f.accuracy_full)}};
  return j.dump(2) + "\n";
}

}  // namespace pgas::tools
