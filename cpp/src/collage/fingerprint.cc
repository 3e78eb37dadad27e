// Machine fingerprints from the host CPU, the measuring thread count and the identities
// the backends register.
#include "tessera/collage/fingerprint.h"

#include <set>

#include "tessera/backend/build.h"
#include "tessera/collage/measure.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"
#include "tessera/support/sha256.h"
#include "tessera/support/version.h"
#include "tessera/target/backend_registry.h"

namespace tessera::collage {

std::string MachineFingerprint(const std::vector<Target>& targets) {
  std::string text = "cpu: " + HostCpuModel() + "\nisa:";
  for (const std::string& e : HostIsaExtensions()) text += " " + e;
  text += "\nthreads: " + std::to_string(targets.empty() ? 1 : MeasureThreads(targets.front()));
  // Every backend a candidate for these targets is built with: the host runs whatever a
  // library partition leaves, so it is always among them.
  std::set<std::string> kinds{HostTarget(targets).kind()};
  for (const Target& t : targets) {
    kinds.insert(t.kind());
    for (const char* option : {"compiler", "libs"})
      if (t.HasAttr(option) && t.attrs().count(option))
        for (const std::string& l : t.GetStringList(option)) kinds.insert(l);
  }
  for (const std::string& kind : kinds) {
    const Backend* b = BackendRegistry::Global().Find(kind);
    text += "\nbackend " + kind + ": " + (b && b->identity ? b->identity() : std::string("-"));
  }
  text += "\ntessera: " + std::string(Version());
  return text;
}

std::string FingerprintHash(const std::string& fingerprint_text) {
  return Sha256Hex(fingerprint_text).substr(0, 16);
}

std::string LocalFingerprintHash(const std::string& targets_text) {
  std::vector<Target> targets;
  size_t start = 0;
  try {
    while (start <= targets_text.size()) {
      size_t end = targets_text.find(';', start);
      if (end == std::string::npos) end = targets_text.size();
      std::string text = targets_text.substr(start, end - start);
      if (text.find_first_not_of(' ') != std::string::npos) targets.push_back(Target::Parse(text));
      start = end + 1;
    }
  } catch (const Error&) {
    return "";  // a backend this build lacks: nothing measured there is usable here
  }
  return FingerprintHash(MachineFingerprint(targets));
}

}  // namespace tessera::collage
