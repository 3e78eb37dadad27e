// The files of the native compiler driver: digest-checked cache entries written
// atomically, scratch directories, whole-file reads and writes.
#include "compile_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/support/sha256.h"

namespace tessera::native::detail {

namespace {

constexpr char kEntryMagic[] = "TSOBJ1\n";

void WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) TS_THROW(kIO) << "cannot write '" << path << "': " << std::strerror(errno);
    done += static_cast<size_t>(n);
  }
}

/// mkdir -p; throws an IO error naming the directory on failure.
void MakeDirs(const std::string& path) {
  std::string prefix;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    prefix = path.substr(0, pos);
    if (prefix.empty()) continue;
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      TS_THROW(kIO) << "cannot create cache directory '" << prefix << "': " << std::strerror(errno);
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    TS_THROW(kIO) << "cache path '" << path << "' is not a directory";
}

void WriteFileAtomic(const std::string& dir, const std::string& path, const std::string& data) {
  std::string tmpl = dir + "/.tmp-XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) TS_THROW(kIO) << "cannot create a file in '" << dir << "': " << std::strerror(errno);
  try {
    WriteAll(fd, data, tmpl);
  } catch (...) {
    close(fd);
    unlink(tmpl.c_str());
    throw;
  }
  close(fd);
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmpl.c_str());
    TS_THROW(kIO) << "cannot rename into '" << path << "': " << std::strerror(err);
  }
}

}  // namespace

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return !in.bad();
}

void WriteNewFile(const std::string& path, const std::string& data) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) TS_THROW(kIO) << "cannot write '" << path << "': " << std::strerror(errno);
  try {
    WriteAll(fd, data, path);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
}

std::string EntryBytes(const std::string& payload) {
  return std::string(kEntryMagic) + Sha256Hex(payload) + "\n" + std::to_string(payload.size()) +
         "\n" + payload;
}

bool ParseEntry(const std::string& entry, std::string* payload) {
  size_t magic = std::strlen(kEntryMagic);
  if (entry.compare(0, magic, kEntryMagic) != 0) return false;
  size_t hash_end = entry.find('\n', magic);
  if (hash_end == std::string::npos) return false;
  size_t size_end = entry.find('\n', hash_end + 1);
  if (size_end == std::string::npos) return false;
  std::string hash = entry.substr(magic, hash_end - magic);
  std::string size = entry.substr(hash_end + 1, size_end - hash_end - 1);
  std::string data = entry.substr(size_end + 1);
  if (size != std::to_string(data.size()) || hash != Sha256Hex(data)) return false;
  *payload = std::move(data);
  return true;
}

bool ReadEntry(const std::string& path, std::string* payload, bool* damaged) {
  std::string entry;
  *damaged = false;
  if (!ReadFile(path, &entry)) return false;
  if (ParseEntry(entry, payload)) return true;
  *damaged = true;
  LogWarn("native compiler cache: damaged entry '" + path + "' is rebuilt");
  return false;
}

void StoreEntry(const std::string& dir, const std::string& name, const std::string& payload) {
  try {
    MakeDirs(dir);
    WriteFileAtomic(dir, dir + "/" + name, EntryBytes(payload));
  } catch (const Error& e) {
    LogWarn(std::string("native compiler cache disabled for this object: ") + e.what());
  }
}

ScratchDir::ScratchDir() {
  std::string base = Getenv("TMPDIR");
  if (base.empty()) base = "/tmp";
  path_ = base + "/tessera-cc-XXXXXX";
  if (!mkdtemp(path_.data()))
    TS_THROW(kIO) << "cannot create a temporary directory under '" << base
                  << "': " << std::strerror(errno);
}

ScratchDir::~ScratchDir() {
  for (const std::string& f : files_) unlink((path_ + "/" + f).c_str());
  rmdir(path_.c_str());
}

std::string ScratchDir::File(const std::string& name) {
  files_.push_back(name);
  return path_ + "/" + name;
}

}  // namespace tessera::native::detail
