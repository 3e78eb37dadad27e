// Collage reports as text and as HTML (with an SVG from Graphviz `dot` when installed).
#include "tessera/collage/report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>

#include "tessera/ir/graph_dot.h"
#include "tessera/support/error.h"

namespace tessera::collage {

namespace {

using json = nlohmann::ordered_json;

json Parse(const std::string& text) {
  json r;
  try {
    r = json::parse(text);
  } catch (const std::exception& e) {
    TS_THROW(kParse) << "collage report: not valid JSON: " << e.what();
  }
  if (!r.is_object() || !r.contains("functions") || !r["functions"].is_array())
    TS_THROW(kParse) << "collage report: not a Collage report (no \"functions\" array; an "
                        "executable built without Collage has an empty report)";
  return r;
}

/// Runs `render`, turning a report whose fields have unexpected types into a parse error.
template <typename F>
std::string Rendered(F render) {
  try {
    return render();
  } catch (const json::exception& e) {
    TS_THROW(kParse) << "collage report: a field has an unexpected form (" << e.what() << ")";
  }
}

std::string Us(const json& v) {
  if (!v.is_number() || v.get<double>() < 0) return "?";
  std::ostringstream os;
  double us = v.get<double>();
  if (us != 0 && us < 1)
    os << std::fixed << std::setprecision(0) << us * 1e3 << " ns";
  else
    os << std::fixed << std::setprecision(1) << us << " us";
  return os.str();
}

/// A label for a line: long ones cut, with the op count.
std::string Short(const std::string& label) {
  if (label.size() <= 60) return label;
  size_t ops = 1 + static_cast<size_t>(std::count(label.begin(), label.end(), '+'));
  return label.substr(0, 48) + "... (" + std::to_string(ops) + " ops)";
}

/// Indexes for a line: all of a short list, else the first and last and how many.
std::string Indexes(const json& array) {
  if (array.size() <= 12) {
    std::string out;
    for (const json& v : array) out += (out.empty() ? "" : ",") + v.dump();
    return out;
  }
  return array.front().dump() + ".." + array.back().dump() + " (" + std::to_string(array.size()) +
         " nodes)";
}

std::string Join(const json& array, const char* sep) {
  std::string out;
  for (const json& v : array) {
    out += out.empty() ? "" : sep;
    out += v.is_string() ? v.get<std::string>() : v.dump();
  }
  return out;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* kPalette[] = {"#8dd3c7", "#fdb462", "#80b1d3", "#fb8072", "#bebada", "#b3de69"};

/// A DOT graph of one function: nodes coloured by their kernel's backend, kernels as
/// clusters, costs in tooltips.
std::string ToDot(const json& f, std::map<std::string, std::string>& colours) {
  std::ostringstream dot;
  dot << "digraph \"" << f.value("name", "main") << "\" {\n  rankdir=TB;\n"
      << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n";
  const json& kernels = f["kernels"];
  auto colour = [&](const std::string& backend) {
    auto it = colours.find(backend);
    if (it != colours.end()) return it->second;
    std::string c = kPalette[colours.size() % (sizeof(kPalette) / sizeof(kPalette[0]))];
    colours[backend] = c;
    return c;
  };
  std::map<int, std::vector<const json*>> members;
  for (const json& n : f["nodes"]) members[n["kernel"].get<int>()].push_back(&n);
  for (const auto& [k, nodes] : members) {
    std::string fill = "#ffffff";
    std::string tip = "host";
    if (k >= 0) {
      const json& kernel = kernels[static_cast<size_t>(k)];
      fill = colour(kernel["backend"].get<std::string>());
      tip = kernel["spec"].get<std::string>() + ": " + kernel["label"].get<std::string>() + ", " +
            Us(kernel["cost_us"]);
      dot << "  subgraph cluster_" << k << " {\n    label=\""
          << kernel["backend"].get<std::string>() << " " << Us(kernel["cost_us"])
          << "\"; style=rounded; color=\"#555555\"; tooltip=\"" << tip << "\";\n";
    }
    for (const json* n : nodes)
      dot << (k >= 0 ? "    " : "  ") << "n" << (*n)["index"].get<int>() << " [label=\""
          << (*n)["label"].get<std::string>() << "\", fillcolor=\"" << fill << "\", tooltip=\""
          << (*n)["index"].get<int>() << ": " << (*n)["type"].get<std::string>() << " (" << tip
          << ")\"];\n";
    if (k >= 0) dot << "  }\n";
  }
  for (const json& n : f["nodes"])
    for (const json& in : n["inputs"])
      dot << "  n" << in.get<int>() << " -> n" << n["index"].get<int>() << ";\n";
  dot << "}\n";
  return dot.str();
}

std::string TextOf(const json& r, double measured_ms);
std::string HtmlOf(const json& r, const std::string& report_json, double measured_ms);

}  // namespace

std::string ReportToText(const std::string& report_json, double measured_ms) {
  json r = Parse(report_json);
  return Rendered([&] { return TextOf(r, measured_ms); });
}

namespace {

std::string TextOf(const json& r, double measured_ms) {
  std::ostringstream os;
  os << "Collage partition (estimator: " << r.value("estimator", "?")
     << "; targets: " << Join(r.value("targets", json::array()), ", ") << ")\n";
  std::string chosen = r.contains("guard") && r["guard"].is_object()
                           ? r["guard"].value("chosen", "collage")
                           : "collage";
  if (chosen != "collage")
    os << "NOTE: the program runs '" << chosen << "', which the guard timed faster end to end;\n"
       << "      Collage's own plan below was not used.\n";
  const json functions = r.value("functions", json::array());
  for (const json& f : functions) {
    os << "@" << f.value("name", "?") << ": " << f["kernels"].size() << " kernel(s)\n";
    for (const json& k : f["kernels"]) {
      os << "  " << std::left << std::setw(8) << k["backend"].get<std::string>() << " "
         << std::setw(12) << Us(k["cost_us"]) << " " << Short(k["label"].get<std::string>())
         << " " << Indexes(k["indexes"]);
      if (!k["name"].get<std::string>().empty()) os << " -> @" << k["name"].get<std::string>();
      const json& alt = k["alternative"];
      if (!alt.is_null())
        // The alternative begins at the same node but may cover other ops, so its cost is
        // not comparable on its own; the text says so rather than "rejected".
        os << "\n           other kernel from the same first node: "
           << alt["backend"].get<std::string>() << " "
           << Us(alt["cost_us"]) << " " << Short(alt["label"].get<std::string>()) << " "
           << Indexes(alt["indexes"]);
      os << "\n";
    }
    os << "  rejected candidates (invalid): " << f["rejected"].size() << "\n";
    size_t shown = 0;
    for (const json& rej : f["rejected"]) {
      if (shown++ == 3) {
        os << "    ... (every reason is in the JSON report)\n";
        break;
      }
      std::string reason = rej["reason"].get<std::string>();
      if (reason.size() > 160) reason = reason.substr(0, 157) + "...";
      os << "    " << rej["spec"].get<std::string>() << " " << Indexes(rej["indexes"]) << ": "
         << reason << "\n";
    }
  }
  double estimated = r.value("estimated_total_us", 0.0);
  os << "estimated total: " << Us(estimated) << " (kernel costs + launch penalties:";
  const json penalties = r.value("launch_penalty_us", json::object());
  for (const auto& [spec, us] : penalties.items())
    os << " " << spec << " " << Us(us);
  os << "; penalties from " << r.value("launch_penalty_source", "?") << ")\n";
  os << "candidates: " << r.value("candidates", 0) << ", distinct estimated: "
     << r.value("estimated", 0);
  if (r.contains("from_cost_db"))
    os << " (" << r.value("measured", 0) << " measured, " << r.value("from_cost_db", 0)
       << " from the cost database)";
  os << ", search " << std::fixed << std::setprecision(2) << r.value("search_seconds", 0.0) << " s\n";
  if (r.contains("cost_db"))
    os << "cost database: " << (r["cost_db"].is_string() ? r["cost_db"].get<std::string>() : "none")
       << "\n";
  if (measured_ms >= 0 && chosen != "collage") {
    os << "measured end to end: " << std::setprecision(3) << measured_ms * 1e3 << " us (of '"
       << chosen << "', so no additive error of Collage's plan)\n";
  } else if (measured_ms >= 0) {
    os << "measured end to end: " << std::setprecision(3) << measured_ms * 1e3
       << " us; additive error (measured - estimated): " << measured_ms * 1e3 - estimated
       << " us\n";
  }
  if (r.contains("calibration")) {
    const json& calibration = r["calibration"];
    os << "calibration:";
    if (calibration.is_string()) os << " " << calibration.get<std::string>();
    if (calibration.is_array())
      for (const json& round : calibration) {
        os << " round " << round.value("round", 0);
        for (const auto& [backend, factor] : round["scale"].items())
          os << " " << backend << "x" << std::setprecision(2) << factor.get<double>();
        os << " " << std::setprecision(3) << round.value("measured_ms", 0.0) << " ms;";
      }
    os << "\n";
  }
  if (r.contains("refinement") && r["refinement"].is_object()) {
    const json& refinement = r["refinement"];
    os << "refinement (dp+refine, budget " << std::setprecision(0)
       << refinement.value("budget_s", 0.0) << " s): ";
    if (refinement.contains("skipped")) {
      os << refinement["skipped"].get<std::string>() << "\n";
    } else {
      os << refinement.value("evaluated", 0) << " cover(s) timed in " << std::setprecision(1)
         << refinement.value("seconds", 0.0) << " s; " << std::setprecision(3)
         << refinement.value("search_ms", 0.0) << " ms -> " << refinement.value("refined_ms", 0.0)
         << " ms (" << std::setprecision(2) << refinement.value("speedup", 1.0) << "x)\n";
      for (const json& change : refinement.value("changes", json::array()))
        os << "  kept: " << change.value("move", "?") << " (" << std::setprecision(3)
           << change.value("measured_ms", 0.0) << " ms)\n";
    }
  }
  const json& guard = r.contains("guard") ? r["guard"] : json();
  if (guard.is_string()) os << "guard: " << guard.get<std::string>() << "\n";
  if (guard.is_object()) {
    os << "guard (" << guard.value("threads", 1) << " thread(s), median ms):";
    for (const auto& [name, ms] : guard["latency_ms"].items())
      os << " " << name << " " << std::defaultfloat << std::setprecision(4) << ms.get<double>()
         << std::fixed;
    os << "; chosen: " << guard.value("chosen", "?");
    if (guard.contains("collage_speedup_vs_best_fixed"))
      os << " (Collage's plan is " << std::setprecision(2)
         << guard["collage_speedup_vs_best_fixed"].get<double>() << "x as fast as "
         << guard.value("best_fixed", "?") << ")";
    if (guard.contains("from_cost_db") && !guard["from_cost_db"].empty()) {
      os << "\n  times from the cost database:";
      for (const json& name : guard["from_cost_db"]) os << " " << name.get<std::string>();
    }
    if (guard.contains("errors"))
      for (const auto& [name, why] : guard["errors"].items())
        os << "\n  " << name << " failed to build or run: " << why.get<std::string>();
    os << "\n";
  }
  return os.str();
}

}  // namespace

std::string ReportToHtml(const std::string& report_json, double measured_ms) {
  json r = Parse(report_json);
  return Rendered([&] { return HtmlOf(r, report_json, measured_ms); });
}

namespace {

std::string HtmlOf(const json& r, const std::string& report_json, double measured_ms) {
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Collage partition</title>"
       << "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
       << "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}pre{background:#f6f6f6;"
       << "padding:1em}</style></head><body>\n<h1>Collage partition</h1>\n<pre>"
       << Escape(ReportToText(report_json, measured_ms)) << "</pre>\n";
  std::map<std::string, std::string> colours;
  const json functions = r.value("functions", json::array());
  for (const json& f : functions) {
    html << "<h2>@" << Escape(f.value("name", "?")) << "</h2>\n";
    std::string svg;
    try {
      svg = DotToSvg(ToDot(f, colours));
    } catch (const Error&) {
      // Without Graphviz the page still has the tables.
    }
    if (svg.empty())
      html << "<p><i>Graphviz <code>dot</code> is not installed (apt-get install graphviz): "
              "no picture, the tables follow.</i></p>\n";
    else
      html << svg << "\n";
    html << "<table><tr><th>#</th><th>backend</th><th>kernel</th><th>ops</th><th>indexes</th>"
            "<th>cost</th><th>cheapest other kernel from the same first node (it may cover other "
            "ops)</th></tr>\n";
    int i = 0;
    for (const json& k : f["kernels"]) {
      const json& alt = k["alternative"];
      std::string colour = colours.count(k["backend"].get<std::string>())
                               ? colours[k["backend"].get<std::string>()]
                               : "#ffffff";
      html << "<tr><td>" << i++ << "</td><td style=\"background:" << colour << "\">"
           << Escape(k["backend"].get<std::string>()) << "</td><td>"
           << Escape(k["name"].get<std::string>()) << "</td><td>"
           << Escape(k["label"].get<std::string>()) << "</td><td>" << Join(k["indexes"], ",")
           << "</td><td>" << Us(k["cost_us"]) << "</td><td>"
           << (alt.is_null() ? std::string("-")
                             : Escape(alt["backend"].get<std::string>() + " " +
                                      Us(alt["cost_us"]) + " " + alt["label"].get<std::string>()))
           << "</td></tr>\n";
    }
    html << "</table>\n";
  }
  html << "</body></html>\n";
  return html.str();
}

}  // namespace

}  // namespace tessera::collage
