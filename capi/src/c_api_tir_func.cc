// The C API of PrimFuncs, the tensor-level functions a module holds beside graph functions:
// the builder, field getters, body replacement and printing as module text.
#include <string>

#include "c_api_tir_internal.h"
#include "tessera/c_api.h"
#include "tessera/ir/printer.h"

using namespace tessera::capi;
using namespace tessera::capi::tirc;

namespace {

constexpr const char* kPrimFunc = "a PrimFunc";

}  // namespace

extern "C" {

TsStatus TsPrimFuncCreate(const TsBuffer* params, size_t num_params, TsStmt body, int num_outputs,
                          const TsNamedAttribute* attrs, size_t num_attrs, TsExpr* out) {
  const char* where = "TsPrimFuncCreate";
  TS_REQUIRE(body);
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_outputs < 1 || static_cast<size_t>(num_outputs) > num_params)
      TS_THROW(kValue) << where << ": num_outputs must be from 1 to the " << num_params
                       << " buffer(s), got " << num_outputs;
    *out = Give<TsExpr>(
        MakePrimFunc(NodesOf<BufferNode>(params, num_params, "TsPrimFuncCreate: param", "a buffer"),
                     num_outputs, Node<StmtNode>(body, where, "body", "a statement"),
                     AttrsFromC(attrs, num_attrs, "PrimFunc attributes")));
  });
}

TsStatus TsPrimFuncGetNumOutputs(TsExpr func, int* out) {
  return Field<PrimFuncNode>(func, out, __func__, "func", kPrimFunc,
                             [](const PrimFuncNode& f, int& o) { o = f.num_outputs; });
}

TsStatus TsPrimFuncGetNumParams(TsExpr func, size_t* out) {
  return Field<PrimFuncNode>(func, out, __func__, "func", kPrimFunc,
                             [](const PrimFuncNode& f, size_t& o) { o = f.params.size(); });
}

TsStatus TsPrimFuncGetParam(TsExpr func, size_t index, TsBuffer* out) {
  return Field<PrimFuncNode>(func, out, __func__, "func", kPrimFunc,
                             [&](const PrimFuncNode& f, TsBuffer& o) {
                               CheckIndex(index, f.params.size(), "TsPrimFuncGetParam: param");
                               o = Give<TsBuffer>(f.params[index]);
                             });
}

TsStatus TsPrimFuncGetBody(TsExpr func, TsStmt* out) {
  return Field<PrimFuncNode>(func, out, __func__, "func", kPrimFunc,
                             [](const PrimFuncNode& f, TsStmt& o) { o = Give<TsStmt>(f.body); });
}

TsStatus TsPrimFuncWithBody(TsExpr func, TsStmt body, TsExpr* out) {
  TS_REQUIRE(body);
  return Field<PrimFuncNode>(
      func, out, __func__, "func", kPrimFunc, [&](const PrimFuncNode& f, TsExpr& o) {
        o = Give<TsExpr>(MakePrimFunc(
            f.params, f.num_outputs,
            Node<StmtNode>(body, "TsPrimFuncWithBody", "body", "a statement"), f.attrs));
      });
}

TsStatus TsPrimFuncPrint(TsExpr func, TsStringRef name, TsStringCallback callback,
                         void* user_data) {
  TS_REQUIRE(func);
  TS_REQUIRE(callback);
  return Guard([&] {
    const char* where = "TsPrimFuncPrint";
    std::string text = StringOf(name, "TsPrimFuncPrint: name");
    PrimFunc f = Node<PrimFuncNode>(func, where, "func", kPrimFunc);
    Emit(tessera::PrintModule(tessera::IRModule().WithFunction(text.empty() ? "func" : text, f)),
         callback, user_data);
  });
}

}  // extern "C"
