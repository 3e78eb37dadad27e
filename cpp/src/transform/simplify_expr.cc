// SimplifyExpr: algebraic identities, reshape/transpose chains, nested concatenations and
// layer norms written op by op.
#include <algorithm>
#include <numeric>
#include "builtin_passes.h"

#include "pass_util.h"
#include "simplify_layer_norm.h"
#include "tessera/ir/visitor.h"
#include "tessera/ir/op.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

/// True when every element of constant `e` equals `value`.
bool IsConstantFilled(const Expr& e, double value) {
  auto* c = e.as<ConstantNode>();
  if (!c) return false;
  for (int64_t i = 0; i < c->data.NumElements(); ++i)
    if (c->data.GetFloat(i) != value) return false;
  return true;
}

/// The permutation of a transpose call (resolving axes=None and negative axes).
std::vector<int64_t> Permutation(const CallNode* call, int ndim) {
  std::vector<int64_t> perm;
  const AttrValue* axes = call->attrs.Find("axes");
  if (!axes || axes->is_none()) {
    for (int i = ndim - 1; i >= 0; --i) perm.push_back(i);
    return perm;
  }
  for (int64_t a : axes->AsInts()) perm.push_back(a < 0 ? a + ndim : a);
  return perm;
}

/// The one-element constant scaling `call` (multiply by or divide by it), or null.
const ConstantNode* ScalarScale(const CallNode* call) {
  if (!call || !call->op() || call->args.size() != 2) return nullptr;
  const std::string& op = call->op()->name;
  if (op != "multiply" && op != "divide") return nullptr;
  const auto* c = call->args[1].as<ConstantNode>();
  return c && c->data.NumElements() == 1 ? c : nullptr;
}

/// `attrs` plus frozen_layout when either call merged into one was frozen: the merged call
/// reads the inner call's operand and produces the outer call's result, so it keeps both
/// pins.
Attrs MergedAttrs(Attrs attrs, const CallNode* outer, const CallNode* inner) {
  Call o(outer), i(inner);
  if (IsFrozenLayout(o) || IsFrozenLayout(i)) attrs.Set(attr::kFrozenLayout, true);
  return attrs;
}

class ExprSimplifier : public ExprMutator {
 public:
  /// Simplifies within a function whose nodes are used `uses` times.
  explicit ExprSimplifier(UseCounts uses) : uses_(std::move(uses)) {}

 protected:
  bool SkipChildren(const Expr& e) override { return IsKernelOrSkipped(e); }

  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    auto* call = rebuilt.as<CallNode>();
    auto* orig = original.as<CallNode>();
    if (!call || !call->op() || !orig) return rebuilt;
    const std::string& op = call->op()->name;
    const auto& a = call->args;
    const auto& oa = orig->args;
    if (Expr ln = SimplifyLayerNorm(orig, call, uses_); ln.defined()) return ln;
    if (Expr moved = ScaleAfterProduct(original, orig, call); moved.defined()) return moved;
    // x * 1 -> x, x + 0 -> x, x - 0 -> x, x / 1 -> x (only when no broadcast widens x).
    if ((op == "multiply" || op == "add") && a.size() == 2) {
      double unit = op == "multiply" ? 1.0 : 0.0;
      if (IsConstantFilled(a[1], unit) && SameTensorType(oa[0], original)) return a[0];
      if (IsConstantFilled(a[0], unit) && SameTensorType(oa[1], original)) return a[1];
    }
    if ((op == "subtract" || op == "divide") && a.size() == 2) {
      if (IsConstantFilled(a[1], op == "subtract" ? 0.0 : 1.0) && SameTensorType(oa[0], original))
        return a[0];
    }
    // negative(negative(x)) -> x
    if (op == "negative") {
      if (auto* inner = a[0].as<CallNode>();
          inner && inner->op() && inner->op()->name == "negative")
        return inner->args[0];
    }
    if (Expr moved = ReshapeBeforeProduct(original, orig, call); moved.defined()) return moved;
    // No-op reshape / cast / copy-free transpose -> x.
    if ((op == "reshape" || op == "cast") && SameTensorType(oa[0], original)) return a[0];
    // reshape(reshape(x)) -> reshape(x)
    if (op == "reshape") {
      if (auto* inner = a[0].as<CallNode>();
          inner && inner->op() && inner->op()->name == "reshape") {
        const auto* t = TensorTypeOf(original);
        if (t)
          return MakeOpCall(
              "reshape", {inner->args[0]},
              MergedAttrs(Attrs{{"newshape", AttrValue::Ints(t->shape)}}, call, inner));
      }
    }
    // concatenate((a, concatenate((b, c)), d)) along one axis -> concatenate((a, b, c, d)):
    // FuseOps made the nested form one kernel that copies everything, where the flat one
    // lets each input's producer write its part in place (CreateExecutable).
    if (op == "concatenate") {
      const auto* fields = a[0].as<TupleNode>();
      const auto* original_fields = oa[0].as<TupleNode>();
      const auto* t = TensorTypeOf(original);
      if (!fields || !original_fields || !t) return rebuilt;
      auto axis_of = [&](const CallNode* c) {
        int64_t axis = c->attrs.GetInt("axis");
        return axis < 0 ? axis + t->ndim() : axis;
      };
      std::vector<Expr> flat;
      bool merged = false, frozen = IsFrozenLayout(Call(call));
      for (size_t i = 0; i < fields->fields.size(); ++i) {
        const Expr& f = fields->fields[i];
        const auto* inner = f.as<CallNode>();
        const auto* inner_fields =
            inner && inner->op() && inner->op()->name == "concatenate" && inner->args.size() == 1
                ? inner->args[0].as<TupleNode>()
                : nullptr;
        // Only an inner concatenation nothing else reads: else its inputs would be read
        // twice, and neither concatenation could be placed in its producers' results.
        if (!inner_fields || axis_of(inner) != axis_of(call) ||
            Uses(uses_, original_fields->fields[i]) != 1) {
          flat.push_back(f);
          continue;
        }
        flat.insert(flat.end(), inner_fields->fields.begin(), inner_fields->fields.end());
        merged = true;
        frozen = frozen || IsFrozenLayout(Call(inner));
      }
      if (!merged) return rebuilt;
      Attrs attrs{{"axis", AttrValue(axis_of(call))}};
      if (frozen) attrs.Set(attr::kFrozenLayout, true);  // the merged call keeps every pin
      return MakeOpCall("concatenate", {MakeTuple(flat)}, attrs);
    }
    if (op == "transpose") {
      const auto* t = TensorTypeOf(oa[0]);
      if (!t) return rebuilt;
      std::vector<int64_t> perm = Permutation(call, t->ndim());
      Expr source = a[0];
      const CallNode* merged = call;
      // transpose(transpose(x, p), q) -> transpose(x, p[q]).
      if (auto* inner = a[0].as<CallNode>();
          inner && inner->op() && inner->op()->name == "transpose") {
        std::vector<int64_t> p = Permutation(inner, t->ndim()), composed;
        for (int64_t q : perm) composed.push_back(p[q]);
        perm = composed;
        source = inner->args[0];
        merged = inner;
      }
      std::vector<int64_t> identity(perm.size());
      std::iota(identity.begin(), identity.end(), 0);
      if (perm == identity) return source;
      // A transpose that keeps the order of the axes longer than 1 moves no element:
      // it is a reshape (read without index arithmetic, and merged with other reshapes).
      const auto* out_type = TensorTypeOf(original);
      std::vector<int64_t> moved;
      for (int64_t p : perm)
        if (t->shape[p] != 1) moved.push_back(p);
      if (merged == call && out_type && std::is_sorted(moved.begin(), moved.end())) {
        const CallNode* from = call;  // reshape(reshape(x)) -> reshape(x), as below
        if (auto* inner = source.as<CallNode>();
            inner && inner->op() && inner->op()->name == "reshape") {
          source = inner->args[0];
          from = inner;
        }
        return MakeOpCall("reshape", {source},
                          MergedAttrs(Attrs{{"newshape", AttrValue::Ints(out_type->shape)}}, call,
                                      from));
      }
      if (source.same_as(a[0])) return rebuilt;
      return MakeOpCall("transpose", {source},
                        MergedAttrs(Attrs{{"axes", AttrValue::Ints(perm)}}, call, merged));
    }
    return rebuilt;
  }

 private:
  /// reshape(dense(x, w)) -> dense(reshape(x), w) when the reshape keeps the last axis (it
  /// only regroups rows; nn.matmul with [k, n] weights alike): the product then reads its
  /// operand through the reshape (FuseOps) and elementwise consumers of the result, such
  /// as a residual add, become its epilogue instead of a kernel of their own.
  Expr ReshapeBeforeProduct(const Expr& original, const CallNode* orig, const CallNode* call) {
    if (call->op()->name != "reshape" || IsFrozenLayout(Call(call))) return Expr();
    const auto* product = call->args[0].as<CallNode>();
    const auto* orig_product = orig->args[0].as<CallNode>();
    // The rebuilt operand may be a rewrite of another op (a reshape that moved before its
    // own product): only the same product, whose original types describe it, qualifies.
    if (!product || !orig_product || !product->op() || product->op() != orig_product->op() ||
        product->args.size() != 2 || orig_product->args.size() != 2 ||
        IsFrozenLayout(Call(product)))
      return Expr();
    const std::string& op = product->op()->name;
    bool plain_matmul = op == "nn.matmul" && !product->attrs.GetBool("transpose_a");
    if (op != "nn.dense" && !plain_matmul) return Expr();
    if (Uses(uses_, orig->args[0]) != 1) return Expr();
    const auto* out = TensorTypeOf(original);
    const auto* in = TensorTypeOf(orig_product->args[0]);
    const auto* weights = TensorTypeOf(orig_product->args[1]);
    const auto* result = TensorTypeOf(orig->args[0]);
    if (!out || !in || !weights || !result || out->ndim() < 2 || in->ndim() < 1 ||
        weights->ndim() != 2 || out->shape.back() != result->shape.back())
      return Expr();
    std::vector<int64_t> shape(out->shape.begin(), out->shape.end() - 1);
    shape.push_back(in->shape.back());
    Expr a = MakeOpCall("reshape", {product->args[0]}, {{"newshape", AttrValue::Ints(shape)}});
    return MakeOpCall(op, {a, product->args[1]}, product->attrs);
  }

  /// product(x * c, y) -> product(x, y) * c for a one-element constant c (and / c alike),
  /// on either operand of a matrix product: the scale becomes the product's fused
  /// epilogue instead of a pass over an operand (the attention's query / sqrt(d)), and
  /// leaves the operand a transpose the product reads in place.
  Expr ScaleAfterProduct(const Expr& original, const CallNode* orig, const CallNode* call) {
    const std::string& op = call->op()->name;
    if (op != "nn.dense" && op != "nn.matmul" && op != "nn.batch_matmul") return Expr();
    if (call->args.size() != 2 || IsFrozenLayout(Call(call))) return Expr();
    const auto* out = TensorTypeOf(original);
    for (size_t i = 0; i < 2; ++i) {
      const auto* scale = call->args[i].as<CallNode>();
      const auto* orig_scale = orig->args[i].as<CallNode>();
      const ConstantNode* c = ScalarScale(scale);
      // As above: the original operand must be this very scale, for its types.
      if (!c || !orig_scale || orig_scale->op() != scale->op() || !ScalarScale(orig_scale) ||
          IsFrozenLayout(Call(scale)))
        continue;
      // Only a scale nothing else reads, that widens nothing, and whose constant does not
      // raise the product's rank.
      if (Uses(uses_, orig->args[i]) != 1) continue;
      if (!SameTensorType(orig_scale->args[0], orig->args[i])) continue;
      // Floats only (an integer division does not commute with the sum), of the result's
      // dtype (a product with another out_dtype would be scaled by a mismatched constant).
      if (!out || c->data.ndim() > out->ndim() || !IsFloat(out->dtype) ||
          c->data.dtype() != out->dtype)
        continue;
      std::vector<Expr> args = call->args;
      args[i] = scale->args[0];
      return MakeOpCall(scale->op()->name,
                        {MakeOpCall(op, args, call->attrs), scale->args[1]}, {});
    }
    return Expr();
  }

  UseCounts uses_;
};

}  // namespace

Pass SimplifyExpr() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        // A rewrite can enable one on its consumer (a transpose turned reshape merges with
        // a reshape, which then moves before a product): a few rounds, each on freshly
        // typed IR with fresh use counts, until one changes nothing.
        for (int round = 0; round < 4; ++round) {
          bool changed = false;
          IRModule next = MapOptimizableFunctions(mod, [&changed](const Function& f) {
            Expr out = ExprSimplifier(CountUses(f)).Mutate(f);
            changed = changed || !out.same_as(f);
            return out;
          });
          if (!changed) break;  // `mod` is typed already
          mod = InferTypes(next);
        }
        return mod;
      },
      PassInfo{"SimplifyExpr", 0, {}});
}

PassRegistration SimplifyExprRegistration() {
  return {
      "SimplifyExpr", "algebraic simplification", {}, [](const Attrs&) { return SimplifyExpr(); }};
}

}  // namespace tessera
