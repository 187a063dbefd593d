#include "ctld/stand_by.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/config/config_loader.h"
#include "common/daemon.h"
#include "ctld/standby_server.h"

namespace skiff::ctld {
namespace {

// Waits up to `ms` for a signal: restarts scriptd after SIGCHLD when it died,
// ignores SIGHUP (nothing is served to reconfigure), and says true for a
// signal that stops ctld (`doing`: what it was doing, for the log).
bool StopAsked(int ms, const char* doing, ScriptdSupervisor& scriptd, spdlog::logger& logger) {
  const int sig = WaitForSignalFor(ms);
  if (sig == SIGCHLD) {
    scriptd.RestartIfDied(logger);
  } else if (sig != 0 && sig != SIGHUP) {
    logger.info("signal {}: shutting down ({})", sig, doing);
    return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<replication::Replica>> StandByUntilLeading(
    const CtldSetup& setup, SqliteJobStore& store, Authenticator& auth, ScriptdSupervisor& scriptd,
    spdlog::logger& logger, bool handed_over, bool* stopped) {
  const SkiffConfig& config = setup.loaded.skiff;
  if (config.etcd_endpoints.empty()) return nullptr;
  replication::Replica::Settings settings;
  settings.endpoints = config.etcd_endpoints;
  if (!config.etcd_ca_file.empty()) {
    for (auto [path, pem] : {std::pair{&config.etcd_ca_file, &settings.tls.ca_pem},
                             std::pair{&config.etcd_cert_file, &settings.tls.cert_pem},
                             std::pair{&config.etcd_key_file, &settings.tls.key_pem}}) {
      absl::StatusOr<std::string> text = ReadFileToString(*path);
      if (!text.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat("TLS to etcd: ", *path, ": ", text.status().message()));
      }
      *pem = *std::move(text);
    }
  }
  // A member that is not up yet (etcd without a quorum while an admin sets up
  // the other machines) is waited for, the process still stoppable.
  settings.join_wait = std::chrono::seconds(2);
  settings.prefix = absl::StrCat("/skiff/", config.cluster_name);
  settings.id = setup.self.name;
  for (const ControllerHost& host : config.ctld_hosts) settings.controllers.push_back(host.name);
  settings.lease = std::chrono::seconds(config.ControllerLeaseSeconds());
  absl::StatusOr<std::unique_ptr<replication::Replica>> replica;
  std::string join_error;
  for (;;) {
    replica = replication::Replica::Join(
        settings,
        [&logger](const std::string& why) {
          // No further acknowledgement may go out: the standby may win next.
          logger.critical("ctld stops serving: {}", why);
          logger.flush();
          fprintf(stderr, "ctld: fatal: lost the lead: %s\n", why.c_str());
          _exit(1);
        },
        logger);
    if (replica.ok() || !absl::IsUnavailable(replica.status())) break;
    if (std::string(replica.status().message()) != join_error) {
      join_error = std::string(replica.status().message());
      logger.warn("waiting for etcd (a quorum of its members): {}", join_error);
    }
    if (StopAsked(500, "waiting for etcd", scriptd, logger)) {
      *stopped = true;
      return nullptr;
    }
  }
  if (!replica.ok()) return replica.status();
  absl::StatusOr<std::unique_ptr<StandbyServer>> standby = StandbyServer::Start(
      {setup.self.addr, static_cast<int>(config.ctld_port), config.cluster_name, setup.self.name,
       static_cast<int64_t>(time(nullptr))},
      auth, [r = replica->get()] { return r->leader(); });
  if (!standby.ok()) return standby.status();
  std::string seen_leader;
  std::string last_error;
  const auto defer_until = std::chrono::steady_clock::now() + 2 * settings.lease;
  bool defer = handed_over;
  for (;;) {
    defer = defer && (*replica)->leader().empty() && std::chrono::steady_clock::now() < defer_until;
    absl::StatusOr<bool> led = (*replica)->TryToLead(store, /*campaign=*/!defer);
    if (led.ok() && *led) break;
    if (!led.ok()) {
      if (absl::IsFailedPrecondition(led.status())) return led.status();
      if (std::string(led.status().message()) != last_error) {
        last_error = std::string(led.status().message());
        logger.warn("etcd: {}", last_error);
      }
    } else if ((*replica)->leader() != seen_leader) {
      seen_leader = (*replica)->leader();
      logger.info("standing by: {} serves; this controller's copy holds the log to commit {}",
                  seen_leader, store.AppliedSeq());
    }
    if (StopAsked(200, "standing by", scriptd, logger)) {
      *stopped = true;
      return replica;
    }
  }
  (*standby)->Stop();
  store.ReplicateTo(replica->get());
  // A database from before etcd was named: the log starts with all of it.
  if (store.AppliedSeq() == 0) {
    if (absl::Status s = store.SeedLog(); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("etcd: seeding the log: ", s.message()));
    }
    if (store.AppliedSeq() != 0) {
      logger.info("etcd: the log starts with this database's state: commits 1 to {}",
                  store.AppliedSeq());
    }
  }
  return replica;
}

}  // namespace skiff::ctld
