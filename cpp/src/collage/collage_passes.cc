// Pipeline registrations of the Collage passes (appended to the built-in table).
#include <sstream>

#include "tessera/collage/collage_partition.h"
#include "tessera/collage/name_supply.h"
#include "tessera/collage/partition_for_testing.h"
#include "tessera/target/target.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

/// Splits "a,b,,c" at commas (empty fields kept; "" gives no fields).
std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, ',')) parts.push_back(part);
  if (text.back() == ',') parts.push_back("");
  return parts;
}

std::vector<size_t> ParseIndexes(const std::string& text) {
  std::vector<size_t> indexes;
  for (const std::string& part : SplitCommas(text)) {
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || v < 0)
      TS_THROW(kValue) << "PartitionForTesting: indexes must be non-negative integers separated "
                          "by commas, got '"
                       << part << "'";
    indexes.push_back(static_cast<size_t>(v));
  }
  return indexes;
}

}  // namespace

void AppendCollagePasses(std::vector<PassRegistration>& passes) {
  passes.push_back(
      {"CollagePartition",
       "Collage: choose the backend of every kernel among the targets' by estimated cost",
       {{"targets", AttrValue::Kind::kString, AttrValue("native"),
         "targets separated by ';', e.g. \"native -compiler=dnnl;blas\""}},
       [](const Attrs& o) {
         std::vector<Target> targets;
         std::istringstream in(o.GetString("targets"));
         std::string text;
         while (std::getline(in, text, ';'))
           if (text.find_first_not_of(' ') != std::string::npos)
             targets.push_back(Target::Parse(text));
         if (targets.empty())
           TS_THROW(kValue) << "CollagePartition: option targets names no target";
         return collage::CollagePartition(std::move(targets));
       }});
  passes.push_back(
      {"OutlineCompilerFunctions",
       "lift local functions with a Compiler attribute (partitions made by hand) into "
       "global functions, as the BYOC flow makes them",
       {},
       [](const Attrs&) {
         return CreateModulePass(
             [](IRModule mod, const PassContext&) {
               collage::NameSupply names("partition");
               return collage::OutlineCompilerFunctions(mod, names);
             },
             PassInfo{"OutlineCompilerFunctions", 0, {}});
       }});
  passes.push_back(
      {"PartitionForTesting",
       "Collage: turn the given post-DFS indices of @main into one partition function",
       {{"max_exits", AttrValue::Kind::kInt, AttrValue(int64_t{1}), "maximum exits (0: any)"},
        {"allow_taps", AttrValue::Kind::kBool, AttrValue(false), "allow exits feeding inside"},
        {"compiler", AttrValue::Kind::kString, AttrValue("foo"), "the Compiler attribute"},
        {"indexes", AttrValue::Kind::kString, AttrValue(""), "indices, e.g. \"6,7\""},
        {"labels", AttrValue::Kind::kString, AttrValue(""),
         "Composite label per index, comma separated (empty: none)"}},
       [](const Attrs& o) {
         int64_t max_exits = o.GetInt("max_exits");
         if (max_exits < 0) TS_THROW(kValue) << "PartitionForTesting: max_exits must be >= 0";
         return collage::PartitionForTesting(
             static_cast<size_t>(max_exits), o.GetBool("allow_taps"), o.GetString("compiler"),
             ParseIndexes(o.GetString("indexes")), SplitCommas(o.GetString("labels")));
       }});
}

}  // namespace tessera
