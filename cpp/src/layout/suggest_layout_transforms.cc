// SuggestLayoutTransforms: backward flow of result layouts through a PrimFunc's blocks.
#include "tessera/layout/suggest_layout_transforms.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "tessera/support/error.h"

namespace tessera::layout {

namespace {

using tir::BlockNode;
using tir::PrimExpr;

/// Blocks of `stmt` in program order; `nested` is set when a block holds another block
/// (such blocks are not analysed).
void CollectBlocks(const tir::Stmt& stmt, std::vector<const BlockNode*>& out,
                   std::unordered_set<const BlockNode*>& nested, const BlockNode* parent) {
  if (!stmt) return;
  if (const auto* f = stmt.as<tir::ForNode>()) return CollectBlocks(f->body, out, nested, parent);
  if (const auto* a = stmt.as<tir::AllocateNode>())
    return CollectBlocks(a->body, out, nested, parent);
  if (const auto* s = stmt.as<tir::SeqStmtNode>()) {
    for (const auto& item : s->seq) CollectBlocks(item, out, nested, parent);
    return;
  }
  if (const auto* i = stmt.as<tir::IfThenElseNode>()) {
    CollectBlocks(i->then_case, out, nested, parent);
    return CollectBlocks(i->else_case, out, nested, parent);
  }
  if (const auto* b = stmt.as<BlockNode>()) {
    if (parent) nested.insert(parent);
    out.push_back(b);
    CollectBlocks(b->init, out, nested, b);
    CollectBlocks(b->body, out, nested, b);
  }
}

/// The block iteration variable positions of `block` by variable.
std::unordered_map<const tir::VarNode*, int> IterPositions(const BlockNode* block) {
  std::unordered_map<const tir::VarNode*, int> pos;
  for (size_t i = 0; i < block->iter_vars.size(); ++i)
    pos[block->iter_vars[i].var.get()] = static_cast<int>(i);
  return pos;
}

/// Whether `e` is affine in block variables (variables, literals, +, -, * by a literal),
/// collecting the positions of the variables it uses.
bool AffineVars(const PrimExpr& e, const std::unordered_map<const tir::VarNode*, int>& pos,
                std::vector<int>& vars) {
  if (e.as<tir::IntImmNode>()) return true;
  if (const auto* v = e.as<tir::VarNode>()) {
    auto it = pos.find(v);
    if (it == pos.end()) return false;
    vars.push_back(it->second);
    return true;
  }
  const auto* b = e.as<tir::BinaryNode>();
  if (!b) return false;
  switch (b->op) {
    case tir::BinaryOp::kAdd:
    case tir::BinaryOp::kSub:
      return AffineVars(b->a, pos, vars) && AffineVars(b->b, pos, vars);
    case tir::BinaryOp::kMul:
      if (b->a.as<tir::IntImmNode>()) return AffineVars(b->b, pos, vars);
      if (b->b.as<tir::IntImmNode>()) return AffineVars(b->a, pos, vars);
      return false;
    default:
      return false;
  }
}

/// A spatial layout: per buffer dimension, the position of the one spatial block variable
/// its index follows, or -1 when it has none (a literal or reduce variables only).
using SpatialLayout = std::vector<int>;

/// The spatial layout of one access region, or nullopt when an index is not affine, is
/// not a single point, or involves two spatial variables.
std::optional<SpatialLayout> SpatialLayoutOf(const tir::BufferRegion& region,
                                             const BlockNode* block,
                                             const std::unordered_map<const tir::VarNode*, int>& pos) {
  SpatialLayout layout;
  for (const tir::Range& r : region.region) {
    const auto* extent = r.extent.as<tir::IntImmNode>();
    if (!extent || extent->value != 1) return std::nullopt;
    std::vector<int> vars;
    if (!AffineVars(r.min, pos, vars)) return std::nullopt;
    int spatial = -1;
    for (int v : vars) {
      if (block->iter_vars[v].kind != tir::IterKind::kSpatial) continue;
      if (spatial >= 0 && spatial != v) return std::nullopt;
      spatial = v;
    }
    layout.push_back(spatial);
  }
  return layout;
}

/// Whether the non-null entries appear in strictly increasing block-variable order.
bool IsSequential(const SpatialLayout& layout) {
  int last = -1;
  for (int v : layout) {
    if (v < 0) continue;
    if (v <= last) return false;
    last = v;
  }
  return true;
}

/// The map of a target access from the map `t` of a source access (both spatial layouts
/// over one block): the target keeps the source's input axes it shares and the outputs
/// over only those; a target axis the source lacks becomes a new input axis kept in
/// place, both among the inputs and among the outputs. nullopt when an output mixes kept
/// and dropped axes (the target cannot hold a piece of a split it only partly has).
std::optional<IndexMap> Infer(const SpatialLayout& src, const IndexMap& t,
                              const SpatialLayout& tgt, int* fresh) {
  std::unordered_set<int> tgt_vars;
  for (int v : tgt)
    if (v >= 0) tgt_vars.insert(v);
  std::vector<tir::Var> init;
  std::unordered_set<const tir::VarNode*> kept;
  std::unordered_set<int> src_vars;
  for (size_t i = 0; i < src.size(); ++i) {
    src_vars.insert(src[i]);
    if (!tgt_vars.count(src[i])) continue;
    init.push_back(t.initial_indices()[i]);
    kept.insert(t.initial_indices()[i].get());
  }
  std::vector<PrimExpr> fin;
  for (const PrimExpr& e : t.final_indices()) {
    auto vars = VarsOf(e);
    size_t in = 0;
    for (const auto* v : vars) in += kept.count(v);
    if (in == vars.size()) {
      fin.push_back(e);
    } else if (in != 0) {
      return std::nullopt;
    }
  }
  size_t ci = 0, cf = 0;
  for (int v : tgt) {
    if (v >= 0 && src_vars.count(v)) {
      ++ci;
      if (cf < fin.size()) ++cf;
      continue;
    }
    tir::Var d = tir::MakeVar("d" + std::to_string((*fresh)++));
    init.insert(init.begin() + static_cast<std::ptrdiff_t>(std::min(ci, init.size())), d);
    fin.insert(fin.begin() + static_cast<std::ptrdiff_t>(std::min(cf, fin.size())), d);
    ++ci;
    ++cf;
  }
  try {
    return IndexMap(std::move(init), std::move(fin));
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

LayoutSuggestion SuggestLayoutTransforms(const tir::PrimFunc& func,
                                         const std::vector<IndexMap>& write_maps) {
  const size_t nparams = func->params.size();
  if (write_maps.size() > static_cast<size_t>(func->num_outputs))
    TS_THROW(kValue) << "SuggestLayoutTransforms: " << write_maps.size()
                     << " maps given but the PrimFunc has " << func->num_outputs << " outputs";
  std::unordered_map<const tir::BufferNode*, IndexMap> cache;
  std::vector<const tir::BufferNode*> order;  // buffers in the order they got a map
  for (size_t k = 0; k < write_maps.size(); ++k) {
    const tir::Buffer& buf = func->params[nparams - write_maps.size() + k];
    const IndexMap& map = write_maps[k];
    if (!map.defined()) continue;
    if (map.arity() != static_cast<int>(buf->shape.size()))
      TS_THROW(kType) << "SuggestLayoutTransforms: index map " << map.ToString() << " takes "
                      << map.arity() << " indices but output " << buf->name << " has rank "
                      << buf->shape.size();
    cache[buf.get()] = map;
  }

  std::vector<const BlockNode*> blocks;
  std::unordered_set<const BlockNode*> nested;
  CollectBlocks(func->body, blocks, nested, nullptr);
  LayoutSuggestion out;
  std::vector<std::pair<std::string, IndexMap>> block_maps;
  int fresh = 0;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    const BlockNode* block = *it;
    if (nested.count(block) || block->writes.size() != 1) continue;
    const tir::BufferRegion& write = block->writes[0];
    auto found = cache.find(write.buffer.get());
    if (found == cache.end()) continue;
    const IndexMap t_w = found->second;
    auto pos = IterPositions(block);
    auto sl_w = SpatialLayoutOf(write, block, pos);
    if (!sl_w || !IsSequential(*sl_w)) continue;
    // The write must index each dimension by a plain, distinct spatial variable.
    bool plain = std::all_of(write.region.begin(), write.region.end(), [](const tir::Range& r) {
      return r.min.as<tir::VarNode>() != nullptr;
    });
    if (!plain || std::count(sl_w->begin(), sl_w->end(), -1) > 0) continue;
    SpatialLayout all(block->iter_vars.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    auto t_block = Infer(*sl_w, t_w, all, &fresh);
    if (!t_block) continue;
    block_maps.emplace_back(block->name, *t_block);
    // Every access to one buffer within the block must agree on its spatial layout.
    std::unordered_map<const tir::BufferNode*, std::optional<SpatialLayout>> reads;
    std::vector<const tir::BufferNode*> read_order;
    for (const tir::BufferRegion& r : block->reads) {
      if (r.buffer.get() == write.buffer.get()) continue;
      auto sl = SpatialLayoutOf(r, block, pos);
      auto [slot, inserted] = reads.emplace(r.buffer.get(), sl);
      if (inserted) {
        read_order.push_back(r.buffer.get());
      } else if (slot->second && (!sl || *sl != *slot->second)) {
        slot->second = std::nullopt;
      }
    }
    for (const tir::BufferNode* buf : read_order) {
      const auto& sl = reads[buf];
      if (!sl || !IsSequential(*sl)) continue;
      auto t_r = Infer(*sl_w, t_w, *sl, &fresh);
      if (!t_r) continue;
      auto [slot, inserted] = cache.emplace(buf, *t_r);
      if (inserted) {
        order.push_back(buf);
      } else if (!slot->second.EqualOn(*t_r, buf->shape)) {
        if (std::find(out.conflicts.begin(), out.conflicts.end(), buf->name) ==
            out.conflicts.end())
          out.conflicts.push_back(buf->name);
      }
    }
  }
  std::reverse(block_maps.begin(), block_maps.end());
  out.blocks = std::move(block_maps);
  out.params.resize(nparams);
  for (size_t i = 0; i < nparams; ++i) {
    auto it = cache.find(func->params[i].get());
    if (it != cache.end()) out.params[i] = it->second;
  }
  return out;
}

}  // namespace tessera::layout
