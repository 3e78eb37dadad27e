// IRModule lookup and copy-on-change helpers.
#include "tessera/ir/module.h"

#include "tessera/support/error.h"

namespace tessera {

IRModule::IRModule() : node_(MakeNode<const IRModuleNode>()) {}

IRModule IRModule::FromExpr(const Function& main) {
  return IRModule().WithFunction("main", main);
}

BaseFunc IRModule::Find(const std::string& name) const {
  for (const auto& [n, f] : node_->functions)
    if (n == name) return f;
  return nullptr;
}

BaseFunc IRModule::Lookup(const std::string& name) const {
  if (BaseFunc f = Find(name)) return f;
  std::string names;
  for (const auto& [n, f] : node_->functions) names += (names.empty() ? "@" : ", @") + n;
  TS_THROW(kNotFound) << "module has no function @" << name
                      << (names.empty() ? " (the module is empty)" : " (functions: " + names + ")");
}

Function IRModule::LookupFunction(const std::string& name) const {
  BaseFunc f = Lookup(name);
  if (!f.as<FunctionNode>())
    TS_THROW(kType) << "@" << name << " is a PrimFunc, not a graph function";
  return Function(static_cast<const FunctionNode*>(f.get()));
}

IRModule IRModule::WithFunction(const std::string& name, BaseFunc func) const {
  TS_ICHECK(func.defined()) << "adding a null function @" << name;
  auto node = MakeNode<IRModuleNode>();
  node->functions = node_->functions;
  node->attrs = node_->attrs;
  bool replaced = false;
  for (auto& [n, f] : node->functions) {
    if (n == name) {
      f = func;
      replaced = true;
    }
  }
  if (!replaced) node->functions.emplace_back(name, std::move(func));
  return IRModule(Ref<const IRModuleNode>(std::move(node)));
}

IRModule IRModule::WithoutFunction(const std::string& name) const {
  auto node = MakeNode<IRModuleNode>();
  node->attrs = node_->attrs;
  for (const auto& item : node_->functions)
    if (item.first != name) node->functions.push_back(item);
  return IRModule(Ref<const IRModuleNode>(std::move(node)));
}

IRModule IRModule::WithAttr(const std::string& key, AttrValue value) const {
  auto node = MakeNode<IRModuleNode>();
  node->functions = node_->functions;
  node->attrs = node_->attrs.With(key, std::move(value));
  return IRModule(Ref<const IRModuleNode>(std::move(node)));
}

}  // namespace tessera
