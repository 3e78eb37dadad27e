// Private: the files of the native compiler driver: cache entries (a payload with its
// digest, written atomically), scratch directories, and reading and writing whole files.
#pragma once

#include <string>
#include <vector>

namespace tessera::native::detail {

/// `name` from the environment, or "".
std::string Getenv(const char* name);
/// Reads the whole file at `path`; false when it cannot be read.
bool ReadFile(const std::string& path, std::string* out);
/// Writes `data` to a new file at `path` (replacing it); throws an IO error.
void WriteNewFile(const std::string& path, const std::string& data);

/// One cache entry's bytes for `payload`: a magic line, the payload's SHA-256 and size,
/// then the payload.
std::string EntryBytes(const std::string& payload);
/// The payload of an intact cache entry, or false.
bool ParseEntry(const std::string& entry, std::string* payload);
/// The intact payload of the entry at `path`; `damaged` is set when a file is there but
/// not intact (so the caller counts a rebuild).
bool ReadEntry(const std::string& path, std::string* payload, bool* damaged);
/// Stores `payload` as the entry at `dir`/`name` atomically (temp file + rename, so
/// readers see the old entry or the whole new one); a failure only logs a warning, since
/// the cache is an optimisation.
void StoreEntry(const std::string& dir, const std::string& name, const std::string& payload);

/// A private temporary directory, removed with its files.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  /// The path of file `name` inside it (removed with the directory).
  std::string File(const std::string& name);

 private:
  std::string path_;
  std::vector<std::string> files_;
};

}  // namespace tessera::native::detail
