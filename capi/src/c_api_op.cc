// The C API of ops (the op registry and op schemas) and of calls (op calls are validated
// and normalised like every other op call).
#include "c_api_ir_internal.h"

#include "tessera/ir/op.h"

using namespace tessera;
using namespace tessera::capi;

namespace {

/// The registry entry of the op behind `op` (a type error naming `where` otherwise).
const OpDef& DefOf(TsExpr op, const char* where) {
  const Object* object = reinterpret_cast<const Object*>(op);
  if (!IsInstance<OpNode>(object)) TS_THROW(kType) << where << ": expected an op";
  return *static_cast<const OpNode*>(object)->def;
}

Call CallOf(TsExpr call, const char* where) {
  const Object* object = reinterpret_cast<const Object*>(call);
  if (!IsInstance<CallNode>(object)) TS_THROW(kType) << where << ": expected a call";
  return Call(static_cast<const CallNode*>(object));
}

bool IsOptional(AttrType type) {
  return type == AttrType::kOptionalInt || type == AttrType::kOptionalIntArray ||
         type == AttrType::kOptionalFloat;
}

/// A call of `callee` (an op: validated by MakeOpCall) from C arrays.
Call MakeCallFromC(Expr callee, const TsExpr* args, size_t num_args, const TsNamedAttribute* attrs,
                   size_t num_attrs, const TsType* type_args, size_t num_type_args,
                   const char* where) {
  std::string what = std::string(where) + ": argument";
  std::vector<Expr> arg_nodes = NodesOf<ExprNode>(args, num_args, what.c_str(), "an expression");
  what = std::string(where) + ": type argument";
  std::vector<Type> types = NodesOf<TypeNode>(type_args, num_type_args, what.c_str(), "a type");
  Attrs given = AttrsFromC(attrs, num_attrs, where);
  if (const auto* op = callee.as<OpNode>())
    return MakeOpCall(op->name, std::move(arg_nodes), given, std::move(types));
  return MakeCall(std::move(callee), std::move(arg_nodes), std::move(given), std::move(types));
}

}  // namespace

extern "C" {

// ---- The op registry ------------------------------------------------------------------

TsStatus TsOpListNames(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    for (const std::string& name : OpRegistry::Global().ListOps()) Emit(name, callback, user_data);
  });
}

TsStatus TsOpGet(TsStringRef name, TsExpr* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = Give<TsExpr>(GetOp(StringOf(name, "TsOpGet: name"))); });
}

TsStatus TsOpGetName(TsExpr op, TsStringRef* out) {
  TS_REQUIRE(op);
  TS_REQUIRE(out);
  return Guard([&] { *out = RefOf(DefOf(op, "TsOpGetName").name); });
}

TsStatus TsOpGetDescription(TsExpr op, TsStringRef* out) {
  TS_REQUIRE(op);
  TS_REQUIRE(out);
  return Guard([&] { *out = RefOf(DefOf(op, "TsOpGetDescription").description); });
}

TsStatus TsOpGetNumInputs(TsExpr op, size_t* out) {
  TS_REQUIRE(op);
  TS_REQUIRE(out);
  return Guard([&] { *out = DefOf(op, "TsOpGetNumInputs").inputs.size(); });
}

TsStatus TsOpGetInputName(TsExpr op, size_t index, TsStringRef* out) {
  TS_REQUIRE(op);
  TS_REQUIRE(out);
  return Guard([&] {
    const OpDef& def = DefOf(op, "TsOpGetInputName");
    CheckIndex(index, def.inputs.size(), "TsOpGetInputName: input");
    *out = RefOf(def.inputs[index]);
  });
}

TsStatus TsOpIsVariadic(TsExpr op, int* out) {
  TS_REQUIRE(op);
  TS_REQUIRE(out);
  return Guard([&] { *out = DefOf(op, "TsOpIsVariadic").variadic ? 1 : 0; });
}

TsStatus TsOpGetPattern(TsExpr op, TsOpPatternKind* out) {
  TS_REQUIRE(op);
  TS_REQUIRE(out);
  // The enum's values are OpPatternKind's.
  return Guard([&] { *out = static_cast<TsOpPatternKind>(DefOf(op, "TsOpGetPattern").pattern); });
}

const char* TsOpPatternKindGetName(TsOpPatternKind kind) {
  switch (kind) {
    case TS_OP_PATTERN_ELEMWISE:
    case TS_OP_PATTERN_BROADCAST:
    case TS_OP_PATTERN_INJECTIVE:
    case TS_OP_PATTERN_COMM_REDUCE:
    case TS_OP_PATTERN_OUT_ELEMWISE_FUSABLE:
    case TS_OP_PATTERN_TUPLE:
    case TS_OP_PATTERN_OPAQUE:
      return OpPatternKindName(static_cast<OpPatternKind>(kind));
  }
  return "unknown";
}

TsStatus TsOpGetNumAttrs(TsExpr op, size_t* out) {
  TS_REQUIRE(op);
  TS_REQUIRE(out);
  return Guard([&] { *out = DefOf(op, "TsOpGetNumAttrs").attrs.size(); });
}

TsStatus TsOpGetAttrSchema(TsExpr op, size_t index, TsOpAttrSchema* out) {
  TS_REQUIRE(op);
  TS_REQUIRE(out);
  return Guard([&] {
    const OpDef& def = DefOf(op, "TsOpGetAttrSchema");
    CheckIndex(index, def.attrs.size(), "TsOpGetAttrSchema: attribute");
    const AttrField& field = def.attrs[index];
    out->name = RefOf(field.name);
    out->type = static_cast<TsOpAttrType>(field.type);  // the enum mirrors AttrType's order
    // A None default on a non-optional kind marks a required attribute.
    out->required = field.default_value.is_none() && !IsOptional(field.type) ? 1 : 0;
    out->description = RefOf(field.description);
    out->default_value = GiveAttr(field.default_value);
  });
}

const char* TsOpAttrTypeGetName(TsOpAttrType type) {
  switch (type) {
    case TS_OP_ATTR_INT:
      return "int";
    case TS_OP_ATTR_FLOAT:
      return "float";
    case TS_OP_ATTR_BOOL:
      return "bool";
    case TS_OP_ATTR_STRING:
      return "str";
    case TS_OP_ATTR_INT_ARRAY:
      return "int_array";
    case TS_OP_ATTR_NESTED_INT_ARRAY:
      return "nested_int_array";
    case TS_OP_ATTR_OPTIONAL_INT:
      return "optional_int";
    case TS_OP_ATTR_OPTIONAL_INT_ARRAY:
      return "optional_int_array";
    case TS_OP_ATTR_INT_OR_INT_ARRAY:
      return "int_or_int_array";
    case TS_OP_ATTR_OPTIONAL_FLOAT:
      return "optional_float";
  }
  return "unknown";
}

// ---- Calls --------------------------------------------------------------------------

TsStatus TsExprCallCreate(TsExpr callee, const TsExpr* args, size_t num_args,
                          const TsNamedAttribute* attrs, size_t num_attrs, const TsType* type_args,
                          size_t num_type_args, TsExpr* out) {
  TS_REQUIRE(callee);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsExpr>(MakeCallFromC(Borrow<ExprNode>(callee, "an expression as the callee"), args,
                                      num_args, attrs, num_attrs, type_args, num_type_args,
                                      "TsExprCallCreate"));
  });
}

TsStatus TsExprOpCallCreate(TsStringRef op_name, const TsExpr* args, size_t num_args,
                            const TsNamedAttribute* attrs, size_t num_attrs,
                            const TsType* type_args, size_t num_type_args, TsExpr* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    std::string name = StringOf(op_name, "TsExprOpCallCreate: op name");
    std::string where = "op '" + name + "'";
    *out = Give<TsExpr>(MakeCallFromC(GetOp(name), args, num_args, attrs, num_attrs, type_args,
                                      num_type_args, where.c_str()));
  });
}

TsStatus TsCallGetCallee(TsExpr call, TsExpr* out) {
  TS_REQUIRE(call);
  TS_REQUIRE(out);
  return Guard([&] { *out = Give<TsExpr>(CallOf(call, "TsCallGetCallee")->callee); });
}

TsStatus TsCallGetNumArgs(TsExpr call, size_t* out) {
  TS_REQUIRE(call);
  TS_REQUIRE(out);
  return Guard([&] { *out = CallOf(call, "TsCallGetNumArgs")->args.size(); });
}

TsStatus TsCallGetArg(TsExpr call, size_t index, TsExpr* out) {
  TS_REQUIRE(call);
  TS_REQUIRE(out);
  return Guard([&] {
    Call c = CallOf(call, "TsCallGetArg");
    CheckIndex(index, c->args.size(), "TsCallGetArg: argument");
    *out = Give<TsExpr>(c->args[index]);
  });
}

TsStatus TsCallGetNumAttrs(TsExpr call, size_t* out) {
  TS_REQUIRE(call);
  TS_REQUIRE(out);
  return Guard([&] { *out = CallOf(call, "TsCallGetNumAttrs")->attrs.size(); });
}

TsStatus TsCallGetAttr(TsExpr call, size_t index, TsNamedAttribute* out) {
  TS_REQUIRE(call);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = NamedAttrOf(CallOf(call, "TsCallGetAttr")->attrs, index, "TsCallGetAttr: attribute");
  });
}

TsStatus TsCallLookupAttr(TsExpr call, TsStringRef name, TsAttribute* out) {
  TS_REQUIRE(call);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = LookupAttr(CallOf(call, "TsCallLookupAttr")->attrs,
                      StringOf(name, "TsCallLookupAttr: name"), "TsCallLookupAttr");
  });
}

TsStatus TsCallGetNumTypeArgs(TsExpr call, size_t* out) {
  TS_REQUIRE(call);
  TS_REQUIRE(out);
  return Guard([&] { *out = CallOf(call, "TsCallGetNumTypeArgs")->type_args.size(); });
}

TsStatus TsCallGetTypeArg(TsExpr call, size_t index, TsType* out) {
  TS_REQUIRE(call);
  TS_REQUIRE(out);
  return Guard([&] {
    Call c = CallOf(call, "TsCallGetTypeArg");
    CheckIndex(index, c->type_args.size(), "TsCallGetTypeArg: type argument");
    *out = Give<TsType>(c->type_args[index]);
  });
}

}  // extern "C"
