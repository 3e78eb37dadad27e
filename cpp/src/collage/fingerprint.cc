// Machine fingerprints from the host CPU, the measuring thread count and the identities
// the backends register.
#include "tessera/collage/fingerprint.h"

#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

#include "tessera/backend/build.h"
#include "tessera/collage/measure.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"
#include "tessera/support/sha256.h"
#include "tessera/support/version.h"
#include "tessera/target/backend_registry.h"

namespace tessera::collage {

namespace {

/// What measuring depends on where the program runs: the CPU, the thread count, the
/// libraries the saved kernels call (`runtime_identity`) and Tessera's version.
std::string MachinePart(int threads, const std::set<std::string>& kinds) {
  std::string text = "cpu: " + HostCpuModel() + "\nisa:";
  for (const std::string& e : HostIsaExtensions()) text += " " + e;
  text += "\nthreads: " + std::to_string(threads);
  for (const std::string& kind : kinds) {
    const Backend* b = BackendRegistry::Global().Find(kind);
    if (b && b->runtime_identity) text += "\nruntime " + kind + ": " + b->runtime_identity();
  }
  // What the fingerprint cannot see (memory, firmware settings, other tenants) can be
  // told apart by a label.
  if (const char* tag = std::getenv("TESSERA_MACHINE_TAG"); tag && *tag)
    text += "\ntag: " + std::string(tag);
  return text + "\ntessera: " + std::string(Version());
}

}  // namespace

std::string MachineFingerprint(const std::vector<Target>& targets) {
  // Every backend a candidate for these targets is built with: the host runs whatever a
  // library partition leaves, so it is always among them.
  std::set<std::string> kinds{HostTarget(targets).kind()};
  for (const Target& t : targets) {
    kinds.insert(t.kind());
    for (const char* option : {"compiler", "libs"})
      if (t.HasAttr(option) && t.attrs().count(option))
        for (const std::string& l : t.GetStringList(option)) kinds.insert(l);
  }
  std::string text =
      MachinePart(targets.empty() ? 1 : MeasureThreads(targets.front()), kinds);
  for (const std::string& kind : kinds) {
    const Backend* b = BackendRegistry::Global().Find(kind);
    text += "\nbackend " + kind + ": " + (b && b->identity ? b->identity() : std::string("-"));
  }
  return text;
}

std::string RunnerFingerprint(const std::string& targets_text) {
  // Read leniently: a backend declared at run time in the driver (its kernels are native
  // code built there) is unknown where the program runs.
  std::set<std::string> kinds;
  int threads = 0;
  std::istringstream targets(targets_text);
  std::string target;
  for (bool first = true; std::getline(targets, target, ';'); first = false) {
    std::istringstream words(target);
    std::string word;
    if (words >> word) kinds.insert(word);
    while (words >> word) {
      size_t eq = word.find('=');
      std::string key = word.substr(0, eq), value = eq == std::string::npos ? "" : word.substr(eq + 1);
      if (first && key == "-num_threads") threads = std::atoi(value.c_str());
      if (key == "-compiler" || key == "-libs") {
        std::istringstream names(value);
        std::string name;
        while (std::getline(names, name, ',')) kinds.insert(name);
      }
    }
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return MachinePart(threads, kinds);
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
