// A controller's time as a standby (issue 53), from ctld's start (or its
// handover) to leading: it joins etcd's election, answers Ping alone
// (standby_server.h), copies the log into its database, and returns once it
// leads with its store appending to the log.
//
// Threads: ctld's main thread, which alone receives its signals.
#ifndef SKIFF_CTLD_STAND_BY_H_
#define SKIFF_CTLD_STAND_BY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/auth/authenticator.h"
#include "ctld/ctld_setup.h"
#include "ctld/replication/replica.h"
#include "ctld/scriptd_supervisor.h"
#include "ctld/state/job_store.h"
#include "spdlog/spdlog.h"

namespace skiff::ctld {

// With EtcdEndpoints (issue 53): this controller joins the election and
// stands by, answering Ping alone and copying the log into `store`, until it
// leads; from then on `store` appends every transaction to the log first.
// Null with no etcd. `stopped` is set when a signal stopped ctld meanwhile.
// Losing the lease later ends the process at once: a standby serves next.
//
// After a handover (scontrol takeover) this controller campaigns only once
// another one leads, or after twice the lease when none came.
absl::StatusOr<std::unique_ptr<replication::Replica>> StandByUntilLeading(
    const CtldSetup& setup, SqliteJobStore& store, Authenticator& auth, ScriptdSupervisor& scriptd,
    spdlog::logger& logger, bool handed_over, bool* stopped);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_STAND_BY_H_
