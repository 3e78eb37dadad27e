// Logging through a dedicated spdlog logger writing to stderr.
#include "tessera/support/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "tessera/support/error.h"

namespace tessera {

static spdlog::logger& Logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = spdlog::stderr_color_mt("tessera");
    l->set_level(spdlog::level::warn);
    l->set_pattern("[tessera %l] %v");
    return l;
  }();
  return *logger;
}

void SetLogLevel(std::string_view level) {
  static const std::pair<const char*, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
      {"error", spdlog::level::err},   {"off", spdlog::level::off},
  };
  for (const auto& [name, value] : kLevels) {
    if (level == name) {
      Logger().set_level(value);
      return;
    }
  }
  TS_THROW(kValue) << "unknown log level '" << level
                   << "' (valid: trace, debug, info, warn, error, off)";
}

void InitLoggingFromEnv() {
  const char* level = std::getenv("TESSERA_LOG_LEVEL");
  if (!level) return;
  try {
    SetLogLevel(level);
  } catch (const Error& e) {
    Logger().warn("TESSERA_LOG_LEVEL: {}", e.what());
  }
}

void LogDebug(const std::string& message) {
  Logger().debug(message);
}
bool LogDebugEnabled() { return Logger().should_log(spdlog::level::debug); }
void LogInfo(const std::string& message) {
  Logger().info(message);
}
void LogWarn(const std::string& message) {
  Logger().warn(message);
}

}  // namespace tessera
