// The ONNX import context: typed values, emission of op calls with eager type
// inference and constant folding, tensor and attribute decoding.
#include "onnx_context.h"

#include <cstring>

#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {
namespace frontend {
namespace onnx_detail {

// ---- tensors --------------------------------------------------------------------

std::optional<DType> DTypeFromOnnx(int32_t t) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
      return DType::kFloat32;
    case onnx::TensorProto::DOUBLE:
      return DType::kFloat64;
    case onnx::TensorProto::FLOAT16:
      return DType::kFloat16;
    // BFLOAT16 is left out: NumPy (hence the Python API and .npy files) cannot carry it.
    case onnx::TensorProto::INT8:
      return DType::kInt8;
    case onnx::TensorProto::UINT8:
      return DType::kUInt8;
    case onnx::TensorProto::INT32:
      return DType::kInt32;
    case onnx::TensorProto::INT64:
      return DType::kInt64;
    case onnx::TensorProto::BOOL:
      return DType::kBool;
    default:
      return std::nullopt;
  }
}

NDArray TensorFromProto(const onnx::TensorProto& t, const std::string& what) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    TS_THROW(kUnsupported) << what << ": tensors with external data are not supported";
  std::optional<DType> dtype = DTypeFromOnnx(t.data_type());
  if (!dtype)
    TS_THROW(kUnsupported) << what << ": ONNX element type "
                           << onnx::TensorProto::DataType_Name(
                                  static_cast<onnx::TensorProto::DataType>(t.data_type()))
                           << " (" << t.data_type() << ") has no Tessera dtype";
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || (d > 0 && count > (int64_t{1} << 40) / d))
      TS_THROW(kParse) << what << ": invalid dimension " << d;
    shape.push_back(d);
    count *= d;
  }
  // The data present must match the shape before anything is allocated: a file declaring a
  // huge shape over a few bytes is malformed, not a reason to reserve terabytes.
  int64_t bytes = ShapeNumBytes(shape, *dtype);
  if (t.has_raw_data()) {
    if (static_cast<int64_t>(t.raw_data().size()) != bytes)
      TS_THROW(kParse) << what << ": raw_data holds " << t.raw_data().size() << " bytes but "
                       << DTypeName(*dtype) << ShapeToString(shape) << " needs " << bytes;
    NDArray out = NDArray::Empty(shape, *dtype);
    if (bytes) std::memcpy(out.data(), t.raw_data().data(), static_cast<size_t>(bytes));
    return out;
  }
  auto check = [&](int64_t n, const char* field) {
    if (n != count)
      TS_THROW(kParse) << what << ": " << field << " holds " << n << " values but shape "
                       << ShapeToString(shape) << " needs " << count;
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT: check(t.float_data_size(), "float_data"); break;
    case onnx::TensorProto::DOUBLE: check(t.double_data_size(), "double_data"); break;
    case onnx::TensorProto::INT64: check(t.int64_data_size(), "int64_data"); break;
    default: check(t.int32_data_size(), "int32_data"); break;  // float16, int32, int8, uint8, bool
  }
  NDArray out = NDArray::Empty(shape, *dtype);
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      for (int64_t i = 0; i < count; ++i) out.data_as<float>()[i] = t.float_data(i);
      break;
    case onnx::TensorProto::DOUBLE:
      for (int64_t i = 0; i < count; ++i) out.data_as<double>()[i] = t.double_data(i);
      break;
    case onnx::TensorProto::INT64:
      for (int64_t i = 0; i < count; ++i) out.data_as<int64_t>()[i] = t.int64_data(i);
      break;
    case onnx::TensorProto::FLOAT16:
      for (int64_t i = 0; i < count; ++i)
        out.data_as<uint16_t>()[i] = static_cast<uint16_t>(t.int32_data(i));
      break;
    default:
      for (int64_t i = 0; i < count; ++i) out.SetInt(i, t.int32_data(i));
      break;
  }
  return out;
}

// ---- attributes -----------------------------------------------------------------

NodeAttrs::NodeAttrs(const onnx::NodeProto& node) : node_(node) {}

const onnx::AttributeProto* NodeAttrs::Find(const std::string& name) {
  for (const auto& a : node_.attribute()) {
    if (a.name() == name) {
      read_.insert(name);
      return &a;
    }
  }
  return nullptr;
}

bool NodeAttrs::Has(const std::string& name) {
  return Find(name) != nullptr;
}

void NodeAttrs::Reject(const std::string& name, const std::string& why) const {
  TS_THROW(kUnsupported) << "attribute '" << name << "' " << why;
}

int64_t NodeAttrs::Int(const std::string& name, int64_t def) {
  const auto* a = Find(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::INT && !a->has_i()) Reject(name, "must be an int");
  return a->i();
}

double NodeAttrs::Float(const std::string& name, double def) {
  const auto* a = Find(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::FLOAT && !a->has_f()) Reject(name, "must be a float");
  return a->f();
}

std::string NodeAttrs::String(const std::string& name, const std::string& def) {
  const auto* a = Find(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::STRING && !a->has_s()) Reject(name, "must be a string");
  return a->s();
}

std::vector<int64_t> NodeAttrs::Ints(const std::string& name, const std::vector<int64_t>& def) {
  const auto* a = Find(name);
  if (!a) return def;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> NodeAttrs::Floats(const std::string& name) {
  const auto* a = Find(name);
  if (!a) return {};
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

const onnx::TensorProto* NodeAttrs::Tensor(const std::string& name) {
  const auto* a = Find(name);
  return a && a->has_t() ? &a->t() : nullptr;
}

std::vector<std::string> NodeAttrs::Unread() const {
  std::vector<std::string> out;
  for (const auto& a : node_.attribute())
    if (!read_.count(a.name())) out.push_back(a.name());
  return out;
}

// ---- context --------------------------------------------------------------------

int64_t NormAxis(int64_t axis, int64_t rank, const std::string& what) {
  // A scalar has no axes: indexing its (empty) shape at any axis would read past it.
  if (axis < -rank || axis >= rank)
    TS_THROW(kValue) << what << " " << axis << " is out of range for rank " << rank
                     << (rank == 0 ? " (a scalar has no axes)" : "");
  return axis < 0 ? axis + rank : axis;
}

bool Context::HasInput(const onnx::NodeProto& node, int i) const {
  return i < node.input_size() && !node.input(i).empty();
}

Expr Context::Input(const onnx::NodeProto& node, int i) const {
  if (!HasInput(node, i)) TS_THROW(kParse) << "required input " << i << " is missing";
  Expr e = Lookup(node.input(i));
  if (!e.defined())
    TS_THROW(kParse) << "input " << i << " '" << node.input(i)
                     << "' is not a graph input, initializer or earlier node output";
  return e;
}

void Context::Bind(const std::string& name, Expr value) {
  values_[name] = std::move(value);
}

Expr Context::Lookup(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? Expr() : it->second;
}

const TensorTypeNode* Context::TypeOf(const Expr& e) const {
  const auto* t = e->checked_type().as<TensorTypeNode>();
  if (!t) TS_THROW(kType) << "expected a tensor value, got a tuple";
  return t;
}

std::optional<NDArray> Context::ConstValue(const Expr& e) const {
  if (const auto* c = e.as<ConstantNode>()) return c->data;
  return std::nullopt;
}

std::vector<int64_t> Context::ConstInts(const Expr& e, const std::string& what) const {
  std::optional<NDArray> v = ConstValue(e);
  if (!v)
    TS_THROW(kUnsupported) << what
                           << " must be a constant (or computable at import from static shapes)";
  if (!IsInteger(v->dtype())) TS_THROW(kType) << what << " must be an integer tensor";
  std::vector<int64_t> out(static_cast<size_t>(v->NumElements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = v->GetInt(static_cast<int64_t>(i));
  return out;
}

Expr Context::Const(NDArray data) const {
  Constant c = MakeConstant(data);
  c->set_checked_type(MakeTensorType(data.shape(), data.dtype()));
  return c;
}

Expr Context::Scalar(double value, DType dtype) const {
  return Const(NDArray::Scalar(value, dtype));
}

namespace {

bool AllConstant(const Expr& e) {
  if (e.as<ConstantNode>()) return true;
  if (const auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields)
      if (!AllConstant(f)) return false;
    return true;
  }
  return false;
}

void Flatten(const Expr& e, std::vector<NDArray>& out) {
  if (const auto* c = e.as<ConstantNode>()) {
    out.push_back(c->data);
    return;
  }
  for (const Expr& f : e.as<TupleNode>()->fields) Flatten(f, out);
}

}  // namespace

Expr Context::Emit(const std::string& name, std::vector<Expr> args, Attrs attrs) {
  Call call = MakeOpCall(name, std::move(args), attrs);
  const OpDef* def = call->op()->def;
  std::vector<Type> arg_types;
  bool constant = true;
  for (const Expr& a : call->args) {
    arg_types.push_back(a->checked_type());
    constant = constant && AllConstant(a);
  }
  Type out;
  try {
    out = def->type_rel(arg_types, call->attrs, call->type_args);
  } catch (const Error& err) {
    throw Error(err.kind(), "op '" + name + "': " + err.what());
  }
  call->set_checked_type(out);
  if (!constant || !def->kernel) return call;
  std::vector<NDArray> inputs;
  for (const Expr& a : call->args) Flatten(a, inputs);
  std::vector<NDArray> outs = def->kernel(inputs, call->attrs, out);
  if (const auto* tt = out.as<TupleTypeNode>()) {
    std::vector<Expr> fields;
    for (size_t i = 0; i < outs.size(); ++i) fields.push_back(Const(outs[i]));
    Tuple t = MakeTuple(fields);
    t->set_checked_type(out);
    (void)tt;
    return t;
  }
  return Const(outs.at(0));
}

Expr Context::Field(const Expr& tuple, int i) {
  if (const auto* t = tuple.as<TupleNode>()) return t->fields.at(static_cast<size_t>(i));
  const auto* tt = tuple->checked_type().as<TupleTypeNode>();
  TS_ICHECK(tt && i < static_cast<int>(tt->fields.size())) << "tuple field out of range";
  TupleGetItem g = MakeTupleGetItem(tuple, i);
  g->set_checked_type(tt->fields[static_cast<size_t>(i)]);
  return g;
}

Expr Context::Reshape(const Expr& x, const std::vector<int64_t>& shape) {
  if (ShapeOf(x) == shape) return x;
  return Emit("reshape", {x}, {{"newshape", AttrValue::Ints(shape)}, {"allowzero", true}});
}

Expr Context::Cast(const Expr& x, DType dtype) {
  if (DTypeOf(x) == dtype) return x;
  return Emit("cast", {x}, {{"dtype", DTypeName(dtype)}});
}

}  // namespace onnx_detail
}  // namespace frontend
}  // namespace tessera
