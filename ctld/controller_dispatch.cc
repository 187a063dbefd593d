// The dispatcher: the only code that turns the lifecycle core's intents into
// calls on noded, scriptd and the filesystem. It runs after the intents' rows
// were stored, never under mu_, and every call that reports back does so as a
// new event through CommitReport.
#include <chrono>
#include <memory>
#include <optional>
#include <type_traits>
#include <variant>

#include "absl/strings/str_cat.h"
#include "ctld/bb_stages.h"
#include "ctld/controller.h"
#include "ctld/launch_builder.h"
#include "ctld/launch_retry.h"

namespace skiff::ctld {
namespace {

ScriptOutcome OutcomeOf(const absl::StatusOr<ScriptEnd>& result) {
  ScriptOutcome outcome;
  if (!result.ok()) {
    outcome.description = std::string(result.status().message());
    return outcome;
  }
  const ScriptEnd& end = *result;
  outcome.ran = true;
  outcome.pid = end.pid;
  outcome.succeeded = end.Succeeded();
  if (!end.error.empty()) {
    outcome.description = end.error;
  } else if (end.timed_out) {
    outcome.description = "timed out";
  } else if (end.signal != 0) {
    outcome.description = absl::StrCat("killed by signal ", end.signal);
  } else {
    outcome.description = absl::StrCat("exit code ", end.exit_code);
  }
  if (!end.output_tail.empty()) {
    std::string tail = end.output_tail;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    const size_t cut = tail.rfind('\n');
    absl::StrAppend(&outcome.description, ": ",
                    cut == std::string::npos ? tail : tail.substr(cut + 1));
  }
  return outcome;
}

template <typename T>
constexpr bool AlwaysFalse = false;

}  // namespace

void Controller::Dispatch(std::vector<Intent> intents) {
  for (Intent& intent : intents) DispatchOne(std::move(intent));
}

void Controller::DispatchOne(Intent intent) {
  if (!work_) return;  // not started (tests of Recover alone)
  std::visit(
      [this](auto&& it) {
        using T = std::decay_t<decltype(it)>;
        if constexpr (std::is_same_v<T, RunPrologIntent>) {
          work_->Post([this, job = std::move(it.job)] { RunProlog(job); });
        } else if constexpr (std::is_same_v<T, LaunchIntent>) {
          work_->Post([this, launch = std::move(it)] { Launch(launch); });
        } else if constexpr (std::is_same_v<T, TerminateIntent>) {
          work_->Post([this, t = std::move(it)] {
            absl::Status s =
                node_client_.TerminateJob(t.target, t.job_id, static_cast<int>(t.kill_wait));
            if (!s.ok()) {
              logger_.warn("JobId={} terminate on {}: {}", t.job_id, t.target,
                           std::string(s.message()));
            }
          });
        } else if constexpr (std::is_same_v<T, SignalIntent>) {
          work_->Post([this, s = std::move(it)] {
            absl::Status status = node_client_.SignalJob(s.target, s.job_id, s.signal, s.scope);
            if (!status.ok()) {
              logger_.warn("JobId={} signal {}: {}", s.job_id, s.signal,
                           std::string(status.message()));
            }
          });
        } else if constexpr (std::is_same_v<T, RunEpilogIntent>) {
          work_->Post([this, job = std::move(it.job)] { RunEpilog(job); });
        } else if constexpr (std::is_same_v<T, RunBbStageIntent>) {
          bb_work_->Post([this, stage = std::move(it)] {
            BbStageResult result;
            absl::Status script = EnsureBbJobScript(stage.job);
            // Teardown runs whatever happened to the file: the space must come back.
            if (!script.ok() && stage.stage != BbStage::kTeardown) {
              result.ok = false;
              result.error = absl::StrCat("burst_buffer/lua: job_script: ", script.message());
            } else {
              if (!script.ok()) {
                logger_.warn("JobId={}: teardown without its job_script: {}", stage.job.id,
                             std::string(script.message()));
              }
              result = RunBbStage(scripts_, *bb_, stage.job, stage.stage, stage.hurry,
                                  [this, id = stage.job.id] { return BbStageAbandoned(id); });
            }
            CommitReport([&](Lifecycle& core, int64_t now) {
              return core.BbStageDone(stage.job.id, stage.stage, result, now);
            });
          });
        } else if constexpr (std::is_same_v<T, FlushBbStageIntent>) {
          work_->Post([this, id = it.job_id] { (void)scripts_.FlushJob(id); });
        } else if constexpr (std::is_same_v<T, RemoveBbFilesIntent>) {
          if (bb_ != nullptr) work_->Post([this, id = it.job_id] { bb_->RemoveJobFiles(id); });
        } else if constexpr (std::is_same_v<T, MailIntent>) {
          work_->Post([this, mail = std::move(it)] { SendMail(mail); });
        } else if constexpr (std::is_same_v<T, RunTriggerIntent>) {
          work_->Post([this, trigger = std::move(it)] { RunTrigger(trigger); });
        } else if constexpr (std::is_same_v<T, NotifyIntent>) {
          work_->Post([this, n = std::move(it)] {
            absl::Status status = node_client_.NotifyJob(n.target, n.job_id, n.message);
            if (!status.ok()) {
              logger_.warn("JobId={} notify: {}", n.job_id, std::string(status.message()));
            }
          });
        } else {
          // A new Intent that nothing carries out must not compile.
          static_assert(AlwaysFalse<T>, "Controller::DispatchOne does not handle this Intent");
        }
      },
      std::move(intent));
}

void Controller::RunProlog(const Job& job) {
  const ScriptCall call = BuildCtldScriptCall(CtldScript::kProlog, config()->prolog_ctld,
                                              config()->prolog_epilog_timeout, job,
                                              {config()->cluster_name, conf_path_, 0});
  const ScriptOutcome outcome = OutcomeOf(scripts_.RunScript(call));
  CommitReport([&](Lifecycle& core, int64_t now) {
    return core.PrologDone(job.id, job.restart_count, outcome, now);
  });
}

void Controller::RunEpilog(const Job& job) {
  const ScriptCall call = BuildCtldScriptCall(CtldScript::kEpilog, config()->epilog_ctld,
                                              config()->prolog_epilog_timeout, job,
                                              {config()->cluster_name, conf_path_, 0});
  const ScriptOutcome outcome = OutcomeOf(scripts_.RunScript(call));
  CommitReport([&](Lifecycle& core, int64_t now) { return core.EpilogDone(job.id, outcome, now); });
}

absl::StatusOr<std::string> Controller::StoredSpec(const Job& job) {
  const uint64_t first = job.array_job_id != 0 ? job.array_job_id : job.id;
  absl::StatusOr<std::string> stored = store_.LoadSpec(first);
  if (!stored.ok()) {
    return absl::Status(stored.status().code(),
                        absl::StrCat("its batch script could not be read from the job store: ",
                                     stored.status().message()));
  }
  return stored;
}

void Controller::Launch(const LaunchIntent& launch) {
  const Job& job = launch.job;
  // Reading the spec and building the environment happen here, on a worker
  // thread, not under mu_.
  absl::StatusOr<std::string> stored = StoredSpec(job);
  absl::Status status = stored.status();
  // slurm_bb_paths: its NAME=value lines join the job's environment.
  std::map<std::string, std::string> bb_paths;
  if (status.ok() && job.UsesBurstBuffer() && bb_ != nullptr) status = EnsureBbJobScript(job);
  if (status.ok() && job.UsesBurstBuffer() && bb_ != nullptr) {
    absl::StatusOr<std::map<std::string, std::string>> paths = bb_->Paths(job);
    if (paths.ok()) {
      bb_paths = std::move(*paths);
    } else {
      status = paths.status();
    }
  }
  if (!status.ok()) {
    CommitReport([&](Lifecycle& core, int64_t now) {
      return core.LaunchDone(job.id, job.restart_count, status, now);
    });
    return;
  }
  auto attempt = std::make_shared<LaunchAttempt>();
  attempt->launch = launch;
  attempt->message = BuildBatchLaunch(
      job, *stored, bb_paths,
      {config()->cluster_name, conf_path_, launch.node_real_memory_mb, launch.node_targets,
       WorkingCluster(config()->cluster_name, config()->ctld_addr, config()->ctld_port),
       launch.share_gpu_count, launch.share_fenced});
  TryLaunch(std::move(attempt));
}

void Controller::TryLaunch(std::shared_ptr<LaunchAttempt> attempt) {
  const Job& job = attempt->launch.job;
  const std::string& node = job.nodes.front();
  absl::Status status = node_client_.LaunchJob(attempt->launch.target, attempt->message);
  if (!status.ok() && LaunchMayPassLater(status)) {
    // Unreachable or silent: a noded that is restarting is back in a moment,
    // and takes a repeated launch as the one it may already have.
    const int64_t now = clock_.Now();
    if (attempt->failures++ == 0) attempt->first_failure = now;
    const std::optional<int64_t> delay_ms = NextLaunchAttemptMs(
        status, attempt->failures, now - attempt->first_failure, config()->slurmd_timeout);
    bool starting = false;
    {
      absl::MutexLock lock(&mu_);
      starting = core_.StillStarting(job.id, job.restart_count);
    }
    // Requeued meanwhile (its node went DOWN after SlurmdTimeout), or ended:
    // nothing to report.
    if (!starting) {
      logger_.info("JobId={} launch on NodeName={} given up: the job moved on", job.id, node);
      return;
    }
    if (delay_ms) {
      logger_.warn("JobId={} launch on NodeName={} failed ({}); trying again in {} ms", job.id,
                   node, std::string(status.message()), *delay_ms);
      work_->PostAfter(std::chrono::milliseconds(*delay_ms),
                       [this, attempt] { TryLaunch(attempt); });
      return;
    }
  }
  // Unreachable for SlurmdTimeout, timed out or refusing: the node's fault.
  // InvalidArgument is a request noded cannot take, which no other node would
  // take either.
  const Lifecycle::LaunchBlame blame = !status.ok() && !absl::IsInvalidArgument(status)
                                           ? Lifecycle::LaunchBlame::kNode
                                           : Lifecycle::LaunchBlame::kJob;
  CommitReport([&](Lifecycle& core, int64_t now) {
    return core.LaunchDone(job.id, job.restart_count, status, now, blame);
  });
}

}  // namespace skiff::ctld
