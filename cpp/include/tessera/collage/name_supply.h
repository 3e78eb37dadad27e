// NameSupply: deterministic, unique kernel names built from hints ("collage_dnnl_conv2d").
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tessera::collage {

/// Joins a prefix and hints with "_", turns characters outside [A-Za-z0-9_] into "_",
/// puts "_" before a hint starting with a non-letter, and appends "_1", "_2", ... to a
/// name already handed out. Names depend only on the sequence of requests.
class NameSupply {
 public:
  explicit NameSupply(std::string prefix = "collage") : prefix_(std::move(prefix)) {}
  /// A fresh name from `hints` (empty hints are skipped).
  std::string Fresh(const std::vector<std::string>& hints);

 private:
  std::string prefix_;
  std::map<std::string, int> next_suffix_;
  std::set<std::string> taken_;
};

}  // namespace tessera::collage
