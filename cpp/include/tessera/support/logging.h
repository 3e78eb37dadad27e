// Logging: spdlog underneath, quiet by default, level from TESSERA_LOG_LEVEL or the API.
#pragma once

#include <string>
#include <string_view>

namespace tessera {

/// Sets the log level: "trace", "debug", "info", "warn", "error" or "off" (default
/// "warn"); throws a value error for anything else.
void SetLogLevel(std::string_view level);
/// Applies TESSERA_LOG_LEVEL if set (invalid values are reported and ignored).
void InitLoggingFromEnv();
/// Whether debug messages are logged (so callers skip building ones nobody sees).
bool LogDebugEnabled();
/// Logs a message at debug / info / warn level.
void LogDebug(const std::string& message);
void LogInfo(const std::string& message);
void LogWarn(const std::string& message);

}  // namespace tessera
