// VerifyModule: the well-formedness check the verifier instrument runs after each pass.
#include <set>
#include <unordered_set>

#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/pass.h"

namespace tessera {

namespace {

/// Checks a PrimFunc's statements: buffers and scalar variables in scope, index ranks.
class PrimFuncVerifier {
 public:
  explicit PrimFuncVerifier(std::string func) : func_(std::move(func)) {}

  void Verify(const tir::PrimFuncNode* f) {
    for (const auto& b : f->params) buffers_.insert(b.get());
    VerifyStmt(f->body);
  }

 private:
  void VerifyExpr(const tir::PrimExpr& e) {
    if (!e) Fail("null expression");
    if (auto* v = e.as<tir::VarNode>()) {
      if (!vars_.count(v)) Fail("variable %" + v->name + " is used outside its loop or block");
    } else if (auto* l = e.as<tir::BufferLoadNode>()) {
      CheckBuffer(l->buffer, l->indices.size());
    }
    for (const tir::PrimExpr& c : tir::PrimExprChildren(e)) VerifyExpr(c);
  }

  void CheckBuffer(const tir::Buffer& b, size_t rank) {
    if (!buffers_.count(b.get()))
      Fail("buffer '" + b->name + "' is not a parameter or allocated in scope");
    if (rank != b->shape.size())
      Fail("buffer '" + b->name + "' of rank " + std::to_string(b->shape.size()) +
           " accessed with " + std::to_string(rank) + " indices");
  }

  void VerifyRegions(const std::vector<tir::BufferRegion>& regions) {
    for (const auto& r : regions) {
      CheckBuffer(r.buffer, r.region.size());
      for (const auto& range : r.region) {
        VerifyExpr(range.min);
        VerifyExpr(range.extent);
      }
    }
  }

  void VerifyStmt(const tir::Stmt& s) {
    if (!s) Fail("null statement");
    if (auto* f = s.as<tir::ForNode>()) {
      VerifyExpr(f->min);
      VerifyExpr(f->extent);
      if (!vars_.insert(f->loop_var.get()).second)
        Fail("loop variable %" + f->loop_var->name + " is bound twice");
      VerifyStmt(f->body);
      vars_.erase(f->loop_var.get());
    } else if (auto* b = s.as<tir::BlockNode>()) {
      for (const auto& iv : b->iter_vars) VerifyExpr(iv.binding);
      for (const auto& iv : b->iter_vars)
        if (!vars_.insert(iv.var.get()).second)
          Fail("block variable %" + iv.var->name + " is bound twice");
      VerifyRegions(b->reads);
      VerifyRegions(b->writes);
      if (b->init) VerifyStmt(b->init);
      VerifyStmt(b->body);
      for (const auto& iv : b->iter_vars) vars_.erase(iv.var.get());
    } else if (auto* st = s.as<tir::BufferStoreNode>()) {
      CheckBuffer(st->buffer, st->indices.size());
      for (const auto& i : st->indices) VerifyExpr(i);
      VerifyExpr(st->value);
    } else if (auto* pf = s.as<tir::PrefetchNode>()) {
      CheckBuffer(pf->buffer, pf->indices.size());
      for (const auto& i : pf->indices) VerifyExpr(i);
    } else if (auto* a = s.as<tir::AllocateNode>()) {
      buffers_.insert(a->buffer.get());
      VerifyStmt(a->body);
      buffers_.erase(a->buffer.get());
    } else if (auto* q = s.as<tir::SeqStmtNode>()) {
      for (const auto& x : q->seq) VerifyStmt(x);
    } else if (auto* i = s.as<tir::IfThenElseNode>()) {
      VerifyExpr(i->cond);
      VerifyStmt(i->then_case);
      if (i->else_case) VerifyStmt(i->else_case);
    }
  }

  [[noreturn]] void Fail(const std::string& what) {
    TS_THROW(kValue) << "in @" << func_ << ": " << what;
  }

  std::string func_;
  std::unordered_set<const tir::BufferNode*> buffers_;
  std::unordered_set<const tir::VarNode*> vars_;
};

}  // namespace

void VerifyModule(const IRModule& mod) {
  for (const auto& [name, base] : mod.functions()) {
    if (const auto* f = base.as<FunctionNode>()) {
      std::vector<Var> free = FreeVars(Function(f));
      if (!free.empty())
        TS_THROW(kValue) << "in @" << name << ": variable %" << free[0]->name_hint
                         << " is used but never bound";
    } else if (const auto* pf = base.as<tir::PrimFuncNode>()) {
      PrimFuncVerifier(name).Verify(pf);
    }
  }
  InferTypes(mod);  // type mismatches throw with the function and op named
}

}  // namespace tessera
