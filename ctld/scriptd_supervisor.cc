#include "ctld/scriptd_supervisor.h"

#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/rpc/channel.h"
#include "proto/scriptd.grpc.pb.h"

namespace skiff::ctld {

std::vector<std::string> ScriptdSupervisor::Args() const {
  std::vector<std::string> args = {"-f",        options_.conf_path, "--socket", options_.socket,
                                   "--journal", options_.journal};
  for (int i = 0; i < options_.verbose; ++i) args.push_back("-v");
  return args;
}

absl::StatusOr<std::unique_ptr<ScriptdSupervisor>> ScriptdSupervisor::Start(
    ScriptdOptions options) {
  std::unique_ptr<ScriptdSupervisor> supervisor(
      new ScriptdSupervisor(std::move(options), ScriptdProcess{}));
  absl::StatusOr<ScriptdProcess> process =
      StartScriptd(supervisor->options_.binary, supervisor->Args());
  if (!process.ok()) return process.status();
  supervisor->process_ = *process;
  return supervisor;
}

ScriptdSupervisor::~ScriptdSupervisor() {
  if (stopped_) return;
  if (process_.pid > 0) kill(process_.pid, SIGTERM);
  if (process_.lifeline_fd >= 0) close(process_.lifeline_fd);
}

bool ScriptdSupervisor::WaitUntilAnswering(spdlog::logger& logger) {
  auto stub = v1::Scriptd::NewStub(MakeChannel("unix:" + options_.socket));
  constexpr int kTries = 6;
  for (int attempt = 1; attempt <= kTries; ++attempt) {
    grpc::ClientContext context;
    context.set_wait_for_ready(true);  // the socket appears a moment after the fork
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ScriptdPingReply reply;
    grpc::Status status = stub->Ping(&context, v1::ScriptdPingRequest(), &reply);
    if (status.ok()) {
      logger.info("scriptd ready: pid {} (parent {})", reply.pid(), reply.parent_pid());
      return true;
    }
    int wstatus = 0;
    if (waitpid(process_.pid, &wstatus, WNOHANG) == process_.pid) {
      logger.error("scriptd (pid {}) exited before answering: {}", process_.pid,
                   status.error_message());
      process_.pid = -1;
      return false;
    }
    logger.warn("scriptd ping {} of {}: {}", attempt, kTries, status.error_message());
  }
  kill(process_.pid, SIGKILL);
  return false;
}

void ScriptdSupervisor::RestartIfDied(spdlog::logger& logger) {
  int status = 0;
  if (process_.pid <= 0 || waitpid(process_.pid, &status, WNOHANG) != process_.pid) return;
  logger.error("scriptd (pid {}) died (status {}); starting a new one", process_.pid, status);
  absl::StatusOr<ScriptdProcess> respawned = RespawnScriptd(options_.binary, Args(), process_);
  if (respawned.ok()) {
    process_ = *respawned;
    logger.info("scriptd restarted: pid {}", process_.pid);
  } else {
    // RespawnScriptd closed the old lifeline; no scriptd runs until ctld restarts.
    logger.error("cannot restart scriptd: {}", std::string(respawned.status().message()));
    process_ = ScriptdProcess{};
  }
}

void ScriptdSupervisor::Stop() {
  stopped_ = true;
  if (process_.lifeline_fd >= 0) close(process_.lifeline_fd);
  process_.lifeline_fd = -1;
  if (process_.pid <= 0) return;
  for (int i = 0; i < 50 && waitpid(process_.pid, nullptr, WNOHANG) == 0; ++i) usleep(100000);
  if (kill(process_.pid, 0) == 0) {
    kill(process_.pid, SIGKILL);
    waitpid(process_.pid, nullptr, 0);
  }
  process_.pid = -1;
}

}  // namespace skiff::ctld
