// The pass registry and the textual pipeline: parse/print round trips, option handling,
// error messages with columns, and the `tessera opt` command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pass_infra_test_util.h"
#include "tessera/ir/printer.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::pass_test {
namespace {

/// Registers "PipelineTest.Mark" once: sets module attr "mark" to "<tag>:<count>:<ratio>:<flag>".
void RegisterMarkPass() {
  static bool registered = [] {
    RegisterPass(
        {"PipelineTest.Mark",
         "test-only pass recording its options on the module",
         {{"tag", AttrValue::Kind::kString, AttrValue("t"), "a label"},
          {"count", AttrValue::Kind::kInt, AttrValue(int64_t{1}), "a number"},
          {"ratio", AttrValue::Kind::kFloat, AttrValue(0.5), "a fraction"},
          {"flag", AttrValue::Kind::kBool, AttrValue(false), "a switch"}},
         [](const Attrs& o) {
           std::string mark = o.GetString("tag") + ":" + std::to_string(o.GetInt("count")) + ":" +
                              std::to_string(o.GetFloat("ratio")) + ":" +
                              (o.GetBool("flag") ? "on" : "off");
           return CreateModulePass(
               [mark](IRModule mod, const PassContext&) { return mod.WithAttr("mark", mark); },
               PassInfo{"PipelineTest.Mark", 1, {}});
         }});
    return true;
  }();
  (void)registered;
}

/// PrintPipeline(ParsePipeline(text)).
std::string RoundTrip(const std::string& text) {
  return PrintPipeline(ParsePipeline(text));
}

/// The parse error message for `text` (fails the test if it parses).
std::string ParseError(const std::string& text) {
  return ErrorMessage([&] { ParsePipeline(text); }, ErrorKind::kParse);
}

TEST(PipelineText, RoundTripsExactly) {
  EXPECT_EQ(RoundTrip("InferType,PrintIR{header=x}"), "InferType,PrintIR{header=x}");
  EXPECT_EQ(RoundTrip("Sequential{opt_level=2}(InferType,Sequential(PrintIR))"),
            "Sequential{opt_level=2}(InferType,Sequential(PrintIR))");
  EXPECT_EQ(RoundTrip("Sequential{name=inner,opt_level=1}(FuseOps{max_depth=4})"),
            "Sequential{name=inner,opt_level=1}(FuseOps{max_depth=4})");
  EXPECT_EQ(RoundTrip("Sequential()"), "Sequential()");
  EXPECT_EQ(RoundTrip(""), "");
  // Whitespace is insignificant around names, punctuation and values.
  EXPECT_EQ(RoundTrip("  InferType , PrintIR { header = x } ,Sequential ( FoldConstant ) "),
            "InferType,PrintIR{header=x},Sequential(FoldConstant)");
}

TEST(PipelineText, StructureOfParsedPipeline) {
  Pass p = ParsePipeline("InferType,Sequential{opt_level=2}(PrintIR{header=x},FoldConstant)");
  EXPECT_EQ(p.info().name, "pipeline");
  EXPECT_EQ(p.info().opt_level, 0);
  std::vector<Pass> top = SequentialPasses(p);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].info().name, "InferType");
  EXPECT_EQ(top[1].info().name, "sequential");
  EXPECT_EQ(top[1].info().opt_level, 2);
  std::vector<Pass> inner = SequentialPasses(top[1]);
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner[0].info().name, "PrintIR");
  EXPECT_EQ(inner[1].info().name, "FoldConstant");
  EXPECT_NE(inner[1].Describe().find("pass: FoldConstant at the optimization level"),
            std::string::npos)
      << inner[1].Describe();
}

TEST(PipelineText, DefaultOptionsAreNotPrinted) {
  EXPECT_EQ(RoundTrip("PrintIR{header=,show_meta_data=false}"), "PrintIR");
  EXPECT_EQ(RoundTrip("FuseOps{max_depth=256}"), "FuseOps");
  EXPECT_EQ(RoundTrip("PrintIR{show_meta_data=true}"), "PrintIR{show_meta_data=true}");
  // Options print in registration order whatever order they were given in.
  RegisterMarkPass();
  EXPECT_EQ(RoundTrip("PipelineTest.Mark{flag=1,count=7,tag=t}"),
            "PipelineTest.Mark{count=7,flag=true}");
}

TEST(PipelineText, OptionValuesOfEveryKindRoundTrip) {
  RegisterMarkPass();
  EXPECT_EQ(RoundTrip("PipelineTest.Mark{ratio=1.5}"), "PipelineTest.Mark{ratio=1.5f}");
  EXPECT_EQ(RoundTrip("PipelineTest.Mark{ratio=1.5f}"), "PipelineTest.Mark{ratio=1.5f}");
  EXPECT_EQ(RoundTrip("PipelineTest.Mark{count=-3,flag=True}"),
            "PipelineTest.Mark{count=-3,flag=true}");
  // Values with separators need quotes, and print back quoted.
  EXPECT_EQ(RoundTrip("PrintIR{header=\"a, b}\"}"), "PrintIR{header=\"a, b}\"}");
  EXPECT_EQ(RoundTrip("PrintIR{header=\"say \\\"hi\\\"\"}"), "PrintIR{header=\"say \\\"hi\\\"\"}");
  EXPECT_EQ(RoundTrip("PipelineTest.Mark{tag=\"\"}"), "PipelineTest.Mark{tag=\"\"}");
}

TEST(PipelineText, ParsedPipelineRunsWithOptionsAndGating) {
  RegisterMarkPass();
  IRModule in = ToyModule();
  IRModule out = ParsePipeline("PipelineTest.Mark{tag=\"a,b\",count=3,ratio=2,flag=true}")(in);
  EXPECT_EQ(out.attrs().GetString("mark"), "a,b:3:2.000000:on");
  // The registered pass keeps its own opt_level (1); a Sequential gates it as usual.
  PassContext::Scope scope(PassContext::Create(0));
  EXPECT_FALSE(ParsePipeline("PipelineTest.Mark")(in).attrs().Has("mark"));
  EXPECT_TRUE(ParsePipeline("Sequential{opt_level=0}(PipelineTest.Mark)")(in).same_as(in));
}

TEST(PipelineText, UnknownPassListsRegisteredPasses) {
  std::string msg = ParseError("InferType,NoSuchPass");
  EXPECT_NE(msg.find("pipeline column 11: unknown pass 'NoSuchPass' (registered: "),
            std::string::npos)
      << msg;
  for (const char* name : {"InferType", "PrintIR", "FuseOps", "FoldConstant"})
    EXPECT_NE(msg.find(name), std::string::npos) << name;
  msg = ErrorMessage([] { GetPass("NoSuchPass"); }, ErrorKind::kNotFound);
  EXPECT_NE(msg.find("unknown pass 'NoSuchPass' (registered: "), std::string::npos) << msg;
}

TEST(PipelineText, UnknownOptionListsValidOnes) {
  std::string msg = ParseError("FuseOps{depth=3}");
  EXPECT_NE(
      msg.find("pipeline column 1: pass 'FuseOps': unknown option 'depth' (valid: max_depth)"),
      std::string::npos)
      << msg;
  msg = ParseError("InferType,PrintIR{heder=x}");
  EXPECT_NE(msg.find("unknown option 'heder' (valid: header, show_meta_data)"), std::string::npos)
      << msg;
  msg = ParseError("InferType{x=1}");
  EXPECT_NE(msg.find("pass 'InferType': unknown option 'x' (it takes no options)"),
            std::string::npos)
      << msg;
  msg = ParseError("FuseOps{max_depth=3,max_depth=4}");
  EXPECT_NE(msg.find("option 'max_depth' given twice"), std::string::npos) << msg;
}

TEST(PipelineText, BadOptionValueNamesTheKind) {
  RegisterMarkPass();
  std::string msg = ParseError("FuseOps{max_depth=abc}");
  EXPECT_NE(msg.find("pass 'FuseOps': option 'max_depth' expects an int value, got 'abc'"),
            std::string::npos)
      << msg;
  msg = ParseError("PrintIR{show_meta_data=maybe}");
  EXPECT_NE(msg.find("option 'show_meta_data' expects a bool value, got 'maybe'"),
            std::string::npos)
      << msg;
  msg = ParseError("PipelineTest.Mark{ratio=1.5x}");
  EXPECT_NE(msg.find("option 'ratio' expects a float value, got '1.5x'"), std::string::npos) << msg;
  msg = ParseError("FuseOps{max_depth=}");
  EXPECT_NE(msg.find("expects an int value, got ''"), std::string::npos) << msg;
  // Typed options through GetPass: type errors name both kinds.
  msg = ErrorMessage([] { GetPass("FuseOps", {{"max_depth", "x"}}); }, ErrorKind::kType);
  EXPECT_NE(msg.find("pass 'FuseOps': option 'max_depth' expects an int value, got string \"x\""),
            std::string::npos)
      << msg;
  EXPECT_EQ(PrintPipeline(GetPass("FuseOps", {{"max_depth", 4}})), "FuseOps{max_depth=4}");
  EXPECT_EQ(PrintPipeline(GetPass("PipelineTest.Mark", {{"ratio", 2}})),
            "PipelineTest.Mark{ratio=2f}");
}

TEST(PipelineText, SyntaxErrorsGiveTheColumn) {
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c : std::vector<Case>{
           {"InferType,,PrintIR", "pipeline column 11: expected a pass name"},
           {"InferType,", "pipeline column 11: expected a pass name"},
           {"InferType PrintIR", "pipeline column 11: expected ',' or end of pipeline"},
           {"Sequential(InferType", "pipeline column 21: expected ')' closing Sequential"},
           {"Sequential", "pipeline column 11: expected '(' after Sequential"},
           {"InferType)", "pipeline column 10: expected ',' or end of pipeline"},
           {"PrintIR{header=x", "pipeline column 17: expected '}' closing the options"},
           {"PrintIR{header}", "pipeline column 15: expected '=' after option 'header'"},
           {"PrintIR{}", "pipeline column 9: expected an option name"},
           {"PrintIR{header=\"x}", "pipeline column 16: unterminated quoted value"},
           {"PrintIR{header=\"x\"y}",
            "pipeline column 19: expected ',' or '}' after option 'header'"},
           {"Sequential{foo=1}(InferType)",
            "Sequential takes options 'name' and 'opt_level', got 'foo'"},
           {"Sequential{opt_level=x}(InferType)", "opt_level must be an integer"},
           {"InferType-x", "pipeline column 10: expected ',' or end of pipeline"},
       }) {
    std::string msg = ParseError(c.text);
    EXPECT_NE(msg.find(c.expected), std::string::npos) << c.text << " -> " << msg;
    EXPECT_NE(msg.find(std::string("in '") + c.text + "'"), std::string::npos) << msg;
  }
}

TEST(PipelineText, DeepNestingIsAnErrorNotACrash) {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "Sequential(";
  std::string msg = ErrorMessage([&] { ParsePipeline(text); }, ErrorKind::kParse);
  EXPECT_NE(msg.find("Sequential nested deeper than 200"), std::string::npos) << msg.substr(0, 200);
  std::string ok;
  for (int i = 0; i < 50; ++i) ok += "Sequential(";
  ok += "InferType" + std::string(50, ')');
  EXPECT_EQ(RoundTrip(ok), ok);
}

TEST(PipelineText, ListPassesIsSortedAndDescribed) {
  RegisterMarkPass();
  std::vector<const PassRegistration*> passes = ListPasses();
  EXPECT_TRUE(std::is_sorted(passes.begin(), passes.end(),
                             [](auto* a, auto* b) { return a->name < b->name; }));
  auto mark = std::find_if(passes.begin(), passes.end(),
                           [](auto* r) { return r->name == "PipelineTest.Mark"; });
  ASSERT_NE(mark, passes.end());
  ASSERT_EQ((*mark)->options.size(), 4u);
  EXPECT_EQ((*mark)->options[1].name, "count");
  for (const PassRegistration* r : passes) EXPECT_FALSE(r->description.empty()) << r->name;
  // Re-registering a name is an internal error.
  ErrorMessage(
      [] {
        RegisterPass({"PipelineTest.Mark", "dup", {}, [](const Attrs&) { return PrintIR(); }});
      },
      ErrorKind::kInternal);
}

/// Runs a shell command, returning its exit status and combined output.
std::pair<int, std::string> RunCommand(const std::string& command) {
  std::string out;
  std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, ""};
  std::array<char, 4096> buf;
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(PipelineCli, OptRunsPassesWithPrintingTimingAndVerification) {
  namespace fs = std::filesystem;
  std::string templ = (fs::temp_directory_path() / "tessera_opt_XXXXXX").string();
  ASSERT_NE(::mkdtemp(templ.data()), nullptr);
  std::string file = templ + "/in.txt";
  {
    std::ofstream f(file);
    f << PrintModule(ToyModule());
  }
  auto [status, out] = RunCommand(std::string(TESSERA_CLI_PATH) + " opt " + file +
                                  " --passes 'InferType,Sequential(FoldConstant)'"
                                  " --print-after-all --time-passes --verify-each");
  EXPECT_EQ(status, 0) << out;
  for (const char* name : {"pass name: InferType", "pass name: FoldConstant",
                           "pass name: sequential", "pass name: pipeline"})
    EXPECT_NE(out.find(std::string("// After Running Pass: The meta data of the pass - ") + name),
              std::string::npos)
        << name << "\n"
        << out;
  // The timing tree (stderr): root, child, grandchild.
  std::string lines = "\n" + out;
  EXPECT_NE(lines.find("\npipeline: "), std::string::npos) << out;
  EXPECT_NE(lines.find("\n  InferType: "), std::string::npos) << out;
  EXPECT_NE(lines.find("\n  sequential: "), std::string::npos) << out;
  EXPECT_NE(lines.find("\n    FoldConstant: "), std::string::npos) << out;
  EXPECT_NE(out.find("nn.relu"), std::string::npos) << out;
  // A bad pipeline fails with the column and a non-zero status.
  auto [bad_status, bad_out] =
      RunCommand(std::string(TESSERA_CLI_PATH) + " opt " + file + " --passes 'InferType,Nope'");
  EXPECT_NE(bad_status, 0);
  EXPECT_NE(bad_out.find("pipeline column 11: unknown pass 'Nope'"), std::string::npos) << bad_out;
  fs::remove_all(templ);
}

TEST(PipelineCli, OptSaysWhatItSkipsAndRejectsBadNames) {
  namespace fs = std::filesystem;
  std::string templ = (fs::temp_directory_path() / "tessera_opt_XXXXXX").string();
  ASSERT_NE(::mkdtemp(templ.data()), nullptr);
  std::string file = templ + "/in.txt";
  {
    std::ofstream f(file);
    f << PrintModule(ToyModule());
  }
  std::string cli = std::string(TESSERA_CLI_PATH) + " opt ";
  // A pass above the opt level is skipped with a note; required or a higher level runs it.
  auto [skip_status, skip_out] = RunCommand(cli + file + " --passes EliminateCommonSubexpr");
  EXPECT_EQ(skip_status, 0) << skip_out;
  EXPECT_NE(skip_out.find("note: EliminateCommonSubexpr needs opt_level 3 and is skipped at "
                          "--opt-level 2"),
            std::string::npos)
      << skip_out;
  auto [req_status, req_out] = RunCommand(cli + file +
                                          " --passes EliminateCommonSubexpr"
                                          " --required-pass EliminateCommonSubexpr --time-passes");
  EXPECT_EQ(req_status, 0) << req_out;
  EXPECT_EQ(req_out.find("note:"), std::string::npos) << req_out;
  EXPECT_NE(req_out.find("EliminateCommonSubexpr: "), std::string::npos) << req_out;
  // Unknown pass names, out-of-range levels, directories and extra files are errors.
  auto [dis_status, dis_out] = RunCommand(cli + file + " --disable-pass Nope");
  EXPECT_EQ(dis_status, 1);
  EXPECT_NE(dis_out.find("--disable-pass: unknown pass 'Nope' (registered: "), std::string::npos)
      << dis_out;
  auto [lvl_status, lvl_out] = RunCommand(cli + file + " --opt-level 9");
  EXPECT_EQ(lvl_status, 1);
  EXPECT_NE(lvl_out.find("from 0 to 4, got '9'"), std::string::npos) << lvl_out;
  auto [dir_status, dir_out] = RunCommand(cli + templ);
  EXPECT_EQ(dir_status, 1);
  EXPECT_NE(dir_out.find("is a directory"), std::string::npos) << dir_out;
  auto [two_status, two_out] = RunCommand(cli + file + " " + file);
  EXPECT_EQ(two_status, 2);
  EXPECT_NE(two_out.find("expected one FILE, got 2"), std::string::npos) << two_out;
  // JSON errors name the file.
  std::string json = templ + "/bad.json";
  {
    std::ofstream f(json);
    f << "{\"x\": 1";
  }
  auto [json_status, json_out] = RunCommand(cli + json);
  EXPECT_EQ(json_status, 1);
  EXPECT_NE(json_out.find(json + ": invalid JSON"), std::string::npos) << json_out;
  fs::remove_all(templ);
}

}  // namespace
}  // namespace tessera::pass_test
