// Private: running a program without a shell, with its output captured.
#pragma once

#include <string>
#include <vector>

namespace tessera::native::detail {

/// How a child process ended.
struct ProcessResult {
  bool started = false;  ///< false: the program could not be run (see `error`)
  int exit_code = -1;    ///< exit status, or -1 when killed by a signal
  std::string output;    ///< stdout and stderr, interleaved
  std::string error;     ///< why it could not be started
};

/// Runs `argv` (argv[0] searched in PATH) with stdin from /dev/null and waits.
ProcessResult RunProcess(const std::vector<std::string>& argv);

/// `argv` joined with spaces, arguments with unusual characters single-quoted.
std::string CommandString(const std::vector<std::string>& argv);

}  // namespace tessera::native::detail
