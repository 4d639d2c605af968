// tests/unit/tools/reuse_patterns_test.cpp — pgas-reuse's analysis (tools/reuse_patterns.hpp):
// bins merged into patterns, fits that recover a linear, square-root and power law exactly,
// fits against the thread count (bounded distances and counts), predicted
// histograms, pattern overlap and an evaluation counted by hand; and the recording
// format read back after it is written (tools/reuse_file.hpp).

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "reuse_file.hpp"
#include "reuse_patterns.hpp"

using namespace pgas::tools;

namespace {

reuse_bin bin(std::uint64_t min, std::uint64_t max, std::uint64_t count, double mean) {
  return {reuse_bin_of(min), count, min, max, mean};
}

reuse_histogram histogram(int thread, int site, std::uint64_t infinite,
                          std::vector<reuse_bin> bins) {
  reuse_histogram h{thread, site, infinite, infinite, std::move(bins)};
  for (const reuse_bin& b : h.bins)
    h.accesses += b.count;
  return h;
}

reuse_recording recording(int threads, std::int64_t size) {
  reuse_recording r;
  r.program = "/bin/app";
  r.threads = threads;
  r.size = size;
  r.grain = "element";
  r.grain_bytes = 8;
  r.mode = "exact";
  r.sites = {{"a.cpp", 10, "f", "element"}, {"a.cpp", 20, "g", "bulk"}};
  return r;
}

}  // namespace

TEST_CASE("bins are numbered by powers of two", "[reuse]") {
  CHECK(reuse_bin_of(0) == 0);
  CHECK(reuse_bin_of(1) == 1);
  CHECK(reuse_bin_of(3) == 2);
  CHECK(reuse_bin_of(4) == 3);
  CHECK(reuse_bin_of(7) == 3);
  CHECK(reuse_bin_of(UINT64_MAX) == 64);
  CHECK(reuse_bin_low(3) == 4);
  CHECK(reuse_bin_high(3) == 7);
  CHECK(reuse_bin_high(64) == UINT64_MAX);
}

TEST_CASE("adjacent bins merge into patterns", "[reuse]") {
  SECTION("a rise and fall is one pattern; the mean is the peak bin's") {
    const auto p = form_patterns({bin(8, 15, 10, 12), bin(16, 31, 40, 20), bin(32, 40, 5, 35)});
    REQUIRE(p.size() == 1);
    CHECK(p[0].min == 8);
    CHECK(p[0].max == 40);
    CHECK(p[0].freq == 55);
    CHECK(p[0].mean == 20);
  }
  SECTION("an empty bin between two splits them") {
    const auto p = form_patterns({bin(8, 15, 10, 12), bin(32, 63, 40, 40)});
    REQUIRE(p.size() == 2);
    CHECK(p[1].min == 32);
  }
  SECTION("a second peak after a fall starts a pattern") {
    const auto p = form_patterns(
        {bin(8, 15, 50, 12), bin(16, 31, 10, 20), bin(32, 63, 40, 40), bin(64, 127, 5, 70)});
    REQUIRE(p.size() == 2);
    CHECK(p[0].freq == 60);
    CHECK(p[1].freq == 45);
    CHECK(p[1].mean == 40);
  }
  SECTION("a gap wider than the pattern splits adjacent bins") {
    // [4, 4] then [8, 15]: the gap 4 exceeds the width 0.
    const auto p = form_patterns({bin(4, 4, 10, 4), bin(8, 15, 20, 10)});
    CHECK(p.size() == 2);
  }
}

TEST_CASE("fits recover the law behind the points", "[reuse]") {
  auto points = [](auto law) {
    std::vector<std::pair<double, double>> v;
    for (double x : {64.0, 256.0})
      v.emplace_back(x, law(x));
    return v;
  };
  const fit c = fit_points(points([](double) { return 7.0; }));
  CHECK(c.model == fit_model::constant);
  CHECK(c.at(4096) == Approx(7));
  const fit l = fit_points(points([](double x) { return 3 * x; }));
  CHECK(l.model == fit_model::linear);
  CHECK(l.a == Approx(3));
  CHECK(l.at(1024) == Approx(3072));
  const fit s = fit_points(points([](double x) { return 5 * std::sqrt(x); }));
  CHECK(s.model == fit_model::sqrt);
  CHECK(s.at(1024) == Approx(160));
  const fit q = fit_points(points([](double x) { return x * x / 2; }));
  CHECK(q.model == fit_model::square);
  const fit g = fit_points(points([](double x) { return 4 * std::log2(x); }));
  CHECK(g.model == fit_model::log);
  CHECK(g.at(1024) == Approx(40));
  const fit p = fit_points(points([](double x) { return 2 * std::pow(x, 1.5); }));
  CHECK(p.model == fit_model::power);
  CHECK(p.a == Approx(2));
  CHECK(p.b == Approx(1.5));
  CHECK(p.at(1024) == Approx(2 * std::pow(1024.0, 1.5)));
  // Three points on a line: least squares still finds it.
  const fit l3 = fit_points({{16, 8}, {32, 16}, {64, 32}});
  CHECK(l3.model == fit_model::linear);
  CHECK(l3.error == Approx(0).margin(1e-12));
}

TEST_CASE("fits against the thread count stay in the bounded family", "[reuse]") {
  // matmul's inner products at n = 144: one distance, (1 - 1/T) n^2 - 1 (10367 at 2 threads,
  // 15551 at 4). a + b/T recovers it exactly (18143 at 8); the power law through 2 and 4 gives
  // 23327 there.
  const double n2 = 144.0 * 144.0;
  const auto distance = [&](double t) { return (1 - 1 / t) * n2 - 1; };
  const fit d = fit_points({{2, distance(2)}, {4, distance(4)}}, fit_family::thread_distance);
  CHECK(d.model == fit_model::inverse);
  CHECK(d.a == Approx(n2 - 1));
  CHECK(d.b == Approx(-n2));
  CHECK(d.at(8) == Approx(distance(8)));
  CHECK(d.at(16) == Approx(distance(16)));
  // Unbounded laws are not in the family: the size family's power law overshoots.
  const fit size_fit = fit_points({{2, distance(2)}, {4, distance(4)}});
  CHECK(size_fit.at(16) > 1.1 * distance(16));
  // A distance the thread count does not change is constant.
  CHECK(fit_points({{3, 50}, {4, 50}}, fit_family::thread_distance).model == fit_model::constant);
  // Counts: a share of fixed work, a + b/T, falling or rising (the remote share 1 - 1/T of
  // 1728 first accesses: 864 at 2 threads, 1296 at 4, 1620 at 16).
  const fit share = fit_points({{2, 1000}, {4, 600}}, fit_family::thread_count);
  CHECK(share.model == fit_model::inverse);
  CHECK(share.at(8) == Approx(400));
  const fit remote = fit_points({{2, 864}, {4, 1296}}, fit_family::thread_count);
  CHECK(remote.model == fit_model::inverse);
  CHECK(remote.at(16) == Approx(1620));
  // Three runs choose by least error: one read from each other thread (T - 1) is affine.
  const fit partners = fit_points({{2, 1}, {4, 3}, {8, 7}}, fit_family::thread_count);
  CHECK(partners.model == fit_model::affine);
  CHECK(partners.at(16) == Approx(15));
  // One thread count: constant (two coefficients need two).
  CHECK(fit_points({{4, 9}}, fit_family::thread_count).model == fit_model::constant);
}

TEST_CASE("a histogram is predicted against the thread count", "[reuse]") {
  // matmul-like: one distance (1 - 1/T) 64^2 - 1, a thread's share 16384 / T of the reuses,
  // 64 first accesses.
  const auto run = [](double t) {
    const auto d = static_cast<std::uint64_t>((1 - 1 / t) * 4096 - 1);
    const auto f = static_cast<std::uint64_t>(16384 / t);
    return histogram(1, 0, 64, {bin(d, d, f, static_cast<double>(d))});
  };
  const reuse_histogram a = run(2), b = run(4), observed = run(16);
  const auto p = predict_histogram({{2, &a}, {4, &b}}, 16, nullptr, scaling::threads);
  REQUIRE(p);
  CHECK(p->fits[0].max.model == fit_model::inverse);
  CHECK(p->fits[0].freq.model == fit_model::inverse);
  CHECK(p->infinite.model == fit_model::constant);
  REQUIRE(p->histogram.bins.size() == 1);
  CHECK(p->histogram.bins[0].min == observed.bins[0].min);
  CHECK(p->histogram.bins[0].max == observed.bins[0].max);
  CHECK(p->histogram.bins[0].count == observed.bins[0].count);
  CHECK(p->histogram.infinite == 64);
  CHECK(predicted_correctly(form_patterns(p->histogram.bins), form_patterns(observed.bins)));
}

TEST_CASE("a histogram is predicted pattern by pattern", "[reuse]") {
  // Distances n/2..n-1 (n reuses) and distance 0 (n/8), n first accesses, at n = 64 and 128.
  const reuse_histogram a = histogram(0, 0, 64, {bin(0, 0, 8, 0), bin(32, 63, 64, 48)});
  const reuse_histogram b = histogram(0, 0, 128, {bin(0, 0, 16, 0), bin(64, 127, 128, 96)});
  const auto p = predict_histogram({{64, &a}, {128, &b}}, 512);
  REQUIRE(p);
  REQUIRE(p->fits.size() == 2);
  CHECK(p->fits[0].freq.model == fit_model::linear);
  CHECK(p->fits[1].min.model == fit_model::linear);
  CHECK(p->fits[1].mean.model == fit_model::linear);
  const reuse_histogram& h = p->histogram;
  CHECK(h.infinite == 512);
  REQUIRE(h.bins.size() >= 2);
  CHECK(h.bins[0].bin == 0);
  CHECK(h.bins[0].count == 64);
  CHECK(h.bins[1].bin == 9);
  CHECK(h.bins[1].min == 256);
  const auto patterns = form_patterns(h.bins);
  REQUIRE(patterns.size() == 2);
  CHECK(patterns[1].min == 256);
  // n - 1 is no model's exactly; the power law through 63 and 127 is within 1 %.
  CHECK(patterns[1].max == Approx(511).epsilon(0.01));
  CHECK(patterns[1].freq == 512);
  CHECK(h.accesses == 512 + 64 + 512);

  SECTION("missing from a run, a different number of patterns, or shrinking: not covered") {
    CHECK_FALSE(predict_histogram({{64, &a}, {128, nullptr}}, 512));
    const reuse_histogram one = histogram(0, 0, 128, {bin(64, 127, 128, 96)});
    CHECK_FALSE(predict_histogram({{64, &a}, {128, &one}}, 512));
    const reuse_histogram shrunk = histogram(0, 0, 128, {bin(0, 0, 16, 0), bin(16, 31, 128, 20)});
    CHECK_FALSE(predict_histogram({{64, &a}, {128, &shrunk}}, 512));
  }

  SECTION("each refusal says why") {
    std::string why;
    CHECK_FALSE(predict_histogram({{64, &a}, {128, nullptr}}, 512, &why));
    CHECK(why == "the training run at 128 does not have it");
    const reuse_histogram one = histogram(0, 0, 128, {bin(64, 127, 128, 96)});
    CHECK_FALSE(predict_histogram({{64, &a}, {128, &one}}, 512, &why));
    CHECK(why == "2 patterns at 64 but 1 at 128");
    const reuse_histogram shrunk = histogram(0, 0, 128, {bin(0, 0, 16, 0), bin(16, 31, 128, 20)});
    CHECK_FALSE(predict_histogram({{64, &a}, {128, &shrunk}}, 512, &why));
    CHECK(why == "pattern 1's distances shrink from 64 to 128");
    // n + n/8 + n first accesses at n = 2^63: past 2^64, left out rather than wrapped.
    CHECK_FALSE(predict_histogram({{64, &a}, {128, &b}}, 9.2e18, &why));
    CHECK(why.starts_with("its predicted accesses at "));
    CHECK(why.ends_with("overflow 64 bits"));
    // A count between 2^63 and 2^64, past where llround stops: kept whole.
    const reuse_histogram c = histogram(0, 0, 1, {bin(5, 5, 64, 5)});
    const reuse_histogram d = histogram(0, 0, 1, {bin(5, 5, 128, 5)});
    const auto big = predict_histogram({{64, &c}, {128, &d}}, 1.2e19, &why);
    REQUIRE(big);
    REQUIRE(big->histogram.bins.size() == 1);
    CHECK(big->histogram.bins[0].count == 12000000000000000000ULL);
    CHECK(big->histogram.accesses == 12000000000000000001ULL);
  }
}

TEST_CASE("a pattern spread over bins keeps its reuses", "[reuse]") {
  const auto bins = patterns_to_bins({{12, 40, 100, 20}});
  REQUIRE(bins.size() == 3);  // 12-15, 16-31, 32-40
  std::uint64_t sum = 0;
  for (const reuse_bin& b : bins)
    sum += b.count;
  CHECK(sum == 100);
  CHECK(bins[0].min == 12);
  CHECK(bins[0].max == 15);
  CHECK(bins[1].count == 100 * 16 / 29 + 1);  // the mean's bin takes what rounding left
  CHECK(bins[2].max == 40);
  CHECK(form_patterns(bins).size() == 1);
}

TEST_CASE("overlap and correctness", "[reuse]") {
  // [4, 7] and [5, 8]: 3 distances shared of 4.
  CHECK(pattern_overlap({4, 7, 1, 5}, {5, 8, 1, 6}) == Approx(0.75));
  CHECK(pattern_overlap({4, 7, 1, 5}, {4, 7, 9, 6}) == 1);
  CHECK(pattern_overlap({3, 3, 1, 3}, {4, 4, 1, 4}) == Approx(0.75));
  CHECK(pattern_overlap({0, 0, 1, 0}, {0, 0, 1, 0}) == 1);
  CHECK(pattern_overlap({3, 3, 1, 3}, {3, 4, 1, 4}) == Approx(0.5));
  // matmul's one distance, 0.75 n^2 - 1 at n = 256, from the power law of n = 64 and 128.
  CHECK(predicted_correctly({{49067, 49067, 1, 49067}}, {{49151, 49151, 1, 49151}}));
  // [100, 199] against [110, 209]: 90 of 100.
  CHECK(pattern_overlap({100, 199, 1, 150}, {110, 209, 1, 160}) == Approx(0.9));
  CHECK(predicted_correctly({{100, 199, 1, 150}}, {{110, 209, 1, 160}}));
  CHECK_FALSE(predicted_correctly({{100, 199, 1, 150}}, {{111, 210, 1, 160}}));
  CHECK_FALSE(predicted_correctly({{1, 1, 1, 1}}, {{1, 1, 1, 1}, {8, 9, 1, 8}}));
}

TEST_CASE("evaluate counts operations by hand", "[reuse]") {
  reuse_recording predicted = recording(2, 256);
  reuse_recording observed = recording(2, 256);
  observed.sites.push_back({"a.cpp", 30, "h", "cache"});
  // Thread 0: site 0 exact (correct), site 1 [4, 7] against [5, 8] (0.75: wrong).
  // Thread 1: site 0 exact, site 2 not predicted.
  predicted.histograms = {histogram(0, 0, 1, {bin(16, 31, 5, 20)}),
                          histogram(0, 1, 1, {bin(4, 7, 5, 5)}),
                          histogram(1, 0, 1, {bin(16, 31, 5, 20)})};
  observed.histograms = {histogram(0, 0, 2, {bin(16, 31, 4, 21)}),
                         histogram(0, 1, 1, {bin(5, 7, 2, 6), bin(8, 8, 3, 8)}),
                         histogram(1, 0, 1, {bin(16, 31, 5, 20)}),
                         histogram(1, 2, 1, {bin(1, 1, 5, 1)})};
  const evaluation e = evaluate(predicted, "p", observed, "o");
  CHECK(e.observed == 4);
  CHECK(e.covered == 3);
  CHECK(e.correct == 2);
  REQUIRE(e.sites.size() == 3);
  CHECK(e.sites[1].observed == 1);
  CHECK(e.sites[1].correct == 0);
  CHECK(e.sites[2].covered == 0);
  REQUIRE(e.threads.size() == 2);
  CHECK(e.threads[0].covered == 2);
  CHECK(e.threads[0].correct == 1);
  CHECK(e.threads[1].covered == 1);

  observed.threads = 4;
  CHECK_THROWS_AS(evaluate(predicted, "p", observed, "o"), reuse_error);
}

TEST_CASE("training runs are checked before they are used", "[reuse]") {
  reuse_recording a = recording(2, 64);
  reuse_recording b = recording(2, 128);
  a.histograms = {histogram(0, 0, 1, {bin(8, 15, 8, 10)})};
  b.histograms = {histogram(0, 0, 1, {bin(16, 31, 16, 20)})};
  std::vector<prediction_note> notes;
  const std::vector<std::string> paths = {"a", "b"};
  auto message = [&](std::vector<reuse_recording> runs, std::int64_t size) {
    try {
      predict_size(runs, paths, size, notes);
    } catch (const reuse_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message({a}, 256).find("two training runs") != std::string::npos);
  CHECK(message({a, a}, 256).find("both of size 64") != std::string::npos);
  CHECK(message({a, b}, 32).find("below the training sizes") != std::string::npos);
  reuse_recording other = b;
  other.program = "/bin/other";
  CHECK(message({a, other}, 256).find("one program") != std::string::npos);
  other = b;
  other.sites = {{"b.cpp", 1, "x", "element"}};
  CHECK(message({a, other}, 256).find("no site in common") != std::string::npos);
  other = b;
  other.threads = 4;
  CHECK(message({a, other}, 256).find("ran 2 threads and b ran 4") != std::string::npos);
  const reuse_recording p = predict_size({a, b}, paths, 256, notes);
  REQUIRE(p.histograms.size() == 1);
  CHECK(p.size == 256);
  CHECK(p.histograms[0].bins[0].min == 32);
}

TEST_CASE("a recording reads back what was written", "[reuse]") {
  reuse_recording r = recording(2, 64);
  r.arguments = {"--size", "64"};
  r.histograms = {histogram(0, 1, 3, {bin(0, 0, 2, 0), bin(4, 7, 5, 5.25)}),
                  histogram(1, 0, 1, {})};
  const reuse_recording back = parse_reuse("x", write_reuse(r));
  CHECK(back.program == r.program);
  CHECK(back.arguments == r.arguments);
  CHECK(back.size == 64);
  CHECK(back.sites == r.sites);
  REQUIRE(back.histograms.size() == 2);
  CHECK(back.histograms[0].bins[1].mean == 5.25);
  CHECK(back.histograms[0].accesses == 10);

  auto error = [](const std::string& text) {
    try {
      parse_reuse("f.reuse", text);
    } catch (const reuse_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string text = write_reuse(r);
  CHECK(error(text.substr(0, text.size() / 2)).find("f.reuse: truncated JSON") == 0);
  CHECK(error("{\"format\": \"pgas-trace\"}").find("not a reuse recording") != std::string::npos);
  CHECK(error("[1]").find("no \"format\" field") != std::string::npos);
  CHECK(error(std::string(5000, '[')).find("nested deeper") != std::string::npos);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(error(with("\"accesses\": 10", "\"accesses\": 11"))
            .find("histograms[0].accesses: 11 is not infinite + the bins' counts (10)") !=
        std::string::npos);
  CHECK(error(with("\"min\": 4", "\"min\": 3")).find("bins[1].min: 3 is outside bin 3") !=
        std::string::npos);
  CHECK(error(with("\"version\": 1", "\"version\": 2")).find("version: 2 is not supported") !=
        std::string::npos);
  CHECK(error(with("\"thread\": 1", "\"thread\": 2")).find("out of range (0 to 1)") !=
        std::string::npos);
  CHECK(error(with("\"thread\": 1", "\"thread\": 0")).find("sorted by thread") !=
        std::string::npos);
  // grain_bytes 0 means nothing was accessed: only without histograms.
  CHECK(error(with("\"grain_bytes\": 8", "\"grain_bytes\": 0")).find("grain_bytes: 0, but") !=
        std::string::npos);
  reuse_recording empty = recording(2, 64);
  empty.grain_bytes = 0;
  CHECK(parse_reuse("e", write_reuse(empty)).histograms.empty());
}
