// Text format: a call of every registered op round-trips, with required attributes
// supplied and with each defaulted attribute changed where the op accepts the change.
#include <map>
#include <set>

#include "test_text_util.h"

namespace tessera {
namespace {

using testing::ExpectRoundTrip;
using testing::F32;

/// A plausible value for a required attribute of kind `type`.
AttrValue RequiredValue(const AttrField& field) {
  switch (field.type) {
    case AttrType::kInt:
      return 1;
    case AttrType::kFloat:
      return 0.5;
    case AttrType::kBool:
      return true;
    case AttrType::kString:
      return field.name.find("layout") != std::string::npos ? "NCHW" : "float32";
    case AttrType::kIntArray:
      return AttrValue::Ints({1, 1});
    case AttrType::kNestedIntArray:
      return AttrValue{AttrValue::Ints({0, 0}), AttrValue::Ints({1, 1})};
    case AttrType::kIntOrIntArray:
      return 2;
    default:
      return AttrValue();
  }
}

/// A value different from `v` of the same kind, or None when there is no obvious one.
AttrValue Changed(const AttrValue& v) {
  if (v.is_int()) return v.AsInt() + 1;
  if (v.is_float()) return v.AsFloat() * 2 + 0.25;
  if (v.is_bool()) return !v.AsBool();
  return AttrValue();
}

TEST(TextOps, EveryRegisteredOpRoundTrips) {
  const OpRegistry& registry = OpRegistry::Global();
  // Ops whose first input is a tuple of tensors.
  const std::set<std::string> tuple_input = {"concatenate", "stack", "meshgrid", "add_n"};
  // Ops whose required attributes need specific values.
  const std::map<std::string, Attrs> special = {
      {"nn.pad", Attrs{{"pad_width", AttrValue{AttrValue::Ints({0, 0}), AttrValue::Ints({1, 1})}}}},
      {"reshape", Attrs{{"newshape", AttrValue::Ints({3, 2})}}},
      {"cast", Attrs{{"dtype", "float16"}}},
      {"layout_transform", Attrs{{"index_map", "lambda i, j: (j, i)"}}},
  };
  int tested = 0, changed = 0;
  for (const std::string& name : registry.ListOps()) {
    if (name == kCallTirOp) continue;
    const OpDef& def = registry.Get(name);
    std::vector<Var> params;
    std::vector<Expr> args;
    for (const std::string& input : def.inputs) {
      params.push_back(MakeVar(input, F32({2, 3})));
      args.push_back(params.back());
    }
    if (tuple_input.count(name) && !args.empty()) {
      params.push_back(MakeVar("extra", F32({2, 3})));
      args[0] = MakeTuple({params[0], params.back()});
    }
    Attrs attrs;
    if (special.count(name)) {
      attrs = special.at(name);
    } else {
      for (const AttrField& f : def.attrs)
        if (f.default_value.is_none() && !RequiredValue(f).is_none())
          attrs.Set(f.name, RequiredValue(f));
    }
    auto module_of = [&](const Attrs& a) {
      return IRModule::FromExpr(MakeFunction(params, MakeOpCall(name, args, a)));
    };
    IRModule m;
    try {
      m = module_of(attrs);
    } catch (const Error& e) {
      ADD_FAILURE() << "cannot build a call of " << name << ": " << e.what();
      continue;
    }
    SCOPED_TRACE(name);
    ExpectRoundTrip(m);
    ++tested;
    // Each attribute moved off its default prints and parses back.
    for (const AttrField& f : def.attrs) {
      AttrValue v = Changed(f.default_value);
      if (v.is_none() || attrs.Has(f.name)) continue;
      IRModule mc;
      try {
        mc = module_of(attrs.With(f.name, v));
      } catch (const Error&) {
        continue;  // the op constrains this attribute; the default case covers it
      }
      std::string text = ExpectRoundTrip(mc);
      EXPECT_NE(text.find(f.name + "="), std::string::npos) << text;
      ++changed;
    }
  }
  EXPECT_GE(tested, 2);
  EXPECT_EQ(tested + 1, static_cast<int>(registry.ListOps().size()));
  RecordProperty("ops_tested", tested);
  RecordProperty("attributes_changed", changed);
}

}  // namespace
}  // namespace tessera
