// JSON import of modules: validates every field and names the JSON path of any problem.
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/support/base64.h"
#include "json_util.h"
#include "tessera/ir/json.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {
namespace json_detail {
namespace {

using namespace tessera::tir;  // NOLINT: the reader builds every tensor-IR node.

// Types and attribute arrays are the only nested JSON the format has; real ones are a
// few levels deep, so a hostile file cannot exhaust the stack through them.
constexpr int kMaxNesting = 256;

const char* JsonTypeName(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "bool";
  if (j.is_number_float()) return "float";
  if (j.is_number()) return "integer";
  if (j.is_string()) return "string";
  if (j.is_array()) return "array";
  return "object";
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}
std::string Member(const std::string& path, const char* key) {
  return path + "." + key;
}

/// The JSON kind name of a node, for "is a X, expected a Y" messages.
const char* NodeKindName(const Object* obj) {
  switch (obj->type_index()) {
    case TypeIndex::kVar:
      return "Var";
    case TypeIndex::kGlobalVar:
      return "GlobalVar";
    case TypeIndex::kConstant:
      return "Constant";
    case TypeIndex::kOp:
      return "Op";
    case TypeIndex::kCall:
      return "Call";
    case TypeIndex::kTuple:
      return "Tuple";
    case TypeIndex::kTupleGetItem:
      return "TupleGetItem";
    case TypeIndex::kLet:
      return "Let";
    case TypeIndex::kFunction:
      return "Function";
    case TypeIndex::kPrimFunc:
      return "PrimFunc";
    case TypeIndex::kIntImm:
      return "IntImm";
    case TypeIndex::kFloatImm:
      return "FloatImm";
    case TypeIndex::kTirVar:
      return "TirVar";
    case TypeIndex::kBinary:
      return "Binary";
    case TypeIndex::kNot:
      return "Not";
    case TypeIndex::kSelect:
      return "Select";
    case TypeIndex::kCast:
      return "Cast";
    case TypeIndex::kBufferLoad:
      return "BufferLoad";
    case TypeIndex::kIntrinsic:
      return "Intrinsic";
    case TypeIndex::kFor:
      return "For";
    case TypeIndex::kBlock:
      return "Block";
    case TypeIndex::kBufferStore:
      return "BufferStore";
    case TypeIndex::kAllocate:
      return "Allocate";
    case TypeIndex::kSeqStmt:
      return "SeqStmt";
    case TypeIndex::kIfThenElse:
      return "IfThenElse";
    case TypeIndex::kPrefetch:
      return "Prefetch";
    case TypeIndex::kBuffer:
      return "Buffer";
    default:
      return "object";
  }
}

/// What a node reference must point at, named for error messages.
template <typename T>
const char* Expected();
template <>
const char* Expected<ExprNode>() {
  return "a graph expression";
}
template <>
const char* Expected<tessera::VarNode>() {
  return "a Var";
}
template <>
const char* Expected<BaseFuncNode>() {
  return "a Function or PrimFunc";
}
template <>
const char* Expected<PrimExprNode>() {
  return "a scalar expression";
}
template <>
const char* Expected<tir::VarNode>() {
  return "a TirVar";
}
template <>
const char* Expected<StmtNode>() {
  return "a statement";
}
template <>
const char* Expected<BufferNode>() {
  return "a Buffer";
}

class Reader {
 public:
  IRModule Read(const Json& root) {
    if (!root.is_object()) Fail("$", std::string("expected an object, got ") + JsonTypeName(root));
    const std::string format = Str(Field(root, "$", "format"), "$.format");
    if (format != kFormatName)
      Fail("$.format", "expected \"" + std::string(kFormatName) + "\", got \"" + format + "\"");
    int64_t version = Int(Field(root, "$", "version"), "$.version");
    if (version != kFormatVersion)
      Fail("$.version", "unsupported version " + std::to_string(version) + " (this build reads " +
                            std::to_string(kFormatVersion) + ")");
    const Json& nodes = Array(Field(root, "$", "nodes"), "nodes");
    total_ = nodes.size();
    nodes_.reserve(total_);
    for (size_t i = 0; i < nodes.size(); ++i) {
      std::string path = Index("nodes", i);
      const Json& node = nodes[i];
      if (!node.is_object())
        Fail(path, std::string("expected an object, got ") + JsonTypeName(node));
      std::string kind = Str(Field(node, path, "kind"), Member(path, "kind"));
      try {
        nodes_.push_back(DecodeNode(node, kind, path));
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::kParse) throw;
        // A builder rejected the decoded fields (dtype mismatch, bad arity, ...).
        TS_THROW(kParse) << path << " (" << kind << "): " << e.what();
      }
    }
    std::vector<std::pair<std::string, BaseFunc>> functions;
    const Json& funcs = Array(Field(root, "$", "functions"), "functions");
    for (size_t i = 0; i < funcs.size(); ++i) {
      std::string path = Index("functions", i);
      if (!funcs[i].is_object())
        Fail(path, std::string("expected an object, got ") + JsonTypeName(funcs[i]));
      std::string name = Str(Field(funcs[i], path, "name"), Member(path, "name"));
      for (const auto& f : functions)
        if (f.first == name) Fail(Member(path, "name"), "duplicate function name '" + name + "'");
      functions.emplace_back(
          name, Node<BaseFuncNode>(Field(funcs[i], path, "node"), Member(path, "node")));
    }
    Attrs attrs = DecodeAttrs(Field(root, "$", "attrs"), "attrs");
    auto* mod = new IRModuleNode();
    Ref<const IRModuleNode> handle(mod);
    mod->functions = std::move(functions);
    mod->attrs = std::move(attrs);
    return IRModule(handle);
  }

 private:
  [[noreturn]] static void Fail(const std::string& path, const std::string& message) {
    throw Error(ErrorKind::kParse, path + ": " + message);
  }

  static const Json& Field(const Json& obj, const std::string& path, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end()) Fail(path, std::string("missing field '") + key + "'");
    return *it;
  }

  static const Json& Array(const Json& j, const std::string& path) {
    if (!j.is_array()) Fail(path, std::string("expected an array, got ") + JsonTypeName(j));
    return j;
  }

  static int64_t Int(const Json& j, const std::string& path) {
    if (j.is_number_integer()) return j.get<int64_t>();  // signed storage always fits
    if (j.is_number_unsigned()) {
      uint64_t u = j.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(u);
      Fail(path, "integer " + std::to_string(u) + " does not fit in int64");
    }
    Fail(path, std::string("expected an integer, got ") + JsonTypeName(j));
  }

  static int IntIn(const Json& j, const std::string& path, int64_t lo, int64_t hi) {
    int64_t v = Int(j, path);
    if (v < lo || v > hi)
      Fail(path, "value " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
    return static_cast<int>(v);
  }

  static std::string Str(const Json& j, const std::string& path) {
    if (!j.is_string()) Fail(path, std::string("expected a string, got ") + JsonTypeName(j));
    return j.get<std::string>();
  }

  static DType Dtype(const Json& j, const std::string& path) {
    std::string name = Str(j, path);
    auto dtype = ParseDType(name);
    if (!dtype) Fail(path, "unknown dtype '" + name + "'");
    return *dtype;
  }

  static std::vector<int64_t> Shape(const Json& j, const std::string& path) {
    Array(j, path);
    std::vector<int64_t> shape;
    for (size_t i = 0; i < j.size(); ++i) {
      int64_t d = Int(j[i], Index(path, i));
      if (d < 0) Fail(Index(path, i), "dimension " + std::to_string(d) + " is negative");
      shape.push_back(d);
    }
    return shape;
  }

  /// The node `j` refers to; null only when `optional` and `j` is null.
  template <typename T>
  Ref<const T> Node(const Json& j, const std::string& path, bool optional = false) const {
    if (j.is_null()) {
      if (optional) return nullptr;
      Fail(path, std::string("expected a node id, got null"));
    }
    if (!j.is_number_integer() && !j.is_number_unsigned())
      Fail(path, std::string("expected a node id, got ") + JsonTypeName(j));
    if (j.is_number_integer() && j.get<int64_t>() < 0)
      Fail(path, "node id " + std::to_string(j.get<int64_t>()) + " is negative");
    uint64_t id = j.get<uint64_t>();
    if (id >= total_)
      Fail(path, "node id " + std::to_string(id) + " does not exist (the table has " +
                     std::to_string(total_) + " nodes)");
    if (id >= nodes_.size()) Fail(path, "node id " + std::to_string(id) + " is not defined yet");
    const Ref<const Object>& obj = nodes_[id];
    if (!IsInstance<T>(obj.get()))
      Fail(path, "node " + std::to_string(id) + " is a " + NodeKindName(obj.get()) + ", expected " +
                     Expected<T>());
    return Ref<const T>(static_cast<const T*>(obj.get()));
  }

  template <typename T>
  std::vector<Ref<const T>> Nodes(const Json& j, const std::string& path) const {
    Array(j, path);
    std::vector<Ref<const T>> out;
    out.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) out.push_back(Node<T>(j[i], Index(path, i)));
    return out;
  }

  static Type DecodeType(const Json& j, const std::string& path, int depth = 0) {
    if (j.is_null()) return nullptr;
    if (depth > kMaxNesting) Fail(path, "types nest too deeply");
    if (!j.is_object()) Fail(path, std::string("expected a type object, got ") + JsonTypeName(j));
    std::string kind = Str(Field(j, path, "kind"), Member(path, "kind"));
    if (kind == "TensorType") {
      auto shape = Shape(Field(j, path, "shape"), Member(path, "shape"));
      DType dtype = Dtype(Field(j, path, "dtype"), Member(path, "dtype"));
      return MakeTensorType(std::move(shape), dtype);
    }
    if (kind == "TupleType") {
      std::string fpath = Member(path, "fields");
      const Json& fields = Array(Field(j, path, "fields"), fpath);
      std::vector<Type> out;
      for (size_t i = 0; i < fields.size(); ++i) {
        Type t = DecodeType(fields[i], Index(fpath, i), depth + 1);
        if (!t) Fail(Index(fpath, i), "tuple field type is null");
        out.push_back(std::move(t));
      }
      return MakeTupleType(std::move(out));
    }
    if (kind == "FuncType") {
      std::string apath = Member(path, "arg_types");
      const Json& args = Array(Field(j, path, "arg_types"), apath);
      std::vector<Type> out;
      for (size_t i = 0; i < args.size(); ++i) {
        Type t = DecodeType(args[i], Index(apath, i), depth + 1);
        if (!t) Fail(Index(apath, i), "argument type is null");
        out.push_back(std::move(t));
      }
      Type ret = DecodeType(Field(j, path, "ret_type"), Member(path, "ret_type"), depth + 1);
      return MakeFuncType(std::move(out), std::move(ret));
    }
    Fail(Member(path, "kind"), "unknown type kind '" + kind + "'");
  }

  static std::vector<Type> DecodeTypes(const Json& j, const std::string& path) {
    Array(j, path);
    std::vector<Type> out;
    for (size_t i = 0; i < j.size(); ++i) {
      Type t = DecodeType(j[i], Index(path, i));
      if (!t) Fail(Index(path, i), "type is null");
      out.push_back(std::move(t));
    }
    return out;
  }

  static AttrValue DecodeAttrValue(const Json& j, const std::string& path, int depth = 0) {
    if (depth > kMaxNesting) Fail(path, "attribute arrays nest too deeply");
    if (j.is_null()) return AttrValue();
    if (j.is_boolean()) return AttrValue(j.get<bool>());
    if (j.is_number_integer() || j.is_number_unsigned()) return AttrValue(Int(j, path));
    if (j.is_string()) return AttrValue(j.get<std::string>());
    if (j.is_array()) {
      std::vector<AttrValue> items;
      for (size_t i = 0; i < j.size(); ++i)
        items.push_back(DecodeAttrValue(j[i], Index(path, i), depth + 1));
      return AttrValue(std::move(items));
    }
    if (j.is_object() && j.size() == 1 && j.contains("float")) {
      auto v = DecodeDouble(j["float"]);
      if (!v) Fail(Member(path, "float"), "expected a number, \"inf\", \"-inf\" or \"nan\"");
      return AttrValue(*v);
    }
    if (j.is_number_float()) Fail(path, "a float attribute must be written {\"float\": value}");
    Fail(path, std::string("expected an attribute value, got ") + JsonTypeName(j));
  }

  static Attrs DecodeAttrs(const Json& j, const std::string& path) {
    if (!j.is_object()) Fail(path, std::string("expected an object, got ") + JsonTypeName(j));
    Attrs attrs;
    for (auto it = j.begin(); it != j.end(); ++it)
      attrs.Set(it.key(), DecodeAttrValue(it.value(), path + "." + it.key()));
    return attrs;
  }

  Range DecodeRange(const Json& j, const std::string& path) const {
    if (!j.is_array() || j.size() != 2) Fail(path, "expected a [min, extent] pair");
    return Range{Node<PrimExprNode>(j[0], Index(path, 0)),
                 Node<PrimExprNode>(j[1], Index(path, 1))};
  }

  std::vector<BufferRegion> DecodeRegions(const Json& j, const std::string& path) const {
    Array(j, path);
    std::vector<BufferRegion> out;
    for (size_t i = 0; i < j.size(); ++i) {
      std::string p = Index(path, i);
      if (!j[i].is_object()) Fail(p, std::string("expected an object, got ") + JsonTypeName(j[i]));
      BufferRegion br;
      br.buffer = Node<BufferNode>(Field(j[i], p, "buffer"), Member(p, "buffer"));
      std::string rpath = Member(p, "region");
      const Json& ranges = Array(Field(j[i], p, "region"), rpath);
      if (ranges.size() != br.buffer->shape.size())
        Fail(rpath, std::to_string(ranges.size()) + " ranges for buffer '" + br.buffer->name +
                        "' of rank " + std::to_string(br.buffer->shape.size()));
      for (size_t k = 0; k < ranges.size(); ++k)
        br.region.push_back(DecodeRange(ranges[k], Index(rpath, k)));
      out.push_back(std::move(br));
    }
    return out;
  }

  Ref<const Object> DecodeNode(const Json& n, const std::string& kind,
                               const std::string& path) const {
    // Field accessors bound to this node's path.
    auto f = [&](const char* key) -> const Json& { return Field(n, path, key); };
    auto p = [&](const char* key) { return Member(path, key); };
    auto expr = [&](const char* key) { return Node<ExprNode>(f(key), p(key)); };
    auto prim = [&](const char* key) { return Node<PrimExprNode>(f(key), p(key)); };
    auto stmt = [&](const char* key, bool optional = false) {
      return Node<StmtNode>(f(key), p(key), optional);
    };
    auto buffer = [&](const char* key) { return Node<BufferNode>(f(key), p(key)); };

    if (kind == "Var") {
      std::string name = Str(f("name"), p("name"));
      return MakeVar(std::move(name), DecodeType(f("type"), p("type")));
    }
    if (kind == "GlobalVar") return MakeGlobalVar(Str(f("name"), p("name")));
    if (kind == "Constant") {
      DType dtype = Dtype(f("dtype"), p("dtype"));
      std::vector<int64_t> shape = Shape(f("shape"), p("shape"));
      int64_t numel = 1;
      for (int64_t d : shape)
        if (__builtin_mul_overflow(numel, d, &numel) || numel > (int64_t{1} << 40))
          Fail(p("shape"), "shape " + ShapeToString(shape) + " is too large");
      std::string bytes, error;
      if (!base64::Decode(Str(f("data"), p("data")), &bytes, &error)) Fail(p("data"), error);
      size_t expected = static_cast<size_t>(numel) * DTypeBytes(dtype);
      if (bytes.size() != expected)
        Fail(p("data"), std::to_string(bytes.size()) + " bytes of data for " + DTypeName(dtype) +
                            ShapeToString(shape) + " (expected " + std::to_string(expected) + ")");
      NDArray data = NDArray::Empty(shape, dtype);
      if (expected) std::memcpy(data.data(), bytes.data(), expected);
      return MakeConstant(std::move(data));
    }
    if (kind == "Op") {
      std::string name = Str(f("name"), p("name"));
      if (!OpRegistry::Global().Find(name)) Fail(p("name"), "unknown op '" + name + "'");
      return GetOp(name);
    }
    if (kind == "Call") {
      Expr callee = expr("callee");
      auto args = Nodes<ExprNode>(f("args"), p("args"));
      Attrs attrs = DecodeAttrs(f("attrs"), p("attrs"));
      return MakeCall(callee, std::move(args), std::move(attrs),
                      DecodeTypes(f("type_args"), p("type_args")));
    }
    if (kind == "Tuple") return MakeTuple(Nodes<ExprNode>(f("fields"), p("fields")));
    if (kind == "TupleGetItem") {
      Expr tuple = expr("tuple");
      return MakeTupleGetItem(tuple, IntIn(f("index"), p("index"), 0, INT_MAX));
    }
    if (kind == "Let") {
      tessera::Var var = Node<tessera::VarNode>(f("var"), p("var"));
      Expr value = expr("value");
      return MakeLet(var, value, expr("body"));
    }
    if (kind == "Function") {
      auto params = Nodes<tessera::VarNode>(f("params"), p("params"));
      Expr body = expr("body");
      Type ret_type = DecodeType(f("ret_type"), p("ret_type"));
      return MakeFunction(std::move(params), body, ret_type, DecodeAttrs(f("attrs"), p("attrs")));
    }
    if (kind == "PrimFunc") {
      auto params = Nodes<BufferNode>(f("params"), p("params"));
      int num_outputs =
          IntIn(f("num_outputs"), p("num_outputs"), 0, static_cast<int64_t>(params.size()));
      Stmt body = stmt("body", true);
      return MakePrimFunc(std::move(params), num_outputs, body,
                          DecodeAttrs(f("attrs"), p("attrs")));
    }
    if (kind == "IntImm") {
      DType dtype = Dtype(f("dtype"), p("dtype"));
      return IntImm(Int(f("value"), p("value")), dtype);
    }
    if (kind == "FloatImm") {
      DType dtype = Dtype(f("dtype"), p("dtype"));
      auto v = DecodeDouble(f("value"));
      if (!v) Fail(p("value"), "expected a number, \"inf\", \"-inf\" or \"nan\"");
      return FloatImm(*v, dtype);
    }
    if (kind == "TirVar") {
      std::string name = Str(f("name"), p("name"));
      return tir::MakeVar(std::move(name), Dtype(f("dtype"), p("dtype")));
    }
    if (kind == "Binary") {
      std::string op = Str(f("op"), p("op"));
      int index = -1;
      for (int i = 0; i < kNumBinaryOps; ++i)
        if (op == kBinaryOpNames[i]) index = i;
      if (index < 0) Fail(p("op"), "unknown binary operator '" + op + "'");
      PrimExpr a = prim("a");
      return MakeBinary(static_cast<BinaryOp>(index), a, prim("b"));
    }
    if (kind == "Not") return MakeNot(prim("a"));
    if (kind == "Select") {
      PrimExpr cond = prim("cond");
      PrimExpr t = prim("true_value");
      return MakeSelect(cond, t, prim("false_value"));
    }
    if (kind == "Cast") {
      DType dtype = Dtype(f("dtype"), p("dtype"));
      return MakeCast(dtype, prim("value"));
    }
    if (kind == "BufferLoad") {
      Buffer buf = buffer("buffer");
      return MakeLoad(buf, Nodes<PrimExprNode>(f("indices"), p("indices")));
    }
    if (kind == "Intrinsic") {
      std::string name = Str(f("name"), p("name"));
      return MakeIntrinsic(std::move(name), Nodes<PrimExprNode>(f("args"), p("args")));
    }
    if (kind == "Buffer") {
      std::string name = Str(f("name"), p("name"));
      auto shape = Shape(f("shape"), p("shape"));
      return MakeBuffer(std::move(name), std::move(shape), Dtype(f("dtype"), p("dtype")));
    }
    if (kind == "For") {
      tir::Var loop_var = Node<tir::VarNode>(f("loop_var"), p("loop_var"));
      PrimExpr min = prim("min");
      PrimExpr extent = prim("extent");
      std::string fk = Str(f("for_kind"), p("for_kind"));
      int for_kind = -1;
      for (int i = 0; i < kNumForKinds; ++i)
        if (fk == kForKindNames[i]) for_kind = i;
      if (for_kind < 0) Fail(p("for_kind"), "unknown loop kind '" + fk + "'");
      return MakeFor(loop_var, min, extent, static_cast<ForKind>(for_kind), stmt("body"));
    }
    if (kind == "Block") {
      std::string name = Str(f("name"), p("name"));
      std::string ipath = p("iter_vars");
      const Json& ivs = Array(f("iter_vars"), ipath);
      std::vector<IterVar> iter_vars;
      for (size_t i = 0; i < ivs.size(); ++i) {
        std::string q = Index(ipath, i);
        if (!ivs[i].is_object())
          Fail(q, std::string("expected an object, got ") + JsonTypeName(ivs[i]));
        IterVar iv;
        iv.var = Node<tir::VarNode>(Field(ivs[i], q, "var"), Member(q, "var"));
        iv.dom.min = Node<PrimExprNode>(Field(ivs[i], q, "min"), Member(q, "min"));
        iv.dom.extent = Node<PrimExprNode>(Field(ivs[i], q, "extent"), Member(q, "extent"));
        std::string ik = Str(Field(ivs[i], q, "iter_kind"), Member(q, "iter_kind"));
        if (ik == "spatial")
          iv.kind = IterKind::kSpatial;
        else if (ik == "reduce")
          iv.kind = IterKind::kReduce;
        else
          Fail(Member(q, "iter_kind"), "unknown iteration kind '" + ik + "'");
        iv.binding = Node<PrimExprNode>(Field(ivs[i], q, "binding"), Member(q, "binding"));
        iter_vars.push_back(std::move(iv));
      }
      auto reads = DecodeRegions(f("reads"), p("reads"));
      auto writes = DecodeRegions(f("writes"), p("writes"));
      Stmt init = stmt("init", true);
      return MakeBlock(std::move(name), std::move(iter_vars), std::move(reads), std::move(writes),
                       init, stmt("body"));
    }
    if (kind == "BufferStore") {
      Buffer buf = buffer("buffer");
      PrimExpr value = prim("value");
      return MakeStore(buf, value, Nodes<PrimExprNode>(f("indices"), p("indices")));
    }
    if (kind == "Prefetch") {
      Buffer buf = buffer("buffer");
      return MakePrefetch(buf, Nodes<PrimExprNode>(f("indices"), p("indices")));
    }
    if (kind == "Allocate") {
      Buffer buf = buffer("buffer");
      bool zero_fill = true;
      if (n.contains("zero_fill")) {
        const Json& z = n["zero_fill"];
        if (!z.is_boolean()) Fail(p("zero_fill"), "expected a bool");
        zero_fill = z.get<bool>();
      }
      return MakeAllocate(buf, stmt("body"), zero_fill);
    }
    if (kind == "SeqStmt") return MakeSeq(Nodes<StmtNode>(f("seq"), p("seq")));
    if (kind == "IfThenElse") {
      PrimExpr cond = prim("cond");
      Stmt then_case = stmt("then_case", true);
      return MakeIfThenElse(cond, then_case, stmt("else_case", true));
    }
    Fail(p("kind"), "unknown node kind '" + kind + "'");
  }

  std::vector<Ref<const Object>> nodes_;
  size_t total_ = 0;
};

}  // namespace
}  // namespace json_detail

IRModule ModuleFromJson(std::string_view json) {
  json_detail::Json root;
  try {
    root = json_detail::Json::parse(json.begin(), json.end());
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kParse, std::string("invalid JSON: ") + e.what());
  }
  try {
    return json_detail::Reader().Read(root);
  } catch (const nlohmann::json::exception& e) {
    // Every access is type-checked first; this only guards against a missed check.
    throw Error(ErrorKind::kParse, std::string("malformed module JSON: ") + e.what());
  }
}

}  // namespace tessera
