// NameSupply: sanitised, de-duplicated names.
#include "tessera/collage/name_supply.h"

#include <cctype>

namespace tessera::collage {

static std::string Sanitize(const std::string& hint) {
  std::string out;
  if (!hint.empty() && !std::isalpha(static_cast<unsigned char>(hint[0]))) out += '_';
  for (char c : hint) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out;
}

std::string NameSupply::Fresh(const std::vector<std::string>& hints) {
  std::string name = prefix_;
  for (const std::string& h : hints)
    if (!h.empty()) name += (name.empty() ? "" : "_") + Sanitize(h);
  std::string result = name;
  // Suffixes count per base name; a suffixed name requested verbatim is skipped too.
  for (int& next = next_suffix_[name]; taken_.count(result);)
    result = name + "_" + std::to_string(++next);
  taken_.insert(result);
  return result;
}

}  // namespace tessera::collage
