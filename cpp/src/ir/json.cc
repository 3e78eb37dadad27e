// JSON export of modules: a post-order node table with integer ids (the reader lives in
// json_read.cc; the shared vocabulary in json_util.h).
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tessera/support/base64.h"
#include "json_util.h"
#include "tessera/ir/json.h"
#include "tessera/support/error.h"

namespace tessera {
namespace json_detail {
namespace {

using namespace tessera::tir;  // NOLINT: the writer handles every tensor-IR node.

Json EncodeAttrValue(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kNone:
      return Json(nullptr);
    case AttrValue::Kind::kBool:
      return Json(value.AsBool());
    case AttrValue::Kind::kInt:
      return Json(value.AsInt());
    case AttrValue::Kind::kFloat: {
      // Wrapped so that an integral float (1.0) stays a float when read back.
      Json j = Json::object();
      j["float"] = EncodeDouble(value.AsFloat());
      return j;
    }
    case AttrValue::Kind::kString:
      return Json(value.AsString());
    case AttrValue::Kind::kArray: {
      Json j = Json::array();
      for (const auto& v : value.AsArray()) j.push_back(EncodeAttrValue(v));
      return j;
    }
  }
  return Json(nullptr);
}

Json EncodeAttrs(const Attrs& attrs) {
  Json j = Json::object();
  for (const auto& [key, value] : attrs.items()) j[key] = EncodeAttrValue(value);
  return j;
}

Json EncodeType(const Type& type) {
  if (!type) return Json(nullptr);
  Json j = Json::object();
  if (auto* t = type.as<TensorTypeNode>()) {
    j["kind"] = "TensorType";
    j["shape"] = t->shape;
    j["dtype"] = DTypeName(t->dtype);
  } else if (auto* t = type.as<TupleTypeNode>()) {
    j["kind"] = "TupleType";
    Json fields = Json::array();
    for (const auto& f : t->fields) fields.push_back(EncodeType(f));
    j["fields"] = std::move(fields);
  } else if (auto* t = type.as<FuncTypeNode>()) {
    j["kind"] = "FuncType";
    Json args = Json::array();
    for (const auto& a : t->arg_types) args.push_back(EncodeType(a));
    j["arg_types"] = std::move(args);
    j["ret_type"] = EncodeType(t->ret_type);
  } else {
    TS_THROW(kInternal) << "cannot serialise a type of index "
                        << static_cast<int>(type->type_index());
  }
  return j;
}

/// Assigns ids in post-order and emits one JSON object per node.
class Writer {
 public:
  /// Emits `root` and everything it reaches; returns its id.
  int64_t Visit(const Object* root) {
    if (auto it = ids_.find(root); it != ids_.end()) return it->second;
    struct Frame {
      const Object* obj;
      std::vector<const Object*> children;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    stack.push_back({root, Children(root)});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.children.size()) {
        const Object* child = top.children[top.next++];
        if (child && !ids_.count(child)) {
          std::vector<const Object*> grand = Children(child);
          stack.push_back({child, std::move(grand)});
        }
        continue;
      }
      const Object* obj = top.obj;
      stack.pop_back();
      if (ids_.count(obj)) continue;  // reached twice before being emitted
      Json node = Encode(obj);
      ids_.emplace(obj, static_cast<int64_t>(nodes_.size()));
      nodes_.push_back(std::move(node));
    }
    return ids_.at(root);
  }

  Json TakeNodes() { return std::move(nodes_); }

 private:
  // Children in the order Encode refers to them (any order works for the reader, but a
  // fixed one keeps the output deterministic).
  static std::vector<const Object*> Children(const Object* obj) {
    std::vector<const Object*> out;
    auto add = [&out](const auto& ref) { out.push_back(ref.get()); };
    auto add_range = [&](const Range& r) {
      add(r.min);
      add(r.extent);
    };
    auto add_regions = [&](const std::vector<BufferRegion>& regions) {
      for (const auto& br : regions) {
        add(br.buffer);
        for (const auto& r : br.region) add_range(r);
      }
    };
    if (IsInstance<PrimExprNode>(obj)) {
      // A load's buffer, then the operands.
      if (IsInstance<BufferLoadNode>(obj)) add(static_cast<const BufferLoadNode*>(obj)->buffer);
      for (const auto& c : PrimExprChildren(PrimExpr(static_cast<const PrimExprNode*>(obj))))
        add(c);
      return out;
    }
    switch (obj->type_index()) {
      case TypeIndex::kCall: {
        auto* n = static_cast<const CallNode*>(obj);
        add(n->callee);
        for (const auto& a : n->args) add(a);
        break;
      }
      case TypeIndex::kTuple:
        for (const auto& f : static_cast<const TupleNode*>(obj)->fields) add(f);
        break;
      case TypeIndex::kTupleGetItem:
        add(static_cast<const TupleGetItemNode*>(obj)->tuple);
        break;
      case TypeIndex::kLet: {
        auto* n = static_cast<const LetNode*>(obj);
        add(n->var);
        add(n->value);
        add(n->body);
        break;
      }
      case TypeIndex::kFunction: {
        auto* n = static_cast<const FunctionNode*>(obj);
        for (const auto& p : n->params) add(p);
        add(n->body);
        break;
      }
      case TypeIndex::kPrimFunc: {
        auto* n = static_cast<const PrimFuncNode*>(obj);
        for (const auto& p : n->params) add(p);
        add(n->body);
        break;
      }
      case TypeIndex::kFor: {
        auto* n = static_cast<const ForNode*>(obj);
        add(n->loop_var);
        add(n->min);
        add(n->extent);
        add(n->body);
        break;
      }
      case TypeIndex::kBlock: {
        auto* n = static_cast<const BlockNode*>(obj);
        for (const auto& iv : n->iter_vars) {
          add(iv.var);
          add_range(iv.dom);
          add(iv.binding);
        }
        add_regions(n->reads);
        add_regions(n->writes);
        add(n->init);
        add(n->body);
        break;
      }
      case TypeIndex::kBufferStore: {
        auto* n = static_cast<const BufferStoreNode*>(obj);
        add(n->buffer);
        add(n->value);
        for (const auto& i : n->indices) add(i);
        break;
      }
      case TypeIndex::kAllocate: {
        auto* n = static_cast<const AllocateNode*>(obj);
        add(n->buffer);
        add(n->body);
        break;
      }
      case TypeIndex::kSeqStmt:
        for (const auto& s : static_cast<const SeqStmtNode*>(obj)->seq) add(s);
        break;
      case TypeIndex::kPrefetch: {
        auto* n = static_cast<const PrefetchNode*>(obj);
        add(n->buffer);
        for (const auto& i : n->indices) add(i);
        break;
      }
      case TypeIndex::kIfThenElse: {
        auto* n = static_cast<const IfThenElseNode*>(obj);
        add(n->cond);
        add(n->then_case);
        add(n->else_case);
        break;
      }
      default:
        break;  // leaves
    }
    return out;
  }

  template <typename T>
  Json Id(const Ref<T>& ref) const {
    if (!ref) return Json(nullptr);
    return Json(ids_.at(ref.get()));
  }

  template <typename T>
  Json Ids(const std::vector<T>& refs) const {
    Json j = Json::array();
    for (const auto& r : refs) j.push_back(Id(r));
    return j;
  }

  Json EncodeRegions(const std::vector<BufferRegion>& regions) const {
    Json out = Json::array();
    for (const auto& br : regions) {
      Json j = Json::object();
      j["buffer"] = Id(br.buffer);
      Json ranges = Json::array();
      for (const auto& r : br.region) ranges.push_back(Json::array({Id(r.min), Id(r.extent)}));
      j["region"] = std::move(ranges);
      out.push_back(std::move(j));
    }
    return out;
  }

  Json Encode(const Object* obj) const {
    Json j = Json::object();
    switch (obj->type_index()) {
      case TypeIndex::kVar: {
        auto* n = static_cast<const tessera::VarNode*>(obj);
        j["kind"] = "Var";
        j["name"] = n->name_hint;
        j["type"] = EncodeType(n->type_annotation);
        break;
      }
      case TypeIndex::kGlobalVar:
        j["kind"] = "GlobalVar";
        j["name"] = static_cast<const GlobalVarNode*>(obj)->name;
        break;
      case TypeIndex::kConstant: {
        const NDArray& data = static_cast<const ConstantNode*>(obj)->data;
        j["kind"] = "Constant";
        j["dtype"] = DTypeName(data.dtype());
        j["shape"] = data.shape();
        j["data"] = base64::Encode(data.data(), data.NumBytes());
        break;
      }
      case TypeIndex::kOp:
        j["kind"] = "Op";
        j["name"] = static_cast<const OpNode*>(obj)->name;
        break;
      case TypeIndex::kCall: {
        auto* n = static_cast<const CallNode*>(obj);
        j["kind"] = "Call";
        j["callee"] = Id(n->callee);
        j["args"] = Ids(n->args);
        j["attrs"] = EncodeAttrs(n->attrs);
        Json types = Json::array();
        for (const auto& t : n->type_args) types.push_back(EncodeType(t));
        j["type_args"] = std::move(types);
        break;
      }
      case TypeIndex::kTuple:
        j["kind"] = "Tuple";
        j["fields"] = Ids(static_cast<const TupleNode*>(obj)->fields);
        break;
      case TypeIndex::kTupleGetItem: {
        auto* n = static_cast<const TupleGetItemNode*>(obj);
        j["kind"] = "TupleGetItem";
        j["tuple"] = Id(n->tuple);
        j["index"] = n->index;
        break;
      }
      case TypeIndex::kLet: {
        auto* n = static_cast<const LetNode*>(obj);
        j["kind"] = "Let";
        j["var"] = Id(n->var);
        j["value"] = Id(n->value);
        j["body"] = Id(n->body);
        break;
      }
      case TypeIndex::kFunction: {
        auto* n = static_cast<const FunctionNode*>(obj);
        j["kind"] = "Function";
        j["params"] = Ids(n->params);
        j["body"] = Id(n->body);
        j["ret_type"] = EncodeType(n->ret_type);
        j["attrs"] = EncodeAttrs(n->attrs);
        break;
      }
      case TypeIndex::kPrimFunc: {
        auto* n = static_cast<const PrimFuncNode*>(obj);
        j["kind"] = "PrimFunc";
        j["params"] = Ids(n->params);
        j["num_outputs"] = n->num_outputs;
        j["body"] = Id(n->body);
        j["attrs"] = EncodeAttrs(n->attrs);
        break;
      }
      case TypeIndex::kIntImm: {
        auto* n = static_cast<const IntImmNode*>(obj);
        j["kind"] = "IntImm";
        j["dtype"] = DTypeName(n->dtype);
        j["value"] = n->value;
        break;
      }
      case TypeIndex::kFloatImm: {
        auto* n = static_cast<const FloatImmNode*>(obj);
        j["kind"] = "FloatImm";
        j["dtype"] = DTypeName(n->dtype);
        j["value"] = EncodeDouble(n->value);
        break;
      }
      case TypeIndex::kTirVar: {
        auto* n = static_cast<const tir::VarNode*>(obj);
        j["kind"] = "TirVar";
        j["name"] = n->name;
        j["dtype"] = DTypeName(n->dtype);
        break;
      }
      case TypeIndex::kBinary: {
        auto* n = static_cast<const BinaryNode*>(obj);
        j["kind"] = "Binary";
        j["op"] = kBinaryOpNames[static_cast<int>(n->op)];
        j["a"] = Id(n->a);
        j["b"] = Id(n->b);
        break;
      }
      case TypeIndex::kNot:
        j["kind"] = "Not";
        j["a"] = Id(static_cast<const NotNode*>(obj)->a);
        break;
      case TypeIndex::kSelect: {
        auto* n = static_cast<const SelectNode*>(obj);
        j["kind"] = "Select";
        j["cond"] = Id(n->cond);
        j["true_value"] = Id(n->true_value);
        j["false_value"] = Id(n->false_value);
        break;
      }
      case TypeIndex::kCast: {
        auto* n = static_cast<const CastNode*>(obj);
        j["kind"] = "Cast";
        j["dtype"] = DTypeName(n->dtype);
        j["value"] = Id(n->value);
        break;
      }
      case TypeIndex::kBufferLoad: {
        auto* n = static_cast<const BufferLoadNode*>(obj);
        j["kind"] = "BufferLoad";
        j["buffer"] = Id(n->buffer);
        j["indices"] = Ids(n->indices);
        break;
      }
      case TypeIndex::kIntrinsic: {
        auto* n = static_cast<const IntrinsicNode*>(obj);
        j["kind"] = "Intrinsic";
        j["name"] = n->name;
        j["args"] = Ids(n->args);
        break;
      }
      case TypeIndex::kBuffer: {
        auto* n = static_cast<const BufferNode*>(obj);
        j["kind"] = "Buffer";
        j["name"] = n->name;
        j["shape"] = n->shape;
        j["dtype"] = DTypeName(n->dtype);
        break;
      }
      case TypeIndex::kFor: {
        auto* n = static_cast<const ForNode*>(obj);
        j["kind"] = "For";
        j["loop_var"] = Id(n->loop_var);
        j["min"] = Id(n->min);
        j["extent"] = Id(n->extent);
        j["for_kind"] = kForKindNames[static_cast<int>(n->kind)];
        j["body"] = Id(n->body);
        break;
      }
      case TypeIndex::kBlock: {
        auto* n = static_cast<const BlockNode*>(obj);
        j["kind"] = "Block";
        j["name"] = n->name;
        Json ivs = Json::array();
        for (const auto& iv : n->iter_vars) {
          Json v = Json::object();
          v["var"] = Id(iv.var);
          v["min"] = Id(iv.dom.min);
          v["extent"] = Id(iv.dom.extent);
          v["iter_kind"] = iv.kind == IterKind::kSpatial ? "spatial" : "reduce";
          v["binding"] = Id(iv.binding);
          ivs.push_back(std::move(v));
        }
        j["iter_vars"] = std::move(ivs);
        j["reads"] = EncodeRegions(n->reads);
        j["writes"] = EncodeRegions(n->writes);
        j["init"] = Id(n->init);
        j["body"] = Id(n->body);
        break;
      }
      case TypeIndex::kBufferStore: {
        auto* n = static_cast<const BufferStoreNode*>(obj);
        j["kind"] = "BufferStore";
        j["buffer"] = Id(n->buffer);
        j["value"] = Id(n->value);
        j["indices"] = Ids(n->indices);
        break;
      }
      case TypeIndex::kAllocate: {
        auto* n = static_cast<const AllocateNode*>(obj);
        j["kind"] = "Allocate";
        j["buffer"] = Id(n->buffer);
        j["body"] = Id(n->body);
        if (!n->zero_fill) j["zero_fill"] = false;
        break;
      }
      case TypeIndex::kSeqStmt:
        j["kind"] = "SeqStmt";
        j["seq"] = Ids(static_cast<const SeqStmtNode*>(obj)->seq);
        break;
      case TypeIndex::kPrefetch: {
        auto* n = static_cast<const PrefetchNode*>(obj);
        j["kind"] = "Prefetch";
        j["buffer"] = Id(n->buffer);
        j["indices"] = Ids(n->indices);
        break;
      }
      case TypeIndex::kIfThenElse: {
        auto* n = static_cast<const IfThenElseNode*>(obj);
        j["kind"] = "IfThenElse";
        j["cond"] = Id(n->cond);
        j["then_case"] = Id(n->then_case);
        j["else_case"] = Id(n->else_case);
        break;
      }
      default:
        TS_THROW(kInternal) << "cannot serialise an object of type index "
                            << static_cast<int>(obj->type_index());
    }
    return j;
  }

  // Lookup only; the output order comes from the traversal, never from this map.
  std::unordered_map<const Object*, int64_t> ids_;
  Json nodes_ = Json::array();
};

}  // namespace
}  // namespace json_detail

std::string ModuleToJson(const IRModule& mod, int indent) {
  using json_detail::Json;
  json_detail::Writer writer;
  Json functions = Json::array();
  for (const auto& [name, func] : mod.functions()) {
    TS_ICHECK(func.defined()) << "module function '" << name << "' is null";
    Json f = Json::object();
    f["name"] = name;
    f["node"] = writer.Visit(func.get());
    functions.push_back(std::move(f));
  }
  Json root = Json::object();
  root["format"] = json_detail::kFormatName;
  root["version"] = json_detail::kFormatVersion;
  root["nodes"] = writer.TakeNodes();
  root["functions"] = std::move(functions);
  root["attrs"] = json_detail::EncodeAttrs(mod.attrs());
  try {
    return root.dump(indent);
  } catch (const nlohmann::json::exception& e) {
    // Only invalid UTF-8 in a name or string attribute can make dumping fail.
    TS_THROW(kValue) << "cannot write the module as JSON: " << e.what();
  }
}

}  // namespace tessera
