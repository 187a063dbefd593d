#include "common/logging.h"

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/sinks/stdout_sinks.h"

namespace skiff {

absl::StatusOr<spdlog::level::level_enum> ParseLogLevel(std::string_view name) {
  using spdlog::level::level_enum;
  static const std::vector<std::pair<std::string_view, level_enum>> kLevels = {
      {"quiet", level_enum::off},     {"fatal", level_enum::critical},
      {"error", level_enum::err},     {"warn", level_enum::warn},
      {"warning", level_enum::warn},  {"info", level_enum::info},
      {"verbose", level_enum::debug}, {"debug", level_enum::debug},
      {"debug2", level_enum::trace},  {"debug3", level_enum::trace},
      {"debug4", level_enum::trace},  {"debug5", level_enum::trace},
      {"trace", level_enum::trace},
  };
  // Debian builds absl with its own string_view type: go through std::string.
  const std::string lower = absl::AsciiStrToLower(std::string(name));
  for (const auto& [level_name, level] : kLevels) {
    if (lower == level_name) return level;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log level '", std::string(name),
                   "' (use quiet, fatal, error, info, verbose, debug, debug2..debug5)"));
}

absl::StatusOr<std::shared_ptr<spdlog::logger>> SetupLogging(const std::string& name,
                                                             spdlog::level::level_enum level,
                                                             const std::string& file) {
  std::shared_ptr<spdlog::logger> logger;
  try {
    if (file.empty()) {
      logger =
          std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_sink_mt>());
    } else {
      logger = std::make_shared<spdlog::logger>(
          name, std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, /*truncate=*/false));
    }
  } catch (const spdlog::spdlog_ex& e) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open log file ", file, ": ", e.what()));
  }
  logger->set_pattern("[%Y-%m-%dT%H:%M:%S.%e] [%n] [%l] [tid %t] %v");
  logger->set_level(level);
  // Daemons are restarted by tests and admins with kill -9: keep the log complete.
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
  return logger;
}

}  // namespace skiff
