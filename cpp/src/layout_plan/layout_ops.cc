// Reading and building the layout ops for the layout passes.
#include "layout_ops.h"

#include <mutex>
#include <string>
#include <unordered_map>

#include "tessera/backend/lower/lower_primitive.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/ir/type.h"
#include "tessera/transform/optimizable.h"

namespace tessera::layout_plan {

const CallNode* AsOpCall(const Expr& e, const char* name) {
  const auto* call = e.as<CallNode>();
  return call && call->op() && call->op()->name == name ? call : nullptr;
}

layout::IndexMap TransformMap(const CallNode* call) {
  static std::mutex mu;
  static std::unordered_map<std::string, layout::IndexMap> cache;
  const std::string& text = call->attrs.GetString("index_map");
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(text);
  if (it != cache.end()) return it->second;
  layout::IndexMap map = layout::IndexMap::Parse(text);
  if (cache.size() > 4096) cache.clear();
  cache.emplace(text, map);
  return map;
}

Expr MakeLayoutTransform(const Expr& x, const layout::IndexMap& map, const AttrValue& pad_value) {
  return MakeOpCall("layout_transform", {x},
                    Attrs{{"index_map", map.ToString()}, {"pad_value", pad_value}});
}

std::optional<std::vector<int64_t>> ShapeOf(const Expr& e) {
  const Type& t = e->checked_type_or_null();
  const auto* tt = t ? t.as<TensorTypeNode>() : nullptr;
  if (!tt) return std::nullopt;
  return tt->shape;
}

double BytesOf(const std::vector<int64_t>& shape, const Expr& like) {
  const auto* tt = like->checked_type().as<TensorTypeNode>();
  double n = DTypeBytes(tt->dtype);
  for (int64_t d : shape) n *= static_cast<double>(d);
  return n;
}

std::optional<tir::PrimFunc> LowerCallAlone(const CallNode* call) {
  std::vector<Var> params;
  std::vector<Expr> args;
  for (size_t i = 0; i < call->args.size(); ++i) {
    const Type& t = call->args[i]->checked_type_or_null();
    if (!t || !t.as<TensorTypeNode>()) return std::nullopt;
    Var p = MakeVar("p" + std::to_string(i), t);
    params.push_back(p);
    args.push_back(p);
  }
  try {
    Function fn = MakeFunction(params, MakeCall(call->callee, args, call->attrs, call->type_args));
    Function typed = InferTypes(IRModule::FromExpr(fn)).LookupFunction("main");
    return lower::LowerPrimitive(WithAttr(typed, attr::kPrimitive, int64_t{1}), "layout_probe");
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string FreshName(const IRModule& mod, const std::string& base,
                      std::unordered_set<std::string>& taken) {
  std::string name = base;
  for (int k = 1; mod.Contains(name) || taken.count(name); ++k)
    name = base + "_" + std::to_string(k);
  taken.insert(name);
  return name;
}
bool IsFrozen(const CallNode* call) {
  const AttrValue* v = call->attrs.Find("frozen_layout");
  return v && v->is_bool() && v->AsBool();
}

IRModule KernelAdder::AddTo(IRModule out) const {
  for (const auto& [name, pf] : made_) out = out.WithFunction(name, pf);
  return out;
}

bool KernelAdder::SkipChildren(const Expr& e) { return IsKernelOrSkipped(e); }

std::string KernelAdder::Add(const std::string& prefix, const std::string& op,
                             const std::string& suffix, const tir::PrimFunc& func) {
  std::string base = op;
  for (char& c : base)
    if (c == '.') c = '_';
  std::string global = FreshName(mod_, prefix + base + suffix, taken_);
  Attrs attrs = func->attrs;
  attrs.Set(attr::kGlobalSymbol, global);
  made_.emplace_back(global, tir::MakePrimFunc(func->params, func->num_outputs, func->body, attrs));
  return global;
}

}  // namespace tessera::layout_plan
