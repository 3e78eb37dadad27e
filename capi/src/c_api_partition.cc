// C API of pattern tables (from C, from the registry, registering them and external
// backends) and the BYOC partitioning passes.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "c_api_pattern_internal.h"
#include "tessera/backend/external_native.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"
#include "tessera/transform/byoc.h"

using namespace tessera;
using namespace tessera::capi;

namespace {

/// `table`'s entries with the "<name>." prefix on every label lacking it.
std::vector<PatternTableEntry> Prefixed(const std::string& name, const TsPatternTable_& table) {
  std::vector<PatternTableEntry> entries = table.entries;
  for (PatternTableEntry& e : entries)
    if (e.label.rfind(name + ".", 0) != 0) e.label = name + "." + e.label;
  return entries;
}

/// A TsStringCallback appending to the std::string `user_data`.
void AppendTo(const char* data, size_t length, void* user_data) {
  if (data && length) static_cast<std::string*>(user_data)->append(data, length);
}

TsPass GivePass(Pass pass) {
  return new TsPass_{std::move(pass)};
}

}  // namespace

extern "C" {

TsStatus TsPatternTableCreate(const TsPatternTableEntry* entries, size_t num_entries,
                              TsPatternTable* out) {
  TS_REQUIRE(out);
  if (num_entries) TS_REQUIRE(entries);
  for (size_t i = 0; i < num_entries; ++i)
    if (!entries[i].label || !entries[i].pattern)
      return Fail(TS_ERROR_INVALID_ARGUMENT, "TsPatternTableCreate: entry " + std::to_string(i) +
                                                 " has a NULL label or pattern");
  return Guard([&] {
    std::vector<PatternTableEntry> table;
    for (size_t i = 0; i < num_entries; ++i) {
      PatternTableEntry e;
      e.label = entries[i].label;
      e.pattern = BorrowPattern(entries[i].pattern, "a table entry's pattern");
      table.push_back(std::move(e));
    }
    // Checked: from here on the table owns the user data.
    for (size_t i = 0; i < num_entries; ++i) {
      auto data = std::make_shared<UserData>(entries[i].user_data, entries[i].user_data_destroy);
      table[i].predicate = PredicateFromC(entries[i].predicate, std::move(data),
                                          "the predicate of '" + table[i].label + "'");
    }
    *out = new TsPatternTable_{std::move(table)};
  });
}

TsStatus TsPatternTableGet(const char* compiler, TsPatternTable* out) {
  TS_REQUIRE(compiler);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsPatternTable_{GetPatternTable(compiler)}; });
}

TsStatus TsPatternTableGetNumEntries(TsPatternTable table, size_t* num_entries) {
  TS_REQUIRE(table);
  TS_REQUIRE(num_entries);
  *num_entries = table->entries.size();
  return TS_OK;
}

TsStatus TsPatternTableGetEntry(TsPatternTable table, size_t index, TsStringRef* label,
                                TsPattern* pattern, int* has_predicate) {
  TS_REQUIRE(table);
  return Guard([&] {
    CheckIndex(index, table->entries.size(), "TsPatternTableGetEntry: entry");
    const PatternTableEntry& e = table->entries[index];
    if (label) *label = RefOf(e.label);
    if (pattern) *pattern = GivePattern(e.pattern);
    if (has_predicate) *has_predicate = e.predicate ? 1 : 0;
  });
}

TsStatus TsPatternTableCheck(TsPatternTable table, size_t index, TsExpr root, int* accepted) {
  TS_REQUIRE(table);
  TS_REQUIRE(root);
  TS_REQUIRE(accepted);
  return Guard([&] {
    CheckIndex(index, table->entries.size(), "TsPatternTableCheck: entry");
    const PatternTableEntry& e = table->entries[index];
    Expr expr = Borrow<ExprNode>(root, "an expression");
    *accepted = !e.predicate || e.predicate(expr) ? 1 : 0;
  });
}

TsStatus TsPatternTableRegister(const char* name, TsPatternTable table) {
  TS_REQUIRE(name);
  TS_REQUIRE(table);
  return Guard([&] {
    if (!*name) TS_THROW(kValue) << "TsPatternTableRegister: the table needs a name";
    if (BackendRegistry::IsBuiltinName(name))
      TS_THROW(kValue) << "pattern table '" << name << "' is built in and cannot be replaced";
    PatternTableRegistry::Global().ReplacePatterns(name, Prefixed(name, *table));
  });
}

void TsPatternTableDestroy(TsPatternTable table) {
  delete table;
}

TsStatus TsListPatternTables(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    Emit(nlohmann::json(PatternTableRegistry::Global().ListCompilers()).dump(), callback,
         user_data);
  });
}

TsStatus TsListSupportedOps(const char* compiler, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(compiler);
  TS_REQUIRE(callback);
  return Guard([&] {
    Emit(nlohmann::json(PatternTableRegistry::Global().SupportedOps(compiler)).dump(), callback,
         user_data);
  });
}

TsStatus TsCallIsSupportedBy(TsExpr call, const char* compiler, int* supported) {
  TS_REQUIRE(call);
  TS_REQUIRE(compiler);
  TS_REQUIRE(supported);
  return Guard([&] {
    Ref<const CallNode> c = Borrow<CallNode>(call, "a call");
    *supported = IsSupportedBy(compiler, *c) ? 1 : 0;
  });
}

TsStatus TsExternalBackendRegister(const char* name, TsPatternTable table,
                                   TsPartitionCSource c_source, void* user_data,
                                   TsUserDataDestroy user_data_destroy) {
  TS_REQUIRE(name);
  TS_REQUIRE(table);
  return Guard([&] {
    if (!c_source) {
      RegisterExternalBackend(name, table->entries, "native");
      return;
    }
    auto holder = std::make_shared<UserData>(user_data, user_data_destroy);
    PartitionCSource source = [c_source, holder](const Function& partition,
                                                 const std::string& c_name) {
      std::string text;
      TsStatus status =
          c_source(Lend<TsExpr>(partition.get()), c_name.c_str(), AppendTo, &text, holder->data());
      if (status != TS_OK) ThrowCallbackError(status, "the C source callback");
      return text;
    };
    try {
      RegisterExternalBackend(name, table->entries, "c", std::move(source));
    } catch (...) {
      holder->Release();  // refused: the caller keeps its user data
      throw;
    }
  });
}

TsStatus TsMergeCompositePassCreate(TsPatternTable table, TsPass* out) {
  TS_REQUIRE(table);
  TS_REQUIRE(out);
  return Guard([&] { *out = GivePass(MergeComposite(table->entries)); });
}

TsStatus TsMergeCompositeCompilersPassCreate(const char* const* compilers, size_t num_compilers,
                                             TsPass* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<std::string> names = NamesFromC(compilers, num_compilers, "compilers");
    *out = GivePass(MergeComposite(names));
  });
}

TsStatus TsAnnotateTargetPassCreate(const char* const* compilers, size_t num_compilers,
                                    int include_non_call_ops, TsPass* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = GivePass(AnnotateTarget(NamesFromC(compilers, num_compilers, "compilers"),
                                   include_non_call_ops != 0));
  });
}

TsStatus TsMergeCompilerRegionsPassCreate(TsPass* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GivePass(MergeCompilerRegions()); });
}

TsStatus TsPartitionGraphPassCreate(TsPass* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GivePass(PartitionGraph()); });
}

TsStatus TsModulePartitionFor(TsModule module, const char* compiler, TsModule* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(compiler);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveModule(PartitionFor(BorrowModule(module), compiler)); });
}

}  // extern "C"
