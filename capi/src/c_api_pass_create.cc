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

/// The PassInfo of a Create call's arguments.
PassInfo InfoOf(const char* name, int opt_level, const char* const* required, size_t num_required) {
  return PassInfo{name, opt_level, NamesFromC(required, num_required, "required")};
}

/// The body of a function or PrimFunc pass (`where`, for errors): calls C `callback` on each
/// function F, whose node type is T, and takes the T it returns (`kind`); NULL is an error
/// unless `null_removes` (then the function is removed).
template <typename T, typename F>
auto FunctionBody(TsFunctionPassCallback callback, UserDataPtr data, std::string where,
                  const char* kind, bool null_removes) {
  return [=](F func, const IRModule& mod, const PassContext& ctx) -> F {
    TsPassContext_ lent{ctx};
    TsExpr result = nullptr;
    TsStatus status =
        callback(Lend<TsExpr>(func.get()), Lend<TsModule>(mod.get()), &lent, &result, data->data());
    F adopted(AdoptResult<T>(status, result, kind, where));
    if (!adopted.defined() && !null_removes) TS_THROW(kValue) << where << " returned no function";
    return adopted;
  };
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
      TsModule result = nullptr;
      TsStatus status = callback(Lend<TsModule>(mod.get()), &lent, &result, data->data());
      std::string where = "module pass '" + pass_name + "'";
      auto adopted = AdoptResult<tessera::IRModuleNode>(status, result, "a module", where);
      if (!adopted) TS_THROW(kValue) << where << " returned no module";
      return IRModule(adopted);
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
    auto body = FunctionBody<tessera::FunctionNode, Function>(
        callback, data, std::string("function pass '") + name + "'", "a graph function", false);
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
    auto body = FunctionBody<tessera::tir::PrimFuncNode, tessera::tir::PrimFunc>(
        callback, data, std::string("prim_func pass '") + name + "'", "a PrimFunc or NULL", true);
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
