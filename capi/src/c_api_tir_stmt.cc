// The C API of tensor-level IR statements: loops, stores, sequences, allocations, branches
// and blocks (builders, field getters, printing).
#include <string>

#include "c_api_tir_internal.h"
#include "tessera/c_api.h"
#include "tessera/ir/printer.h"

using namespace tessera::capi;
using namespace tessera::capi::tirc;

namespace {

constexpr const char* kExpr = "a scalar expression";
constexpr const char* kStmt = "a statement";

static_assert(static_cast<int>(tessera::TypeIndex::kIfThenElse) -
                          static_cast<int>(tessera::TypeIndex::kFor) ==
                      TS_STMT_IF_THEN_ELSE &&
                  static_cast<int>(tessera::TypeIndex::kSeqStmt) -
                          static_cast<int>(tessera::TypeIndex::kFor) ==
                      TS_STMT_SEQ &&
                  static_cast<int>(tessera::TypeIndex::kPrefetch) -
                          static_cast<int>(tessera::TypeIndex::kFor) ==
                      TS_STMT_PREFETCH,
              "TsStmtKind mirrors the order of the statement type indices");

PrimExpr Expr(TsPrimExpr handle, const char* where, const char* arg) {
  return Node<PrimExprNode>(handle, where, arg, kExpr);
}

Stmt Statement(TsStmt handle, const char* where, const char* arg) {
  return Node<StmtNode>(handle, where, arg, kStmt);
}

/// The C++ regions of C ones; NULL regions (with a count), buffers or ranges are value
/// errors naming the entry.
std::vector<BufferRegion> Regions(const TsBufferRegion* regions, size_t count, const char* where,
                                  const char* arg) {
  if (count && !regions)
    TS_THROW(kValue) << where << ": " << arg << "s are NULL with a count of " << count;
  std::vector<BufferRegion> out;
  for (size_t i = 0; i < count; ++i) {
    std::string entry = std::string(arg) + " " + std::to_string(i);
    if (regions[i].num_ranges && !regions[i].ranges)
      TS_THROW(kValue) << where << ": " << entry << " has NULL ranges";
    BufferRegion region{Node<BufferNode>(regions[i].buffer, where, entry.c_str(), "a buffer"), {}};
    for (size_t d = 0; d < regions[i].num_ranges; ++d)
      region.region.push_back(Range{Expr(regions[i].ranges[d].min, where, entry.c_str()),
                                    Expr(regions[i].ranges[d].extent, where, entry.c_str())});
    out.push_back(std::move(region));
  }
  return out;
}

/// Region `index` of `regions` for the C getters.
const BufferRegion& RegionAt(const std::vector<BufferRegion>& regions, size_t index,
                             const char* where, const char* what) {
  CheckIndex(index, regions.size(), (std::string(where) + ": " + what).c_str());
  return regions[index];
}

TsRange RangeToC(const Range& range) {
  return TsRange{Give<TsPrimExpr>(range.min), Give<TsPrimExpr>(range.extent)};
}

}  // namespace

extern "C" {

// ---- Builders ------------------------------------------------------------------------------

TsStatus TsStmtForCreate(TsPrimExpr loop_var, TsPrimExpr min, TsPrimExpr extent, TsForKind kind,
                         TsStmt body, TsStmt* out) {
  TS_REQUIRE(loop_var);
  TS_REQUIRE(min);
  TS_REQUIRE(extent);
  TS_REQUIRE(body);
  TS_REQUIRE(out);
  return Guard([&] {
    const char* where = "TsStmtForCreate";
    if (static_cast<int>(kind) < 0 || static_cast<int>(kind) > static_cast<int>(TS_FOR_UNROLLED))
      TS_THROW(kValue) << where << ": " << static_cast<int>(kind) << " is not a TsForKind";
    *out = Give<TsStmt>(MakeFor(Node<VarNode>(loop_var, where, "loop_var", "a variable"),
                                Expr(min, where, "min"), Expr(extent, where, "extent"),
                                static_cast<ForKind>(kind), Statement(body, where, "body")));
  });
}

TsStatus TsStmtBufferStoreCreate(TsBuffer buffer, TsPrimExpr value, const TsPrimExpr* indices,
                                 size_t num_indices, TsStmt* out) {
  const char* where = "TsStmtBufferStoreCreate";
  TS_REQUIRE(buffer);
  TS_REQUIRE(value);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsStmt>(MakeStore(
        Node<BufferNode>(buffer, where, "buffer", "a buffer"), Expr(value, where, "value"),
        NodesOf<PrimExprNode>(indices, num_indices, "TsStmtBufferStoreCreate: index", kExpr)));
  });
}

TsStatus TsStmtPrefetchCreate(TsBuffer buffer, const TsPrimExpr* indices, size_t num_indices,
                              TsStmt* out) {
  const char* where = "TsStmtPrefetchCreate";
  TS_REQUIRE(buffer);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsStmt>(MakePrefetch(
        Node<BufferNode>(buffer, where, "buffer", "a buffer"),
        NodesOf<PrimExprNode>(indices, num_indices, "TsStmtPrefetchCreate: index", kExpr)));
  });
}

TsStatus TsStmtSeqCreate(const TsStmt* stmts, size_t num_stmts, TsStmt* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsStmt>(
        MakeSeq(NodesOf<StmtNode>(stmts, num_stmts, "TsStmtSeqCreate: statement", kStmt)));
  });
}

namespace {

/// The allocation; the caller checked the handles for NULL.
TsStatus AllocateCreate(TsBuffer buffer, TsStmt body, bool zero_fill, TsStmt* out,
                        const char* where) {
  return Guard([&] {
    *out = Give<TsStmt>(MakeAllocate(Node<BufferNode>(buffer, where, "buffer", "a buffer"),
                                     Statement(body, where, "body"), zero_fill));
  });
}

}  // namespace

TsStatus TsStmtAllocateCreate(TsBuffer buffer, TsStmt body, TsStmt* out) {
  TS_REQUIRE(buffer);
  TS_REQUIRE(body);
  TS_REQUIRE(out);
  return AllocateCreate(buffer, body, true, out, "TsStmtAllocateCreate");
}

TsStatus TsStmtAllocateCreateWithFill(TsBuffer buffer, TsStmt body, int zero_fill, TsStmt* out) {
  TS_REQUIRE(buffer);
  TS_REQUIRE(body);
  TS_REQUIRE(out);
  return AllocateCreate(buffer, body, zero_fill != 0, out, "TsStmtAllocateCreateWithFill");
}

TsStatus TsStmtIfThenElseCreate(TsPrimExpr cond, TsStmt then_case, TsStmt else_case, TsStmt* out) {
  TS_REQUIRE(cond);
  TS_REQUIRE(then_case);
  TS_REQUIRE(out);
  return Guard([&] {
    const char* where = "TsStmtIfThenElseCreate";
    *out = Give<TsStmt>(
        MakeIfThenElse(Expr(cond, where, "cond"), Statement(then_case, where, "then_case"),
                       else_case ? Statement(else_case, where, "else_case") : Stmt()));
  });
}

TsStatus TsStmtBlockCreate(TsStringRef name, const TsIterVar* iter_vars, size_t num_iter_vars,
                           const TsBufferRegion* reads, size_t num_reads,
                           const TsBufferRegion* writes, size_t num_writes, TsStmt init,
                           TsStmt body, TsStmt* out) {
  const char* where = "TsStmtBlockCreate";
  TS_REQUIRE(body);
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_iter_vars && !iter_vars)
      TS_THROW(kValue) << where << ": iteration variables are NULL with a count of "
                       << num_iter_vars;
    std::vector<IterVar> ivs;
    for (size_t i = 0; i < num_iter_vars; ++i) {
      const TsIterVar& iv = iter_vars[i];
      std::string entry = "iteration variable " + std::to_string(i);
      if (iv.kind != TS_ITER_SPATIAL && iv.kind != TS_ITER_REDUCE)
        TS_THROW(kValue) << where << ": " << entry << " has kind " << static_cast<int>(iv.kind)
                         << ", not a TsIterKind";
      ivs.push_back(IterVar{
          Node<VarNode>(iv.var, where, entry.c_str(), "a variable"),
          Range{Expr(iv.dom.min, where, entry.c_str()), Expr(iv.dom.extent, where, entry.c_str())},
          iv.kind == TS_ITER_REDUCE ? IterKind::kReduce : IterKind::kSpatial,
          Expr(iv.binding, where, entry.c_str())});
    }
    *out = Give<TsStmt>(MakeBlock(
        StringOf(name, "TsStmtBlockCreate: name"), std::move(ivs),
        Regions(reads, num_reads, where, "read"), Regions(writes, num_writes, where, "write"),
        init ? Statement(init, where, "init") : Stmt(), Statement(body, where, "body")));
  });
}

// ---- Inspection ----------------------------------------------------------------------------

TsStatus TsStmtGetKind(TsStmt stmt, TsStmtKind* out) {
  return Field<StmtNode>(stmt, out, __func__, "stmt", kStmt, [](const StmtNode& s, TsStmtKind& o) {
    o = static_cast<TsStmtKind>(static_cast<int>(s.type_index()) -
                                static_cast<int>(tessera::TypeIndex::kFor));
  });
}

TsStatus TsStmtPrint(TsStmt stmt, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(stmt);
  TS_REQUIRE(callback);
  return Guard([&] {
    Emit(tessera::PrintStmt(Statement(stmt, "TsStmtPrint", "stmt")), callback, user_data);
  });
}

TsStmt TsStmtRetain(TsStmt stmt) {
  return Retain(stmt);
}

void TsStmtDestroy(TsStmt stmt) {
  Drop(stmt);
}

TsStatus TsStmtForGetLoopVar(TsStmt stmt, TsPrimExpr* out) {
  return Field<ForNode>(stmt, out, __func__, "stmt", "a loop",
                        [](const ForNode& s, TsPrimExpr& o) { o = Give<TsPrimExpr>(s.loop_var); });
}

TsStatus TsStmtForGetMin(TsStmt stmt, TsPrimExpr* out) {
  return Field<ForNode>(stmt, out, __func__, "stmt", "a loop",
                        [](const ForNode& s, TsPrimExpr& o) { o = Give<TsPrimExpr>(s.min); });
}

TsStatus TsStmtForGetExtent(TsStmt stmt, TsPrimExpr* out) {
  return Field<ForNode>(stmt, out, __func__, "stmt", "a loop",
                        [](const ForNode& s, TsPrimExpr& o) { o = Give<TsPrimExpr>(s.extent); });
}

TsStatus TsStmtForGetKind(TsStmt stmt, TsForKind* out) {
  return Field<ForNode>(stmt, out, __func__, "stmt", "a loop",
                        [](const ForNode& s, TsForKind& o) { o = static_cast<TsForKind>(s.kind); });
}

TsStatus TsStmtForGetBody(TsStmt stmt, TsStmt* out) {
  return Field<ForNode>(stmt, out, __func__, "stmt", "a loop",
                        [](const ForNode& s, TsStmt& o) { o = Give<TsStmt>(s.body); });
}

TsStatus TsStmtBufferStoreGetBuffer(TsStmt stmt, TsBuffer* out) {
  return Field<BufferStoreNode>(
      stmt, out, __func__, "stmt", "a buffer store",
      [](const BufferStoreNode& s, TsBuffer& o) { o = Give<TsBuffer>(s.buffer); });
}

TsStatus TsStmtBufferStoreGetValue(TsStmt stmt, TsPrimExpr* out) {
  return Field<BufferStoreNode>(
      stmt, out, __func__, "stmt", "a buffer store",
      [](const BufferStoreNode& s, TsPrimExpr& o) { o = Give<TsPrimExpr>(s.value); });
}

TsStatus TsStmtBufferStoreGetNumIndices(TsStmt stmt, size_t* out) {
  return AccessNumIndices<BufferStoreNode>(stmt, out, __func__, "stmt", "a buffer store");
}

TsStatus TsStmtBufferStoreGetIndex(TsStmt stmt, size_t index, TsPrimExpr* out) {
  return AccessIndex<BufferStoreNode>(stmt, index, out, __func__, "stmt", "a buffer store");
}

TsStatus TsStmtPrefetchGetBuffer(TsStmt stmt, TsBuffer* out) {
  return Field<PrefetchNode>(
      stmt, out, __func__, "stmt", "a prefetch",
      [](const PrefetchNode& s, TsBuffer& o) { o = Give<TsBuffer>(s.buffer); });
}

TsStatus TsStmtPrefetchGetNumIndices(TsStmt stmt, size_t* out) {
  return AccessNumIndices<PrefetchNode>(stmt, out, __func__, "stmt", "a prefetch");
}

TsStatus TsStmtPrefetchGetIndex(TsStmt stmt, size_t index, TsPrimExpr* out) {
  return AccessIndex<PrefetchNode>(stmt, index, out, __func__, "stmt", "a prefetch");
}

TsStatus TsStmtSeqGetNumStmts(TsStmt stmt, size_t* out) {
  return Field<SeqStmtNode>(stmt, out, __func__, "stmt", "a sequence",
                            [](const SeqStmtNode& s, size_t& o) { o = s.seq.size(); });
}

TsStatus TsStmtSeqGetStmt(TsStmt stmt, size_t index, TsStmt* out) {
  return Field<SeqStmtNode>(stmt, out, __func__, "stmt", "a sequence",
                            [&](const SeqStmtNode& s, TsStmt& o) {
                              CheckIndex(index, s.seq.size(), "TsStmtSeqGetStmt: statement");
                              o = Give<TsStmt>(s.seq[index]);
                            });
}

TsStatus TsStmtAllocateGetBuffer(TsStmt stmt, TsBuffer* out) {
  return Field<AllocateNode>(
      stmt, out, __func__, "stmt", "an allocate",
      [](const AllocateNode& s, TsBuffer& o) { o = Give<TsBuffer>(s.buffer); });
}

TsStatus TsStmtAllocateGetBody(TsStmt stmt, TsStmt* out) {
  return Field<AllocateNode>(stmt, out, __func__, "stmt", "an allocate",
                             [](const AllocateNode& s, TsStmt& o) { o = Give<TsStmt>(s.body); });
}

TsStatus TsStmtAllocateGetZeroFill(TsStmt stmt, int* out) {
  return Field<AllocateNode>(stmt, out, __func__, "stmt", "an allocate",
                             [](const AllocateNode& s, int& o) { o = s.zero_fill ? 1 : 0; });
}

TsStatus TsStmtIfThenElseGetCondition(TsStmt stmt, TsPrimExpr* out) {
  return Field<IfThenElseNode>(
      stmt, out, __func__, "stmt", "an if-then-else",
      [](const IfThenElseNode& s, TsPrimExpr& o) { o = Give<TsPrimExpr>(s.cond); });
}

TsStatus TsStmtIfThenElseGetThen(TsStmt stmt, TsStmt* out) {
  return Field<IfThenElseNode>(
      stmt, out, __func__, "stmt", "an if-then-else",
      [](const IfThenElseNode& s, TsStmt& o) { o = Give<TsStmt>(s.then_case); });
}

TsStatus TsStmtIfThenElseGetElse(TsStmt stmt, TsStmt* out) {
  return Field<IfThenElseNode>(
      stmt, out, __func__, "stmt", "an if-then-else",
      [](const IfThenElseNode& s, TsStmt& o) { o = Give<TsStmt>(s.else_case); });
}

TsStatus TsStmtBlockGetName(TsStmt stmt, TsStringRef* out) {
  return Field<BlockNode>(stmt, out, __func__, "stmt", "a block",
                          [](const BlockNode& s, TsStringRef& o) { o = RefOf(s.name); });
}

TsStatus TsStmtBlockGetInit(TsStmt stmt, TsStmt* out) {
  return Field<BlockNode>(stmt, out, __func__, "stmt", "a block",
                          [](const BlockNode& s, TsStmt& o) { o = Give<TsStmt>(s.init); });
}

TsStatus TsStmtBlockGetBody(TsStmt stmt, TsStmt* out) {
  return Field<BlockNode>(stmt, out, __func__, "stmt", "a block",
                          [](const BlockNode& s, TsStmt& o) { o = Give<TsStmt>(s.body); });
}

TsStatus TsStmtBlockGetNumIterVars(TsStmt stmt, size_t* out) {
  return Field<BlockNode>(stmt, out, __func__, "stmt", "a block",
                          [](const BlockNode& s, size_t& o) { o = s.iter_vars.size(); });
}

TsStatus TsStmtBlockGetIterVar(TsStmt stmt, size_t index, TsIterVar* out) {
  return Field<BlockNode>(
      stmt, out, __func__, "stmt", "a block", [&](const BlockNode& s, TsIterVar& o) {
        CheckIndex(index, s.iter_vars.size(), "TsStmtBlockGetIterVar: iteration variable");
        const IterVar& iv = s.iter_vars[index];
        o.kind = iv.kind == IterKind::kReduce ? TS_ITER_REDUCE : TS_ITER_SPATIAL;
        o.dom = RangeToC(iv.dom);
        o.var = Give<TsPrimExpr>(iv.var);
        o.binding = Give<TsPrimExpr>(iv.binding);
      });
}

TsStatus TsStmtBlockGetNumReads(TsStmt stmt, size_t* out) {
  return Field<BlockNode>(stmt, out, __func__, "stmt", "a block",
                          [](const BlockNode& s, size_t& o) { o = s.reads.size(); });
}

TsStatus TsStmtBlockGetNumWrites(TsStmt stmt, size_t* out) {
  return Field<BlockNode>(stmt, out, __func__, "stmt", "a block",
                          [](const BlockNode& s, size_t& o) { o = s.writes.size(); });
}

}  // extern "C"

namespace {

/// Region `index` of a block's reads or writes: its buffer and number of ranges.
TsStatus BlockRegion(TsStmt stmt, bool writes, size_t index, TsBuffer* buffer, size_t* num_ranges,
                     const char* where) {
  if (!stmt) return Fail(TS_ERROR_INVALID_ARGUMENT, std::string(where) + ": stmt must not be NULL");
  return Guard([&] {
    auto block = Node<BlockNode>(stmt, where, "stmt", "a block");
    const BufferRegion& region =
        RegionAt(writes ? block->writes : block->reads, index, where, writes ? "write" : "read");
    if (num_ranges) *num_ranges = region.region.size();
    if (buffer) *buffer = Give<TsBuffer>(region.buffer);
  });
}

/// Range `dim` of region `index` of a block's reads or writes.
TsStatus BlockRange(TsStmt stmt, bool writes, size_t index, size_t dim, TsRange* out,
                    const char* where) {
  return Field<BlockNode>(
      stmt, out, where, "stmt", "a block", [&](const BlockNode& block, TsRange& o) {
        const BufferRegion& region =
            RegionAt(writes ? block.writes : block.reads, index, where, writes ? "write" : "read");
        CheckIndex(dim, region.region.size(), (std::string(where) + ": range").c_str());
        o = RangeToC(region.region[dim]);
      });
}

}  // namespace

extern "C" {

TsStatus TsStmtBlockGetRead(TsStmt stmt, size_t index, TsBuffer* buffer, size_t* num_ranges) {
  return BlockRegion(stmt, false, index, buffer, num_ranges, __func__);
}

TsStatus TsStmtBlockGetWrite(TsStmt stmt, size_t index, TsBuffer* buffer, size_t* num_ranges) {
  return BlockRegion(stmt, true, index, buffer, num_ranges, __func__);
}

TsStatus TsStmtBlockGetReadRange(TsStmt stmt, size_t index, size_t dim, TsRange* out) {
  return BlockRange(stmt, false, index, dim, out, __func__);
}

TsStatus TsStmtBlockGetWriteRange(TsStmt stmt, size_t index, size_t dim, TsRange* out) {
  return BlockRange(stmt, true, index, dim, out, __func__);
}

}  // extern "C"
