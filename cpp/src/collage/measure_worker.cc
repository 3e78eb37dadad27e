// The measurement worker process: found next to the library, spawned with a socket for
// jobs and a pipe for its stderr, pinned, and killed on timeout; crashes become reasons.
#include "tessera/collage/measure_worker.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "tessera/support/error.h"
#include "tessera/support/logging.h"

extern char** environ;

namespace tessera::collage {

namespace {

constexpr const char* kWorkerName = "tessera-measure-worker";

/// The folder libtessera.so was loaded from.
std::string LibraryDirectory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&MeasureWorkerPath), &info) || !info.dli_fname) return "";
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

bool Executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

/// "killed by signal 11 (Segmentation fault)", "exited with status 3".
std::string Describe(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

EstimateResult Invalid(const std::string& reason) {
  EstimateResult r;
  r.cost = kInvalidCost;
  r.error = reason;
  return r;
}

}  // namespace

std::string MeasureWorkerPath() {
  if (const char* env = std::getenv("TESSERA_MEASURE_WORKER"); env && *env)
    return Executable(env) ? std::string(env) : std::string();
  std::string dir = LibraryDirectory();
  if (dir.empty()) return "";
  for (const std::string& candidate : {dir + "/" + kWorkerName, dir + "/tessera/" + kWorkerName})
    if (Executable(candidate)) return candidate;
  return "";
}

MeasureWorker::MeasureWorker(std::string path, double timeout_s)
    : path_(std::move(path)), timeout_s_(timeout_s) {}

MeasureWorker::~MeasureWorker() { Stop(); }

void MeasureWorker::Start(int threads) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    TS_THROW(kIO) << "measurement worker: socketpair failed: " << std::strerror(errno);
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    TS_THROW(kIO) << "measurement worker: pipe failed: " << std::strerror(errno);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 0);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  char* argv[] = {const_cast<char*>(path_.c_str()), nullptr};
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, path_.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(sockets[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(sockets[0]);
    ::close(err_pipe[0]);
    TS_THROW(kIO) << "measurement worker: cannot start '" << path_ << "': " << std::strerror(rc);
  }
  pid_ = pid;
  fd_ = sockets[0];
  err_fd_ = err_pipe[0];
  ::fcntl(err_fd_, F_SETFL, O_NONBLOCK);
  threads_ = threads;
  stderr_.clear();
  ++starts_;
  // Pinned to the first `threads` cores this process may use: its measurements never
  // share a core with each other, and the scheduler does not move them around.
  cpu_set_t allowed, pinned;
  CPU_ZERO(&pinned);
  if (threads > 0 && ::sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    int taken = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && taken < threads; ++cpu)
      if (CPU_ISSET(cpu, &allowed)) {
        CPU_SET(cpu, &pinned);
        ++taken;
      }
    if (taken == threads) ::sched_setaffinity(pid_, sizeof pinned, &pinned);
  }
  LogDebug("collage: started measurement worker " + std::to_string(pid_) + " (" + path_ + ")");
}

std::string MeasureWorker::Stop() {
  if (pid_ < 0) return "";
  std::string how;
  int status = 0;
  pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  } else if (done == pid_) {
    how = Describe(status);
  }
  StderrTail();  // keep what it said last
  ::close(fd_);
  ::close(err_fd_);
  pid_ = -1;
  fd_ = err_fd_ = -1;
  return how;
}

std::string MeasureWorker::StderrTail() {
  char buffer[4096];
  for (;;) {
    ssize_t n = err_fd_ >= 0 ? ::read(err_fd_, buffer, sizeof buffer) : -1;
    if (n <= 0) break;
    stderr_.append(buffer, static_cast<size_t>(n));
    if (stderr_.size() > 2048) stderr_.erase(0, stderr_.size() - 2048);
  }
  std::string tail = stderr_;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail;
}

std::string MeasureWorker::TakeLastWords() {
  std::string tail = StderrTail();
  stderr_.clear();
  size_t newline = tail.rfind('\n');
  if (newline != std::string::npos) tail.erase(0, newline + 1);
  return tail.empty() ? "" : ": " + tail;
}

EstimateResult MeasureWorker::Measure(const std::string& bytes, int threads,
                                      const runtime::TimingOptions& options) {
  if (pid_ >= 0 && threads != threads_) Stop();  // pinned for another thread count
  if (pid_ < 0) Start(threads);
  char header[256];
  std::snprintf(header, sizeof header, "measure %zu %d %d %d %.17g %d %d\n", bytes.size(), threads,
                options.repeat, options.number, options.percentile, options.flush_cache ? 1 : 0,
                options.check_finite ? 1 : 0);
  auto died = [&](const std::string& what) {
    std::string how = Stop();
    return Invalid("measurement worker " + (how.empty() ? std::string("stopped") : how) + " " +
                   what + TakeLastWords());
  };
  // Sending: a worker that died between jobs is restarted once.
  for (const std::string* part : {static_cast<const std::string*>(nullptr), &bytes}) {
    const char* p = part ? part->data() : header;
    size_t n = part ? part->size() : std::strlen(header);
    while (n > 0) {
      ssize_t sent = ::send(fd_, p, n, MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent <= 0) return died("before the candidate was sent");
      p += sent;
      n -= static_cast<size_t>(sent);
    }
  }
  // The answer line, within the timeout; the worker's stderr drained meanwhile.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
  std::string line;
  for (;;) {
    double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      Stop();
      stderr_.clear();
      char text[160];
      std::snprintf(text, sizeof text,
                    "timed out: the candidate ran longer than %g s (collage.measure_timeout_s); "
                    "the measurement worker was killed",
                    timeout_s_);
      return Invalid(text);
    }
    pollfd fds[2] = {{fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    int ready = ::poll(fds, 2, static_cast<int>(std::min(left * 1000.0 + 1, 1e9)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return died("(poll failed)");
    if (fds[1].revents & POLLIN) StderrTail();
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buffer[512];
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // The worker is gone; wait for it so the status says why.
      int status = 0;
      ::waitpid(pid_, &status, 0);
      StderrTail();
      ::close(fd_);
      ::close(err_fd_);
      pid_ = -1;
      fd_ = err_fd_ = -1;
      return Invalid("the candidate crashed the measurement worker (" + Describe(status) + ")" +
                     TakeLastWords());
    }
    line.append(buffer, static_cast<size_t>(n));
    size_t end = line.find('\n');
    if (end == std::string::npos) continue;
    line.resize(end);  // one answer per job: nothing follows it
    break;
  }
  std::istringstream in(line);
  std::string word;
  in >> word;
  std::string rest;
  std::getline(in, rest);
  if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
  if (word == "ok") {
    EstimateResult r;
    std::istringstream numbers(rest);
    if (numbers >> r.cost >> r.spread >> r.repeats && r.cost >= 0) return r;
  } else if (word == "invalid") {
    return Invalid(rest);
  } else if (word == "error") {
    return Invalid("run failed: " + rest);
  }
  Stop();
  return Invalid("measurement worker answered '" + line.substr(0, 200) + "'");
}

}  // namespace tessera::collage
