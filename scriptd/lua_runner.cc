#include "scriptd/lua_runner.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <charconv>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lua/bb_lua.h"
#include "lua/bb_lua_json.h"
#include "scriptd/lua_helper.h"

extern char** environ;

namespace skiff::scriptd {
namespace {

bool IsHook(const std::string& function) {
  for (const char* name : kBbRequiredFunctions) {
    if (function == name) return true;
  }
  for (const char* name : kBbOptionalFunctions) {
    if (function == name) return true;
  }
  return false;
}

std::string JobPrefix(uint64_t job_id) {
  return job_id != 0 ? absl::StrCat("JobId=", job_id, " ") : std::string();
}

// The rc line the helper writes on fd 3 ("-1\n"); nullopt when it never got there.
std::optional<int> ParseRcLine(const std::string& text) {
  if (text.empty() || text.back() != '\n') return std::nullopt;
  int rc = 0;
  const char* end = text.data() + text.size() - 1;
  auto [ptr, ec] = std::from_chars(text.data(), end, rc);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return rc;
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end + 1 - (start == std::string::npos ? 0 : start + 1));
}

}  // namespace

std::map<std::string, std::string> CurrentEnvironment() {
  std::map<std::string, std::string> env;
  for (char** var = environ; var != nullptr && *var != nullptr; ++var) {
    const char* eq = strchr(*var, '=');
    if (eq == nullptr || eq == *var) continue;
    env.emplace(std::string(*var, eq - *var), std::string(eq + 1));
  }
  return env;
}

LuaRunner::LuaRunner(ScriptRunner& runner, spdlog::logger& logger, Options options)
    : runner_(runner), logger_(logger), options_(std::move(options)) {}

void LuaRunner::ForwardLogLine(const LuaCall& call, std::string_view line) {
  struct Level {
    const char* prefix;
    spdlog::level::level_enum level;
  };
  // Slurm's verbose sits between info and debug; scriptd's default is info.
  static const Level kLevels[] = {
      {"error: ", spdlog::level::err},     {"info: ", spdlog::level::info},
      {"verbose: ", spdlog::level::debug}, {"debug: ", spdlog::level::debug},
      {"debug2: ", spdlog::level::trace},  {"debug3: ", spdlog::level::trace},
      {"debug4: ", spdlog::level::trace},
  };
  spdlog::level::level_enum level = spdlog::level::info;  // a command's output
  for (const Level& l : kLevels) {
    if (line.substr(0, strlen(l.prefix)) == l.prefix) {
      level = l.level;
      line.remove_prefix(strlen(l.prefix));
      break;
    }
  }
  logger_.log(level, "{}{}: {}", JobPrefix(call.job_id), call.function, std::string(line));
}

absl::StatusOr<LuaCallResult> LuaRunner::Run(const LuaCall& call) {
  if (!IsHook(call.function)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown burst_buffer.lua function '", call.function, "'"));
  }
  // The helper runs in "/": a relative path would name another file there.
  if (call.script_path.empty() || call.script_path[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("script_path must be an absolute path, not '", call.script_path, "'"));
  }
  BbLuaRequest request;
  request.args = call.args;
  if (!call.job_info_json.empty()) {
    absl::StatusOr<BbJobInfo> info = BbJobInfoFromJson(call.job_info_json);
    if (!info.ok()) return info.status();
    request.job_info = *std::move(info);
  }

  ScriptRequest run;
  run.request_id = call.request_id;
  run.path = options_.helper_path;
  run.argv0 = options_.helper_argv0;
  run.argv = {"--run-lua", call.function, "--script", call.script_path, "--rc-fd", "3"};
  if (call.run_as_uid != 0) {
    run.argv.push_back(absl::StrCat("--as-uid=", call.run_as_uid));
    run.argv.push_back(absl::StrCat("--as-gid=", call.run_as_gid));
  }
  run.environment = options_.environment;
  run.timeout_seconds = call.timeout_seconds;
  run.job_id = call.job_id;
  run.stdin_data = BbLuaRequestToJson(request);
  run.kill_grace = options_.kill_grace;
  run.split_output = true;
  run.on_stderr_line = [this, &call](std::string_view line) { ForwardLogLine(call, line); };
  run.fd3_pipe = true;
  run.parent_death_signal = SIGTERM;

  absl::StatusOr<ScriptResult> ran = runner_.Run(run);
  if (!ran.ok()) return ran.status();

  LuaCallResult result;
  result.pid = ran->pid;
  result.timed_out = ran->timed_out;
  result.killed = ran->killed;
  result.rc = kBbLuaError;
  const std::optional<int> rc = ParseRcLine(ran->fd3_data);
  if (!ran->error.empty()) {
    result.message = absl::StrCat(call.function, ": cannot start the Lua helper: ", ran->error);
  } else if (ran->timed_out) {
    result.message =
        absl::StrCat(call.function, " timed out after ", call.timeout_seconds, " seconds");
  } else if (ran->killed) {
    result.message = absl::StrCat(call.function, " was cancelled");
  } else if (ran->signal != 0) {
    result.message =
        absl::StrCat(call.function, ": the Lua helper was killed by signal ", ran->signal);
  } else if (!rc.has_value()) {
    // os.exit() in the script, or a crash before the answer.
    result.message = absl::StrCat(call.function, ": the Lua helper exited with status ",
                                  ran->exit_code, " without an answer");
    const std::string last = LastLine(ran->output_tail);
    if (!last.empty()) absl::StrAppend(&result.message, " (", last, ")");
  } else {
    result.rc = *rc;
    result.message = ValidUtf8(ran->stdout_data);
    if (ran->stdout_truncated) {
      logger_.warn("{}{}: message cut to its first {} bytes", JobPrefix(call.job_id), call.function,
                   ScriptRunner::kMaxStdout);
    }
  }
  if (result.rc != kBbLuaSuccess) {
    logger_.info("{}{} failed: rc={}: {}", JobPrefix(call.job_id), call.function, result.rc,
                 result.message);
  }
  return result;
}

}  // namespace skiff::scriptd
