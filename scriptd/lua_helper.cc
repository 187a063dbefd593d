#include "scriptd/lua_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lua/bb_lua_json.h"

namespace skiff {
namespace {

// The request is a few KiB; anything near this is not from scriptd.
constexpr size_t kMaxRequest = 16 << 20;

bool IsOptionalHook(const std::string& function) {
  for (const char* name : kBbOptionalFunctions) {
    if (function == name) return true;
  }
  return false;
}

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// SIGTERM (a timeout, a cancel, or scriptd's death through PR_SET_PDEATHSIG, which
// reaches the helper alone): pass it to the whole group, then die of it. The
// kill() makes SIGTERM pending for us too (blocked while this handler runs); it
// is delivered, with the default action, when the handler returns.
extern "C" void ForwardTermToGroup(int) {
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGTERM, &dfl, nullptr);
  kill(0, SIGTERM);
}

}  // namespace

std::string FormatLuaLogLines(BbLuaLogLevel level, std::string_view message) {
  const std::string prefix = absl::StrCat(BbLuaLogLevelName(level), ": ");
  std::string out;
  for (;;) {
    const size_t newline = message.find('\n');
    absl::StrAppend(&out, prefix, std::string(message.substr(0, newline)), "\n");
    if (newline == std::string_view::npos) break;
    message.remove_prefix(newline + 1);
    if (message.empty()) break;  // a trailing newline adds no empty line
  }
  return out;
}

LuaHookAnswer CallLuaHook(const std::string& function, const std::string& script_path,
                          std::string_view request_json, BbLuaLogger logger) {
  LuaHookAnswer answer;
  auto failed = [&answer](int exit_status, std::string message) {
    answer.exit_status = exit_status;
    answer.rc = kBbLuaError;
    answer.message = std::move(message);
    return answer;
  };
  absl::StatusOr<BbLuaRequest> request = ParseBbLuaRequest(request_json);
  if (!request.ok()) {
    return failed(
        kLuaHelperCallFailed,
        absl::StrCat(function, ": bad request from scriptd: ", request.status().message()));
  }
  absl::StatusOr<std::unique_ptr<BbLua>> lua = BbLua::Load(script_path, std::move(logger));
  if (!lua.ok()) return failed(kLuaHelperLoadFailed, std::string(lua.status().message()));
  if (IsOptionalHook(function) && !(*lua)->HasFunction(function)) return answer;  // done
  const BbJobInfo* job_info = request->job_info.has_value() ? &*request->job_info : nullptr;
  absl::StatusOr<BbLuaResult> result = (*lua)->Call(function, request->args, job_info);
  if (!result.ok()) return failed(kLuaHelperCallFailed, std::string(result.status().message()));
  answer.rc = result->rc;
  answer.message = std::move(result->message);
  answer.exit_status = result->ok() ? kLuaHelperSuccess : kLuaHelperScriptError;
  return answer;
}

int RunLuaHelper(const std::string& function, const std::string& script_path, int rc_fd) {
  if (getpgrp() == getpid()) {
    struct sigaction forward;
    memset(&forward, 0, sizeof(forward));
    forward.sa_handler = ForwardTermToGroup;
    sigaction(SIGTERM, &forward, nullptr);
  }
  // The answer fds reach no command the script runs (os.execute, io.popen).
  if (rc_fd >= 0) fcntl(rc_fd, F_SETFD, FD_CLOEXEC);
  const int answer_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (answer_fd < 0) {
    fprintf(stderr, "error: %s: cannot keep stdout for the answer: %s\n", function.c_str(),
            strerror(errno));
    return kLuaHelperCallFailed;
  }
  // From here on fd 1 is stderr: io.write and the commands' output become log text.
  dup2(STDERR_FILENO, STDOUT_FILENO);
  setvbuf(stdout, nullptr, _IOLBF, 0);  // io.write text in order with the rest

  std::string request;
  char buf[65536];
  for (;;) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    request.append(buf, static_cast<size_t>(n));
    if (request.size() > kMaxRequest) break;
  }

  LuaHookAnswer answer;
  if (request.size() > kMaxRequest) {
    answer = {kLuaHelperCallFailed, kBbLuaError,
              absl::StrCat(function, ": bad request from scriptd: over ", kMaxRequest, " bytes")};
  } else {
    answer = CallLuaHook(function, script_path, request,
                         [](BbLuaLogLevel level, std::string_view message) {
                           fflush(stdout);  // keep io.write text before the log line
                           WriteAll(STDERR_FILENO, FormatLuaLogLines(level, message));
                         });
  }
  fflush(stdout);
  WriteAll(answer_fd, answer.message);
  close(answer_fd);
  if (rc_fd >= 0) {
    WriteAll(rc_fd, absl::StrCat(answer.rc, "\n"));
    close(rc_fd);
  }
  return answer.exit_status;
}

}  // namespace skiff
