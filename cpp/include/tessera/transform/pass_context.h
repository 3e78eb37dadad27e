// PassContext: the ambient configuration passes run under (opt level, required and
// disabled passes, typed config, instruments), kept on a thread-local stack.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/attrs.h"
#include "tessera/ir/module.h"
#include "tessera/support/object.h"

namespace tessera {

struct PassInfo;
class PassInstrument;

/// One registered configuration key: its value kind, default and a one-line description.
struct ConfigOption {
  std::string key;
  AttrValue::Kind kind;
  AttrValue default_value;
  std::string description;
  /// Checks a value of the right kind (e.g. a range); throws a value error saying why.
  std::function<void(const AttrValue& value)> validate;
};

/// Registers a config key (idempotent for an identical re-registration; a conflicting
/// one throws an internal error). Built-in keys such as `collage.enable` are
/// registered on first use of the registry.
void RegisterConfigOption(const std::string& key, AttrValue::Kind kind, AttrValue default_value,
                          const std::string& description);
/// Every registered key, sorted by key.
std::vector<ConfigOption> ListConfigs();
/// "bool", "int", "float", "string", "array".
const char* AttrKindName(AttrValue::Kind kind);
/// The kind name with its article, for messages: "a bool", "an int".
std::string KindWithArticle(AttrValue::Kind kind);

/// The fields of a context. Build one with PassContext::Create, which validates.
class PassContextNode : public Object {
 public:
  PassContextNode() : Object(TypeIndex::kOther) {}
  int opt_level = 2;
  std::vector<std::string> required_pass;
  std::vector<std::string> disabled_pass;
  Attrs config;  ///< validated: only registered keys, values of the registered kind
  std::vector<std::shared_ptr<PassInstrument>> instruments;
};

/// Handle to a pass context. Enter it with a Scope (RAII); `Current()` is the innermost
/// entered context on this thread, or the thread's default (opt_level 2, no config, no
/// instruments). Contexts do not inherit from enclosing ones.
class PassContext {
 public:
  /// Validates and builds a context. An unknown config key throws a not-found error
  /// listing the valid keys; a value of the wrong kind throws a type error naming the
  /// key, the expected and the given kind (ints are accepted for float keys; bools and
  /// ints are distinct); None is rejected.
  static PassContext Create(int opt_level = 2, std::vector<std::string> required_pass = {},
                            std::vector<std::string> disabled_pass = {}, const Attrs& config = {},
                            std::vector<std::shared_ptr<PassInstrument>> instruments = {});
  /// The innermost entered context on this thread (or the thread default).
  static PassContext Current();

  int opt_level() const { return node_->opt_level; }
  const std::vector<std::string>& required_pass() const { return node_->required_pass; }
  const std::vector<std::string>& disabled_pass() const { return node_->disabled_pass; }
  const Attrs& config() const { return node_->config; }
  const std::vector<std::shared_ptr<PassInstrument>>& instruments() const {
    return node_->instruments;
  }

  /// The value of config `key`: the given value or the registered default. Throws for
  /// an unregistered key.
  AttrValue GetConfig(const std::string& key) const;
  bool GetConfigBool(const std::string& key) const { return GetConfig(key).AsBool(); }
  /// Sets config `key`, checked as Create checks its config; passes run later under this
  /// context see the new value.
  void SetConfig(const std::string& key, const AttrValue& value) const;

  /// Whether a Sequential runs a child with `info`: disabled wins, then required, then
  /// opt_level.
  bool PassEnabled(const PassInfo& info) const;

  /// Replaces the instruments: exit hooks on the old list, then enter hooks on the new
  /// one (a failing enter clears the list and rethrows).
  void OverrideInstruments(std::vector<std::shared_ptr<PassInstrument>> instruments) const;

  // Instrument protocol (called by Pass::operator()): see pass_instrument.h.
  bool InstrumentShouldRun(const IRModule& mod, const PassInfo& info) const;
  void InstrumentBeforePass(const IRModule& mod, const PassInfo& info) const;
  void InstrumentAfterPass(const IRModule& mod, const PassInfo& info) const;
  void InstrumentAfterPassFailed(const IRModule& mod, const PassInfo& info) const;

  /// RAII guard that enters a context for its lifetime (defined below).
  class Scope;

  /// Low-level enter/exit used by Scope and the Python `with` statement. Exit throws if
  /// `this` is not the innermost context.
  void EnterWithScope() const;
  void ExitWithScope() const;

  const PassContextNode* get() const { return node_.get(); }
  bool same_as(const PassContext& other) const { return node_.same_as(other.node_); }

 private:
  explicit PassContext(Ref<PassContextNode> node) : node_(std::move(node)) {}
  Ref<PassContextNode> node_;
};

/// Enters `ctx` for the lifetime of the scope: enter hooks run, then the context is
/// pushed; on destruction it is popped, then exit hooks run.
class PassContext::Scope {
 public:
  explicit Scope(PassContext ctx);
  ~Scope() noexcept(false);
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  PassContext ctx_;
  int uncaught_;  ///< std::uncaught_exceptions() at entry
};

}  // namespace tessera
