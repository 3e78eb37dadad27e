// Helpers for pass-infrastructure tests: toy modules, toy passes and a recording instrument.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/expr.h"
#include "tessera/ir/module.h"
#include "tessera/ir/type.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/pass_instrument.h"

namespace tessera::pass_test {

/// The shared event log instruments and toy passes append to.
using Events = std::shared_ptr<std::vector<std::string>>;
inline Events NewEvents() {
  return std::make_shared<std::vector<std::string>>();
}

/// fn(%x: Tensor[(1, 3), float32]) { nn.relu(add(%x, %x)) }
inline Function ReluAddFunction() {
  Var x = MakeVar("x", MakeTensorType({1, 3}));
  return MakeFunction({x}, MakeOpCall("nn.relu", {MakeOpCall("add", {x, x})}));
}

/// A module holding `main` = ReluAddFunction().
inline IRModule ToyModule() {
  return IRModule().WithFunction("main", ReluAddFunction());
}

/// A module pass named `name` that logs "pass <name>" and returns its input.
inline Pass LoggingPass(const std::string& name, Events events, int opt_level = 0,
                        std::vector<std::string> required = {}) {
  return CreateModulePass(
      [name, events](IRModule mod, const PassContext&) {
        events->push_back("pass " + name);
        return mod;
      },
      PassInfo{name, opt_level, std::move(required)});
}

/// A module pass named `name` that throws "Just a dummy error".
inline Pass ThrowingPass(const std::string& name, Events events) {
  return CreateModulePass(
      [name, events](IRModule, const PassContext&) -> IRModule {
        events->push_back("pass " + name);
        TS_THROW(kValue) << "Just a dummy error";
      },
      PassInfo{name, 0, {}});
}

/// Which hook of a RecordingInstrument throws "Just a dummy error".
enum class Fail { kNone, kEnter, kExit, kShouldRun, kRunBefore, kRunAfter };

/// Logs every hook as "<id> <hook>[ <pass>]"; optionally throws from one hook, and skips
/// (should_run false) the passes named in `skip`.
class RecordingInstrument : public PassInstrument {
 public:
  RecordingInstrument(std::string id, Events events, Fail fail = Fail::kNone,
                      std::vector<std::string> skip = {})
      : PassInstrument("Recording" + id),
        id_(std::move(id)),
        events_(std::move(events)),
        fail_(fail),
        skip_(std::move(skip)) {}
  void EnterPassContext() override { Log("enter", Fail::kEnter); }
  void ExitPassContext() override { Log("exit", Fail::kExit); }
  bool ShouldRun(const IRModule&, const PassInfo& info) override {
    Log("should_run " + info.name, Fail::kShouldRun);
    for (const auto& s : skip_)
      if (s == info.name) return false;
    return true;
  }
  void RunBeforePass(const IRModule&, const PassInfo& info) override {
    Log("run_before " + info.name, Fail::kRunBefore);
  }
  void RunAfterPass(const IRModule&, const PassInfo& info) override {
    Log("run_after " + info.name, Fail::kRunAfter);
  }
  void RunAfterPassFailed(const IRModule&, const PassInfo& info) override {
    Log("run_after_failed " + info.name, Fail::kNone);
  }

 private:
  void Log(const std::string& what, Fail hook) {
    events_->push_back(id_ + " " + what);
    if (hook != Fail::kNone && hook == fail_) TS_THROW(kValue) << "Just a dummy error";
  }
  std::string id_;
  Events events_;
  Fail fail_;
  std::vector<std::string> skip_;
};

inline std::shared_ptr<RecordingInstrument> Recorder(std::string id, Events events,
                                                     Fail fail = Fail::kNone,
                                                     std::vector<std::string> skip = {}) {
  return std::make_shared<RecordingInstrument>(std::move(id), std::move(events), fail,
                                               std::move(skip));
}

/// Clears the thread default context's instruments when a test ends, however it ends,
/// so an instrument installed with OverrideInstruments cannot leak into other tests.
struct DefaultInstrumentsGuard {
  ~DefaultInstrumentsGuard() {
    try {
      PassContext::Current().OverrideInstruments({});
    } catch (...) {
    }
  }
};

/// Runs `fn`, expecting a tessera::Error of `kind`; returns its message ("" otherwise).
inline std::string ErrorMessage(const std::function<void()>& fn, ErrorKind kind) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

}  // namespace tessera::pass_test
