// tessera-measure-worker: times saved candidate programs for Collage in a process of its
// own, so a candidate that crashes or hangs takes only this process down. Needs only the
// runtime library. One job at a time on standard input, one answer line each on
// standard output (the protocol of tessera/collage/measure_worker.h):
//   job:    "measure <id> <bytes> <threads> <repeat> <number> <percentile> <flush> <check>
//            <fingerprint> <targets...>\n" then <bytes> bytes of a saved executable
//   answer: "<id> ok <seconds> <spread> <samples>\n", "<id> invalid <reason>\n" (it ran
//           but cannot be used) or "<id> error <reason>\n" (it could not be loaded or run)
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

#include "tessera/runtime/executable.h"
#include "tessera/runtime/timing.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"

namespace {

/// Reads exactly `n` bytes from standard input; false at end of input.
bool ReadExactly(char* data, size_t n) {
  while (n > 0) {
    ssize_t got = ::read(0, data, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    data += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

/// Reads one line (without '\n') from standard input; false at end of input.
bool ReadLine(std::string& line) {
  line.clear();
  char c;
  while (ReadExactly(&c, 1)) {
    if (c == '\n') return true;
    line.push_back(c);
    if (line.size() > 4096) return false;  // not a job line
  }
  return false;
}

void Answer(const std::string& text) {
  std::string line = text;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  line.push_back('\n');
  const char* p = line.data();
  size_t n = line.size();
  while (n > 0) {
    ssize_t put = ::write(1, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) std::_Exit(1);  // the compiler is gone
    p += put;
    n -= static_cast<size_t>(put);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    std::fprintf(stderr,
                 "usage: %s   (started by Collage: reads measurement jobs on standard input)\n",
                 argv[0]);
    return 2;
  }
  tessera::InitLoggingFromEnv();
  std::string line;
  while (ReadLine(line)) {
    std::istringstream in(line);
    std::string word;
    size_t id = 0, bytes = 0;
    int threads = 0, flush = 1, check = 0;
    tessera::runtime::TimingOptions options;
    if (!(in >> word >> id >> bytes >> threads >> options.repeat >> options.number >>
          options.percentile >> flush >> check) ||
        word != "measure" || bytes > (size_t{1} << 34)) {
      Answer(std::to_string(id) + " error malformed job line: " + line.substr(0, 200));
      return 1;  // the stream is out of step: start over with a new worker
    }
    options.flush_cache = flush != 0;
    options.check_finite = check != 0;
    std::string data(bytes, '\0');
    if (!ReadExactly(data.data(), bytes)) return 1;
    const std::string tag = std::to_string(id) + " ";
    try {
      auto exe = tessera::runtime::Executable::LoadFromBytes(data);
      tessera::runtime::Timing t = tessera::runtime::TimeExecutable(exe, threads, options);
      if (!t.error.empty()) {
        Answer(tag + "invalid " + t.error);
        continue;
      }
      char text[128];
      std::snprintf(text, sizeof text, "ok %.17g %.17g %d", t.seconds, t.spread, t.repeats);
      Answer(tag + text);
    } catch (const std::exception& e) {
      Answer(tag + "error " + e.what());
    }
  }
  return 0;
}
