// Private: reading and building the layout ops (layout_transform, nn.pad, crop) and the
// shapes the layout passes reason about.
#pragma once

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "tessera/ir/expr.h"
#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"
#include "tessera/ir/visitor.h"
#include "tessera/layout/index_map.h"

namespace tessera::layout_plan {

/// The call if `e` is a call of op `name`, else nullptr.
const CallNode* AsOpCall(const Expr& e, const char* name);
/// The index map of a layout_transform call (parsed once per distinct text).
layout::IndexMap TransformMap(const CallNode* call);
/// layout_transform(x, map) with `pad_value` (None: the compiler may choose).
Expr MakeLayoutTransform(const Expr& x, const layout::IndexMap& map,
                         const AttrValue& pad_value = AttrValue());
/// The shape of a tensor-typed (type-checked) expression, or nullopt.
std::optional<std::vector<int64_t>> ShapeOf(const Expr& e);
/// Bytes of a tensor of `shape` with the dtype of tensor-typed `like`.
double BytesOf(const std::vector<int64_t>& shape, const Expr& like);
/// The op call alone as a PrimFunc (params: one buffer per argument, then the result), or
/// nullopt when an argument is not a tensor or the op has no compute rule.
std::optional<tir::PrimFunc> LowerCallAlone(const CallNode* call);
/// `base` or `base_1`, `base_2`, ...: the first name neither in `mod` nor in `taken`
/// (which it joins).
std::string FreshName(const IRModule& mod, const std::string& base,
                      std::unordered_set<std::string>& taken);
/// Whether the call carries frozen_layout=True.
bool IsFrozen(const CallNode* call);

/// Base of the passes that turn calls of ops into call_tir of PrimFuncs they add to the
/// module (FreezeLayouts, AlterOpImpl): one instance mutates every function of `mod`, then
/// AddTo puts the PrimFuncs in. Kernels and skipped functions are left alone.
class KernelAdder : public ExprMutator {
 public:
  explicit KernelAdder(const IRModule& mod) : mod_(mod) {}
  /// `out` with the PrimFuncs added so far.
  IRModule AddTo(IRModule out) const;

 protected:
  bool SkipChildren(const Expr& e) override;
  /// Adds `func` as `<prefix><op with '.' as '_'><suffix>` (made unique) and returns that
  /// name, which is also its global symbol.
  std::string Add(const std::string& prefix, const std::string& op, const std::string& suffix,
                  const tir::PrimFunc& func);

  const IRModule& mod_;

 private:
  std::vector<std::pair<std::string, tir::PrimFunc>> made_;
  std::unordered_set<std::string> taken_;
};

}  // namespace tessera::layout_plan
