// Helpers shared by the IndexMap files: normalized outputs, shape checks, padded domains.
#include "index_map_util.h"

#include "index_text.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera::layout::detail {

std::vector<IterSum> SumsOf(const IndexMap& map, Domain domain) {
  VarEnv env = IdentityEnv(map.initial_indices());
  std::vector<IterSum> sums;
  sums.reserve(map.final_indices().size());
  for (const tir::PrimExpr& e : map.final_indices()) sums.push_back(ToIterSum(e, env, domain));
  return sums;
}

void CheckShape(const IndexMap& map, const std::vector<int64_t>& shape, const char* what) {
  if (static_cast<int>(shape.size()) != map.arity())
    TS_THROW(kType) << what << ": index map `" << map.ToString() << "` takes " << map.arity()
                    << " indices but shape " << ShapeToString(shape) << " has rank "
                    << shape.size();
  for (size_t k = 0; k < shape.size(); ++k)
    if (shape[k] <= 0)
      TS_THROW(kValue) << what << ": shape " << ShapeToString(shape) << " of index map `"
                       << map.ToString() << "` has a non-positive extent at axis " << k;
}

PaddedForm Padded(const IndexMap& map, const std::vector<int64_t>& shape) {
  PaddedForm form;
  form.sums = SumsOf(map, nullptr);
  size_t n = shape.size();
  std::vector<int64_t> top_lower(n, 0);
  form.offset.assign(n, 0);
  for (const IterSum& s : form.sums)
    for (const Term& t : s.terms) {
      size_t v = static_cast<size_t>(t.split.var);
      if (t.split.lower > top_lower[v] ||
          (t.split.lower == top_lower[v] && t.split.offset > form.offset[v])) {
        top_lower[v] = t.split.lower;
        form.offset[v] = t.split.offset;
      }
    }
  form.padded.resize(n);
  for (size_t v = 0; v < n; ++v) {
    if (top_lower[v] == 0) {
      form.padded[v] = shape[v];
      continue;
    }
    int64_t end = CheckedAdd(form.offset[v], shape[v]);
    form.padded[v] =
        CheckedMul(FloorDivInt(CheckedAdd(end, top_lower[v] - 1), top_lower[v]), top_lower[v]);
  }
  for (IterSum& s : form.sums) {
    for (Term& t : s.terms) t.split.offset -= form.offset[static_cast<size_t>(t.split.var)];
    Normalize(&s, &form.padded);
  }
  return form;
}

int64_t OutputExtent(const IndexMap& map, const std::vector<int64_t>& shape, size_t index,
                     const IterSum& sum, Domain domain) {
  auto [lo, hi] = SumBounds(sum, domain);
  if (!lo || *lo < 0)
    TS_THROW(kValue) << "index map `" << map.ToString() << "` over shape " << ShapeToString(shape)
                     << ": output " << index << " `" << IndexExprText(map.final_indices()[index])
                     << "` can be negative";
  if (!hi)
    TS_THROW(kInternal) << "index map `" << map.ToString() << "`: output " << index
                        << " is unbounded over shape " << ShapeToString(shape);
  return CheckedAdd(*hi, 1);
}

}  // namespace tessera::layout::detail
