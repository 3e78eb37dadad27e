// The layout passes' entries in the pass table (names, options, factories).
#include <algorithm>

#include "tessera/layout_plan/layout_passes.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

/// `text` cut at each `sep` (an empty text is one empty part).
std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

/// desired_layouts="nn.conv2d:NCHW16c,OIHW16i16o;nn.max_pool2d:NCHW16c" as DesiredLayouts.
DesiredLayouts DesiredFromOption(const std::string& text) {
  DesiredLayouts out;
  for (const std::string& entry : Split(text, ';')) {
    size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == entry.size())
      TS_THROW(kValue) << "ConvertLayout: desired_layouts entry '" << entry
                       << "' must be op:layout[,layout...] (entries separated by ';'), e.g. "
                          "\"nn.conv2d:NHWC,HWIO\"";
    std::vector<std::string> layouts = Split(entry.substr(colon + 1), ',');
    for (const std::string& l : layouts)
      if (l.empty())
        TS_THROW(kValue) << "ConvertLayout: empty layout in desired_layouts entry '" << entry << "'";
    out.emplace_back(entry.substr(0, colon), layouts);
  }
  return out;
}

/// frozen_layouts="nn.conv2d:lambda n, c, h, w: (n, h, w, c)|<weight map>|<result map>;..."
/// as FrozenLayouts (an empty map keeps that tensor's layout); `pass` and `option` name
/// the text in errors.
FrozenLayouts FrozenFromOption(const std::string& text, const char* pass = "FreezeLayouts",
                               const char* option = "frozen_layouts") {
  FrozenLayouts out;
  for (const std::string& entry : Split(text, ';')) {
    size_t colon = entry.find(':');
    if (colon == std::string::npos || colon == 0)
      TS_THROW(kValue) << pass << ": " << option << " entry '" << entry
                       << "' must be op:map|map|... (entries separated by ';')";
    std::vector<layout::IndexMap> maps;
    for (const std::string& map : Split(entry.substr(colon + 1), '|'))
      maps.push_back(map.find_first_not_of(' ') == std::string::npos ? layout::IndexMap()
                                                                     : layout::IndexMap::Parse(map));
    out.emplace_back(entry.substr(0, colon), std::move(maps));
  }
  return out;
}

/// AlterOpImpl's replacements from its text options: `op=prim_func;...` (PrimFuncs of the
/// module, `@` optional) and the transforms in FreezeLayouts' form.
OpImpls ImplsFromOptions(const std::string& impls_text, const std::string& maps_text) {
  if (impls_text.empty()) TS_THROW(kValue) << "AlterOpImpl: op_impls is empty (op=prim_func;...)";
  OpImpls out;
  for (const std::string& entry : Split(impls_text, ';')) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      TS_THROW(kValue) << "AlterOpImpl: op_impls entry '" << entry
                       << "' must be op=prim_func (entries separated by ';')";
    std::string global = entry.substr(eq + 1);
    if (global[0] == '@') global = global.substr(1);
    out.emplace_back(entry.substr(0, eq), OpImpl{tir::PrimFunc(), {}, global});
  }
  if (maps_text.empty()) return out;
  for (auto& entry : FrozenFromOption(maps_text, "AlterOpImpl", "op_buffer_transforms")) {
    const std::string& op = entry.first;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == op; });
    if (it == out.end())
      TS_THROW(kValue) << "AlterOpImpl: op_buffer_transforms names op '" << op
                       << "', which op_impls gives no replacement";
    it->second.maps = std::move(entry.second);
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
  passes.push_back({"AlterOpImpl",
                    "runs listed ops as replacement PrimFuncs of the module, in the layouts given by index maps",
                    {{"op_impls", AttrValue::Kind::kString, "",
                      "op=prim_func entries separated by ';' (PrimFuncs of the module)"},
                     {"op_buffer_transforms", AttrValue::Kind::kString, "",
                      "op:map|map|... entries separated by ';' (one map per parameter, inputs "
                      "then the result; an empty map keeps one)"}},
                    [](const Attrs& options) {
                      return AlterOpImpl(ImplsFromOptions(options.GetString("op_impls"),
                                                          options.GetString("op_buffer_transforms")));
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
