// The instrument protocol (ports of TVM's test_pass_instrument.py, including every
// exception case) and the built-in instruments: timing, IR printing, dumping, verifier.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pass_infra_test_util.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/tir.h"

namespace tessera::pass_test {
namespace {

using Strings = std::vector<std::string>;

/// Counts run_before/run_after; resets on enter and exit (TVM's PassCounter).
class PassCounter : public PassInstrument {
 public:
  PassCounter() : PassInstrument("PassCounter") {}
  void EnterPassContext() override { before = after = 0; }
  void ExitPassContext() override { before = after = 0; }
  void RunBeforePass(const IRModule&, const PassInfo&) override { ++before; }
  void RunAfterPass(const IRModule&, const PassInfo&) override { ++after; }
  int before = 0, after = 0;
};

TEST(InstrumentProtocol, CustomInstrumentSeesEnterPassAndExit) {
  Events events = NewEvents();
  {
    PassContext::Scope scope(PassContext::Create(2, {}, {}, {}, {Recorder("1", events)}));
    LoggingPass("ToyPass", events)(ToyModule());
  }
  EXPECT_EQ(*events, (Strings{"1 enter", "1 should_run ToyPass", "1 run_before ToyPass",
                              "pass ToyPass", "1 run_after ToyPass", "1 exit"}));
}

TEST(InstrumentProtocol, ShouldRunFalseSkipsPassWithoutHooks) {
  // TVM's test_disable_pass: only "InferType" may run.
  struct OnlyInferType : RecordingInstrument {
    using RecordingInstrument::RecordingInstrument;
    bool ShouldRun(const IRModule&, const PassInfo& info) override {
      return info.name.find("InferType") != std::string::npos;
    }
  };
  Events events = NewEvents();
  IRModule in = ToyModule();
  {
    PassContext::Scope scope(
        PassContext::Create(2, {}, {}, {}, {std::make_shared<OnlyInferType>("1", events)}));
    for (const char* name : {"FoldConstant", "InferType", "FuseOps"})
      EXPECT_TRUE(LoggingPass(name, events)(in).same_as(in));
  }
  EXPECT_EQ(*events, (Strings{"1 enter", "1 run_before InferType", "pass InferType",
                              "1 run_after InferType", "1 exit"}));
}

TEST(InstrumentProtocol, ShouldRunResultsAreAndedWithoutShortCircuit) {
  // TVM's test_multiple_instrument: two skipping instruments and a recorder.
  Events events = NewEvents();
  auto skip_a = Recorder("A", events, Fail::kNone, {"PassA"});
  auto skip_b = Recorder("B", events, Fail::kNone, {"PassB"});
  auto rec = Recorder("R", events);
  PassContext ctx = PassContext::Create(2, {}, {}, {}, {skip_a, skip_b, rec});
  for (const char* name : {"PassA", "PassB", "PassC"}) LoggingPass(name, events)(ToyModule(), ctx);
  EXPECT_EQ(*events,
            (Strings{"A should_run PassA", "B should_run PassA", "R should_run PassA",
                     "A should_run PassB", "B should_run PassB", "R should_run PassB",
                     "A should_run PassC", "B should_run PassC", "R should_run PassC",
                     "A run_before PassC", "B run_before PassC", "R run_before PassC", "pass PassC",
                     "A run_after PassC", "B run_after PassC", "R run_after PassC"}));
}

TEST(InstrumentProtocol, ShouldRunCanSkipAWholeSequential) {
  Events events = NewEvents();
  PassContext ctx =
      PassContext::Create(2, {}, {}, {}, {Recorder("1", events, Fail::kNone, {"seq"})});
  Sequential({LoggingPass("A", events)}, "seq")(ToyModule(), ctx);
  EXPECT_EQ(*events, (Strings{"1 should_run seq"}));
}

TEST(InstrumentProtocol, FullCallSequenceIsForwardOrder) {
  // TVM's test_instrument_call_sequence, with the Sequential's own hooks visible.
  Events events = NewEvents();
  {
    PassContext::Scope scope(
        PassContext::Create(2, {}, {}, {}, {Recorder("1", events), Recorder("2", events)}));
    Sequential({LoggingPass("A", events), LoggingPass("B", events)}, "seq")(ToyModule());
  }
  EXPECT_EQ(*events,
            (Strings{"1 enter",          "2 enter",          "1 should_run seq", "2 should_run seq",
                     "1 run_before seq", "2 run_before seq", "1 should_run A",   "2 should_run A",
                     "1 run_before A",   "2 run_before A",   "pass A",           "1 run_after A",
                     "2 run_after A",    "1 should_run B",   "2 should_run B",   "1 run_before B",
                     "2 run_before B",   "pass B",           "1 run_after B",    "2 run_after B",
                     "1 run_after seq",  "2 run_after seq",  "1 exit",           "2 exit"}));
}

TEST(InstrumentProtocol, PassCountsIncludeSequentialAndNestedPasses) {
  // TVM's test_print_debug_callback / test_instrument_pass_counts: the Sequential itself
  // and nested passes are all visible; we have no hidden InferType.
  auto counter = std::make_shared<PassCounter>();
  Events events = NewEvents();
  Pass pipeline = Sequential(
      {LoggingPass("A", events), Sequential({LoggingPass("B", events)}), LoggingPass("C", events)});
  {
    PassContext::Scope scope(PassContext::Create(2, {}, {}, {}, {counter}));
    pipeline(ToyModule());
    EXPECT_EQ(counter->before, 5);  // outer, A, inner, B, C
    EXPECT_EQ(counter->after, 5);
  }
  EXPECT_EQ(counter->before, 0);
  EXPECT_EQ(counter->after, 0);
}

TEST(InstrumentException, EnterThrows) {
  Events events = NewEvents();
  PassContext ctx = PassContext::Create(
      2, {}, {}, {},
      {Recorder("1", events), Recorder("2", events, Fail::kEnter), Recorder("3", events)});
  std::string msg = ErrorMessage([&] { PassContext::Scope scope(ctx); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("Just a dummy error"), std::string::npos);
  EXPECT_EQ(*events, (Strings{"1 enter", "2 enter", "1 exit"}));
  EXPECT_FALSE(PassContext::Current().same_as(ctx));  // not pushed
  EXPECT_TRUE(ctx.instruments().empty());             // cleared
  EXPECT_TRUE(PassContext::Current().instruments().empty());
}

TEST(InstrumentException, EnterThrowsOnThreadDefaultContext) {
  DefaultInstrumentsGuard guard;
  Events events = NewEvents();
  std::string msg = ErrorMessage(
      [&] { PassContext::Current().OverrideInstruments({Recorder("1", events, Fail::kEnter)}); },
      ErrorKind::kValue);
  EXPECT_NE(msg.find("Just a dummy error"), std::string::npos);
  EXPECT_EQ(*events, (Strings{"1 enter"}));
  EXPECT_TRUE(PassContext::Current().instruments().empty());
}

TEST(InstrumentException, ExitThrows) {
  Events events = NewEvents();
  PassContext ctx = PassContext::Create(
      2, {}, {}, {},
      {Recorder("1", events), Recorder("2", events, Fail::kExit), Recorder("3", events)});
  std::string msg = ErrorMessage([&] { PassContext::Scope scope(ctx); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("Just a dummy error"), std::string::npos);
  EXPECT_EQ(*events, (Strings{"1 enter", "2 enter", "3 enter", "1 exit", "2 exit"}));
  EXPECT_FALSE(PassContext::Current().same_as(ctx));  // popped before the exit hooks
  EXPECT_TRUE(ctx.instruments().empty());
  EXPECT_TRUE(PassContext::Current().instruments().empty());
}

TEST(InstrumentException, ExitThrowsOnThreadDefaultContext) {
  DefaultInstrumentsGuard guard;
  Events events = NewEvents();
  PassContext::Current().OverrideInstruments(
      {Recorder("1", events), Recorder("2", events, Fail::kExit), Recorder("3", events)});
  std::string msg =
      ErrorMessage([&] { PassContext::Current().OverrideInstruments({}); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("Just a dummy error"), std::string::npos);
  EXPECT_EQ(*events, (Strings{"1 enter", "2 enter", "3 enter", "1 exit", "2 exit"}));
  EXPECT_TRUE(PassContext::Current().instruments().empty());
}

TEST(InstrumentException, ExitThrowingWhileBodyUnwindsKeepsTheBodyError) {
  Events events = NewEvents();
  PassContext ctx = PassContext::Create(2, {}, {}, {}, {Recorder("1", events, Fail::kExit)});
  try {
    PassContext::Scope scope(ctx);
    TS_THROW(kType) << "body error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kType);
    EXPECT_STREQ(e.what(), "body error");
  }
  EXPECT_EQ(*events, (Strings{"1 enter", "1 exit"}));
  EXPECT_FALSE(PassContext::Current().same_as(ctx));
}

TEST(InstrumentException, PassThrowsCallsRunAfterPassFailed) {
  // Our addition to TVM's protocol (from MLIR): when the pass body throws, instruments
  // get RunAfterPassFailed (in order) instead of RunAfterPass; then the error propagates
  // and the context's exit hooks still run.
  Events events = NewEvents();
  std::string msg = ErrorMessage(
      [&] {
        PassContext::Scope scope(PassContext::Create(2, {}, {}, {}, {Recorder("1", events)}));
        ThrowingPass("Broken", events)(ToyModule());
      },
      ErrorKind::kValue);
  EXPECT_NE(msg.find("Just a dummy error"), std::string::npos);
  EXPECT_EQ(*events, (Strings{"1 enter", "1 should_run Broken", "1 run_before Broken",
                              "pass Broken", "1 run_after_failed Broken", "1 exit"}));
  // Inside a Sequential the failure reaches every enclosing pass, innermost first.
  events->clear();
  PassContext ctx =
      PassContext::Create(2, {}, {}, {}, {Recorder("1", events), Recorder("2", events)});
  EXPECT_THROW(Sequential({ThrowingPass("Broken", events), LoggingPass("Never", events)}, "seq")(
                   ToyModule(), ctx),
               Error);
  EXPECT_EQ(*events, (Strings{"1 should_run seq", "2 should_run seq", "1 run_before seq",
                              "2 run_before seq", "1 should_run Broken", "2 should_run Broken",
                              "1 run_before Broken", "2 run_before Broken", "pass Broken",
                              "1 run_after_failed Broken", "2 run_after_failed Broken",
                              "1 run_after_failed seq", "2 run_after_failed seq"}));
}

TEST(InstrumentException, ShouldRunThrows) {
  Events events = NewEvents();
  std::string msg = ErrorMessage(
      [&] {
        PassContext::Scope scope(PassContext::Create(
            2, {}, {}, {}, {Recorder("1", events, Fail::kShouldRun), Recorder("2", events)}));
        LoggingPass("ToyPass", events)(ToyModule());
      },
      ErrorKind::kValue);
  EXPECT_NE(msg.find("Just a dummy error"), std::string::npos);
  EXPECT_EQ(*events, (Strings{"1 enter", "2 enter", "1 should_run ToyPass", "1 exit", "2 exit"}));
}

TEST(InstrumentException, RunBeforeThrows) {
  Events events = NewEvents();
  std::string msg = ErrorMessage(
      [&] {
        PassContext::Scope scope(PassContext::Create(
            2, {}, {}, {}, {Recorder("1", events, Fail::kRunBefore), Recorder("2", events)}));
        LoggingPass("ToyPass", events)(ToyModule());
      },
      ErrorKind::kValue);
  EXPECT_NE(msg.find("Just a dummy error"), std::string::npos);
  EXPECT_EQ(*events, (Strings{"1 enter", "2 enter", "1 should_run ToyPass", "2 should_run ToyPass",
                              "1 run_before ToyPass", "1 exit", "2 exit"}));
}

TEST(InstrumentException, RunAfterThrows) {
  Events events = NewEvents();
  std::string msg = ErrorMessage(
      [&] {
        PassContext::Scope scope(PassContext::Create(
            2, {}, {}, {}, {Recorder("1", events, Fail::kRunAfter), Recorder("2", events)}));
        LoggingPass("ToyPass", events)(ToyModule());
      },
      ErrorKind::kValue);
  EXPECT_NE(msg.find("Just a dummy error"), std::string::npos);
  // The pass succeeded, so no run_after_failed; instrument 2's run_after is skipped.
  EXPECT_EQ(*events, (Strings{"1 enter", "2 enter", "1 should_run ToyPass", "2 should_run ToyPass",
                              "1 run_before ToyPass", "2 run_before ToyPass", "pass ToyPass",
                              "1 run_after ToyPass", "1 exit", "2 exit"}));
}

TEST(InstrumentException, NullInstrumentsAreRejected) {
  ErrorMessage([] { PassContext::Create(2, {}, {}, {}, {nullptr}); }, ErrorKind::kValue);
  DefaultInstrumentsGuard guard;
  ErrorMessage([] { PassContext::Current().OverrideInstruments({nullptr}); }, ErrorKind::kValue);
}

/// The lines of `text`.
Strings Lines(const std::string& text) {
  Strings out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(InstrumentTiming, NestedTreeSurvivesContextExitAndResetsOnEnter) {
  DefaultInstrumentsGuard guard;
  auto timing = std::make_shared<PassTimingInstrument>();
  EXPECT_EQ(timing->Render(), "");
  Events events = NewEvents();
  Pass pipeline =
      Sequential({LoggingPass("PassA", events), Sequential({LoggingPass("PassB", events)}, "inner"),
                  LoggingPass("PassC", events)},
                 "outer");
  // On the thread default context, as in TVM's test_pass_timing_instrument.
  PassContext::Current().OverrideInstruments({timing});
  pipeline(ToyModule());
  PassContext::Current().OverrideInstruments({});  // exits the instrument
  Strings lines = Lines(timing->Render());         // still readable after exit (TVM clears it)
  ASSERT_EQ(lines.size(), 5u) << timing->Render();
  auto starts = [](const std::string& line, const std::string& prefix) {
    return line.rfind(prefix, 0) == 0;
  };
  EXPECT_TRUE(starts(lines[0], "outer: ")) << lines[0];
  EXPECT_TRUE(starts(lines[1], "  PassA: ")) << lines[1];
  EXPECT_TRUE(starts(lines[2], "  inner: ")) << lines[2];
  EXPECT_TRUE(starts(lines[3], "    PassB: ")) << lines[3];
  EXPECT_TRUE(starts(lines[4], "  PassC: ")) << lines[4];
  EXPECT_NE(lines[0].find("(100.00%; 100.00%)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[3].find("us ["), std::string::npos) << lines[3];
  // Running with no instrument records nothing more; entering again starts afresh.
  pipeline(ToyModule());
  EXPECT_EQ(Lines(timing->Render()).size(), 5u);
  PassContext::Current().OverrideInstruments({timing});
  EXPECT_EQ(timing->Render(), "");
  LoggingPass("Again", events)(ToyModule());
  PassContext::Current().OverrideInstruments({});
  EXPECT_EQ(Lines(timing->Render()).size(), 1u);
  EXPECT_TRUE(starts(timing->Render(), "Again: "));
}

TEST(InstrumentTiming, FailedPassesAndLostHooksKeepTheTreeConsistent) {
  auto timing = std::make_shared<PassTimingInstrument>();
  Events events = NewEvents();
  {
    PassContext::Scope scope(PassContext::Create(2, {}, {}, {}, {timing}));
    EXPECT_THROW(Sequential({ThrowingPass("Broken", events)}, "first")(ToyModule()), Error);
    Sequential({LoggingPass("Ok", events)}, "second")(ToyModule());
  }
  Strings lines = Lines(timing->Render());
  ASSERT_EQ(lines.size(), 4u) << timing->Render();
  EXPECT_EQ(lines[0].rfind("first: ", 0), 0u);
  EXPECT_EQ(lines[1].rfind("  Broken: ", 0), 0u);
  EXPECT_EQ(lines[2].rfind("second: ", 0), 0u);  // a top-level pass, not a child of "first"
  EXPECT_EQ(lines[3].rfind("  Ok: ", 0), 0u);
  // An earlier instrument's run_after throwing means the timer misses one after hook;
  // the next close of the enclosing pass still closes both.
  auto timing2 = std::make_shared<PassTimingInstrument>();
  {
    PassContext::Scope scope(
        PassContext::Create(2, {}, {}, {}, {Recorder("1", events, Fail::kRunAfter), timing2}));
    EXPECT_THROW(LoggingPass("Lost", events)(ToyModule()), Error);
  }
  EXPECT_EQ(timing2->Render().rfind("Lost: 0us [0us]", 0), 0u) << timing2->Render();
  {
    auto timing3 = std::make_shared<PassTimingInstrument>();
    timing3->EnterPassContext();
    timing3->RunBeforePass(ToyModule(), PassInfo{"outer", 0, {}});
    timing3->RunBeforePass(ToyModule(), PassInfo{"inner", 0, {}});
    timing3->RunAfterPass(ToyModule(), PassInfo{"outer", 0, {}});  // inner's after was lost
    timing3->RunBeforePass(ToyModule(), PassInfo{"next", 0, {}});
    timing3->RunAfterPass(ToyModule(), PassInfo{"next", 0, {}});
    Strings l = Lines(timing3->Render());
    ASSERT_EQ(l.size(), 3u) << timing3->Render();
    EXPECT_EQ(l[2].rfind("next: ", 0), 0u) << timing3->Render();
  }
}

/// Reads back everything written to `f`.
std::string ReadAll(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) out.append(buf, n);
  return out;
}

/// Counts occurrences of `needle` in `hay`.
size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

/// A function pass wrapping each body in nn.relu (changes the module).
Pass WrapPass(const std::string& name) {
  return CreateFunctionPass(
      [](Function f, const IRModule&, const PassContext&) {
        return MakeFunction(f->params, MakeOpCall("nn.relu", {f->body}), f->ret_type, f->attrs);
      },
      PassInfo{name, 0, {}});
}

TEST(InstrumentPrintIR, BeforeAndAfterAllPrintHeaderAndPassName) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  PrintIROptions options;
  options.before_all = options.after_all = true;
  auto printer = std::make_shared<PrintIRInstrument>(options, out);
  Events events = NewEvents();
  IRModule result;
  {
    PassContext::Scope scope(PassContext::Create(2, {}, {}, {}, {printer}));
    result = Sequential({WrapPass("Wrap"), LoggingPass("Keep", events)}, "seq")(ToyModule());
  }
  std::string text = ReadAll(out);
  std::fclose(out);
  EXPECT_EQ(Count(text, "// Before Running Pass: "), 3u) << text;
  EXPECT_EQ(Count(text, "// After Running Pass: "), 3u) << text;
  for (const char* name : {"seq", "Wrap", "Keep"})
    EXPECT_NE(text.find("pass name: " + std::string(name) + ", opt_level: 0"), std::string::npos)
        << name;
  EXPECT_NE(text.find("// Before Running Pass: " + PassInfo{"Wrap", 0, {}}.ToString() + "\n" +
                      PrintModule(ToyModule())),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("// After Running Pass: " + PassInfo{"seq", 0, {}}.ToString() + "\n" +
                      PrintModule(result)),
            std::string::npos)
      << text;
}

TEST(InstrumentPrintIR, NamedPassesOnly) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  PrintIROptions options;
  options.before_passes = {"Keep"};
  options.after_passes = {"Wrap"};
  Events events = NewEvents();
  PassContext ctx =
      PassContext::Create(2, {}, {}, {}, {std::make_shared<PrintIRInstrument>(options, out)});
  Sequential({WrapPass("Wrap"), LoggingPass("Keep", events)}, "seq")(ToyModule(), ctx);
  std::string text = ReadAll(out);
  std::fclose(out);
  EXPECT_EQ(Count(text, "// Before Running Pass: "), 1u) << text;
  EXPECT_EQ(Count(text, "// After Running Pass: "), 1u) << text;
  EXPECT_NE(text.find("// Before Running Pass: The meta data of the pass - pass name: Keep"),
            std::string::npos);
  EXPECT_NE(text.find("// After Running Pass: The meta data of the pass - pass name: Wrap"),
            std::string::npos);
}

TEST(InstrumentPrintIR, AfterChangePrintsOnlyWhenTheHashChanges) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  PrintIROptions options;
  options.after_change = true;
  Events events = NewEvents();
  // "Rebuild" returns a new but structurally equal module: not a change.
  Pass rebuild = CreateModulePass([](IRModule, const PassContext&) { return ToyModule(); },
                                  PassInfo{"Rebuild", 0, {}});
  PassContext ctx =
      PassContext::Create(2, {}, {}, {}, {std::make_shared<PrintIRInstrument>(options, out)});
  Sequential({LoggingPass("Keep", events), rebuild, WrapPass("Wrap"), LoggingPass("Keep2", events)},
             "seq")(ToyModule(), ctx);
  // A failing pass caught upstream must not unbalance the before-hash stack.
  EXPECT_THROW(ThrowingPass("Broken", events)(ToyModule(), ctx), Error);
  LoggingPass("Keep3", events)(ToyModule(), ctx);
  std::string text = ReadAll(out);
  std::fclose(out);
  EXPECT_EQ(Count(text, "// After Running Pass: "), 2u) << text;  // Wrap and seq
  EXPECT_NE(text.find("pass name: Wrap"), std::string::npos) << text;
  EXPECT_NE(text.find("pass name: seq"), std::string::npos) << text;
  EXPECT_EQ(text.find("Before Running Pass"), std::string::npos) << text;
}

TEST(InstrumentDumpIR, WritesOneNumberedFilePerPass) {
  namespace fs = std::filesystem;
  std::string templ = (fs::temp_directory_path() / "tessera_dump_XXXXXX").string();
  ASSERT_NE(::mkdtemp(templ.data()), nullptr);
  fs::path dir = fs::path(templ) / "ir";  // created by the instrument
  Events events = NewEvents();
  IRModule result;
  {
    PassContext::Scope scope(
        PassContext::Create(2, {}, {}, {}, {std::make_shared<DumpIRInstrument>(dir.string())}));
    result = Sequential({WrapPass("Wrap"), LoggingPass("Odd/Name", events)}, "seq")(ToyModule());
  }
  Strings files;
  for (const auto& entry : fs::directory_iterator(dir))
    files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (Strings{"000_Wrap.txt", "001_Odd_Name.txt", "002_seq.txt"}));
  std::ifstream in(dir / "002_seq.txt");
  std::stringstream content;
  content << in.rdbuf();
  EXPECT_EQ(content.str(), PrintModule(result));
  fs::remove_all(templ);
  // An unusable directory fails on entering the context, with the enter-failure cleanup.
  std::string msg = ErrorMessage(
      [] {
        PassContext::Scope scope(PassContext::Create(
            2, {}, {}, {}, {std::make_shared<DumpIRInstrument>("/proc/no/such/dir")}));
      },
      ErrorKind::kIO);
  EXPECT_NE(msg.find("cannot create IR dump directory '/proc/no/such/dir'"), std::string::npos)
      << msg;
}

TEST(InstrumentVerifier, NamesThePassThatProducedAnUndefinedVariable) {
  Pass bad = CreateFunctionPass(
      [](Function f, const IRModule&, const PassContext&) {
        Var stray = MakeVar("stray", MakeTensorType({1, 3}));
        return MakeFunction(f->params, MakeOpCall("add", {f->body, stray}));
      },
      PassInfo{"IntroduceStray", 0, {}});
  PassContext ctx = PassContext::Create(2, {}, {}, {}, {std::make_shared<VerifierInstrument>()});
  Events events = NewEvents();
  EXPECT_NO_THROW(Sequential({WrapPass("Wrap"), LoggingPass("Keep", events)})(ToyModule(), ctx));
  std::string msg = ErrorMessage(
      [&] {
        Sequential({WrapPass("Wrap"), bad}, "seq")(ToyModule(), ctx);
      },
      ErrorKind::kValue);
  EXPECT_NE(msg.find("pass 'IntroduceStray' produced ill-formed IR"), std::string::npos) << msg;
  EXPECT_NE(msg.find("in @main: variable %stray is used but never bound"), std::string::npos)
      << msg;
}

TEST(InstrumentVerifier, TypeErrorsAndBadPrimFuncsAlsoNameThePass) {
  PassContext ctx = PassContext::Create(2, {}, {}, {}, {std::make_shared<VerifierInstrument>()});
  Pass mismatch = CreateFunctionPass(
      [](Function f, const IRModule&, const PassContext&) {
        Var y = MakeVar("y", MakeTensorType({4}));
        return MakeFunction({f->params[0], y}, MakeOpCall("add", {f->body, y}));
      },
      PassInfo{"Mismatch", 0, {}});
  std::string msg = ErrorMessage([&] { mismatch(ToyModule(), ctx); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("pass 'Mismatch' produced ill-formed IR: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("add"), std::string::npos) << msg;
  // A PrimFunc storing into a buffer that is neither a parameter nor allocated.
  Pass stray_buffer = CreateModulePass(
      [](IRModule mod, const PassContext&) {
        tir::Buffer a = tir::MakeBuffer("A", {4}), c = tir::MakeBuffer("C", {4});
        tir::Var i = tir::MakeVar("i");
        tir::Stmt body = tir::MakeFor(i, tir::IntImm(0), tir::IntImm(4), tir::ForKind::kSerial,
                                      tir::MakeStore(c, tir::MakeLoad(a, {i}), {i}));
        return mod.WithFunction("copy", tir::MakePrimFunc({a}, 0, body));
      },
      PassInfo{"StrayBuffer", 0, {}});
  msg = ErrorMessage([&] { stray_buffer(ToyModule(), ctx); }, ErrorKind::kValue);
  EXPECT_NE(msg.find("pass 'StrayBuffer' produced ill-formed IR: in @copy: buffer 'C' is not a "
                     "parameter or allocated in scope"),
            std::string::npos)
      << msg;
  // The same check without an instrument.
  EXPECT_NO_THROW(VerifyModule(ToyModule()));
}

}  // namespace
}  // namespace tessera::pass_test
