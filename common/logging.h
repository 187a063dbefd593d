// Logging set-up shared by the daemons: one named spdlog logger per daemon, one
// pattern, Slurm's level names.
//
// Entities are printed the same way everywhere: JobId=42, NodeName=gpu01.
#ifndef SKIFF_COMMON_LOGGING_H_
#define SKIFF_COMMON_LOGGING_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "spdlog/spdlog.h"

namespace skiff {

// Slurm's debug level names (SlurmctldDebug=, SlurmdDebug=): quiet, fatal, error,
// info, verbose, debug, debug2 .. debug5. Also accepts spdlog's names (warn, trace).
// InvalidArgument quotes an unknown name.
absl::StatusOr<spdlog::level::level_enum> ParseLogLevel(std::string_view name);

// Creates the daemon's logger, registers it as spdlog's default and returns it.
// `file` empty logs to stderr; otherwise appends to the file (created if missing).
// Pattern: "[2026-11-22T05:14:09.123] [ctld] [info] [tid 1234] message".
// Call once from main, before any thread that logs.
absl::StatusOr<std::shared_ptr<spdlog::logger>> SetupLogging(const std::string& name,
                                                             spdlog::level::level_enum level,
                                                             const std::string& file);

}  // namespace skiff

#endif  // SKIFF_COMMON_LOGGING_H_
