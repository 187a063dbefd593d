#include "scriptd/lua_helper.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lua/bb_lua_json.h"

namespace skiff::scriptd {
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

// The job script as the job's user may read it: a memfd copy (not close-on-exec,
// so commands the hook runs can open the same path). Read with the helper's
// privileges: the original lives in ctld's private state directory.
absl::StatusOr<std::string> UserReadableCopy(const std::string& path) {
  const int in = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", strerror(errno)));
  const int copy = memfd_create("job_script", 0);
  if (copy < 0) {
    const int err = errno;
    close(in);
    return absl::UnavailableError(absl::StrCat("memfd_create: ", strerror(err)));
  }
  char buf[65536];
  for (;;) {
    ssize_t n = read(in, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(in);
      close(copy);
      return absl::UnavailableError(absl::StrCat("cannot read ", path, ": ", strerror(err)));
    }
    if (n == 0) break;
    if (!WriteAll(copy, std::string_view(buf, static_cast<size_t>(n)))) {
      const int err = errno;
      close(in);
      close(copy);
      return absl::UnavailableError(absl::StrCat("cannot copy ", path, ": ", strerror(err)));
    }
  }
  close(in);
  return absl::StrCat("/proc/self/fd/", copy);
}

// Takes `user`'s uid, gid and supplementary groups for good (no way back to
// root), keeping the parent-death signal, which a credential change clears.
absl::Status BecomeUser(const HookUser& user, pid_t parent) {
  std::vector<gid_t> groups = {user.gid};
  long size_hint = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(size_hint > 0 ? static_cast<size_t>(size_hint) : 16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  if (getpwuid_r(user.uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
    int count = 64;
    groups.assign(count, 0);
    if (getgrouplist(pw.pw_name, user.gid, groups.data(), &count) < 0) {
      groups.assign(count, 0);
      getgrouplist(pw.pw_name, user.gid, groups.data(), &count);
    }
    groups.resize(count);
  }
  if (setgroups(groups.size(), groups.data()) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot set the groups of uid ", user.uid, ": ", strerror(errno)));
  }
  if (setgid(user.gid) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot set gid ", user.gid, ": ", strerror(errno)));
  }
  if (setuid(user.uid) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot set uid ", user.uid, ": ", strerror(errno)));
  }
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) kill(getpid(), SIGTERM);  // scriptd died meanwhile
  return absl::OkStatus();
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
                          std::string_view request_json, BbLuaLogger logger,
                          const BeforeHook& before_hook) {
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
  if (before_hook) {
    if (absl::Status ready = before_hook(*request); !ready.ok()) {
      return failed(kLuaHelperCallFailed, absl::StrCat(function, ": ", ready.message()));
    }
  }
  const BbJobInfo* job_info = request->job_info.has_value() ? &*request->job_info : nullptr;
  absl::StatusOr<BbLuaResult> result = (*lua)->Call(function, request->args, job_info);
  if (!result.ok()) return failed(kLuaHelperCallFailed, std::string(result.status().message()));
  answer.rc = result->rc;
  answer.message = std::move(result->message);
  answer.exit_status = result->ok() ? kLuaHelperSuccess : kLuaHelperScriptError;
  return answer;
}

int RunLuaHelper(const std::string& function, const std::string& script_path, int rc_fd,
                 HookUser user) {
  const pid_t parent = getppid();
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
    BeforeHook as_user = nullptr;
    if (user.uid != 0 && geteuid() == 0) {
      as_user = [user, parent](BbLuaRequest& hook_request) -> absl::Status {
        if (hook_request.args.size() >= 2) {
          absl::StatusOr<std::string> copy = UserReadableCopy(hook_request.args[1]);
          if (!copy.ok()) return copy.status();
          hook_request.args[1] = *copy;
        }
        return BecomeUser(user, parent);
      };
    }
    answer = CallLuaHook(
        function, script_path, request,
        [](BbLuaLogLevel level, std::string_view message) {
          fflush(stdout);  // keep io.write text before the log line
          WriteAll(STDERR_FILENO, FormatLuaLogLines(level, message));
        },
        as_user);
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

bool IsLuaHelperCall(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--run-lua") == 0 || strncmp(argv[i], "--run-lua=", 10) == 0) return true;
  }
  return false;
}

int LuaHelperMain(int argc, char** argv) {
  CLI::App app{"skiff-lua-hook: calls one burst_buffer.lua function (scriptd runs this)"};
  std::string function;
  std::string script;
  int rc_fd = -1;
  HookUser user;
  app.add_option("--run-lua", function, "the function, e.g. slurm_bb_data_in")->required();
  app.add_option("--as-uid", user.uid, "call the hook as this user (root only)");
  app.add_option("--as-gid", user.gid, "with this primary group");
  app.add_option("--script", script, "burst_buffer.lua")->required();
  app.add_option("--rc-fd", rc_fd, "fd for the hook's rc line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kLuaHelperCallFailed;
  }
  return RunLuaHelper(function, script, rc_fd, user);
}

std::string LuaHookBinaryBeside(const std::string& scriptd_path) {
  const size_t slash = scriptd_path.rfind('/');
  if (slash == std::string::npos) return "";
  std::string helper = absl::StrCat(scriptd_path.substr(0, slash + 1), kLuaHookBinaryName);
  return access(helper.c_str(), X_OK) == 0 ? helper : "";
}

}  // namespace skiff::scriptd
