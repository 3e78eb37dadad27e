// Structural hashing consistent with StructuralEqual: bound variables and buffers hash by
// binding order, free ones by first occurrence, shared graph nodes by first visit.
#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "tessera/ir/structural_equal.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/hash.h"

namespace tessera {

namespace {

constexpr size_t kBoundTag = 0xb0b0;
constexpr size_t kFreeTag = 0xf4ee;
constexpr size_t kSharedTag = 0x5a4e;
constexpr size_t kNullTag = 0x9e11;

size_t Tag(TypeIndex index) {
  return 0x7e57 + static_cast<size_t>(index);
}

size_t HashString(const std::string& s) {
  return std::hash<std::string>()(s);
}

size_t HashShape(size_t h, const std::vector<int64_t>& shape) {
  h = HashCombine(h, shape.size());
  for (int64_t d : shape) h = HashCombine(h, std::hash<int64_t>()(d));
  return h;
}

bool IsValueLeaf(const Expr& e) {
  TypeIndex k = e->type_index();
  return k == TypeIndex::kConstant || k == TypeIndex::kOp || k == TypeIndex::kGlobalVar ||
         k == TypeIndex::kPrimFunc;
}

/// One hashing traversal; binding indices and memos live as long as it does.
class Hasher {
 public:
  size_t HashExpr(const Expr& root);
  size_t HashPrim(const tir::PrimExpr& e);
  size_t HashStmt(const tir::Stmt& s);
  size_t HashPrimFunc(const tir::PrimFuncNode* f);

 private:
  struct Frame {
    Expr node;
    std::vector<Expr> children;
    size_t next;
    size_t hash;
  };

  /// Gives a binder the next binding index (a rebinding gets a new one, as equality
  /// treats it as shadowing).
  void Bind(const Object* binder) { index_[binder] = HashCombine(kBoundTag, next_bound_++); }
  /// The index of a bound variable or buffer, or a free one numbered on first use.
  size_t Use(const Object* obj) {
    auto [it, fresh] = index_.emplace(obj, 0);
    if (fresh) it->second = HashCombine(kFreeTag, next_free_++);
    return it->second;
  }
  size_t VarHash(const VarNode* v) { return HashCombine(Use(v), TypeHash(v->type_annotation)); }
  size_t BufferHash(const tir::Buffer& b) {
    return HashShape(HashCombine(Use(b.get()), static_cast<size_t>(b->dtype)), b->shape);
  }
  size_t LeafHash(const Expr& e);
  size_t Enter(const Expr& e);
  size_t RangeHash(const tir::Range& r) { return HashCombine(HashPrim(r.min), HashPrim(r.extent)); }
  size_t RegionsHash(size_t h, const std::vector<tir::BufferRegion>& regions);

  std::unordered_map<const Object*, size_t> index_;
  size_t next_bound_ = 0, next_free_ = 0;
  std::unordered_map<const ExprNode*, size_t> memo_;
  std::unordered_map<const ExprNode*, size_t> order_;  // post-order position of interior nodes
};

size_t Hasher::LeafHash(const Expr& e) {
  if (auto* v = e.as<VarNode>()) return VarHash(v);
  // Value leaves do not depend on the traversal, so their hashes can be cached freely.
  if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
  size_t h = Tag(e->type_index());
  if (auto* c = e.as<ConstantNode>()) {
    const NDArray& d = c->data;
    h = HashShape(HashCombine(h, static_cast<size_t>(d.dtype())), d.shape());
    std::string_view bytes(static_cast<const char*>(d.data()), d.NumBytes());
    h = HashCombine(h, std::hash<std::string_view>()(bytes));
  } else if (auto* o = e.as<OpNode>()) {
    h = HashCombine(h, HashString(o->name));
  } else if (auto* g = e.as<GlobalVarNode>()) {
    h = HashCombine(h, HashString(g->name));
  } else {
    // A PrimFunc binds its own buffers and variables: hash it in a fresh context.
    h = HashCombine(h, Hasher().HashPrimFunc(e.as<tir::PrimFuncNode>()));
  }
  memo_[e.get()] = h;
  return h;
}

size_t Hasher::Enter(const Expr& e) {
  size_t h = Tag(e->type_index());
  if (auto* c = e.as<CallNode>()) {
    h = HashCombine(h, c->args.size());
    h = HashCombine(h, c->attrs.Hash());
    h = HashCombine(h, c->type_args.size());
    for (const Type& t : c->type_args) h = HashCombine(h, TypeHash(t));
  } else if (auto* t = e.as<TupleNode>()) {
    h = HashCombine(h, t->fields.size());
  } else if (auto* g = e.as<TupleGetItemNode>()) {
    h = HashCombine(h, static_cast<size_t>(g->index));
  } else if (auto* f = e.as<FunctionNode>()) {
    for (const Var& p : f->params) Bind(p.get());
    h = HashCombine(h, f->params.size());
    h = HashCombine(h, TypeHash(f->ret_type));
    h = HashCombine(h, f->attrs.Hash());
  }
  return h;
}

size_t Hasher::HashExpr(const Expr& root) {
  if (!root) return kNullTag;
  if (root.as<VarNode>() || IsValueLeaf(root)) return LeafHash(root);
  if (auto it = memo_.find(root.get()); it != memo_.end()) return it->second;
  std::vector<Frame> stack;
  size_t h = Enter(root);
  stack.push_back({root, ExprChildren(root), 0, h});
  while (true) {
    Frame& top = stack.back();
    if (top.next < top.children.size()) {
      Expr child = top.children[top.next++];
      if (auto* let = top.node.as<LetNode>(); let && top.next != 2) {
        // The let variable's scope is the body: bind it between value and body, and
        // hash the binder itself by its annotation only.
        if (top.next == 1) {
          top.hash = HashCombine(top.hash, TypeHash(let->var->type_annotation));
          continue;
        }
        Bind(let->var.get());
      }
      if (child.as<VarNode>() || IsValueLeaf(child)) {
        top.hash = HashCombine(top.hash, LeafHash(child));
      } else if (auto it = memo_.find(child.get()); it != memo_.end()) {
        // A second use of a shared node: equality requires the same sharing, so say so.
        top.hash = HashCombine(top.hash, HashCombine(it->second, kSharedTag + order_[child.get()]));
      } else {
        size_t ch = Enter(child);
        std::vector<Expr> grandchildren = ExprChildren(child);
        stack.push_back({std::move(child), std::move(grandchildren), 0, ch});
      }
      continue;
    }
    size_t done = top.hash;
    memo_[top.node.get()] = done;
    order_[top.node.get()] = order_.size();
    stack.pop_back();
    if (stack.empty()) return done;
    stack.back().hash = HashCombine(stack.back().hash, done);
  }
}

size_t Hasher::HashPrim(const tir::PrimExpr& e) {
  using namespace tir;
  if (!e) return kNullTag;
  size_t h = HashCombine(Tag(e->type_index()), static_cast<size_t>(e->dtype));
  if (auto* x = e.as<IntImmNode>()) return HashCombine(h, std::hash<int64_t>()(x->value));
  if (auto* x = e.as<FloatImmNode>()) {
    uint64_t bits;
    std::memcpy(&bits, &x->value, sizeof(bits));
    return HashCombine(h, std::hash<uint64_t>()(bits));
  }
  if (auto* x = e.as<tir::VarNode>()) return HashCombine(h, Use(x));
  // What a node holds besides its operands, then the operands in order (a load's and an
  // intrinsic's preceded by their count).
  bool counted = true;
  if (auto* x = e.as<BinaryNode>()) {
    h = HashCombine(h, static_cast<size_t>(x->op));
    counted = false;
  } else if (auto* x = e.as<BufferLoadNode>()) {
    h = HashCombine(h, BufferHash(x->buffer));
  } else if (auto* x = e.as<IntrinsicNode>()) {
    h = HashCombine(h, HashString(x->name));
  } else {
    counted = false;  // not, select, cast: a fixed number of operands
  }
  std::vector<PrimExpr> operands = PrimExprChildren(e);
  if (counted) h = HashCombine(h, operands.size());
  for (const PrimExpr& x : operands) h = HashCombine(h, HashPrim(x));
  return h;
}

size_t Hasher::RegionsHash(size_t h, const std::vector<tir::BufferRegion>& regions) {
  h = HashCombine(h, regions.size());
  for (const auto& r : regions) {
    h = HashCombine(HashCombine(h, BufferHash(r.buffer)), r.region.size());
    for (const auto& range : r.region) h = HashCombine(h, RangeHash(range));
  }
  return h;
}

size_t Hasher::HashStmt(const tir::Stmt& s) {
  using namespace tir;
  if (!s) return kNullTag;
  size_t h = Tag(s->type_index());
  if (auto* x = s.as<ForNode>()) {
    h = HashCombine(h, static_cast<size_t>(x->kind));
    h = HashCombine(HashCombine(h, HashPrim(x->min)), HashPrim(x->extent));
    Bind(x->loop_var.get());
    h = HashCombine(h, static_cast<size_t>(x->loop_var->dtype));
    return HashCombine(h, HashStmt(x->body));
  }
  if (auto* x = s.as<BlockNode>()) {
    h = HashCombine(HashCombine(h, HashString(x->name)), x->iter_vars.size());
    for (const IterVar& iv : x->iter_vars) {
      h = HashCombine(h, static_cast<size_t>(iv.kind));
      h = HashCombine(HashCombine(h, RangeHash(iv.dom)), HashPrim(iv.binding));
    }
    for (const IterVar& iv : x->iter_vars) {
      Bind(iv.var.get());
      h = HashCombine(h, static_cast<size_t>(iv.var->dtype));
    }
    h = RegionsHash(RegionsHash(h, x->reads), x->writes);
    h = HashCombine(h, HashStmt(x->init));
    return HashCombine(h, HashStmt(x->body));
  }
  if (auto* x = s.as<BufferStoreNode>()) {
    h = HashCombine(HashCombine(h, BufferHash(x->buffer)), x->indices.size());
    for (const PrimExpr& i : x->indices) h = HashCombine(h, HashPrim(i));
    return HashCombine(h, HashPrim(x->value));
  }
  if (auto* x = s.as<PrefetchNode>()) {
    h = HashCombine(HashCombine(h, BufferHash(x->buffer)), x->indices.size());
    for (const PrimExpr& i : x->indices) h = HashCombine(h, HashPrim(i));
    return h;
  }
  if (auto* x = s.as<AllocateNode>()) {
    Bind(x->buffer.get());
    h = HashCombine(HashCombine(h, BufferHash(x->buffer)), static_cast<size_t>(x->zero_fill));
    return HashCombine(h, HashStmt(x->body));
  }
  if (auto* x = s.as<SeqStmtNode>()) {
    h = HashCombine(h, x->seq.size());
    for (const Stmt& st : x->seq) h = HashCombine(h, HashStmt(st));
    return h;
  }
  auto* x = s.as<IfThenElseNode>();
  h = HashCombine(h, HashPrim(x->cond));
  return HashCombine(HashCombine(h, HashStmt(x->then_case)), HashStmt(x->else_case));
}

size_t Hasher::HashPrimFunc(const tir::PrimFuncNode* f) {
  size_t h = HashCombine(HashCombine(Tag(TypeIndex::kPrimFunc), f->params.size()),
                         static_cast<size_t>(f->num_outputs));
  for (const tir::Buffer& b : f->params) {
    Bind(b.get());
    h = HashCombine(h, BufferHash(b));
  }
  h = HashCombine(h, f->attrs.Hash());
  return HashCombine(h, HashStmt(f->body));
}

}  // namespace

size_t StructuralHash(const Expr& expr) {
  return Hasher().HashExpr(expr);
}

size_t StructuralHash(const IRModule& mod) {
  // Equality ignores function order: combine the functions in name order.
  std::vector<std::pair<std::string, const BaseFunc*>> sorted;
  for (const auto& [name, f] : mod.functions()) sorted.emplace_back(name, &f);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t h = HashCombine(Tag(TypeIndex::kIRModule), sorted.size());
  for (const auto& [name, f] : sorted)
    h = HashCombine(HashCombine(h, HashString(name)), Hasher().HashExpr(*f));
  return HashCombine(h, mod.attrs().Hash());
}

size_t StructuralHash(const tir::PrimExpr& expr) {
  return Hasher().HashPrim(expr);
}

size_t StructuralHash(const tir::Stmt& stmt) {
  return Hasher().HashStmt(stmt);
}

}  // namespace tessera
