// Compute rules of sum, mean, max and min: one reduction each (axis, keepdims, exclude).
#include <cmath>
#include <limits>

#include "compute_rules.h"
#include "tessera/support/error.h"

namespace tessera::lower {

using namespace tir;

namespace {

enum class Kind { kSum, kMean, kMax, kMin };

/// Per input axis: reduced? None and [] both mean every axis (as the reference).
std::vector<bool> ReducedAxes(const Attrs& attrs, size_t rank) {
  const AttrValue& axis = attrs.Get("axis");
  std::vector<int64_t> axes = axis.is_none() ? std::vector<int64_t>{} : axis.AsInts("axis");
  if (axes.empty()) return std::vector<bool>(rank, true);
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) reduced[a < 0 ? a + static_cast<int64_t>(rank) : a] = true;
  if (attrs.GetBool("exclude")) reduced.flip();
  return reduced;
}

int64_t IntLimit(DType dt, bool max) {
  switch (dt) {
    case DType::kInt8:
      return max ? 127 : -128;
    case DType::kInt32:
      return max ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min();
    case DType::kUInt8:
      return max ? 255 : 0;
    case DType::kBool:
      return max ? 1 : 0;
    default:
      return max ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
}

ComputeRule ReduceRule(Kind kind, const char* name) {
  return [kind, name](LowerContext& ctx, const std::vector<TensorExpr>& in, const Attrs& attrs,
                      const Type& out) {
    TensorExpr x = in[0];
    size_t rank = x.shape.size();
    std::vector<bool> reduced = ReducedAxes(attrs, rank);
    bool keepdims = attrs.GetBool("keepdims");
    ReduceSpec spec;
    spec.shape = out.as<TensorTypeNode>()->shape;
    spec.dtype = x.dtype;
    int64_t count = 1;
    for (size_t d = 0; d < rank; ++d)
      if (reduced[d]) {
        spec.reduce_extents.push_back(x.shape[d]);
        count *= x.shape[d];
      }
    DType dt = x.dtype;
    bool is_float = IsFloat(dt);
    if (kind == Kind::kMax)
      spec.init = is_float ? Const(-std::numeric_limits<double>::infinity(), dt)
                           : IntImm(IntLimit(dt, false), dt);
    else if (kind == Kind::kMin)
      spec.init = is_float ? Const(std::numeric_limits<double>::infinity(), dt)
                           : IntImm(IntLimit(dt, true), dt);
    else
      spec.init = Const(0, dt);
    spec.update = [=](const PrimExpr& acc, const Indices& i, const Indices& r) {
      Indices idx;
      size_t oi = 0, ri = 0;
      for (size_t d = 0; d < rank; ++d) {
        if (reduced[d]) {
          idx.push_back(r[ri++]);
          if (keepdims) ++oi;
        } else {
          idx.push_back(i[oi++]);
        }
      }
      PrimExpr v = x.at(idx);
      switch (kind) {
        case Kind::kMax:
          return NanMax(acc, v);
        case Kind::kMin:
          return NanMin(acc, v);
        default:
          return acc + v;
      }
    };
    if (kind == Kind::kMean) {
      spec.finalize = [count, is_float, dt](const PrimExpr& acc, const Indices&) {
        if (is_float)
          return count ? MakeBinary(BinaryOp::kDiv, acc, Const(static_cast<double>(count), dt))
                       : Const(std::nan(""), dt);
        return count ? MakeBinary(BinaryOp::kDiv, acc, IntImm(count, dt)) : IntImm(0, dt);
      };
    }
    return std::vector<TensorExpr>{ctx.Reduce(spec, name)};
  };
}

}  // namespace

void RegisterReduceRules(ComputeRegistry& r) {
  r.Register("sum", ReduceRule(Kind::kSum, "sum"));
  r.Register("mean", ReduceRule(Kind::kMean, "mean"));
  r.Register("max", ReduceRule(Kind::kMax, "max"));
  r.Register("min", ReduceRule(Kind::kMin, "min"));
}

}  // namespace tessera::lower
