// Passes made from C: module, function and PrimFunc passes whose bodies are C callbacks,
// Sequential, and registering C pass factories.
#include <memory>
#include <string>
#include <vector>

#include "c_api_pass_internal.h"
#include "tessera/transform/pass_registry.h"

using namespace tessera::capi;

namespace {

using tessera::Function;
using tessera::IRModule;
using tessera::PassContext;
using tessera::PassInfo;

/// Releases the handle a callback returned when the library is done with it (the
/// library owns it, whatever happens to the value).
template <typename H>
struct Owned {
  H handle = nullptr;
  ~Owned() { Drop(handle); }
};

/// Throws the error of a failed callback of pass `name`.
void CheckCallback(TsStatus status, const std::string& kind, const std::string& name) {
  if (status != TS_OK) ThrowCallbackError(status, kind + " pass '" + name + "'");
}

/// The PassInfo of a Create call's arguments.
PassInfo InfoOf(const char* name, int opt_level, const char* const* required, size_t num_required) {
  return PassInfo{name, opt_level, NamesFromC(required, num_required, "required")};
}

}  // namespace

extern "C" {

TsStatus TsModulePassCreate(const char* name, int opt_level, const char* const* required,
                            size_t num_required, TsModulePassCallback callback, void* user_data,
                            TsUserDataDestroy destroy_user_data, TsPass* out) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy_user_data, &data)) return s;
  TS_REQUIRE(name);
  TS_REQUIRE(callback);
  TS_REQUIRE(out);
  return Guard([&] {
    std::string pass_name = name;
    auto body = [callback, data, pass_name](IRModule mod, const PassContext& ctx) {
      TsPassContext_ lent{ctx};
      Owned<TsModule> result;
      CheckCallback(callback(Lend<TsModule>(mod.get()), &lent, &result.handle, data->data()),
                    "module", pass_name);
      if (!result.handle)
        TS_THROW(kValue) << "module pass '" << pass_name << "' returned no module";
      const tessera::Object* object = reinterpret_cast<const tessera::Object*>(result.handle);
      if (!tessera::IsInstance<tessera::IRModuleNode>(object))
        TS_THROW(kType) << "module pass '" << pass_name << "' must return a module";
      return BorrowModule(result.handle);
    };
    *out = new TsPass_{tessera::CreateModulePass(std::move(body),
                                                 InfoOf(name, opt_level, required, num_required))};
  });
}

TsStatus TsFunctionPassCreate(const char* name, int opt_level, const char* const* required,
                              size_t num_required, int include_all, TsFunctionPassCallback callback,
                              void* user_data, TsUserDataDestroy destroy_user_data, TsPass* out) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy_user_data, &data)) return s;
  TS_REQUIRE(name);
  TS_REQUIRE(callback);
  TS_REQUIRE(out);
  return Guard([&] {
    std::string pass_name = name;
    auto body = [callback, data, pass_name](Function func, const IRModule& mod,
                                            const PassContext& ctx) -> Function {
      TsPassContext_ lent{ctx};
      Owned<TsExpr> result;
      CheckCallback(callback(Lend<TsExpr>(func.get()), Lend<TsModule>(mod.get()), &lent,
                             &result.handle, data->data()),
                    "function", pass_name);
      if (!result.handle)
        TS_THROW(kValue) << "function pass '" << pass_name << "' returned no function";
      const tessera::Object* object = reinterpret_cast<const tessera::Object*>(result.handle);
      if (!tessera::IsInstance<tessera::FunctionNode>(object))
        TS_THROW(kType) << "function pass '" << pass_name << "' must return a graph function";
      return Borrow<tessera::FunctionNode>(result.handle, "a graph function");
    };
    *out = new TsPass_{tessera::CreateFunctionPass(
        std::move(body), InfoOf(name, opt_level, required, num_required), include_all != 0)};
  });
}

TsStatus TsPrimFuncPassCreate(const char* name, int opt_level, const char* const* required,
                              size_t num_required, TsFunctionPassCallback callback, void* user_data,
                              TsUserDataDestroy destroy_user_data, TsPass* out) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy_user_data, &data)) return s;
  TS_REQUIRE(name);
  TS_REQUIRE(callback);
  TS_REQUIRE(out);
  return Guard([&] {
    std::string pass_name = name;
    auto body = [callback, data, pass_name](tessera::tir::PrimFunc func, const IRModule& mod,
                                            const PassContext& ctx) -> tessera::tir::PrimFunc {
      TsPassContext_ lent{ctx};
      Owned<TsExpr> result;
      CheckCallback(callback(Lend<TsExpr>(func.get()), Lend<TsModule>(mod.get()), &lent,
                             &result.handle, data->data()),
                    "prim_func", pass_name);
      if (!result.handle) return tessera::tir::PrimFunc();
      const tessera::Object* object = reinterpret_cast<const tessera::Object*>(result.handle);
      if (!tessera::IsInstance<tessera::tir::PrimFuncNode>(object))
        TS_THROW(kType) << "prim_func pass '" << pass_name << "' must return a PrimFunc or NULL";
      return Borrow<tessera::tir::PrimFuncNode>(result.handle, "a PrimFunc");
    };
    *out = new TsPass_{tessera::CreatePrimFuncPass(
        std::move(body), InfoOf(name, opt_level, required, num_required))};
  });
}

TsStatus TsSequentialCreate(const TsPass* passes, size_t num_passes, const char* name,
                            int opt_level, const char* const* required, size_t num_required,
                            TsPass* out) {
  if (num_passes) TS_REQUIRE(passes);
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<tessera::Pass> list;
    for (size_t i = 0; i < num_passes; ++i) {
      if (!passes[i]) TS_THROW(kValue) << "Sequential: pass " << i << " is NULL";
      list.push_back(passes[i]->pass);
    }
    *out = new TsPass_{tessera::Sequential(std::move(list), name ? name : "sequential", opt_level,
                                           NamesFromC(required, num_required, "required"))};
  });
}

TsStatus TsPassRegister(const char* name, const char* description, TsPassFactoryCallback factory,
                        void* user_data, TsUserDataDestroy destroy_user_data) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy_user_data, &data)) return s;
  TS_REQUIRE(name);
  TS_REQUIRE(factory);
  return Guard([&] {
    std::string pass_name = name;
    for (const tessera::PassRegistration* r : tessera::ListPasses())
      if (r->name == pass_name)
        TS_THROW(kValue) << "a pass named '" << pass_name << "' is already registered";
    auto make = [factory, data, pass_name](const tessera::Attrs&) {
      TsPass made = nullptr;
      TsStatus status = factory(&made, data->data());
      std::unique_ptr<TsPass_> owned(made);
      if (status != TS_OK) ThrowCallbackError(status, "the factory of pass '" + pass_name + "'");
      if (!owned) TS_THROW(kValue) << "the factory of pass '" << pass_name << "' returned no pass";
      return owned->pass;
    };
    tessera::RegisterPass({pass_name, description ? description : "", {}, std::move(make)});
  });
}

}  // extern "C"
