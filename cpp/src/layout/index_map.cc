// IndexMap: construction and validation, evaluation, shapes, composition, and the exact
// equality proofs (EqualOn, IsIdentity) over a domain.
#include "tessera/layout/index_map.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "index_map_util.h"
#include "index_text.h"
#include "iter_sum.h"
#include "tessera/support/error.h"

namespace tessera::layout {

using detail::IterSum;

namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return s != "lambda" && s != "floordiv" && s != "floormod";
}

std::vector<tir::Var> NumberedVars(int ndim) {
  std::vector<tir::Var> vars;
  for (int k = 0; k < ndim; ++k) vars.push_back(tir::MakeVar("i" + std::to_string(k)));
  return vars;
}

/// Per-variable enumeration stops here: beyond it EqualOn relies on the normal forms alone.
constexpr int64_t kEnumerateLimit = int64_t{1} << 24;

/// Whether sums `a` and `b` agree on every point of the box `shape`. Both are separable
/// (a base plus one function per variable), so they agree exactly when, per variable, the
/// difference of its functions is a constant over its extent, and those constants cancel
/// the bases' difference.
bool SameOn(const IterSum& a, const IterSum& b, const std::vector<int64_t>& shape) {
  IterSum na = a, nb = b;
  detail::Normalize(&na, &shape);
  detail::Normalize(&nb, &shape);
  if (na == nb) return true;
  int64_t total = detail::CheckedAdd(na.base, -nb.base);
  for (size_t v = 0; v < shape.size(); ++v) {
    std::vector<detail::Term> diff;
    for (const detail::Term& t : na.terms)
      if (t.split.var == static_cast<int>(v)) diff.push_back(t);
    for (const detail::Term& t : nb.terms)
      if (t.split.var == static_cast<int>(v)) diff.push_back({t.split, -t.scale});
    if (diff.empty()) continue;
    if (shape[v] > kEnumerateLimit) return false;
    auto value = [&](int64_t x) {
      int64_t sum = 0;
      for (const detail::Term& t : diff)
        sum = detail::CheckedAdd(sum, detail::CheckedMul(t.scale, detail::SplitValue(t.split, x)));
      return sum;
    };
    int64_t first = value(0);
    for (int64_t x = 1; x < shape[v]; ++x)
      if (value(x) != first) return false;
    total = detail::CheckedAdd(total, first);
  }
  return total == 0;
}

}  // namespace

IndexMap::IndexMap(std::vector<tir::Var> initial, std::vector<tir::PrimExpr> final_indices)
    : initial_(std::move(initial)) {
  std::unordered_set<std::string> names;
  for (size_t k = 0; k < initial_.size(); ++k) {
    const tir::Var& v = initial_[k];
    if (!v.defined()) TS_THROW(kValue) << "index map input " << k << " is null";
    if (v->dtype != DType::kInt32)
      TS_THROW(kValue) << "index map input " << k << " `" << v->name << "` is "
                       << DTypeName(v->dtype) << "; index variables are int32";
    if (!IsIdentifier(v->name))
      TS_THROW(kValue) << "index map input " << k << " is named \"" << v->name
                       << "\", which is not an identifier (letters, digits, _; not lambda, "
                          "floordiv, floormod)";
    if (!names.insert(v->name).second)
      TS_THROW(kValue) << "index map inputs repeat the name `" << v->name << "`";
  }
  detail::VarEnv env = detail::IdentityEnv(initial_);
  final_.reserve(final_indices.size());
  for (size_t k = 0; k < final_indices.size(); ++k) {
    const tir::PrimExpr& e = final_indices[k];
    std::string text = detail::IndexExprText(e);
    IterSum sum;
    try {
      sum = detail::ToIterSum(e, env, nullptr);
    } catch (const detail::NotAffine& err) {
      TS_THROW(kValue) << "index map output " << k << " `" << text
                       << "` is not an affine split/fuse of the input variables: " << err.what();
    } catch (const Error& err) {
      throw Error(err.kind(),
                  "index map output " + std::to_string(k) + " `" + text + "`: " + err.what());
    }
    final_.push_back(detail::ToPrimExpr(sum, initial_));
  }
}

IndexMap IndexMap::Identity(int ndim) {
  if (ndim < 0) TS_THROW(kValue) << "IndexMap::Identity: ndim must be >= 0, got " << ndim;
  std::vector<tir::Var> vars = NumberedVars(ndim);
  return IndexMap(vars, std::vector<tir::PrimExpr>(vars.begin(), vars.end()));
}

IndexMap IndexMap::Permutation(const std::vector<int64_t>& axes) {
  int n = static_cast<int>(axes.size());
  std::vector<bool> seen(axes.size(), false);
  std::vector<tir::Var> vars = NumberedVars(n);
  std::vector<tir::PrimExpr> outs;
  for (int64_t a : axes) {
    if (a < 0 || a >= n || seen[static_cast<size_t>(a)]) {
      std::string list;
      for (int64_t x : axes) list += (list.empty() ? "" : ", ") + std::to_string(x);
      TS_THROW(kValue) << "IndexMap::Permutation: axes [" << list
                       << "] are not a permutation of 0.." << (n - 1);
    }
    seen[static_cast<size_t>(a)] = true;
    outs.push_back(vars[static_cast<size_t>(a)]);
  }
  return IndexMap(vars, outs);
}

std::vector<int64_t> IndexMap::MapIndices(const std::vector<int64_t>& indices) const {
  if (indices.size() != initial_.size())
    TS_THROW(kValue) << "index map `" << ToString() << "` takes " << initial_.size()
                     << " indices, got " << indices.size();
  std::vector<int64_t> out;
  for (const IterSum& s : detail::SumsOf(*this, nullptr))
    out.push_back(detail::Evaluate(s, indices));
  return out;
}

namespace {

/// `expr` with every variable of `from` replaced by the expression at its position in `to`.
tir::PrimExpr SubstituteVars(const tir::PrimExpr& expr, const std::vector<tir::Var>& from,
                             const std::vector<tir::PrimExpr>& to) {
  if (auto* v = expr.as<tir::VarNode>()) {
    for (size_t k = 0; k < from.size(); ++k)
      if (from[k].get() == v) return to[k];
    return expr;
  }
  std::vector<tir::PrimExpr> children = tir::PrimExprChildren(expr);
  for (tir::PrimExpr& c : children) c = SubstituteVars(c, from, to);
  return tir::WithChildren(expr, children);
}

}  // namespace

std::vector<tir::PrimExpr> IndexMap::MapIndices(const std::vector<tir::PrimExpr>& indices) const {
  if (indices.size() != initial_.size())
    TS_THROW(kValue) << "index map `" << ToString() << "` takes " << initial_.size()
                     << " indices, got " << indices.size();
  for (size_t k = 0; k < indices.size(); ++k)
    if (!indices[k].defined())
      TS_THROW(kValue) << "index map `" << ToString() << "`: index " << k << " is null";
  std::vector<tir::PrimExpr> out;
  for (const tir::PrimExpr& e : final_)
    out.push_back(tir::Simplify(SubstituteVars(e, initial_, indices)));
  return out;
}

std::vector<int64_t> IndexMap::MapShape(const std::vector<int64_t>& shape) const {
  detail::CheckShape(*this, shape, "MapShape");
  detail::PaddedForm padded = detail::Padded(*this, shape);
  std::vector<int64_t> out;
  for (size_t j = 0; j < padded.sums.size(); ++j)
    out.push_back(detail::OutputExtent(*this, shape, j, padded.sums[j], &padded.padded));
  return out;
}

IndexMap IndexMap::ComposeWith(const IndexMap& then) const {
  if (then.arity() != num_outputs())
    TS_THROW(kValue) << "cannot compose `" << ToString() << "` with `" << then.ToString()
                     << "`: the second takes " << then.arity() << " indices but the first gives "
                     << num_outputs();
  std::vector<IterSum> mine = detail::SumsOf(*this, nullptr);
  detail::VarEnv env;
  for (size_t k = 0; k < mine.size(); ++k) env.emplace_back(then.initial_[k].get(), mine[k]);
  std::vector<tir::PrimExpr> outs;
  for (size_t k = 0; k < then.final_.size(); ++k) {
    try {
      outs.push_back(detail::ToPrimExpr(detail::ToIterSum(then.final_[k], env, nullptr), initial_));
    } catch (const detail::NotAffine& err) {
      TS_THROW(kValue) << "composing `" << ToString() << "` with `" << then.ToString()
                       << "`: output " << k
                       << " is not an affine split/fuse of the input variables: " << err.what();
    }
  }
  return IndexMap(initial_, outs);
}

bool IndexMap::EqualOn(const IndexMap& other, const std::vector<int64_t>& shape) const {
  if (other.arity() != arity())
    TS_THROW(kValue) << "EqualOn: `" << ToString() << "` takes " << arity() << " indices but `"
                     << other.ToString() << "` takes " << other.arity();
  detail::CheckShape(*this, shape, "EqualOn");
  if (other.num_outputs() != num_outputs()) return false;
  std::vector<IterSum> a = detail::SumsOf(*this, nullptr), b = detail::SumsOf(other, nullptr);
  for (size_t j = 0; j < a.size(); ++j)
    if (!SameOn(a[j], b[j], shape)) return false;
  return true;
}

bool IndexMap::IsIdentity(const std::vector<int64_t>& shape) const {
  detail::CheckShape(*this, shape, "IsIdentity");
  if (num_outputs() != arity()) return false;
  std::vector<IterSum> a = detail::SumsOf(*this, nullptr);
  for (size_t j = 0; j < a.size(); ++j)
    if (!SameOn(a[j], detail::VarSum(static_cast<int>(j)), shape)) return false;
  return true;
}

bool IndexMap::IsPermutation(std::vector<int64_t>* axes) const {
  if (num_outputs() != arity()) return false;
  std::vector<int64_t> found;
  std::vector<bool> seen(initial_.size(), false);
  for (const IterSum& s : detail::SumsOf(*this, nullptr)) {
    if (s.base != 0 || s.terms.size() != 1) return false;
    const detail::Term& t = s.terms[0];
    if (t.scale != 1 || !(t.split == detail::Split{t.split.var, 0, 1, detail::kUnbounded}))
      return false;
    if (seen[static_cast<size_t>(t.split.var)]) return false;
    seen[static_cast<size_t>(t.split.var)] = true;
    found.push_back(t.split.var);
  }
  if (axes) *axes = found;
  return true;
}

bool operator==(const IndexMap& a, const IndexMap& b) {
  if (a.arity() != b.arity() || a.num_outputs() != b.num_outputs()) return false;
  return detail::SumsOf(a, nullptr) == detail::SumsOf(b, nullptr);
}

size_t IndexMap::Hash() const {
  size_t h = std::hash<int>()(arity()) * 31 + static_cast<size_t>(num_outputs());
  for (const IterSum& s : detail::SumsOf(*this, nullptr))
    h ^= detail::HashSum(s) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

std::unordered_set<const tir::VarNode*> VarsOf(const tir::PrimExpr& expr) {
  std::unordered_set<const tir::VarNode*> vars;
  tir::VisitPrimExpr(expr, [&](const tir::PrimExprNode* n) {
    if (n->type_index() == TypeIndex::kTirVar) vars.insert(static_cast<const tir::VarNode*>(n));
    return true;
  });
  return vars;
}

}  // namespace tessera::layout
