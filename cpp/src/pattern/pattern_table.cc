// The pattern-table registry.
#include "tessera/pattern/pattern_table.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {


struct PatternTableRegistry::Table {
  std::vector<PatternTableEntry> patterns;
  std::map<std::string, OpSupportPredicate> ops;
};

PatternTableRegistry& PatternTableRegistry::Global() {
  static PatternTableRegistry* registry = [] {
    auto* r = new PatternTableRegistry();
    RegisterBuiltinPatternTables(*r);
    return r;
  }();
  return *registry;
}

PatternTableRegistry::Table& PatternTableRegistry::TableOf(const std::string& compiler) {
  if (compiler.empty()) TS_THROW(kValue) << "a pattern table needs a compiler name";
  auto it = std::lower_bound(tables_.begin(), tables_.end(), compiler,
                             [](const auto& e, const std::string& k) { return e.first < k; });
  if (it == tables_.end() || it->first != compiler)
    it = tables_.insert(it, {compiler, std::make_shared<Table>()});
  return *it->second;
}

const PatternTableRegistry::Table* PatternTableRegistry::FindTable(
    const std::string& compiler) const {
  for (const auto& [name, table] : tables_)
    if (name == compiler) return table.get();
  return nullptr;
}

void PatternTableRegistry::ReplacePatterns(const std::string& compiler,
                                           std::vector<PatternTableEntry> entries) {
  Table& table = TableOf(compiler);
  std::vector<PatternTableEntry> old = std::move(table.patterns);
  table.patterns.clear();
  try {
    RegisterPatterns(compiler, std::move(entries));
  } catch (...) {
    table.patterns = std::move(old);  // a bad entry leaves the table as it was
    throw;
  }
}

void PatternTableRegistry::RegisterPatterns(const std::string& compiler,
                                            std::vector<PatternTableEntry> entries) {
  Table& table = TableOf(compiler);
  for (PatternTableEntry& e : entries) {
    if (!e.pattern.defined()) TS_THROW(kValue) << "pattern '" << e.label << "' is null";
    if (e.label.rfind(compiler + ".", 0) != 0)
      TS_THROW(kValue) << "pattern label '" << e.label << "' must start with '" << compiler << ".'";
    for (const PatternTableEntry& old : table.patterns)
      if (old.label == e.label)
        TS_THROW(kValue) << "pattern '" << e.label << "' is registered twice";
    table.patterns.push_back(std::move(e));
  }
}

void PatternTableRegistry::RegisterOpSupport(const std::string& compiler, const std::string& op,
                                             OpSupportPredicate predicate) {
  OpRegistry::Global().Get(op);  // unknown ops are errors
  if (!predicate) TS_THROW(kValue) << "op support predicate for '" << op << "' is null";
  Table& table = TableOf(compiler);
  if (!table.ops.emplace(op, std::move(predicate)).second)
    TS_THROW(kInternal) << "op '" << op << "' already has a '" << compiler << "' predicate";
}

const std::vector<PatternTableEntry>& PatternTableRegistry::GetPatterns(
    const std::string& compiler) const {
  if (const Table* t = FindTable(compiler)) return t->patterns;
  std::string known;
  for (const auto& [name, table] : tables_) known += (known.empty() ? "" : ", ") + name;
  TS_THROW(kNotFound) << "no pattern table for compiler '" << compiler << "' (known: " << known
                      << ")";
}

const OpSupportPredicate* PatternTableRegistry::FindOpSupport(const std::string& compiler,
                                                              const std::string& op) const {
  const Table* t = FindTable(compiler);
  if (!t) return nullptr;
  auto it = t->ops.find(op);
  return it == t->ops.end() ? nullptr : &it->second;
}

std::vector<std::string> PatternTableRegistry::SupportedOps(const std::string& compiler) const {
  std::vector<std::string> out;
  if (const Table* t = FindTable(compiler))
    for (const auto& [name, pred] : t->ops) out.push_back(name);
  return out;
}

bool PatternTableRegistry::HasCompiler(const std::string& compiler) const {
  return FindTable(compiler) != nullptr;
}

std::vector<std::string> PatternTableRegistry::ListCompilers() const {
  std::vector<std::string> out;
  for (const auto& [name, table] : tables_) out.push_back(name);
  return out;
}

const std::vector<PatternTableEntry>& GetPatternTable(const std::string& compiler) {
  return PatternTableRegistry::Global().GetPatterns(compiler);
}

bool IsSupportedBy(const std::string& compiler, const CallNode& call) {
  if (auto* fn = call.callee.as<FunctionNode>()) {
    const AttrValue* label = fn->attrs.Find(attr::kComposite);
    return label && label->is_string() && label->AsString().rfind(compiler + ".", 0) == 0;
  }
  const OpNode* op = call.op();
  if (!op) return false;
  const OpSupportPredicate* pred = PatternTableRegistry::Global().FindOpSupport(compiler, op->name);
  return pred && (*pred)(call);
}

}  // namespace tessera
