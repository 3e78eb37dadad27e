// The layout passes' entries in the pass table (names, options, factories).
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

/// desired_layouts="nn.conv2d:NCHW16c,OIHW16i16o;nn.max_pool2d:NCHW16c" as DesiredLayouts.
DesiredLayouts DesiredFromOption(const std::string& text) {
  DesiredLayouts out;
  auto split = [](const std::string& s, char sep) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t at = s.find(sep, start);
      parts.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
      if (at == std::string::npos) return parts;
      start = at + 1;
    }
  };
  for (const std::string& entry : split(text, ';')) {
    size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size())
      TS_THROW(kValue) << "ConvertLayout: desired_layouts entry '" << entry
                       << "' must be op:layout[,layout...] (entries separated by ';'), e.g. "
                          "\"nn.conv2d:NHWC,HWIO\"";
    std::vector<std::string> layouts = split(entry.substr(colon + 1), ',');
    for (const std::string& l : layouts)
      if (l.empty())
        TS_THROW(kValue) << "ConvertLayout: empty layout in desired_layouts entry '" << entry << "'";
    out.emplace_back(entry.substr(0, colon), layouts);
  }
  return out;
}

/// frozen_layouts="nn.conv2d:lambda n, c, h, w: (n, h, w, c)|<weight map>|<result map>;..."
/// as FrozenLayouts (an empty map keeps that tensor's layout).
FrozenLayouts FrozenFromOption(const std::string& text) {
  FrozenLayouts out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    std::string entry = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0)
      TS_THROW(kValue) << "FreezeLayouts: frozen_layouts entry '" << entry
                       << "' must be op:map|map|... (entries separated by ';')";
    std::vector<layout::IndexMap> maps;
    std::string rest = entry.substr(colon + 1);
    size_t at = 0;
    while (true) {
      size_t bar = rest.find('|', at);
      std::string text_map = rest.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
      maps.push_back(text_map.find_first_not_of(' ') == std::string::npos
                         ? layout::IndexMap()
                         : layout::IndexMap::Parse(text_map));
      if (bar == std::string::npos) break;
      at = bar + 1;
    }
    out.emplace_back(entry.substr(0, colon), std::move(maps));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

void AppendLayoutPasses(std::vector<PassRegistration>& passes) {
  passes.push_back({"ConvertLayout",
                    "gives layout-critical ops wanted layouts (TVM layout strings) and freezes them",
                    {{"desired_layouts", AttrValue::Kind::kString, "",
                      "op:layouts entries separated by ';', e.g. \"nn.conv2d:NHWC,HWIO\" (layouts: "
                      "data, kernel[, result]; \"default\" keeps one)"}},
                    [](const Attrs& options) {
                      return ConvertLayout(DesiredFromOption(options.GetString("desired_layouts")));
                    }});
  passes.push_back({"FreezeLayouts",
                    "gives listed ops index-map layouts as frozen call_tir of transformed PrimFuncs",
                    {{"frozen_layouts", AttrValue::Kind::kString, "",
                      "op:map|map|... entries separated by ';' (operand maps, then the result's; "
                      "an empty map keeps one)"}},
                    [](const Attrs& options) {
                      return FreezeLayouts(FrozenFromOption(options.GetString("frozen_layouts")));
                    }});
  passes.push_back({"AlterOpLayout",
                    "gives each conv2d the layouts the target's kernels prefer (ConvertLayout)",
                    {{"target", AttrValue::Kind::kString, "native", "the backend whose kernels choose"}},
                    [](const Attrs& options) {
                      return AlterOpLayout(options.GetString("target"));
                    }});
  passes.push_back({"PlanLayouts",
                    "moves layout rewrites through ops (backward, and forward past shared values), cancels and folds them",
                    {},
                    [](const Attrs&) { return PlanLayouts(); }});
  passes.push_back({"SimplifyLayoutTransforms",
                    "composes and cancels adjacent layout rewrites, folds them into constants",
                    {},
                    [](const Attrs&) { return SimplifyLayoutTransforms(); }});
  passes.push_back({"HoistLayoutRewrite",
                    "lifts PrimFuncs' layout-rewrite prologues into the graph (constants fold)",
                    {},
                    [](const Attrs&) { return HoistLayoutRewrite(); }});
}

}  // namespace tessera
