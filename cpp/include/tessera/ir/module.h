// IRModule: the unit every pass transforms, holding graph functions and PrimFuncs by name.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tessera/ir/expr.h"

namespace tessera {

/// The module's contents. Functions keep insertion order (printing and iteration are
/// deterministic); names are unique.
class IRModuleNode : public Object {
 public:
  IRModuleNode() : Object(TypeIndex::kIRModule) {}
  std::vector<std::pair<std::string, BaseFunc>> functions;
  Attrs attrs;
  static constexpr TypeIndex kFirst = TypeIndex::kIRModule;
  static constexpr TypeIndex kLast = TypeIndex::kIRModule;
};

/// An immutable module handle with value-like helpers. Changing a module returns a new
/// module that shares unchanged functions.
class IRModule {
 public:
  /// An empty module.
  IRModule();
  explicit IRModule(Ref<const IRModuleNode> node) : node_(std::move(node)) {}
  /// A module with one function, `main`.
  static IRModule FromExpr(const Function& main);

  /// Functions in insertion order.
  const std::vector<std::pair<std::string, BaseFunc>>& functions() const {
    return node_->functions;
  }
  const Attrs& attrs() const { return node_->attrs; }
  /// The function named `name`, or null.
  BaseFunc Find(const std::string& name) const;
  /// The function named `name`; throws a not-found error listing the module's functions.
  BaseFunc Lookup(const std::string& name) const;
  /// The graph function named `name`; throws when absent or a PrimFunc.
  Function LookupFunction(const std::string& name) const;
  bool Contains(const std::string& name) const { return Find(name).defined(); }

  /// A copy with `name` added or replaced (replacement keeps the position).
  IRModule WithFunction(const std::string& name, BaseFunc func) const;
  /// A copy without `name`.
  IRModule WithoutFunction(const std::string& name) const;
  /// A copy with module attribute `key` set.
  IRModule WithAttr(const std::string& key, AttrValue value) const;

  const IRModuleNode* get() const { return node_.get(); }
  const IRModuleNode* operator->() const { return node_.get(); }
  bool same_as(const IRModule& other) const { return node_.same_as(other.node_); }

 private:
  Ref<const IRModuleNode> node_;
};

}  // namespace tessera
