// tools/trace_views.hpp — pgas-trace's views of a trace for other programs: a thread x thread
// heat map as SVG (a browser shows it) and the waits as a Trace Event Format file
// (chrome://tracing, Perfetto). Both are pure functions of the trace and the filters.
#pragma once

#include <string>

#include "trace_file.hpp"
#include "trace_report.hpp"

namespace pgas::tools {

/// An SVG heat map of the accesses that pass `f`: one row per issuing thread, one column per
/// owner, coloured by bytes (by calls when `by_calls`) on a linear scale from the smallest
/// non-zero cell's colour to the largest's, empty pairs grey, with a legend, labelled axes and
/// a tooltip per cell. Accesses without an owner (barriers, fences) are left out and counted in
/// the caption. Readable from 1 to 256 threads (cells shrink, tick labels thin out).
std::string heatmap_svg(const trace& t, const trace_filter& f, bool by_calls);

/// The timeline's waits that pass `f` as one Trace Event Format JSON object: an "X" (complete)
/// event per wait, pid = the run (0 for the first file), tid = the thread, ts and dur in
/// microseconds (exact to the nanosecond), name = kind and site ("barrier app.cpp:12"), and
/// thread_name (and, for several runs, process_name) metadata events.
std::string timeline_json(const trace& t, const trace_filter& f);

}  // namespace pgas::tools
