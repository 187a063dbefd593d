// What a lifecycle event wants done, as plain data.
//
// An event in the lifecycle core (lifecycle.h) changes the job table in memory
// and returns Effects: the rows to make durable, the intents to carry out once
// they are, and the log lines that describe the transitions. The Controller's
// dispatcher is the only code that turns an intent into a call on noded, scriptd
// or the filesystem, and it does so only after every row of the same Effects was
// stored; a test reads what an event wants done without running anything.
//
// Intents carry copies (a Job snapshot, a node's address), never pointers into
// the table: they are carried out after the state lock is released.
#ifndef SKIFF_CTLD_CORE_LIFECYCLE_EFFECTS_H_
#define SKIFF_CTLD_CORE_LIFECYCLE_EFFECTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ctld/core/accounting/accounts.h"
#include "ctld/core/accounting/qos.h"
#include "ctld/core/accounting/step_book.h"
#include "ctld/core/job.h"
#include "ctld/core/node_table.h"
#include "ctld/core/reservations/reservation.h"
#include "ctld/core/reservations/resv_usage.h"
#include "ctld/core/scheduler/from_ctld.h"
#include "ctld/core/triggers/trigger_table.h"

namespace skiff::ctld {

// The burst-buffer stages scriptd runs for a job (burst_buffer.lua hooks).
enum class BbStage {
  kStageIn,   // slurm_bb_setup, slurm_bb_data_in (+ test_data_in polls), slurm_bb_real_size
  kPreRun,    // slurm_bb_pre_run
  kPostRun,   // slurm_bb_post_run (the job ended: post-run)
  kStageOut,  // slurm_bb_data_out (+ test_data_out polls) (staging-out)
  kTeardown,  // slurm_bb_job_teardown
};

// Run PrologSlurmctld for `job` in scriptd; report back with PrologDone.
struct RunPrologIntent {
  Job job;
};
// Ask the batch host's noded to start the job; report back with LaunchDone.
struct LaunchIntent {
  Job job;
  std::string target;                // "addr:port" of nodes[0]'s noded
  uint64_t node_real_memory_mb = 0;  // of the batch host
  std::vector<std::string>
      node_targets;             // "addr:port" of each of job.nodes (the step manager's view)
  int32_t share_gpu_count = 0;  // ClusterFacts::share_gpu_count
  bool share_fenced = false;    // ClusterFacts::share_fenced
};
// SIGTERM now, SIGKILL after `kill_wait` seconds; nothing reports back (the
// node's completion report does).
struct TerminateIntent {
  uint64_t job_id = 0;
  std::string target;
  int64_t kill_wait = 0;
};
// Which of a job's processes a signal reaches.
enum class SignalScope {
  kEveryProcess,  // suspend/resume: all on the job's first node
  kBatchShell,    // scancel -b, --signal=B:
  kSteps,         // scancel -s, --signal=SIG@T: every step's tasks, not the batch shell
  kBatchAndSteps  // scancel -f: the batch shell, its children and every step
};
// scancel --signal, the time-limit warning, suspend/resume: to the job's first
// node, which is its step manager.
struct SignalIntent {
  uint64_t job_id = 0;
  std::string target;
  int signal = 0;
  SignalScope scope = SignalScope::kSteps;
};
// A line in the job's error output ("slurmstepd: error: MESSAGE", as
// `scontrol notify`), written by its batch host; nothing reports back.
struct NotifyIntent {
  uint64_t job_id = 0;
  std::string target;
  std::string message;
};
// Run EpilogSlurmctld; report back with EpilogDone.
struct RunEpilogIntent {
  Job job;
};
// Run a burst-buffer stage in scriptd; report back with BbStageDone.
struct RunBbStageIntent {
  Job job;
  BbStage stage = BbStage::kStageIn;
  bool hurry = false;
};
// Kill the processes of the job's running stage (scancel during a stage).
struct FlushBbStageIntent {
  uint64_t job_id = 0;
};
// The job's buffer is gone: remove its copy of the script.
struct RemoveBbFilesIntent {
  uint64_t job_id = 0;
};
// --mail-type: run MailProg in scriptd with the decided subject and
// environment (ctld/core/lifecycle/mail.h); report back with MailSent. `job`
// is a snapshot for what only the spec knows (its output paths).
struct MailIntent {
  uint64_t job_id = 0;  // the job whose outbox holds `message`
  MailMessage message;
  Job job;
};

// strigger: run a trigger's program in scriptd as the trigger's owner
// (ctld/core/triggers/trigger_table.h); nothing reports back.
struct RunTriggerIntent {
  uint32_t trigger_id = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string path;
  std::vector<std::string> argv;  // after the path; the event's nodes or job id last
  std::string what;               // "node:down", for the log
};

using Intent = std::variant<RunPrologIntent, LaunchIntent, TerminateIntent, SignalIntent,
                            RunEpilogIntent, RunBbStageIntent, FlushBbStageIntent,
                            RemoveBbFilesIntent, MailIntent, RunTriggerIntent, NotifyIntent>;

// A keyed record besides the jobs, as the store keeps it (kind, key, blob).
// The core names what it changes with the typed changes below; the Controller
// encodes them into rows (ctld/state/records.h) when it stores the event.
// Records the Controller keeps itself (partition overrides, join tokens) come
// as rows.
struct RecordRow {
  std::string kind;
  std::string key;
  std::string blob;  // empty = delete
};

// A user's fair-share usage ("usage").
struct UsageChange {
  std::string user;
  UserUsageRecord usage;
};
// An association's fair-share usage ("assoc_usage", key AssocKey::UsageRecordKey).
struct AssocUsageChange {
  std::string key;
  UserUsageRecord usage;
};
// What ended runs used of the budgets ("bank", key BankKey::RecordKey).
struct BankChange {
  std::string key;
  TresMinutes used;
};
// A node's drain, fail or admin DOWN ("node_admin"); empty: the record goes.
struct NodeAdminChange {
  std::string node;
  NodeAdminState state;
};
// A QOS ("qos"); nullopt: deleted.
struct QosChange {
  std::string name;
  std::optional<QosDefinition> qos;
};
// Accounts, users and associations ("account", "acct_user", "assoc").
struct AccountsChange {
  AccountsDiff diff;
};
// A job step as its step manager reported it ("step").
struct StepChange {
  uint64_t job_id = 0;
  StepRecord step;
};

// An event trigger ("trigger", key its id); nullopt: cleared or spent.
struct TriggerChange {
  uint32_t id = 0;
  std::optional<Trigger> trigger;
};

// An advance reservation ("resv"); nullopt: deleted.
struct ResvChange {
  std::string name;
  std::optional<AdvanceReservation> resv;
};

// A create, update or delete of an advance reservation, kept for sreport's
// reservation time ("resv_event").
struct ResvEventChange {
  ResvEvent event;
};

using RecordChange =
    std::variant<RecordRow, UsageChange, AssocUsageChange, BankChange, NodeAdminChange, QosChange,
                 AccountsChange, StepChange, TriggerChange, ResvChange, ResvEventChange>;

// sdiag's job counters for one event, with Slurm's meanings (ctld/diag_stats.h);
// counted by Lifecycle::TransitionJob, added up by the Controller once stored.
struct JobTally {
  uint32_t started = 0;     // allocated: PENDING -> CONFIGURING
  uint32_t backfilled = 0;  // of those, placed by backfill
  uint32_t completed = 0;   // a run ended (any exit code, time limit, memory, preemption)
  uint32_t canceled = 0;    // ended CANCELLED, pending or after a run
  uint32_t failed = 0;      // ended NODE_FAIL, or put back to pending by a node or prolog failure

  bool empty() const {
    return started == 0 && backfilled == 0 && completed == 0 && canceled == 0 && failed == 0;
  }
};

// A job's state change, for the statistics timed around it (DiagStats).
struct JobTransition {
  uint64_t job_id = 0;
  JobState from = JobState::kPending;
  JobState to = JobState::kPending;
};

struct Effects {
  std::vector<Job> rows;              // after-images, versions bumped; durable before intents run
  std::vector<RecordChange> records;  // stored in the same step as `rows`
  std::vector<Intent> intents;        // in the order the event produced them
  std::vector<std::string> log;       // "JobId=42 RUNNING -> COMPLETING (Exited)", ...
  bool reschedule = false;            // resources or eligibility changed: run a pass soon
  JobTally tally;                     // sdiag's counters for this event's transitions
  std::vector<JobTransition> transitions;  // in the order they happened
  // The journal frame holding the event's before-images (Lifecycle::Confirm,
  // RollbackFrom); 0 when the event changed nothing that needs one.
  uint64_t frame = 0;

  bool empty() const { return rows.empty() && records.empty() && intents.empty(); }
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_LIFECYCLE_EFFECTS_H_
