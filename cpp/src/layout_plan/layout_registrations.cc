// The layout passes' entries in the pass table (names, options, factories).
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

/// desired_layouts=[["nn.conv2d", "NCHW16c", "OIHW16i16o"], ...] as DesiredLayouts.
DesiredLayouts DesiredFromOption(const AttrValue& value) {
  DesiredLayouts out;
  if (!value.is_array())
    TS_THROW(kValue) << "ConvertLayout: desired_layouts must be a list of [op, layout...] lists";
  for (const AttrValue& item : value.AsArray()) {
    if (!item.is_array() || item.AsArray().size() < 2)
      TS_THROW(kValue) << "ConvertLayout: each desired_layouts entry must be [op, layout...], got "
                       << item.ToString();
    std::vector<std::string> strings;
    for (const AttrValue& s : item.AsArray()) {
      if (!s.is_string())
        TS_THROW(kValue) << "ConvertLayout: desired_layouts entries hold strings, got "
                         << item.ToString();
      strings.push_back(s.AsString());
    }
    out.emplace_back(strings[0], std::vector<std::string>(strings.begin() + 1, strings.end()));
  }
  return out;
}

}  // namespace

void AppendLayoutPasses(std::vector<PassRegistration>& passes) {
  passes.push_back({"ConvertLayout",
                    "gives layout-critical ops wanted layouts (TVM layout strings) and freezes them",
                    {{"desired_layouts", AttrValue::Kind::kArray, AttrValue(std::vector<AttrValue>{}),
                      "[[op, data layout, kernel layout], ...], e.g. [[\"nn.conv2d\", \"NHWC\", "
                      "\"HWIO\"]]"}},
                    [](const Attrs& options) {
                      return ConvertLayout(DesiredFromOption(options.Get("desired_layouts")));
                    }});
  passes.push_back({"AlterOpLayout",
                    "gives each conv2d the layouts the target's kernels prefer (ConvertLayout)",
                    {{"target", AttrValue::Kind::kString, "native", "the backend whose kernels choose"}},
                    [](const Attrs& options) {
                      return AlterOpLayout(options.GetString("target"));
                    }});
  passes.push_back({"PlanLayouts",
                    "flows layout rewrites backward through ops, cancels and folds them",
                    {},
                    [](const Attrs&) { return PlanLayouts(); }});
  passes.push_back({"SimplifyLayoutTransforms",
                    "composes and cancels adjacent layout rewrites, folds them into constants",
                    {},
                    [](const Attrs&) { return SimplifyLayoutTransforms(); }});
}

}  // namespace tessera
