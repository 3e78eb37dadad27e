// ConvertLayout: gives layout-critical ops the layouts the user (or a backend) wants,
// with layout_transforms on their operands and result, and freezes them.
#include <algorithm>
#include <functional>

#include "layout_ops.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/type.h"
#include "tessera/ir/op.h"
#include "tessera/ir/visitor.h"
#include "tessera/layout/layout_string.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"
#include "tessera/transform/optimizable.h"

namespace tessera::layout_plan {

namespace {

using layout::IndexMap;

/// The layout attributes an op's wanted layouts set, in order, and its layout-carrying
/// operands (operand index per attribute; -1 for none).
struct LayoutSlots {
  std::vector<std::string> attrs;
  std::vector<int> operands;
};

/// The ops ConvertLayout knows, with their layout attributes.
std::optional<LayoutSlots> SlotsOf(const std::string& op) {
  if (op == "nn.conv2d") return LayoutSlots{{"data_layout", "kernel_layout"}, {0, 1}};
  if (op == "nn.max_pool2d" || op == "nn.avg_pool2d" || op == "nn.global_avg_pool2d" ||
      op == "nn.global_max_pool2d")
    return LayoutSlots{{"layout"}, {0}};
  return std::nullopt;
}

/// The layout of the result: `out_layout` when the op has one set, else the data layout.
std::string ResultLayout(const CallNode* call, const std::string& data_attr) {
  const AttrValue* out = call->attrs.Find("out_layout");
  if (out && out->is_string() && !out->AsString().empty()) return out->AsString();
  return call->attrs.GetString(data_attr);
}

/// The wanted layouts of one call (as ConvertLayout's table gives them for its op), or
/// nullopt to leave it alone.
using LayoutChooser = std::function<std::optional<std::vector<std::string>>(const CallNode*)>;

/// The logical extent of axis `axis` (upper case) in `shape` laid out as `layout`: its
/// primal dimension times its sub-axis ("OIHW16i16o", 'O': shape[0] * 16).
int64_t LayoutExtent(const std::string& layout, char axis, const std::vector<int64_t>& shape) {
  const layout::LayoutString parsed = layout::ParseLayoutString(layout, "kernel_layout");
  const int letter = axis - 'A', primal = parsed.primal_pos[letter];
  return shape.at(primal) * (parsed.sub_pos[letter] >= 0 ? parsed.sub_factor[letter] : 1);
}

class Converter : public ExprMutator {
 public:
  explicit Converter(LayoutChooser choose) : choose_(std::move(choose)) {}

 protected:
  bool SkipChildren(const Expr& e) override { return IsKernelOrSkipped(e); }

  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    const auto* call = rebuilt.as<CallNode>();
    const auto* orig = original.as<CallNode>();
    if (!call || !call->op() || !orig || IsFrozen(call)) return rebuilt;
    const std::string& name = call->op()->name;
    auto slots = SlotsOf(name);
    if (!slots) return rebuilt;
    auto want = choose_(orig);
    if (!want) return rebuilt;
    auto out_shape = ShapeOf(original);
    if (!out_shape) return rebuilt;
    const std::string& data_attr = slots->attrs[0];
    const std::string old_result = ResultLayout(call, data_attr);
    Attrs attrs = call->attrs;
    std::vector<Expr> args = call->args;
    bool changed = false;
    // The operands' types after the transforms, to check the converted call below.
    std::vector<Type> arg_types;
    for (const Expr& a : orig->args) arg_types.push_back(a->checked_type());
    for (size_t k = 0; k < slots->attrs.size() && k < want->size(); ++k) {
      const std::string& layout = (*want)[k];
      const std::string old = call->attrs.GetString(slots->attrs[k]);
      if (layout == "default" || layout == old) continue;
      // Zero is the right fill for the padded channels of a convolution's operands.
      const size_t operand = static_cast<size_t>(slots->operands[k]);
      IndexMap map;
      try {
        map = IndexMap::FromLayouts(old, layout);
      } catch (const Error& e) {
        TS_THROW(kValue) << "ConvertLayout: op '" << name << "' cannot convert its "
                         << slots->attrs[k] << " from " << old << " to " << layout << ": "
                         << e.what();
      }
      args[operand] = MakeLayoutTransform(args[operand], map, 0.0);
      const auto* tt = arg_types[operand].as<TensorTypeNode>();
      if (tt) arg_types[operand] = MakeTensorType(map.MapShape(tt->shape), tt->dtype);
      attrs.Set(slots->attrs[k], layout);
      changed = true;
    }
    // A third wanted layout is the result's (out_layout), e.g. a conv from NCHW8c to NCHW16c.
    std::string new_result = attrs.GetString(data_attr);
    if (want->size() > slots->attrs.size() && attrs.Has("out_layout")) {
      const std::string& out = (*want)[slots->attrs.size()];
      if (out != "default") new_result = out;
    }
    if (!changed && new_result == old_result) return rebuilt;
    // A weight layout that pads the output channels gives the call that many channels.
    if (name == "nn.conv2d" && attrs.Get("channels").is_int() && arg_types.size() > 1)
      if (const auto* wt = arg_types[1].as<TensorTypeNode>())
        attrs.Set("channels",
                  AttrValue(LayoutExtent(attrs.GetString("kernel_layout"), 'O', wt->shape)));
    if (attrs.Has("out_layout"))
      attrs.Set("out_layout", new_result == attrs.GetString(data_attr) ? "" : new_result);
    attrs.Set("frozen_layout", true);
    Expr converted;
    // A combination the op cannot take (a padded data layout with the kernel's left as it
    // was, a depthwise conv with dense blocked weights) is the caller's mistake: say so
    // here rather than as a type error after the pass.
    Type converted_type;
    try {
      converted = MakeOpCall(name, args, attrs);
      const auto* c = converted.as<CallNode>();
      converted_type = OpRegistry::Global().Get(name).type_rel(arg_types, c->attrs, c->type_args);
    } catch (const Error& e) {
      std::string layouts;
      for (const std::string& l : *want) layouts += (layouts.empty() ? "" : ", ") + l;
      TS_THROW(kValue) << "ConvertLayout: op '" << name << "' cannot take layouts [" << layouts
                       << "] here: " << e.what();
    }
    Expr back = MakeLayoutTransform(converted, IndexMap::FromLayouts(new_result, old_result));
    IndexMap back_map = IndexMap::FromLayouts(new_result, old_result);
    const auto* ct = converted_type.as<TensorTypeNode>();
    std::vector<int64_t> converted_shape =
        ct ? ct->shape : IndexMap::FromLayouts(old_result, new_result).MapShape(*out_shape);
    if (back_map.MapShape(converted_shape) != *out_shape) {
      // The new layouts padded the result (channels rounded up to the block, by the
      // result's layout or by the weights' output channels): crop them off. Padded output
      // channels of a convolution are zero (zero weights).
      std::vector<int64_t> begin(out_shape->size(), 0);
      back = MakeOpCall("crop", {back},
                        Attrs{{"begin", AttrValue::Ints(begin)},
                              {"sizes", AttrValue::Ints(*out_shape)},
                              {"cropped_value", name == "nn.conv2d" ? AttrValue(0.0) : AttrValue()}});
    }
    return back;
  }

 private:
  LayoutChooser choose_;
};

/// The largest power of two up to `most` that divides `n`.
int64_t Block(int64_t n, int64_t most) {
  int64_t b = 1;
  while (b * 2 <= most && n % (b * 2) == 0) b *= 2;
  return b;
}

/// The native backend's blocked layouts for a conv2d call, or nullopt to keep its layouts.
std::optional<std::vector<std::string>> NativeConvLayouts(const CallNode* call) {
  if (call->op()->name != "nn.conv2d" || call->attrs.GetString("data_layout") != "NCHW" ||
      call->attrs.GetString("kernel_layout") != "OIHW" ||
      !call->attrs.GetString("out_layout").empty())
    return std::nullopt;
  auto data = ShapeOf(call->args[0]);
  auto weight = ShapeOf(call->args[1]);
  if (!data || !weight || data->size() != 4 || weight->size() != 4) return std::nullopt;
  const int64_t simd = std::max<int64_t>(HostSimdBytes() / 4, 4);
  const int64_t in_c = (*data)[1], out_c = (*weight)[0], groups = call->attrs.GetInt("groups");
  // The blocked template runs at full speed with whole vectors of output channels; a
  // narrower block (1000 classes in blocks of 8) was measured 4x slower than NCHW. So a
  // dense convolution whose channels are not a multiple of the vector pads them to one
  // when that adds at most a third (zero weights; the padded outputs are cropped off):
  // MobileNetV2's 24-channel convolutions ran at a quarter of the blocked rate in NCHW,
  // with layout transforms around them that cost as much again.
  auto padded = [&](int64_t c) { return (c + simd - 1) / simd * simd; };
  auto block = [&](int64_t c) {
    const int64_t b = Block(c, simd);
    return b < simd && groups == 1 && c >= simd && 3 * padded(c) <= 4 * c ? simd : b;
  };
  const int64_t ob = block(out_c);
  if (ob < simd) return std::nullopt;
  if (groups == 1) {
    const int64_t ib = block(in_c);
    return std::vector<std::string>{"NCHW" + std::to_string(ib) + "c",
                                    "OIHW" + std::to_string(ib) + "i" + std::to_string(ob) + "o",
                                    "NCHW" + std::to_string(ob) + "c"};
  }
  if (groups == in_c && groups == out_c)
    return std::vector<std::string>{"NCHW" + std::to_string(ob) + "c",
                                    "OIHW1i" + std::to_string(ob) + "o"};
  return std::nullopt;
}

}  // namespace

}  // namespace tessera::layout_plan

namespace tessera {

Pass ConvertLayout(DesiredLayouts desired) {
  for (const auto& [op, layouts] : desired) {
    auto slots = layout_plan::SlotsOf(op);
    if (!slots)
      TS_THROW(kValue) << "ConvertLayout: op '" << op
                       << "' has no layouts to convert (supported: nn.conv2d, nn.max_pool2d, "
                          "nn.avg_pool2d, nn.global_avg_pool2d, nn.global_max_pool2d)";
    size_t most = slots->attrs.size() + (op == "nn.conv2d" ? 1 : 0);
    if (layouts.empty() || layouts.size() > most)
      TS_THROW(kValue) << "ConvertLayout: op '" << op << "' takes 1 to " << most
                       << " layouts, got " << layouts.size();
    for (const std::string& l : layouts) {
      if (l == "default") continue;
      try {
        layout::IndexMap::FromLayouts(l, l);  // validates the string
      } catch (const Error& e) {
        ::tessera::detail::ErrorBuilder(e.kind()) << "ConvertLayout: op '" << op << "': layout '" << l
                           << "' is not a layout: " << e.what();
      }
    }
  }
  return CreateModulePass(
      [desired](IRModule mod, const PassContext&) {
        return InferTypes(MapOptimizableFunctions(InferTypes(mod), [&](const Function& f) {
          return layout_plan::Converter([&](const CallNode* call)
                                            -> std::optional<std::vector<std::string>> {
                   for (const auto& [op, layouts] : desired)
                     if (op == call->op()->name) return layouts;
                   return std::nullopt;
                 }).Mutate(f);
        }));
      },
      PassInfo{"ConvertLayout", 0, {}});
}

Pass AlterOpLayout(std::string target) {
  if (target != "native")
    TS_THROW(kValue) << "AlterOpLayout: target '" << target
                     << "' declares no preferred layouts (supported: native)";
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        return InferTypes(MapOptimizableFunctions(InferTypes(mod), [](const Function& f) {
          return layout_plan::Converter(layout_plan::NativeConvLayouts).Mutate(f);
        }));
      },
      PassInfo{"AlterOpLayout", 3, {}});
}

}  // namespace tessera
