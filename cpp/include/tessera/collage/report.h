// Renders the JSON report Collage leaves on a module and an executable: a text table for
// terminals and a self-contained HTML page with the graph coloured by backend.
#pragma once

#include <string>

namespace tessera::collage {

/// The report as text: per function its kernels (backend, ops, estimated cost, the best
/// rejected alternative), the estimated total, the launch penalties and the guard's
/// end-to-end timings. `measured_ms` >= 0 adds the measured latency and the additive
/// error (measured minus estimated). Throws a parse error for a damaged report.
std::string ReportToText(const std::string& report_json, double measured_ms = -1);

/// The report as one HTML page: the text, a table of kernels, and an SVG of each function
/// drawn by Graphviz `dot` (nodes coloured by backend, kernels boxed, costs in tooltips).
/// Without `dot` on PATH the page says so and keeps the tables.
std::string ReportToHtml(const std::string& report_json, double measured_ms = -1);

}  // namespace tessera::collage
