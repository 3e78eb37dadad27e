// Helpers shared by op definitions.
#include "op_util.h"

namespace tessera::op_defs {

const TensorTypeNode* ExpectTensor(const std::vector<Type>& args, size_t index) {
  if (index >= args.size()) TS_THROW(kType) << "missing input " << index;
  const auto* t = args[index].as<TensorTypeNode>();
  if (!t) TS_THROW(kType) << "input " << index << " must be a tensor, got " << TypeToString(args[index]);
  return t;
}

std::vector<int64_t> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      TS_THROW(kType) << "shapes " << ShapeToString(a) << " and " << ShapeToString(b)
                      << " cannot be broadcast together";
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int NormalizeAxis(int64_t axis, int rank, const char* what) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    TS_THROW(kValue) << what << " " << axis << " is out of range for rank " << rank;
  return static_cast<int>(a);
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

}  // namespace tessera::op_defs
