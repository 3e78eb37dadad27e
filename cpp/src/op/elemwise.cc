// Elementwise and broadcast ops: arithmetic, math functions, activations, clip, where.
#include <cmath>

#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

Type BroadcastRel(const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
  const auto* a = ExpectTensor(args, 0);
  const auto* b = ExpectTensor(args, 1);
  if (a->dtype != b->dtype)
    TS_THROW(kType) << "input dtypes differ: " << DTypeName(a->dtype) << " and " << DTypeName(b->dtype);
  return MakeTensorType(BroadcastShapes(a->shape, b->shape), a->dtype);
}

/// Applies `fn` elementwise with NumPy broadcasting, computing in double.
std::vector<NDArray> BroadcastKernel(const std::vector<NDArray>& in, const Type& out_type,
                                     double (*fn)(double, double)) {
  const auto* tt = out_type.as<TensorTypeNode>();
  NDArray out = NDArray::Empty(tt->shape, tt->dtype);
  int rank = tt->ndim();
  auto strides_for = [&](const NDArray& x) {
    std::vector<int64_t> st = RowMajorStrides(x.shape()), bst(rank, 0);
    int off = rank - x.ndim();
    for (int i = 0; i < x.ndim(); ++i) bst[off + i] = x.shape()[i] == 1 ? 0 : st[i];
    return bst;
  };
  std::vector<int64_t> sa = strides_for(in[0]), sb = strides_for(in[1]);
  std::vector<int64_t> idx(rank, 0);
  int64_t n = out.NumElements();
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t ia = 0, ib = 0;
    for (int d = 0; d < rank; ++d) {
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
    }
    out.SetFloat(flat, fn(in[0].GetFloat(ia), in[1].GetFloat(ib)));
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < tt->shape[d]) break;
      idx[d] = 0;
    }
  }
  return {out};
}

}  // namespace

void RegisterElemwiseOps(OpRegistry& registry) {
  OpDef add;
  add.name = "add";
  add.description = "elementwise a + b with NumPy broadcasting";
  add.inputs = {"lhs", "rhs"};
  add.pattern = OpPatternKind::kBroadcast;
  add.type_rel = BroadcastRel;
  add.kernel = [](const std::vector<NDArray>& in, const Attrs&, const Type& out_type) {
    return BroadcastKernel(in, out_type, [](double a, double b) { return a + b; });
  };
  registry.Register(std::move(add));

  OpDef relu;
  relu.name = "nn.relu";
  relu.description = "max(x, 0)";
  relu.inputs = {"data"};
  relu.pattern = OpPatternKind::kElemwise;
  relu.type_rel = [](const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
    return args[0].defined() ? Type(MakeTensorType(ExpectTensor(args, 0)->shape, ExpectTensor(args, 0)->dtype))
                             : Type();
  };
  relu.kernel = [](const std::vector<NDArray>& in, const Attrs&, const Type&) {
    NDArray out = NDArray::Empty(in[0].shape(), in[0].dtype());
    for (int64_t i = 0; i < out.NumElements(); ++i) out.SetFloat(i, std::max(in[0].GetFloat(i), 0.0));
    return std::vector<NDArray>{out};
  };
  registry.Register(std::move(relu));
}

}  // namespace tessera::op_defs
