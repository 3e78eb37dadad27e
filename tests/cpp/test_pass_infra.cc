// Pass kinds, Sequential gating and dependencies, PassContext config and scopes (ports of
// TVM's test_pass_manager.py, test_node_reflection::test_pass_config and tests/cpp ideas).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <thread>

#include "pass_infra_test_util.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/tir.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::pass_test {
namespace {

/// A module pass adding `myAbs` (= nn.relu of its input), like TVM's module_pass_test.
IRModule AddMyAbs(IRModule mod, const PassContext&) {
  Var y = MakeVar("y", MakeTensorType({1, 3}));
  return mod.WithFunction("myAbs", MakeFunction({y}, MakeOpCall("nn.relu", {y})));
}

/// A function pass wrapping every function body in nn.relu.
Function WrapInRelu(Function f, const IRModule&, const PassContext&) {
  return MakeFunction(f->params, MakeOpCall("nn.relu", {f->body}), f->ret_type, f->attrs);
}

/// True when `f`'s body is nn.relu applied to exactly `inner`.
bool IsReluOf(const Function& f, const Expr& inner) {
  const auto* call = f->body.as<CallNode>();
  return call && call->op() && call->op()->name == "nn.relu" && call->args.size() == 1 &&
         call->args[0].same_as(inner);
}

TEST(PassInfra, PassInfoFieldsAndText) {
  PassInfo info{"xyz", 1, {}};
  EXPECT_EQ(info.name, "xyz");
  EXPECT_EQ(info.opt_level, 1);
  EXPECT_TRUE(info.required.empty());
  EXPECT_EQ(info.ToString(),
            "The meta data of the pass - pass name: xyz, opt_level: 1, required passes: []");
  PassInfo with_deps{"p", 3, {"A", "B"}};
  EXPECT_EQ(with_deps.ToString(),
            "The meta data of the pass - pass name: p, opt_level: 3, required passes: [A, B]");
}

TEST(PassInfra, ModulePassAddsFunctionAndKeepsOthers) {
  Pass pass = CreateModulePass(AddMyAbs, PassInfo{"module_pass_test", 0, {}});
  EXPECT_EQ(pass.info().name, "module_pass_test");
  EXPECT_EQ(pass.info().opt_level, 0);
  EXPECT_EQ(pass.Describe(), "Run Module pass: module_pass_test at the optimization level 0");
  EXPECT_EQ(pass.ToPipelineString(), "module_pass_test");
  EXPECT_TRUE(SequentialPasses(pass).empty());
  IRModule in = ToyModule();
  IRModule out = pass(in);
  ASSERT_EQ(out.functions().size(), 2u);
  EXPECT_EQ(out.functions()[0].first, "main");
  EXPECT_EQ(out.functions()[1].first, "myAbs");
  EXPECT_TRUE(out.Lookup("main").same_as(in.Lookup("main")));  // untouched function shared
  EXPECT_EQ(in.functions().size(), 1u);                        // input unchanged
  // "Direct call" form with another level: the level is kept in the info.
  Pass level3 = CreateModulePass(AddMyAbs, PassInfo{"AddMyAbs", 3, {}});
  EXPECT_EQ(level3.info().opt_level, 3);
}

TEST(PassInfra, ClassFunctionPassReplacesMain) {
  // The C++ form of TVM's @function_pass class: a callable object holding state.
  struct TestReplaceFunc {
    Function new_func;
    Function operator()(Function, const IRModule&, const PassContext&) const { return new_func; }
  };
  Function f1 = ReluAddFunction();
  Pass pass = CreateFunctionPass(TestReplaceFunc{f1}, PassInfo{"TestReplaceFunc", 1, {}});
  EXPECT_EQ(pass.info().opt_level, 1);
  EXPECT_EQ(pass.info().name, "TestReplaceFunc");
  EXPECT_EQ(pass.Describe(), "Run Function pass: TestReplaceFunc at the optimization level 1");
  IRModule out = pass(ToyModule());
  EXPECT_TRUE(out.LookupFunction("main").same_as(f1));
}

TEST(PassInfra, FunctionPassRewritesEveryEligibleFunction) {
  IRModule in = CreateModulePass(AddMyAbs, PassInfo{"add", 0, {}})(ToyModule());
  Pass pass = CreateFunctionPass(WrapInRelu, PassInfo{"WrapInRelu", 1, {}});
  IRModule out = pass(in);
  ASSERT_EQ(out.functions().size(), 2u);
  EXPECT_EQ(out.functions()[0].first, "main");  // positions kept
  EXPECT_TRUE(IsReluOf(out.LookupFunction("main"), in.LookupFunction("main")->body));
  EXPECT_TRUE(IsReluOf(out.LookupFunction("myAbs"), in.LookupFunction("myAbs")->body));
}

TEST(PassInfra, FunctionPassReturningInputKeepsModuleIdentity) {
  Pass identity =
      CreateFunctionPass([](Function f, const IRModule&, const PassContext&) { return f; },
                         PassInfo{"Identity", 0, {}});
  IRModule in = ToyModule();
  EXPECT_TRUE(identity(in).same_as(in));
  Pass null_result =
      CreateFunctionPass([](Function, const IRModule&, const PassContext&) { return Function(); },
                         PassInfo{"Null", 0, {}});
  std::string msg = ErrorMessage([&] { null_result(in); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("function pass 'Null' returned null for @main"), std::string::npos) << msg;
}

TEST(PassInfra, ModuleClassPassResultIdentityIsPreserved) {
  // TVM's TestPipeline(new_mod, replace): the infrastructure must not copy or wrap the
  // module a pass returns.
  struct TestPipeline {
    IRModule new_mod;
    bool replace;
    IRModule operator()(IRModule mod, const PassContext&) const { return replace ? new_mod : mod; }
  };
  IRModule m1 = ToyModule(), m2 = ToyModule();
  EXPECT_TRUE(
      CreateModulePass(TestPipeline{m2, true}, PassInfo{"TestPipeline", 0, {}})(m1).same_as(m2));
  EXPECT_TRUE(
      CreateModulePass(TestPipeline{m2, false}, PassInfo{"TestPipeline", 0, {}})(m1).same_as(m1));
  // The same through a Sequential and with an instrument attached.
  Events events = NewEvents();
  PassContext ctx = PassContext::Create(2, {}, {}, {}, {Recorder("1", events)});
  Pass seq =
      Sequential({CreateModulePass(TestPipeline{m2, true}, PassInfo{"TestPipeline", 0, {}})});
  EXPECT_TRUE(seq(m1, ctx).same_as(m2));
  EXPECT_TRUE(Sequential({})(m1, ctx).same_as(m1));
}

TEST(PassFunction, SkipsCompilerPrimitiveAndSkipOptimizationUnlessIncludeAll) {
  IRModule mod =
      ToyModule()
          .WithFunction("prim", WithAttr(ReluAddFunction(), attr::kPrimitive, int64_t{1}))
          .WithFunction("ext", WithAttr(ReluAddFunction(), attr::kCompiler, "ccompiler"))
          .WithFunction("skip", WithAttr(ReluAddFunction(), attr::kSkipOptimization, true))
          .WithFunction("plain", ReluAddFunction());
  std::map<const FunctionNode*, std::string> names;
  for (const auto& [name, f] : mod.functions()) names[f.as<FunctionNode>()] = name;
  auto run = [&](bool include_all) {
    std::vector<std::string> seen;
    Pass pass = CreateFunctionPass(
        [&](Function f, const IRModule&, const PassContext&) {
          seen.push_back(names[f.get()]);
          return f;
        },
        PassInfo{"Visit", 0, {}}, include_all);
    pass(mod);
    return seen;
  };
  EXPECT_EQ(run(false), (std::vector<std::string>{"main", "plain"}));
  EXPECT_EQ(run(true), (std::vector<std::string>{"main", "prim", "ext", "skip", "plain"}));
}

/// `for i in 0..4: B[i] = A[i]` as a PrimFunc.
tir::PrimFunc CopyPrimFunc() {
  tir::Buffer a = tir::MakeBuffer("A", {4}), b = tir::MakeBuffer("B", {4});
  tir::Var i = tir::MakeVar("i");
  tir::Stmt body = tir::MakeFor(i, tir::IntImm(0), tir::IntImm(4), tir::ForKind::kSerial,
                                tir::MakeStore(b, tir::MakeLoad(a, {i}), {i}));
  return tir::MakePrimFunc({a, b}, 1, body);
}

TEST(PassFunction, PrimFuncPassRemovesFunctionsReturningNull) {
  tir::PrimFunc f1 = CopyPrimFunc(), f2 = CopyPrimFunc();
  IRModule mod = ToyModule().WithFunction("f1", f1).WithFunction("f2", f2);
  int calls = 0;
  Pass remove_f1 = CreatePrimFuncPass(
      [&](tir::PrimFunc f, const IRModule&, const PassContext&) {
        ++calls;
        return f.same_as(f1) ? tir::PrimFunc() : f;
      },
      PassInfo{"RemoveF1", 0, {}});
  EXPECT_EQ(remove_f1.Describe(), "Run PrimFunc pass: RemoveF1 at the optimization level 0");
  IRModule out = remove_f1(mod);
  EXPECT_EQ(calls, 2);  // graph functions are not visited
  ASSERT_EQ(out.functions().size(), 2u);
  EXPECT_EQ(out.functions()[0].first, "main");
  EXPECT_EQ(out.functions()[1].first, "f2");
  EXPECT_TRUE(out.Lookup("f2").same_as(f2));
  EXPECT_TRUE(mod.Contains("f1"));  // input untouched
  Pass keep =
      CreatePrimFuncPass([](tir::PrimFunc f, const IRModule&, const PassContext&) { return f; },
                         PassInfo{"Keep", 0, {}});
  EXPECT_TRUE(keep(mod).same_as(mod));
}

TEST(PassSequential, InfoDefaultsAndEmptyIsIdentity) {
  Pass seq = Sequential({}, "sequential", 2);
  EXPECT_EQ(seq.info().name, "sequential");
  EXPECT_EQ(seq.info().opt_level, 2);
  EXPECT_EQ(seq.Describe(), "Run Sequential pass: sequential at the optimization level 2");
  EXPECT_EQ(Sequential({}).info().opt_level, 0);  // default 0 (TVM #8634)
  IRModule in = ToyModule();
  EXPECT_TRUE(Sequential({})(in).same_as(in));
  std::string msg = ErrorMessage([] { Sequential({Pass()}, "bad"); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("Sequential 'bad' given an undefined pass"), std::string::npos) << msg;
}

TEST(PassSequential, RunsChildrenInOrderAndRespectsRequiredPass) {
  Pass mod_pass = CreateModulePass(AddMyAbs, PassInfo{"mod_transform", 1, {}});
  Pass func_pass = CreateFunctionPass(WrapInRelu, PassInfo{"func_transform", 1, {}});
  IRModule in = ToyModule();
  {  // module pass only, enabled through required_pass at opt_level 0
    PassContext::Scope scope(PassContext::Create(0, {"mod_transform"}));
    IRModule out = Sequential({mod_pass, func_pass})(in);
    EXPECT_TRUE(out.Contains("myAbs"));
    EXPECT_TRUE(out.LookupFunction("main").same_as(in.LookupFunction("main")));
  }
  {  // function pass only
    PassContext::Scope scope(PassContext::Create(0, {"func_transform"}));
    IRModule out = Sequential({mod_pass, func_pass})(in);
    EXPECT_FALSE(out.Contains("myAbs"));
    EXPECT_TRUE(IsReluOf(out.LookupFunction("main"), in.LookupFunction("main")->body));
  }
  {  // both: the function pass also rewrites the function the module pass added
    PassContext::Scope scope(PassContext::Create(1));
    IRModule out = Sequential({mod_pass, func_pass})(in);
    ASSERT_TRUE(out.Contains("myAbs"));
    EXPECT_TRUE(IsReluOf(out.LookupFunction("main"), in.LookupFunction("main")->body));
    const auto* call = out.LookupFunction("myAbs")->body.as<CallNode>();
    ASSERT_TRUE(call && call->op());
    EXPECT_EQ(call->op()->name, "nn.relu");
    const auto* inner = call->args[0].as<CallNode>();  // the original nn.relu(%y), wrapped
    ASSERT_TRUE(inner);
    EXPECT_TRUE(inner->args[0].as<VarNode>());
    // In reverse order the function pass never sees myAbs.
    IRModule reversed = Sequential({func_pass, mod_pass})(in);
    EXPECT_TRUE(reversed.LookupFunction("myAbs")->body.as<CallNode>()->args[0].as<VarNode>());
  }
}

TEST(PassSequential, NestedSequentialWithDefaultLevelRunsAtOptLevel1) {
  // TVM #8634: Sequential([Sequential([SimplifyExpr])]) at opt_level=1 must run the pass.
  Events events = NewEvents();
  Pass nested = Sequential({Sequential({LoggingPass("Level0", events, 0)})});
  PassContext::Scope scope(PassContext::Create(1));
  nested(ToyModule());
  EXPECT_EQ(*events, (std::vector<std::string>{"pass Level0"}));
  // An explicitly higher-level nested Sequential is gated like any child.
  events->clear();
  Sequential({Sequential({LoggingPass("Level0", events, 0)}, "inner", 2)})(ToyModule());
  EXPECT_TRUE(events->empty());
}

TEST(PassSequential, EnablementDisabledThenRequiredThenOptLevel) {
  Events events = NewEvents();
  Pass p = LoggingPass("P", events, 3);
  auto ran = [&](PassContext ctx) {
    events->clear();
    Sequential({p})(ToyModule(), ctx);
    return !events->empty();
  };
  EXPECT_FALSE(ran(PassContext::Create(2)));
  EXPECT_TRUE(ran(PassContext::Create(3)));
  EXPECT_TRUE(ran(PassContext::Create(0, {"P"})));          // required bypasses opt_level
  EXPECT_FALSE(ran(PassContext::Create(3, {}, {"P"})));     // disabled
  EXPECT_FALSE(ran(PassContext::Create(3, {"P"}, {"P"})));  // disabled wins over required
  EXPECT_TRUE(ran(PassContext::Create(3, {}, {"p"})));      // names compare exactly
  PassContext ctx = PassContext::Create(1, {"R"}, {"D"});
  EXPECT_TRUE(ctx.PassEnabled(PassInfo{"R", 4, {}}));
  EXPECT_FALSE(ctx.PassEnabled(PassInfo{"D", 0, {}}));
  EXPECT_TRUE(ctx.PassEnabled(PassInfo{"X", 1, {}}));
  EXPECT_FALSE(ctx.PassEnabled(PassInfo{"X", 2, {}}));
}

TEST(PassSequential, RequiredPassBypassesShouldRun) {
  Events events = NewEvents();
  auto skipper = Recorder("1", events, Fail::kNone, {"P"});
  Pass p = LoggingPass("P", events, 3);
  Sequential({p})(ToyModule(), PassContext::Create(3, {}, {}, {}, {skipper}));
  EXPECT_EQ(std::count(events->begin(), events->end(), "pass P"), 0);
  events->clear();
  Sequential({p})(ToyModule(), PassContext::Create(0, {"P"}, {}, {}, {skipper}));
  // should_run is asked about the Sequential but not about the required pass P.
  EXPECT_EQ(*events, (std::vector<std::string>{"1 should_run sequential", "1 run_before sequential",
                                               "1 run_before P", "pass P", "1 run_after P",
                                               "1 run_after sequential"}));
}

TEST(PassSequential, DirectCallIgnoresOptLevelAndDisabled) {
  Events events = NewEvents();
  Pass p = LoggingPass("P", events, 3);
  PassContext::Scope scope(PassContext::Create(0, {}, {"P"}));
  p(ToyModule());
  EXPECT_EQ(*events, (std::vector<std::string>{"pass P"}));
}

/// Registers the dependency pass used below once (tests may run repeatedly).
void RegisterDependencyPass() {
  static bool registered = [] {
    RegisterPass(
        {"PassInfraTest.Dep", "test-only dependency that marks the module", {}, [](const Attrs&) {
           return CreateModulePass(
               [](IRModule mod, const PassContext&) {
                 int64_t n = mod.attrs().Has("deps") ? mod.attrs().GetInt("deps") : 0;
                 return mod.WithAttr("deps", n + 1);
               },
               PassInfo{"PassInfraTest.Dep", 3, {}});
         }});
    return true;
  }();
  (void)registered;
}

TEST(PassSequential, RequiredDependenciesRunFirstEveryTimeThroughTheRegistry) {
  RegisterDependencyPass();
  Events events = NewEvents();
  Pass user = CreateModulePass(
      [events](IRModule mod, const PassContext&) {
        events->push_back("user sees deps=" + std::to_string(mod.attrs().GetInt("deps")));
        return mod;
      },
      PassInfo{"User", 0, {"PassInfraTest.Dep"}});
  auto recorder = Recorder("1", events);
  // Dependencies run every time, through the instrumented call, whatever their level,
  // and even when disabled (TVM #6074: intended).
  PassContext ctx = PassContext::Create(0, {}, {"PassInfraTest.Dep"}, {}, {recorder});
  IRModule out = Sequential({user, user}, "seq")(ToyModule(), ctx);
  EXPECT_EQ(out.attrs().GetInt("deps"), 2);
  EXPECT_EQ(*events,
            (std::vector<std::string>{
                "1 should_run seq", "1 run_before seq", "1 should_run PassInfraTest.Dep",
                "1 run_before PassInfraTest.Dep", "1 run_after PassInfraTest.Dep",
                "1 should_run User", "1 run_before User", "user sees deps=1", "1 run_after User",
                "1 should_run PassInfraTest.Dep", "1 run_before PassInfraTest.Dep",
                "1 run_after PassInfraTest.Dep", "1 should_run User", "1 run_before User",
                "user sees deps=2", "1 run_after User", "1 run_after seq"}));
  // A direct call does not resolve dependencies.
  EXPECT_THROW(user(ToyModule()), Error);  // "deps" is absent: the user pass's GetInt throws
  // An unknown dependency names who required it and lists the registered passes.
  Pass broken = LoggingPass("Broken", events, 0, {"NoSuchPass"});
  std::string msg = ErrorMessage([&] { Sequential({broken})(ToyModule()); }, ErrorKind::kNotFound);
  EXPECT_NE(msg.find("pass 'Broken' requires pass 'NoSuchPass': unknown pass 'NoSuchPass'"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("PassInfraTest.Dep"), std::string::npos) << msg;
}

TEST(PassContextTest, ConfigValidation) {
  // Unknown key: not-found error listing the valid keys.
  std::string msg = ErrorMessage(
      [] {
        PassContext::Create(2, {}, {}, {{"no.such.key", true}});
      },
      ErrorKind::kNotFound);
  EXPECT_NE(msg.find("invalid config option 'no.such.key'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("testing.immutable_module"), std::string::npos) << msg;
  EXPECT_NE(msg.find("collage.enable"), std::string::npos) << msg;
  // Wrong type: names the key, the expected and the given kind.
  msg = ErrorMessage(
      [] {
        PassContext::Create(2, {}, {}, {{"testing.immutable_module", 5}});
      },
      ErrorKind::kType);
  EXPECT_NE(msg.find("config option 'testing.immutable_module' expects a bool value, got int 5"),
            std::string::npos)
      << msg;
  msg = ErrorMessage(
      [] {
        PassContext::Create(2, {}, {}, {{"collage.enable", "yes"}});
      },
      ErrorKind::kType);
  EXPECT_NE(msg.find("got string \"yes\""), std::string::npos) << msg;
  // None is rejected.
  msg = ErrorMessage(
      [] {
        PassContext::Create(2, {}, {}, {{"collage.enable", AttrValue()}});
      },
      ErrorKind::kValue);
  EXPECT_NE(msg.find("config option 'collage.enable' is None (expects a bool value)"),
            std::string::npos)
      << msg;
  // Valid values are kept; absent keys read their registered default.
  PassContext ctx = PassContext::Create(2, {}, {}, {{"collage.enable", true}});
  EXPECT_TRUE(ctx.GetConfigBool("collage.enable"));
  EXPECT_FALSE(ctx.GetConfigBool("testing.immutable_module"));
  EXPECT_FALSE(PassContext::Create().GetConfigBool("collage.enable"));
  msg = ErrorMessage([&] { ctx.GetConfig("no.such.key"); }, ErrorKind::kNotFound);
  EXPECT_NE(msg.find("no.such.key"), std::string::npos);
}

TEST(PassContextTest, RegisteredKindsIntsFloatsAndBoolsAreDistinct) {
  RegisterConfigOption("pass_infra_test.ratio", AttrValue::Kind::kFloat, 0.5, "test-only float");
  RegisterConfigOption("pass_infra_test.count", AttrValue::Kind::kInt, int64_t{3}, "test-only int");
  // Identical re-registration is idempotent; a conflicting one is an internal error.
  RegisterConfigOption("pass_infra_test.count", AttrValue::Kind::kInt, int64_t{3}, "test-only int");
  ErrorMessage(
      [] {
        RegisterConfigOption("pass_infra_test.count", AttrValue::Kind::kBool, false, "conflict");
      },
      ErrorKind::kInternal);
  PassContext ctx = PassContext::Create(2, {}, {}, {{"pass_infra_test.ratio", 2}});
  AttrValue ratio = ctx.GetConfig("pass_infra_test.ratio");
  ASSERT_TRUE(ratio.is_float());  // ints widen to float
  EXPECT_EQ(ratio.AsFloat(), 2.0);
  EXPECT_EQ(ctx.GetConfig("pass_infra_test.count").AsInt(), 3);
  std::string msg = ErrorMessage(
      [] {
        PassContext::Create(2, {}, {}, {{"pass_infra_test.count", true}});
      },
      ErrorKind::kType);
  EXPECT_NE(msg.find("expects an int value, got bool True"), std::string::npos) << msg;
  ErrorMessage(
      [] {
        PassContext::Create(2, {}, {}, {{"pass_infra_test.count", 1.5}});
      },
      ErrorKind::kType);
}

TEST(PassContextTest, ListConfigsIsSortedWithKindDefaultAndDescription) {
  std::vector<ConfigOption> configs = ListConfigs();
  ASSERT_FALSE(configs.empty());
  EXPECT_TRUE(std::is_sorted(configs.begin(), configs.end(),
                             [](const auto& a, const auto& b) { return a.key < b.key; }));
  auto it = std::find_if(configs.begin(), configs.end(),
                         [](const ConfigOption& c) { return c.key == "testing.immutable_module"; });
  ASSERT_NE(it, configs.end());
  EXPECT_EQ(it->kind, AttrValue::Kind::kBool);
  EXPECT_EQ(std::string(AttrKindName(it->kind)), "bool");
  EXPECT_EQ(it->default_value, AttrValue(false));
  EXPECT_FALSE(it->description.empty());
}

TEST(PassContextTest, ScopeGuardNestsWithoutInheritance) {
  PassContext outer = PassContext::Create(3, {}, {}, {{"collage.enable", true}});
  PassContext inner = PassContext::Create(1);
  EXPECT_EQ(PassContext::Current().opt_level(), 2);  // the thread default
  {
    PassContext::Scope a(outer);
    EXPECT_TRUE(PassContext::Current().same_as(outer));
    {
      PassContext::Scope b(inner);
      EXPECT_TRUE(PassContext::Current().same_as(inner));
      EXPECT_FALSE(PassContext::Current().GetConfigBool("collage.enable"));  // no inheritance
    }
    EXPECT_TRUE(PassContext::Current().same_as(outer));
  }
  EXPECT_FALSE(PassContext::Current().same_as(outer));
  EXPECT_EQ(PassContext::Current().opt_level(), 2);
  // A pass run under the scope sees the scope's context.
  int seen_level = -1;
  Pass probe = CreateModulePass(
      [&](IRModule m, const PassContext& ctx) {
        seen_level = ctx.opt_level();
        return m;
      },
      PassInfo{"Probe", 0, {}});
  {
    PassContext::Scope a(outer);
    probe(ToyModule());
  }
  EXPECT_EQ(seen_level, 3);
  // An exception leaving the scope still pops the context.
  try {
    PassContext::Scope a(outer);
    TS_THROW(kValue) << "body failed";
  } catch (const Error&) {
  }
  EXPECT_FALSE(PassContext::Current().same_as(outer));
}

TEST(PassContextTest, MisNestedExitIsAnError) {
  PassContext a = PassContext::Create(), b = PassContext::Create();
  std::string msg = ErrorMessage([&] { a.ExitWithScope(); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("not the innermost"), std::string::npos) << msg;
  a.EnterWithScope();
  b.EnterWithScope();
  msg = ErrorMessage([&] { a.ExitWithScope(); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("exiting a pass context that is not the innermost one"), std::string::npos);
  EXPECT_TRUE(PassContext::Current().same_as(b));  // the failed exit changed nothing
  b.ExitWithScope();
  a.ExitWithScope();
  EXPECT_FALSE(PassContext::Current().same_as(a));
}

TEST(PassContextTest, ContextsAreThreadLocal) {
  PassContext ctx = PassContext::Create(3);
  PassContext::Scope scope(ctx);
  bool other_sees_ctx = true;
  int other_level = -1;
  bool other_inner_ok = false;
  std::thread worker([&] {
    other_sees_ctx = PassContext::Current().same_as(ctx);
    other_level = PassContext::Current().opt_level();
    PassContext::Scope inner(PassContext::Create(0));
    other_inner_ok = PassContext::Current().opt_level() == 0;
  });
  worker.join();
  EXPECT_FALSE(other_sees_ctx);
  EXPECT_EQ(other_level, 2);  // a fresh default on the worker
  EXPECT_TRUE(other_inner_ok);
  EXPECT_TRUE(PassContext::Current().same_as(ctx));  // the worker's scope did not leak here
}

TEST(PassContextTest, ImmutableModuleCheck) {
  PassContext ctx = PassContext::Create(2, {}, {}, {{"testing.immutable_module", true}});
  PassContext::Scope scope(ctx);
  // A normal pass builds a new module: the check passes.
  IRModule in = ToyModule();
  IRModule out = CreateModulePass(AddMyAbs, PassInfo{"AddMyAbs", 0, {}})(in);
  EXPECT_TRUE(out.Contains("myAbs"));
  EXPECT_FALSE(in.Contains("myAbs"));
  // The API cannot mutate a module in place; a buggy pass casting const away can, and
  // the check catches it (TVM's ModuleIsMutated).
  Events events = NewEvents();
  Pass mutating = CreateModulePass(
      [](IRModule mod, const PassContext&) {
        const_cast<IRModuleNode*>(mod.get())->functions.pop_back();
        return mod;
      },
      PassInfo{"Mutating", 0, {}});
  IRModule victim = ToyModule().WithFunction("extra", ReluAddFunction());
  std::string msg = ErrorMessage([&] { mutating(victim); }, ErrorKind::kInternal);
  EXPECT_NE(msg.find("pass 'Mutating' modified its input module in place"), std::string::npos)
      << msg;
}

TEST(PassInfra, PrintIRPassWritesHeaderAndModuleToStderr) {
  Pass print = PrintIR("my header");
  EXPECT_EQ(print.info().name, "PrintIR");
  EXPECT_EQ(print.info().opt_level, 0);
  IRModule in = ToyModule();
  ::testing::internal::CaptureStderr();
  IRModule out = Sequential({CreateFunctionPass(WrapInRelu, PassInfo{"Wrap", 0, {}}), print})(in);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("PrintIR(my header):"), std::string::npos) << err;
  EXPECT_NE(err.find(PrintModule(out)), std::string::npos) << err;
  EXPECT_NE(err.find("nn.relu"), std::string::npos) << err;
}

TEST(PassInfra, InferTypePassFillsTypes) {
  Pass infer = InferType();
  EXPECT_EQ(infer.info().name, "InferType");
  IRModule out = infer(ToyModule());
  const Type& t = out.LookupFunction("main")->body->checked_type();
  ASSERT_TRUE(t.as<TensorTypeNode>());
  EXPECT_EQ(TypeToString(t), "Tensor[(1, 3), float32]");
}

}  // namespace
}  // namespace tessera::pass_test
