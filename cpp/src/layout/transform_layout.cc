// TransformLayout: one buffer of a PrimFunc rewritten through an index map, its accesses
// and regions remapped and its padding optionally filled.
#include "tessera/layout/transform_layout.h"

#include <algorithm>
#include <unordered_map>

#include "tessera/ir/tir_mutator.h"
#include "tessera/support/error.h"
#include "tir_util.h"

namespace tessera::layout {

namespace {

using tir::Buffer;
using tir::PrimExpr;
using tir::Range;
using tir::Stmt;

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

/// The region of the new buffer that covers the image of `region` under `map`: a point
/// where the image is one index, the bounded range of the image where its indices depend
/// only on the region's constant-extent ranges, else the whole new dimension.
std::vector<Range> MapRegion(const IndexMap& map, const std::vector<Range>& region,
                             const std::vector<int64_t>& new_shape) {
  std::vector<PrimExpr> points;
  detail::VarBounds bounds;
  bool whole = false;
  for (size_t d = 0; d < region.size(); ++d) {
    const auto* extent = region[d].extent.as<tir::IntImmNode>();
    if (extent && extent->value == 1) {
      points.push_back(region[d].min);
      continue;
    }
    if (!extent || extent->value < 1) {
      whole = true;
      points.push_back(region[d].min);
      continue;
    }
    tir::Var t = tir::MakeVar("t" + std::to_string(d));
    bounds[t.get()] = {0, extent->value - 1};
    points.push_back(region[d].min + PrimExpr(t));
  }
  std::vector<Range> out;
  if (whole) {
    for (int64_t e : new_shape) out.push_back({tir::IntImm(0), tir::IntImm(e)});
    return out;
  }
  std::vector<PrimExpr> image = map.MapIndices(points);
  for (size_t k = 0; k < image.size(); ++k) {
    bool ranged = false;
    tir::VisitPrimExpr(image[k], [&](const tir::PrimExprNode* n) {
      if (n->type_index() == TypeIndex::kTirVar &&
          bounds.count(static_cast<const tir::VarNode*>(n)))
        ranged = true;
      return !ranged;
    });
    if (!ranged) {
      out.push_back({image[k], tir::IntImm(1)});
      continue;
    }
    auto b = detail::BoundOf(image[k], bounds);
    int64_t lo = 0, hi = new_shape[k] - 1;
    if (b) {
      lo = std::max<int64_t>(lo, b->first);
      hi = std::min<int64_t>(hi, b->second);
    }
    out.push_back({tir::IntImm(lo), tir::IntImm(std::max<int64_t>(hi - lo + 1, 0))});
  }
  return out;
}

/// Rewrites every access to `old` into `fresh` through `map`.
class BufferRewriter : public tir::StmtExprMutator {
 public:
  BufferRewriter(const tir::BufferNode* old, Buffer fresh, IndexMap map, Stmt fill)
      : old_(old), fresh_(std::move(fresh)), map_(std::move(map)), fill_(std::move(fill)) {}

  /// Whether some store wrote the buffer.
  bool written() const { return written_; }

 protected:
  PrimExpr VisitLoad(const tir::BufferLoadNode* load) override {
    if (load->buffer.get() != old_) return StmtExprMutator::VisitLoad(load);
    bool changed = false;
    return tir::MakeLoad(fresh_, Map(VisitIndices(load->indices, &changed)));
  }

  Stmt VisitStore(const tir::BufferStoreNode* store) override {
    if (store->buffer.get() != old_) return StmtExprMutator::VisitStore(store);
    written_ = true;
    bool changed = false;
    std::vector<PrimExpr> indices = VisitIndices(store->indices, &changed);
    return tir::MakeStore(fresh_, VisitExpr(store->value), Map(indices));
  }

  Stmt VisitPrefetch(const tir::PrefetchNode* prefetch) override {
    if (prefetch->buffer.get() != old_) return StmtExprMutator::VisitPrefetch(prefetch);
    bool changed = false;
    return tir::MakePrefetch(fresh_, Map(VisitIndices(prefetch->indices, &changed)));
  }

  tir::BufferRegion VisitRegion(const tir::BufferRegion& region) override {
    tir::BufferRegion out = StmtExprMutator::VisitRegion(region);
    if (region.buffer.get() != old_) return out;
    if (out.region.empty() && !region.buffer->shape.empty()) {
      // An empty region stands for the whole buffer; it still does.
      out.buffer = fresh_;
      return out;
    }
    return {fresh_, MapRegion(map_, out.region, fresh_->shape)};
  }

  Stmt VisitAllocate(const tir::AllocateNode* alloc) override {
    Stmt body = VisitStmt(alloc->body);
    if (alloc->buffer.get() != old_)
      return body.same_as(alloc->body) ? Stmt(alloc)
                                       : tir::MakeAllocate(alloc->buffer, body, alloc->zero_fill);
    if (fill_.defined() && written_) body = tir::MakeSeq({fill_, body});
    // Zero-filled: a padded layout has elements the body never writes.
    return tir::MakeAllocate(fresh_, body);
  }

 private:
  /// The indices of an access through the map; an error names the buffer and the map.
  std::vector<PrimExpr> Map(const std::vector<PrimExpr>& indices) const {
    for (const PrimExpr& i : indices)
      if (i->dtype != DType::kInt32)
        TS_THROW(kType) << "TransformLayout: buffer '" << old_->name << "' is indexed by a "
                        << DTypeName(i->dtype) << " expression; index maps rewrite int32 indices";
    return map_.MapIndices(indices);
  }

  const tir::BufferNode* old_;
  Buffer fresh_;
  IndexMap map_;
  Stmt fill_;
  bool written_ = false;
};

/// `value` as a literal of `dtype`.
PrimExpr Literal(double value, DType dtype) {
  if (IsFloat(dtype)) return tir::FloatImm(value, dtype);
  if (dtype == DType::kBool) return tir::IntImm(value != 0.0, dtype);
  return tir::IntImm(static_cast<int64_t>(value), dtype);
}

/// A block writing `pad` at every padding position of `fresh` (where `predicate`, over
/// `vars`, holds), in a loop nest over its shape.
Stmt PaddingFill(const Buffer& fresh, const std::vector<tir::Var>& vars, const PrimExpr& predicate,
                 double pad) {
  std::vector<tir::IterVar> iters;
  std::vector<tir::Var> loops;
  tir::VarSubstitution subst;
  std::vector<PrimExpr> point;
  std::vector<Range> region;
  for (size_t k = 0; k < fresh->shape.size(); ++k) {
    tir::Var loop = tir::MakeVar("ax" + std::to_string(k));
    tir::Var v = tir::MakeVar("v_ax" + std::to_string(k));
    loops.push_back(loop);
    iters.push_back(
        {v, {tir::IntImm(0), tir::IntImm(fresh->shape[k])}, tir::IterKind::kSpatial, loop});
    subst[vars[k].get()] = v;
    point.push_back(v);
    region.push_back({v, tir::IntImm(1)});
  }
  PrimExpr cond = tir::Simplify(tir::SubstituteVars(predicate, subst));
  Stmt body = tir::MakeIfThenElse(cond, tir::MakeStore(fresh, Literal(pad, fresh->dtype), point));
  Stmt nest = tir::MakeBlock(fresh->name + "_pad", iters, {}, {{fresh, region}}, nullptr, body);
  for (size_t k = loops.size(); k-- > 0;)
    nest = tir::MakeFor(loops[k], tir::IntImm(0), tir::IntImm(fresh->shape[k]),
                        tir::ForKind::kSerial, nest);
  return nest;
}

tir::PrimFunc Transform(const tir::PrimFunc& func, const Buffer& buffer, const IndexMap& map,
                        std::optional<double> pad_value) {
  if (map.arity() != static_cast<int>(buffer->shape.size()))
    TS_THROW(kType) << "TransformLayout: index map `" << map.ToString() << "` takes " << map.arity()
                    << " indices but buffer '" << buffer->name << "' has rank "
                    << buffer->shape.size() << " (shape " << ShapeText(buffer->shape) << ")";
  // MapShape's own errors (an output that can be negative) name the map and shape.
  std::vector<int64_t> new_shape;
  try {
    new_shape = map.MapShape(buffer->shape);
  } catch (const Error& e) {
    throw Error(e.kind(), "TransformLayout: buffer '" + buffer->name + "': " + e.what());
  }
  if (!map.IsInjective(buffer->shape))
    TS_THROW(kValue) << "TransformLayout: index map `" << map.ToString()
                     << "` is not injective on buffer '" << buffer->name << "' of shape "
                     << ShapeText(buffer->shape) << " (two elements would share a position)";
  Buffer fresh = tir::MakeBuffer(buffer->name, new_shape, buffer->dtype);
  Stmt fill;
  if (pad_value && !map.IsBijective(buffer->shape)) {
    IndexMap::InverseResult inv = map.NonSurjectiveInverse(buffer->shape);
    fill = PaddingFill(fresh, inv.inverse.initial_indices(), inv.padding_predicate, *pad_value);
  }
  BufferRewriter rewriter(buffer.get(), fresh, map, fill);
  Stmt body = rewriter.VisitStmt(func->body);
  std::vector<Buffer> params = func->params;
  bool is_param = false;
  for (Buffer& p : params) {
    if (p.get() != buffer.get()) continue;
    p = fresh;
    is_param = true;
  }
  if (is_param && fill.defined() && rewriter.written()) body = tir::MakeSeq({fill, body});
  Attrs attrs = func->attrs;
  attrs.Erase(attr::kConcatAxis);  // the body no longer just concatenates its params
  return tir::MakePrimFunc(params, func->num_outputs, body, attrs);
}

}  // namespace

tir::PrimFunc TransformLayout(const tir::PrimFunc& func, int param_index, const IndexMap& map,
                              std::optional<double> pad_value) {
  if (!func.defined()) TS_THROW(kValue) << "TransformLayout: the PrimFunc is null";
  if (param_index < 0 || static_cast<size_t>(param_index) >= func->params.size())
    TS_THROW(kValue) << "TransformLayout: parameter index " << param_index
                     << " is out of range (the PrimFunc has " << func->params.size()
                     << " parameters)";
  return Transform(func, func->params[static_cast<size_t>(param_index)], map, pad_value);
}

tir::PrimFunc TransformLayout(const tir::PrimFunc& func, const std::string& buffer,
                              const IndexMap& map, std::optional<double> pad_value) {
  if (!func.defined()) TS_THROW(kValue) << "TransformLayout: the PrimFunc is null";
  return Transform(func, detail::FindBuffer(func, buffer, "TransformLayout"), map, pad_value);
}

}  // namespace tessera::layout
