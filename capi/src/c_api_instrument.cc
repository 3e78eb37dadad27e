// The pass instrument C API: instruments whose hooks are C callbacks, the built-in timing,
// printing, dumping and verifying instruments, and instrument handles.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "c_api_pass_internal.h"
#include "tessera/transform/pass.h"

using namespace tessera::capi;

namespace {

using tessera::IRModule;
using tessera::PassInfo;

/// An instrument whose hooks are C callbacks (NULL hooks do nothing).
class CInstrument : public tessera::PassInstrument {
 public:
  CInstrument(std::string name, const TsPassInstrumentCallbacks& hooks, UserDataPtr data)
      : PassInstrument(std::move(name)), hooks_(hooks), data_(std::move(data)) {}
  void* user_data() const { return data_->data(); }

  void EnterPassContext() override {
    if (hooks_.enter_pass_context)
      Check(hooks_.enter_pass_context(data_->data()), "enter_pass_ctx");
  }
  void ExitPassContext() override {
    if (hooks_.exit_pass_context) Check(hooks_.exit_pass_context(data_->data()), "exit_pass_ctx");
  }
  bool ShouldRun(const IRModule& mod, const PassInfo& info) override {
    if (!hooks_.should_run) return true;
    TsPassInfo_ lent{&info, nullptr};
    int run = 1;
    Check(hooks_.should_run(Lend<TsModule>(mod.get()), &lent, &run, data_->data()), "should_run");
    return run != 0;
  }
  void RunBeforePass(const IRModule& mod, const PassInfo& info) override {
    CallPassHook(hooks_.run_before_pass, mod, info, "run_before_pass");
  }
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override {
    CallPassHook(hooks_.run_after_pass, mod, info, "run_after_pass");
  }
  void RunAfterPassFailed(const IRModule& mod, const PassInfo& info) override {
    CallPassHook(hooks_.run_after_pass_failed, mod, info, "run_after_pass_failed");
  }

 private:
  using PassHook = TsStatus (*)(TsModule, TsPassInfo, void*);
  void CallPassHook(PassHook hook, const IRModule& mod, const PassInfo& info, const char* what) {
    if (!hook) return;
    TsPassInfo_ lent{&info, nullptr};
    Check(hook(Lend<TsModule>(mod.get()), &lent, data_->data()), what);
  }
  void Check(TsStatus status, const char* hook) {
    if (status != TS_OK) ThrowCallbackError(status, "pass instrument '" + name() + "' " + hook);
  }

  TsPassInstrumentCallbacks hooks_;
  UserDataPtr data_;
};

/// The printing instrument, flushing stdout after each print so its output interleaves
/// with the caller's own (buffered) stdio and a caller capturing the descriptor sees it.
class FlushingPrintIR : public tessera::PrintIRInstrument {
 public:
  explicit FlushingPrintIR(tessera::PrintIROptions options)
      : PrintIRInstrument(std::move(options), stdout) {}
  void RunBeforePass(const IRModule& mod, const PassInfo& info) override {
    PrintIRInstrument::RunBeforePass(mod, info);
    std::fflush(stdout);
  }
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override {
    PrintIRInstrument::RunAfterPass(mod, info);
    std::fflush(stdout);
  }
  void RunAfterPassFailed(const IRModule& mod, const PassInfo& info) override {
    PrintIRInstrument::RunAfterPassFailed(mod, info);
    std::fflush(stdout);
  }
};

TsPassInstrument GiveInstrument(std::shared_ptr<tessera::PassInstrument> instrument) {
  return new TsPassInstrument_{std::move(instrument)};
}

}  // namespace

namespace tessera::capi {

std::vector<std::shared_ptr<PassInstrument>> InstrumentsFromC(const TsPassInstrument* instruments,
                                                              size_t count) {
  if (count && !instruments) TS_THROW(kValue) << "instruments are NULL with a count of " << count;
  std::vector<std::shared_ptr<PassInstrument>> out;
  for (size_t i = 0; i < count; ++i) {
    if (!instruments[i]) TS_THROW(kValue) << "instrument " << i << " is NULL";
    out.push_back(instruments[i]->instrument);
  }
  return out;
}

}  // namespace tessera::capi

extern "C" {

TsStatus TsPassInstrumentCreate(const char* name, const TsPassInstrumentCallbacks* callbacks,
                                void* user_data, TsUserDataDestroy destroy_user_data,
                                TsPassInstrument* out) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy_user_data, &data)) return s;
  TS_REQUIRE(name);
  TS_REQUIRE(callbacks);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = GiveInstrument(std::make_shared<CInstrument>(name, *callbacks, data)); });
}

TsStatus TsPassTimingInstrumentCreate(TsPassInstrument* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveInstrument(std::make_shared<tessera::PassTimingInstrument>()); });
}

TsStatus TsPassTimingInstrumentRender(TsPassInstrument instrument, TsStringCallback callback,
                                      void* user_data) {
  TS_REQUIRE(instrument);
  TS_REQUIRE(callback);
  return Guard([&] {
    auto* timing = dynamic_cast<tessera::PassTimingInstrument*>(instrument->instrument.get());
    if (!timing)
      TS_THROW(kType) << "pass instrument '" << instrument->instrument->name()
                      << "' is not a timing instrument";
    Emit(timing->Render(), callback, user_data);
  });
}

TsStatus TsPrintIRInstrumentCreate(int before_all, int after_all, int after_change,
                                   const char* const* before_passes, size_t num_before_passes,
                                   const char* const* after_passes, size_t num_after_passes,
                                   TsPassInstrument* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    tessera::PrintIROptions options;
    options.before_all = before_all != 0;
    options.after_all = after_all != 0;
    options.after_change = after_change != 0;
    options.before_passes = NamesFromC(before_passes, num_before_passes, "print-before");
    options.after_passes = NamesFromC(after_passes, num_after_passes, "print-after");
    *out = GiveInstrument(std::make_shared<FlushingPrintIR>(std::move(options)));
  });
}

TsStatus TsDumpIRInstrumentCreate(const char* dir, TsPassInstrument* out) {
  TS_REQUIRE(dir);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveInstrument(std::make_shared<tessera::DumpIRInstrument>(dir)); });
}

TsStatus TsVerifierInstrumentCreate(TsPassInstrument* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveInstrument(std::make_shared<tessera::VerifierInstrument>()); });
}

TsPassInstrument TsPassInstrumentRetain(TsPassInstrument instrument) {
  if (!instrument) return nullptr;
  TsPassInstrument out = nullptr;
  Guard([&] { out = GiveInstrument(instrument->instrument); });
  return out;
}

void TsPassInstrumentDestroy(TsPassInstrument instrument) {
  delete instrument;
}

TsStringRef TsPassInstrumentGetName(TsPassInstrument instrument) {
  return instrument ? RefOf(instrument->instrument->name()) : TsStringRefFromC("");
}

void* TsPassInstrumentGetUserData(TsPassInstrument instrument) {
  auto* c = instrument ? dynamic_cast<CInstrument*>(instrument->instrument.get()) : nullptr;
  return c ? c->user_data() : nullptr;
}

int TsPassInstrumentEqual(TsPassInstrument a, TsPassInstrument b) {
  return a && b && a->instrument == b->instrument ? 1 : 0;
}

size_t TsPassContextGetNumInstruments(TsPassContext context) {
  return context ? context->ctx.instruments().size() : 0;
}

TsStatus TsPassContextGetInstrument(TsPassContext context, size_t index, TsPassInstrument* out) {
  TS_REQUIRE(context);
  TS_REQUIRE(out);
  return Guard([&] {
    const auto& instruments = context->ctx.instruments();
    CheckIndex(index, instruments.size(), "instrument");
    *out = GiveInstrument(instruments[index]);
  });
}

TsStatus TsPassContextOverrideInstruments(TsPassContext context,
                                          const TsPassInstrument* instruments,
                                          size_t num_instruments) {
  TS_REQUIRE(context);
  return Guard(
      [&] { context->ctx.OverrideInstruments(InstrumentsFromC(instruments, num_instruments)); });
}

}  // extern "C"
