// The measuring process: found next to the library (or the Dask bridge), spawned with a
// socket for jobs and a pipe for its stderr, pinned, fed a window of jobs, and killed on
// timeout; crashes become reasons.
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
#include <set>
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

/// "/usr/lib/python3/dist-packages" style folder holding the `tessera` package that sits
/// with this library (Python package: the library is inside it; build tree: python/).
std::string PackageParent() {
  std::string dir = LibraryDirectory();
  if (dir.empty()) return "";
  if (::access((dir + "/__init__.py").c_str(), R_OK) == 0)
    return std::filesystem::path(dir).parent_path().string();
  if (::access((dir + "/python/tessera/__init__.py").c_str(), R_OK) == 0) return dir + "/python";
  return "";
}

}  // namespace

std::vector<std::string> DaskBridgeCommand(const std::string& address, double timeout_s) {
  std::string python = "python3";
  if (const char* env = std::getenv("TESSERA_PYTHON"); env && *env)
    python = env;
  else if (Executable("/usr/bin/python3"))
    python = "/usr/bin/python3";  // Debian's, which sees python3-distributed
  char timeout[32];
  std::snprintf(timeout, sizeof timeout, "%g", timeout_s);
  return {python, "-m", "tessera._dask_bridge", "--timeout", timeout, address};
}

std::string MeasureWorkerPath() {
  if (const char* env = std::getenv("TESSERA_MEASURE_WORKER"); env && *env)
    return Executable(env) ? std::string(env) : std::string();
  std::string dir = LibraryDirectory();
  if (dir.empty()) return "";
  for (const std::string& candidate : {dir + "/" + kWorkerName, dir + "/tessera/" + kWorkerName})
    if (Executable(candidate)) return candidate;
  return "";
}

MeasureWorker::MeasureWorker(std::vector<std::string> command, double timeout_s, size_t window,
                             std::string name)
    : command_(std::move(command)), timeout_s_(timeout_s), window_(std::max<size_t>(window, 1)),
      name_(std::move(name)) {}

MeasureWorker::~MeasureWorker() { Stop(); }

void MeasureWorker::Start(int threads) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    TS_THROW(kIO) << name_ << ": socketpair failed: " << std::strerror(errno);
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    TS_THROW(kIO) << name_ << ": pipe failed: " << std::strerror(errno);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 0);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> argv;
  for (std::string& a : command_) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The bridge imports the tessera package that sits with this library.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "PYTHONPATH=", 11) != 0) env_text.emplace_back(*e);
  std::string python_path;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) python_path = old;
  if (std::string parent = PackageParent(); !parent.empty())
    python_path = parent + (python_path.empty() ? "" : ":" + python_path);
  if (!python_path.empty()) env_text.push_back("PYTHONPATH=" + python_path);
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(sockets[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(sockets[0]);
    ::close(err_pipe[0]);
    TS_THROW(kIO) << name_ << ": cannot start '" << command_[0] << "': " << std::strerror(rc);
  }
  pid_ = pid;
  fd_ = sockets[0];
  err_fd_ = err_pipe[0];
  ::fcntl(err_fd_, F_SETFL, O_NONBLOCK);
  threads_ = threads;
  stderr_.clear();
  pending_.clear();
  ++starts_;
  // The local worker is pinned to the first `threads` cores this process may use: its
  // measurements never share a core with each other, and the scheduler does not move
  // them around. (A bridge only relays.)
  cpu_set_t allowed, pinned;
  CPU_ZERO(&pinned);
  if (window_ == 1 && threads > 0 && ::sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    int taken = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && taken < threads; ++cpu)
      if (CPU_ISSET(cpu, &allowed)) {
        CPU_SET(cpu, &pinned);
        ++taken;
      }
    if (taken == threads) ::sched_setaffinity(pid_, sizeof pinned, &pinned);
  }
  LogDebug("collage: started " + name_ + " " + std::to_string(pid_) + " (" + command_[0] + ")");
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
  DrainStderr();  // keep what it said last
  ::close(fd_);
  ::close(err_fd_);
  pid_ = -1;
  fd_ = err_fd_ = -1;
  pending_.clear();
  return how;
}

void MeasureWorker::DrainStderr() {
  char buffer[4096];
  for (;;) {
    ssize_t n = err_fd_ >= 0 ? ::read(err_fd_, buffer, sizeof buffer) : -1;
    if (n <= 0) break;
    stderr_.append(buffer, static_cast<size_t>(n));
    if (stderr_.size() > 2048) stderr_.erase(0, stderr_.size() - 2048);
  }
}

std::string MeasureWorker::TakeLastWords() {
  DrainStderr();
  std::string tail = stderr_;
  stderr_.clear();
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  size_t newline = tail.rfind('\n');
  if (newline != std::string::npos) tail.erase(0, newline + 1);
  return tail.empty() ? "" : ": " + tail;
}

bool MeasureWorker::Send(size_t id, const MeasureJob& job, const runtime::TimingOptions& options) {
  char header[512];
  std::snprintf(header, sizeof header, "measure %zu %zu %d %d %d %.17g %d %d %s ", id, job.bytes.size(),
                job.threads, options.repeat, options.number, options.percentile,
                options.flush_cache ? 1 : 0, options.check_finite ? 1 : 0,
                job.fingerprint.empty() ? "-" : job.fingerprint.c_str());
  std::string line = header + (job.targets.empty() ? std::string("-") : job.targets) + "\n";
  for (const std::string* part : {static_cast<const std::string*>(&line), &job.bytes}) {
    const char* p = part->data();
    size_t n = part->size();
    while (n > 0) {
      ssize_t sent = ::send(fd_, p, n, MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent <= 0) return false;
      p += sent;
      n -= static_cast<size_t>(sent);
    }
  }
  return true;
}

std::string MeasureWorker::ReadLine(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    size_t end = pending_.find('\n');
    if (end != std::string::npos) {
      std::string line = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      return line.empty() ? " " : line;
    }
    double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return "";
    pollfd fds[2] = {{fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    int ready = ::poll(fds, 2, static_cast<int>(std::min(left * 1000.0 + 1, 1e9)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return "\n";
    if (fds[1].revents & POLLIN) DrainStderr();
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buffer[4096];
    ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "\n";
    pending_.append(buffer, static_cast<size_t>(n));
  }
}

void MeasureWorker::MeasureAll(size_t n, const std::function<MeasureJob(size_t)>& next,
                               const runtime::TimingOptions& options,
                               const std::function<void(size_t, EstimateResult)>& done) {
  std::set<size_t> in_flight;
  // Everything in flight when the process ends or stops answering shares its fate.
  auto fail_all = [&](const std::string& reason) {
    for (size_t id : in_flight) done(id, Invalid(reason));
    in_flight.clear();
  };
  size_t i = 0;
  while (i < n || !in_flight.empty()) {
    while (i < n && in_flight.size() < window_) {
      MeasureJob job;
      try {
        job = next(i);
      } catch (const Error& e) {
        done(i++, Invalid(e.what()));
        continue;
      }
      // The local worker is pinned for one thread count; another one restarts it.
      if (pid_ >= 0 && window_ == 1 && job.threads != threads_ && in_flight.empty()) Stop();
      if (pid_ < 0) Start(job.threads);
      if (!Send(i, job, options)) {
        std::string how = Stop();
        in_flight.insert(i++);
        fail_all(name_ + " " + (how.empty() ? std::string("stopped") : how) +
                 " before the candidate was sent" + TakeLastWords());
        continue;
      }
      in_flight.insert(i++);
    }
    if (in_flight.empty()) continue;
    // The bridge enforces the timeout per candidate itself; this only catches a bridge
    // that stops answering altogether.
    double wait = window_ == 1 ? timeout_s_ : 2 * timeout_s_ + 60;
    std::string line = ReadLine(wait);
    if (line.empty() && window_ > 1) {
      Stop();
      TS_THROW(kIO) << "the " << name_ << " (" << command_.back() << ") gave no answer for "
                    << wait << " s" << TakeLastWords();
    }
    if (line.empty()) {
      Stop();
      stderr_.clear();
      char text[200];
      std::snprintf(text, sizeof text,
                    "timed out: the candidate ran longer than %g s (collage.measure_timeout_s); "
                    "the %s was killed",
                    timeout_s_, name_.c_str());
      fail_all(text);
      continue;
    }
    if (line == "\n") {
      // The process is gone; wait for it so the status says why.
      int status = 0;
      ::waitpid(pid_, &status, 0);
      std::string words = TakeLastWords();
      ::close(fd_);
      ::close(err_fd_);
      pid_ = -1;
      fd_ = err_fd_ = -1;
      pending_.clear();
      // A bridge does not run candidates itself: its end (no scheduler, a broken
      // environment) is the runner's failure, not the candidates'.
      if (window_ > 1)
        TS_THROW(kIO) << "the " << name_ << " (" << command_.back() << ") ended ("
                      << Describe(status) << ")" << words;
      fail_all("the candidate crashed the " + name_ + " (" + Describe(status) + ")" + words);
      continue;
    }
    std::istringstream in(line);
    size_t id = 0;
    std::string word, rest;
    in >> id >> word;
    std::getline(in, rest);
    if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    if (!in_flight.count(id)) {
      Stop();
      fail_all(name_ + " answered '" + line.substr(0, 200) + "'");
      continue;
    }
    in_flight.erase(id);
    EstimateResult r;
    std::istringstream numbers(rest);
    if (word == "ok" && numbers >> r.cost >> r.spread >> r.repeats && r.cost >= 0)
      done(id, r);
    else if (word == "invalid")
      done(id, Invalid(rest));
    else if (word == "error")
      done(id, Invalid("run failed: " + rest));
    else
      done(id, Invalid(name_ + " answered '" + line.substr(0, 200) + "'"));
  }
}

EstimateResult MeasureWorker::Measure(MeasureJob job, const runtime::TimingOptions& options) {
  EstimateResult result;
  MeasureAll(
      1, [&](size_t) { return std::move(job); }, options,
      [&](size_t, EstimateResult r) { result = std::move(r); });
  return result;
}

}  // namespace tessera::collage
