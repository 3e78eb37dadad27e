// The transform layer's passes in the built-in table: InferType and PrintIR here, the
// standard and BYOC passes from their files.
#include "builtin_passes.h"

namespace tessera {

void AppendTransformPasses(std::vector<PassRegistration>& passes) {
  passes.push_back(
      {"InferType", "infer and check the types of every function", {}, [](const Attrs&) {
         return InferType();
       }});
  passes.push_back(
      {"PrintIR",
       "print the module to stderr",
       {{"header", AttrValue::Kind::kString, AttrValue(""), "header line text"},
        {"show_meta_data", AttrValue::Kind::kBool, AttrValue(false), "print constants' data"}},
       [](const Attrs& o) { return PrintIR(o.GetString("header"), o.GetBool("show_meta_data")); }});
  AppendStandardPasses(passes);
  AppendByocPasses(passes);
}

}  // namespace tessera
