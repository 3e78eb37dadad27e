// nn.dense, nn.matmul and nn.batch_matmul: shape inference and reference GEMM kernels.
#include <algorithm>
#include <vector>

#include "nn_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

/// c[m, n] += sum_k a[m * a_ms + k * a_ks] * b[k * b_ks + n * b_ns] for a zeroed row-major c.
/// The loop order keeps the innermost loop on the unit-stride operand.
void Gemm(const double* a, int64_t a_ms, int64_t a_ks, const double* b, int64_t b_ks, int64_t b_ns,
          double* c, int64_t m_n, int64_t n_n, int64_t k_n) {
  if (b_ns == 1) {
    for (int64_t m = 0; m < m_n; ++m) {
      double* crow = c + m * n_n;
      for (int64_t k = 0; k < k_n; ++k) {
        double av = a[m * a_ms + k * a_ks];
        const double* brow = b + k * b_ks;
        for (int64_t n = 0; n < n_n; ++n) crow[n] += av * brow[n];
      }
    }
    return;
  }
  for (int64_t m = 0; m < m_n; ++m) {
    const double* arow = a + m * a_ms;
    for (int64_t n = 0; n < n_n; ++n) {
      const double* bcol = b + n * b_ns;
      double s = 0.0;
      for (int64_t k = 0; k < k_n; ++k) s += arow[k * a_ks] * bcol[k * b_ks];
      c[m * n_n + n] = s;
    }
  }
}

void CheckUnits(const Attrs& attrs, int64_t n, const char* b_name, const TensorTypeNode* b) {
  const AttrValue* units = attrs.Find("units");
  if (units && units->is_int() && units->AsInt() != n)
    TS_THROW(kType) << "units " << units->AsInt() << " does not match " << b_name << " shape "
                    << ShapeToString(b->shape) << " (" << n << " output features)";
}

void NormalizeUnits(Attrs& attrs) {
  const AttrValue& units = attrs.Get("units");
  if (units.is_int() && units.AsInt() < 0)
    TS_THROW(kValue) << "units must not be negative, got " << units.AsInt();
  nn::CheckOutDTypeAttr(attrs);
}

Type DenseRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  const auto* weight = ExpectTensor(args, 1);
  if (data->ndim() < 1)
    TS_THROW(kType) << "data must have rank >= 1, got shape " << ShapeToString(data->shape);
  nn::ExpectRank(weight, 2, "weight", "[units, in_features]");
  nn::ExpectSameDType(data, "data", weight, "weight");
  if (data->shape.back() != weight->shape[1])
    TS_THROW(kType) << "data shape " << ShapeToString(data->shape) << " and weight shape "
                    << ShapeToString(weight->shape) << " disagree on in-features ("
                    << data->shape.back() << " vs " << weight->shape[1] << ")";
  CheckUnits(attrs, weight->shape[0], "weight", weight);
  std::vector<int64_t> out = data->shape;
  out.back() = weight->shape[0];
  return MakeTensorType(out, nn::ResolveOutDType(attrs, data->dtype));
}

std::vector<NDArray> DenseKernel(const std::vector<NDArray>& in, const Attrs&,
                                 const Type& out_type) {
  int64_t k = in[0].shape().back();
  int64_t n = in[1].shape()[0];
  int64_t m = 1;  // rows: every data dimension but the last
  for (size_t i = 0; i + 1 < in[0].shape().size(); ++i) m *= in[0].shape()[i];
  std::vector<double> a = nn::ToDoubles(in[0]), b = nn::ToDoubles(in[1]);
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  Gemm(a.data(), k, 1, b.data(), 1, k, c.data(), m, n, k);
  return {nn::FromDoubles(c, out_type)};
}

Type MatmulRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* a = ExpectTensor(args, 0);
  const auto* b = ExpectTensor(args, 1);
  bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  if (a->ndim() < (ta ? 2 : 1))
    TS_THROW(kType) << "tensor_a must have rank >= " << (ta ? 2 : 1) << ", got shape "
                    << ShapeToString(a->shape);
  nn::ExpectRank(b, 2, "tensor_b", "");
  nn::ExpectSameDType(a, "tensor_a", b, "tensor_b");
  int r = a->ndim();
  int64_t k_a = ta ? a->shape[r - 2] : a->shape[r - 1];
  int64_t k_b = tb ? b->shape[1] : b->shape[0];
  int64_t n = tb ? b->shape[0] : b->shape[1];
  if (k_a != k_b)
    TS_THROW(kType) << "tensor_a shape " << ShapeToString(a->shape) << " and tensor_b shape "
                    << ShapeToString(b->shape) << " disagree on the reduction dimension (" << k_a
                    << " vs " << k_b << ", transpose_a=" << (ta ? "True" : "False")
                    << ", transpose_b=" << (tb ? "True" : "False") << ")";
  CheckUnits(attrs, n, "tensor_b", b);
  std::vector<int64_t> out = a->shape;
  if (ta) out[r - 2] = a->shape[r - 1];
  out[r - 1] = n;
  return MakeTensorType(out, nn::ResolveOutDType(attrs, a->dtype));
}

std::vector<NDArray> MatmulKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                  const Type& out_type) {
  bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  const auto& as = in[0].shape();
  int r = in[0].ndim();
  // a viewed as [batch, rows, cols] with rows = 1 for a rank-1 a.
  int64_t rows = r >= 2 ? as[r - 2] : 1, cols = as[r - 1];
  int64_t batch = 1;
  for (int i = 0; i + 2 < r; ++i) batch *= as[i];
  int64_t m = ta ? cols : rows, k = ta ? rows : cols;
  int64_t n = tb ? in[1].shape()[0] : in[1].shape()[1];
  int64_t a_ms = ta ? 1 : cols, a_ks = ta ? cols : 1;
  int64_t b_ks = tb ? 1 : n, b_ns = tb ? k : 1;
  std::vector<double> a = nn::ToDoubles(in[0]), b = nn::ToDoubles(in[1]);
  std::vector<double> c(static_cast<size_t>(batch * m * n), 0.0);
  for (int64_t i = 0; i < batch; ++i)
    Gemm(a.data() + i * rows * cols, a_ms, a_ks, b.data(), b_ks, b_ns, c.data() + i * m * n, m, n,
         k);
  return {nn::FromDoubles(c, out_type)};
}

Type BatchMatmulRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* x = ExpectTensor(args, 0);
  const auto* y = ExpectTensor(args, 1);
  nn::ExpectRank(x, 3, "x", "");
  nn::ExpectRank(y, 3, "y", "");
  nn::ExpectSameDType(x, "x", y, "y");
  bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  int64_t bx = x->shape[0], by = y->shape[0];
  if (bx != by && bx != 1 && by != 1)
    TS_THROW(kType) << "batch dimensions of x shape " << ShapeToString(x->shape) << " and y shape "
                    << ShapeToString(y->shape) << " cannot be broadcast";
  int64_t m = ta ? x->shape[2] : x->shape[1], kx = ta ? x->shape[1] : x->shape[2];
  int64_t n = tb ? y->shape[1] : y->shape[2], ky = tb ? y->shape[2] : y->shape[1];
  if (kx != ky)
    TS_THROW(kType) << "x shape " << ShapeToString(x->shape) << " and y shape "
                    << ShapeToString(y->shape) << " disagree on the reduction dimension (" << kx
                    << " vs " << ky << ", transpose_a=" << (ta ? "True" : "False")
                    << ", transpose_b=" << (tb ? "True" : "False") << ")";
  int64_t batch = bx == 1 ? by : bx;
  return MakeTensorType({batch, m, n}, nn::ResolveOutDType(attrs, x->dtype));
}

std::vector<NDArray> BatchMatmulKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                       const Type& out_type) {
  bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  const auto& xs = in[0].shape();
  const auto& ys = in[1].shape();
  const auto* ot = out_type.as<TensorTypeNode>();
  int64_t batch = ot->shape[0], m = ot->shape[1], n = ot->shape[2];
  int64_t k = ta ? xs[1] : xs[2];
  int64_t x_mat = xs[1] * xs[2], y_mat = ys[1] * ys[2];
  int64_t a_ms = ta ? 1 : xs[2], a_ks = ta ? xs[2] : 1;
  int64_t b_ks = tb ? 1 : ys[2], b_ns = tb ? ys[2] : 1;
  std::vector<double> x = nn::ToDoubles(in[0]), y = nn::ToDoubles(in[1]);
  std::vector<double> c(static_cast<size_t>(batch * m * n), 0.0);
  for (int64_t i = 0; i < batch; ++i) {
    const double* xa = x.data() + (xs[0] == 1 ? 0 : i) * x_mat;
    const double* yb = y.data() + (ys[0] == 1 ? 0 : i) * y_mat;
    Gemm(xa, a_ms, a_ks, yb, b_ks, b_ns, c.data() + i * m * n, m, n, k);
  }
  return {nn::FromDoubles(c, out_type)};
}

}  // namespace

void RegisterNNMatmulOps(OpRegistry& registry) {
  OpDef dense;
  dense.name = "nn.dense";
  dense.description = "data [.., K] times weight [N, K] transposed, giving [.., N]";
  dense.inputs = {"data", "weight"};
  dense.attrs = {
      {"units", AttrType::kOptionalInt, AttrValue(), "output features, checked when given"},
      {"out_dtype", AttrType::kString, "", "output dtype; empty means the data dtype"},
  };
  dense.pattern = OpPatternKind::kOutEWiseFusable;
  dense.type_rel = DenseRel;
  dense.kernel = DenseKernel;
  dense.normalize = NormalizeUnits;
  registry.Register(std::move(dense));

  OpDef matmul;
  matmul.name = "nn.matmul";
  matmul.description = "tensor_a [.., M, K] times 2-D tensor_b [K, N], with optional transposes";
  matmul.inputs = {"tensor_a", "tensor_b"};
  matmul.attrs = {
      {"units", AttrType::kOptionalInt, AttrValue(), "output features, checked when given"},
      {"out_dtype", AttrType::kString, "", "output dtype; empty means the input dtype"},
      {"transpose_a", AttrType::kBool, false, "tensor_a is given as [.., K, M]"},
      {"transpose_b", AttrType::kBool, false, "tensor_b is given as [N, K]"},
  };
  matmul.pattern = OpPatternKind::kOutEWiseFusable;
  matmul.type_rel = MatmulRel;
  matmul.kernel = MatmulKernel;
  matmul.normalize = NormalizeUnits;
  registry.Register(std::move(matmul));

  OpDef bmm;
  bmm.name = "nn.batch_matmul";
  bmm.description = "batched x [B, M, K] times y [B, N, K] transposed; a batch of 1 broadcasts";
  bmm.inputs = {"x", "y"};
  bmm.attrs = {
      {"out_dtype", AttrType::kString, "", "output dtype; empty means the input dtype"},
      {"transpose_a", AttrType::kBool, false, "x is given as [B, K, M]"},
      {"transpose_b", AttrType::kBool, true, "y is given as [B, N, K]"},
  };
  bmm.pattern = OpPatternKind::kOutEWiseFusable;
  bmm.type_rel = BatchMatmulRel;
  bmm.kernel = BatchMatmulKernel;
  bmm.normalize = [](Attrs& attrs) { nn::CheckOutDTypeAttr(attrs); };
  registry.Register(std::move(bmm));
}

}  // namespace tessera::op_defs
