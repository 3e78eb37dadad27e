// The ONNX importer's graph walk: model loading and validation, graph inputs and
// initializers, node conversion with errors naming the node, and the @main function.
#include <fstream>
#include <sstream>

#include "onnx_context.h"
#include "tessera/frontend/onnx.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"

namespace tessera {
namespace frontend {

using onnx_detail::Context;
using onnx_detail::ConverterTable;
using onnx_detail::NodeAttrs;

namespace {

constexpr int64_t kMinOpset = 11;
constexpr int64_t kMaxOpset = 17;

const ConverterTable& Converters() {
  static const ConverterTable* table = [] {
    auto* t = new ConverterTable();
    onnx_detail::RegisterMathConverters(*t);
    onnx_detail::RegisterNNConverters(*t);
    onnx_detail::RegisterShapeConverters(*t);
    return t;
  }();
  return *table;
}

/// The static shape of a graph input from its ValueInfo, or from `overrides`.
TensorType InputType(const onnx::ValueInfoProto& vi, const OnnxImportOptions& options) {
  const std::string& name = vi.name();
  if (!vi.type().has_tensor_type())
    TS_THROW(kUnsupported) << "graph input '" << name << "' is not a tensor";
  const auto& tt = vi.type().tensor_type();
  std::optional<DType> dtype = onnx_detail::DTypeFromOnnx(tt.elem_type());
  if (!dtype)
    TS_THROW(kUnsupported) << "graph input '" << name << "' has ONNX element type "
                           << tt.elem_type() << ", which has no Tessera dtype";
  auto it = options.shape_overrides.find(name);
  if (it != options.shape_overrides.end()) {
    for (int64_t d : it->second)
      if (d < 0) TS_THROW(kValue) << "shape override for '" << name << "' has dimension " << d;
    // An override fixes symbolic dimensions; the model's static ones must agree with it.
    if (tt.has_shape()) {
      const auto& dims = tt.shape();
      if (dims.dim_size() != static_cast<int>(it->second.size()))
        TS_THROW(kValue) << "shape override for '" << name << "' has " << it->second.size()
                         << " dimension(s) but the input has " << dims.dim_size();
      for (int i = 0; i < dims.dim_size(); ++i)
        if (dims.dim(i).has_dim_value() && dims.dim(i).dim_value() != it->second[i])
          TS_THROW(kValue) << "shape override for '" << name << "' gives dimension " << i << " = "
                           << it->second[i] << ", but the model fixes it to "
                           << dims.dim(i).dim_value();
    }
    return MakeTensorType(it->second, *dtype);
  }
  if (!tt.has_shape())
    TS_THROW(kUnsupported) << "graph input '" << name
                           << "' has no shape; give one with shape_overrides";
  std::vector<int64_t> shape;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& d = tt.shape().dim(i);
    if (!d.has_dim_value() || d.dim_value() < 0)
      TS_THROW(kUnsupported)
          << "graph input '" << name << "' dimension " << i << " is "
          << (d.has_dim_param() ? "symbolic ('" + d.dim_param() + "')" : std::string("unknown"))
          << "; give a static shape (Python: shape_overrides=, CLI: --shape NAME=D1,D2,..., "
             "C: the shapes of TsModuleFromONNX)";
    shape.push_back(d.dim_value());
  }
  return MakeTensorType(shape, *dtype);
}

/// A readable identity of a node for messages: name (or index), op type, opset.
std::string DescribeNode(const onnx::NodeProto& node, int index, int64_t opset) {
  std::ostringstream os;
  os << "ONNX node ";
  if (node.name().empty())
    os << "#" << index;
  else
    os << "'" << node.name() << "'";
  os << " (op " << node.op_type() << ", opset " << opset << ")";
  return os.str();
}

int64_t DefaultOpset(const onnx::ModelProto& model) {
  int64_t opset = -1;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  if (opset < 0) TS_THROW(kParse) << "the model imports no opset of the default ONNX domain";
  if (opset < kMinOpset || opset > kMaxOpset)
    TS_THROW(kUnsupported) << "opset " << opset << " of the default domain is not supported "
                           << "(the importer reads opsets " << kMinOpset << " to " << kMaxOpset
                           << ")";
  return opset;
}

void ConvertNode(Context& ctx, const onnx::NodeProto& node) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    TS_THROW(kUnsupported) << "ops of domain '" << node.domain() << "' are not supported";
  const auto& table = Converters();
  auto it = table.find(node.op_type());
  if (it == table.end())
    TS_THROW(kUnsupported) << "op type '" << node.op_type() << "' is not supported";
  NodeAttrs attrs(node);
  std::vector<Expr> outs = it->second(ctx, node, attrs);
  std::vector<std::string> unread = attrs.Unread();
  if (!unread.empty()) attrs.Reject(unread[0], "is not supported");
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    if (i >= static_cast<int>(outs.size()) || !outs[static_cast<size_t>(i)].defined())
      TS_THROW(kUnsupported) << "output " << i << " ('" << node.output(i) << "') is not supported";
    ctx.Bind(node.output(i), outs[static_cast<size_t>(i)]);
  }
}

IRModule ImportModel(const onnx::ModelProto& model, const OnnxImportOptions& options) {
  if (!model.has_graph()) TS_THROW(kParse) << "the model has no graph";
  int64_t opset = DefaultOpset(model);
  const onnx::GraphProto& graph = model.graph();
  Context ctx(opset);

  std::set<std::string> initializer_names;
  for (const auto& init : graph.initializer()) initializer_names.insert(init.name());
  std::vector<Var> params;
  for (const auto& in : graph.input()) {
    if (initializer_names.count(in.name())) continue;  // a default value, not an input
    if (in.name().empty()) TS_THROW(kParse) << "a graph input has no name";
    Var v = MakeVar(in.name(), InputType(in, options));
    v->set_checked_type(v->type_annotation);
    ctx.Bind(in.name(), v);
    params.push_back(v);
  }
  for (const auto& [name, shape] : options.shape_overrides) {
    bool found = false;
    for (const Var& p : params) found = found || p->name_hint == name;
    if (!found)
      TS_THROW(kNotFound) << "shape_overrides names '" << name << "', which is not a graph input";
  }
  for (const auto& init : graph.initializer()) {
    NDArray data = onnx_detail::TensorFromProto(init, "initializer '" + init.name() + "'");
    if (options.params_as_inputs) {
      Var v = MakeVar(init.name(), MakeTensorType(data.shape(), data.dtype()));
      v->set_checked_type(v->type_annotation);
      ctx.Bind(init.name(), v);
      params.push_back(v);
    } else {
      ctx.Bind(init.name(), ctx.Const(data));
    }
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    try {
      ConvertNode(ctx, node);
    } catch (const Error& err) {
      throw Error(err.kind(), DescribeNode(node, i, opset) + ": " + err.what());
    }
  }
  if (graph.output_size() == 0) TS_THROW(kParse) << "the graph has no outputs";
  std::vector<Expr> outs;
  for (const auto& out : graph.output()) {
    Expr e = ctx.Lookup(out.name());
    if (!e.defined())
      TS_THROW(kParse) << "graph output '" << out.name() << "' is produced by no node";
    outs.push_back(e);
  }
  Expr body = outs.size() == 1 ? outs[0] : Expr(MakeTuple(outs));
  // The checked types set during conversion are caches; InferTypes recomputes them.
  return InferTypes(IRModule::FromExpr(MakeFunction(params, body)));
}

}  // namespace

IRModule FromOnnxBytes(const std::string& bytes, const OnnxImportOptions& options,
                       const std::string& source) {
  onnx::ModelProto model;
  if (bytes.empty()) TS_THROW(kParse) << source << ": empty file, not an ONNX model";
  if (!model.ParseFromString(bytes))
    TS_THROW(kParse) << source << ": not a valid ONNX model (protobuf parsing failed; the file "
                     << "is truncated or not an ONNX ModelProto)";
  try {
    return ImportModel(model, options);
  } catch (const Error& err) {
    throw Error(err.kind(), source + ": " + err.what());
  }
}

IRModule FromOnnxFile(const std::string& path, const OnnxImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) TS_THROW(kIO) << "cannot open ONNX model '" << path << "'";
  std::ostringstream buf;
  buf << in.rdbuf();
  return FromOnnxBytes(buf.str(), options, path);
}

std::vector<std::string> OnnxSupportedOps() {
  std::vector<std::string> out;
  for (const auto& [name, conv] : Converters()) out.push_back(name);
  return out;
}

std::pair<int64_t, int64_t> OnnxSupportedOpsetRange() {
  return {kMinOpset, kMaxOpset};
}

bool OnnxImporterAvailable() {
  return true;
}

}  // namespace frontend
}  // namespace tessera
