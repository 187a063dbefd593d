// Event triggers (strigger) as a pure core: the table of triggers, who may set
// and clear them, and which of them an observed state of the cluster fires.
//
// Semantics are Slurm 22.05's src/slurmctld/trigger_mgr.c:
// - trigger_set: refused unless the caller is SlurmUser (or root while SlurmUser
//   is root); SlurmctldParameters=allow_user_triggers lets other users past the
//   first check but never past the second (trigger_set refuses any uid other
//   than SlurmUser when SlurmUser is not root). Then, in that order: the
//   MaxJobCount bound (EAGAIN, for callers other than root), the job (must
//   exist and not be finished) or the node names, a duplicate, and the program
//   (executable by the caller: checked by the caller of Prepare, which may do
//   I/O, and passed in).
// - trigger_clear: by id, job or user; only the trigger's owner or root.
// - trigger_get: every trigger not yet pulled, for anyone.
// - Matching (_trigger_node_event, _trigger_job_event): node triggers match
//   nodes that went DOWN, DRAINED, FAILING or came back UP since the previous
//   observation, or that have been IDLE for --offset seconds; job triggers
//   match the job's end (fini), its time limit less -offset (time), or its
//   nodes going DOWN, FAILING or UP. A matched trigger is "pulled": its program
//   runs --offset seconds later (at once for idle and time), with the matching
//   node names (a hostlist expression) or the job id as its last argument.
//   Then a one-shot trigger is gone, a PERM one waits for the next event.
//
// Where Skiff differs (docs/compatibility.md): events are found by comparing
// each observation with the previous one (the Controller observes every
// second), not by bitmaps set at each transition and read every 15 seconds; a
// PERM job trigger is gone once it fired for the job's end.
//
// Pure: no I/O, no clock (now is an argument), no locks. Thread-safety: none;
// the Controller owns one table under its mutex.
#ifndef SKIFF_CTLD_CORE_TRIGGERS_TRIGGER_TABLE_H_
#define SKIFF_CTLD_CORE_TRIGGERS_TRIGGER_TABLE_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::ctld {

// Slurm's TRIGGER_RES_TYPE_* (slurm.h), numbered as there.
enum class TriggerResType : uint16_t {
  kJob = 1,
  kNode = 2,
  kSlurmctld = 3,
  kSlurmdbd = 4,
  kDatabase = 5,
  kFrontEnd = 6,
  kOther = 7,
};

// Slurm's TRIGGER_TYPE_* bits (slurm.h); a trigger may hold several.
namespace trigger_type {
inline constexpr uint32_t kUp = 1u << 0;
inline constexpr uint32_t kDown = 1u << 1;
inline constexpr uint32_t kFail = 1u << 2;
inline constexpr uint32_t kTime = 1u << 3;
inline constexpr uint32_t kFini = 1u << 4;
inline constexpr uint32_t kReconfig = 1u << 5;
inline constexpr uint32_t kIdle = 1u << 7;
inline constexpr uint32_t kDrained = 1u << 8;
// The events Skiff has (the slurmctld, slurmdbd, database and burst buffer
// ones it has not: no backup controller, no slurmdbd, no burst-buffer trigger).
inline constexpr uint32_t kSupported =
    kUp | kDown | kFail | kTime | kFini | kReconfig | kIdle | kDrained;
}  // namespace trigger_type

inline constexpr uint16_t kTriggerFlagPerm = 0x0001;  // Slurm's TRIGGER_FLAG_PERM

// The record kind triggers are stored under (key: the trigger's id).
inline constexpr char kTriggerRecordKind[] = "trigger";

// Slurm's trigger_res_type() and trigger_type() strings ("node", "down";
// "unknown" for a type that is not exactly one known bit).
const char* TriggerResTypeName(TriggerResType type);
const char* TriggerTypeName(uint32_t type);

struct Trigger {
  uint32_t id = 0;
  TriggerResType res_type = TriggerResType::kNode;
  // As set: the job id, a hostlist expression, or "*" for every node.
  std::string res_id;
  uint64_t job_id = 0;             // res_type kJob
  std::vector<std::string> nodes;  // res_id expanded; empty = every node
  uint32_t type = 0;               // trigger_type bits
  int32_t offset = 0;              // seconds; negative: before the event
  uint16_t flags = 0;              // kTriggerFlagPerm
  uid_t uid = 0;                   // who set it; the program runs as this user
  gid_t gid = 0;
  std::string program;  // absolute path, then words split at blanks as arguments

  // Pulled: the event happened; the program runs at fire_at with `arg`.
  bool pulled = false;
  int64_t fire_at = 0;
  std::string arg;

  bool operator==(const Trigger& o) const;
};

// The stored form of a trigger (a record's blob) and back; DataLoss naming the
// trigger for a blob that does not parse.
std::string EncodeTrigger(const Trigger& trigger);
absl::StatusOr<Trigger> DecodeTrigger(const std::string& blob);

// What a --set asks for.
struct TriggerRequest {
  TriggerResType res_type = TriggerResType::kNode;
  std::string res_id;  // job id for kJob; hostlist or "*" (or empty: "*") for kNode
  uint32_t type = 0;
  int32_t offset = 0;
  uint16_t flags = 0;
  std::string program;
};

// Who may set triggers (slurm.conf).
struct TriggerPolicy {
  uid_t slurm_user = 0;              // SlurmUser's uid
  bool allow_user_triggers = false;  // SlurmctldParameters=allow_user_triggers
  int64_t max_count = 0;             // MaxJobCount: the most triggers non-root users may add to
};

// One node as the matcher sees it.
struct TriggerNodeView {
  std::string name;
  bool down = false;   // base state DOWN
  bool drain = false;  // DRAIN flag
  bool busy = false;   // jobs allocated (ALLOCATED or MIXED) or completing
  bool idle = false;   // base state IDLE
  bool fail = false;   // FAIL flag (FAILING)
  int64_t last_busy = 0;
  // Slurm's DRAINED: drained and nothing left running on it.
  bool drained() const { return drain && !busy; }
};

// One job a trigger names, as the matcher sees it.
struct TriggerJobView {
  bool pending = false;
  bool finished = false;  // a final state (not COMPLETING)
  int64_t end = 0;        // end of its time limit (running) or its end (ended); 0 = none
  std::vector<std::string> nodes;
};

// What the cluster looks like now.
struct TriggerWorld {
  std::vector<TriggerNodeView> nodes;  // every node, in configuration order
  // The jobs the table's triggers name (JobIds()); a job absent here is gone
  // (purged after MinJobAge, or never existed).
  std::map<uint64_t, TriggerJobView> jobs;
  bool reconfigured = false;  // the configuration was read again since the last observation
};

// A program to run.
struct TriggerFiring {
  uint32_t trigger_id = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string path;               // the program's first word
  std::vector<std::string> argv;  // its other words, then the event's node names or job id
  TriggerResType res_type = TriggerResType::kNode;
  uint32_t type = 0;
};

class TriggerTable {
 public:
  // Stored triggers at start-up; the next id follows the highest.
  void Load(std::vector<Trigger> triggers);

  // A --set by `uid`/`gid`: the trigger to store (with its id taken), or
  // Slurm's error: PermissionDenied "Access/permission denied", Unavailable
  // "Resource temporarily unavailable" (EAGAIN: too many), NotFound "Invalid
  // job id specified", FailedPrecondition "Job/step already completing or
  // completed", InvalidArgument "Invalid node name specified", AlreadyExists
  // "Duplicate event trigger", InvalidArgument for an event Skiff lacks.
  // `world` needs the named job (jobs) and the node names; `program_ok`: the
  // program is a regular file `uid`/`gid` may execute. Nothing is added: the
  // caller stores the trigger, then calls Add.
  absl::StatusOr<Trigger> Prepare(const TriggerRequest& request, uid_t uid, gid_t gid,
                                  const TriggerPolicy& policy, const TriggerWorld& world,
                                  bool program_ok);
  void Add(Trigger trigger);

  // A --clear by `uid` (trigger_clear): triggers matching every filter given
  // (id != 0, job_id != 0, user), those `uid` may remove (its own; root: all).
  // `status` is Slurm's answer: OK when the last matching trigger was removed,
  // PermissionDenied "Access/permission denied" when it was not `uid`'s,
  // NotFound "No such process" when none matched, InvalidArgument "Invalid
  // argument" without a filter. `ids` are removed even when status is an error.
  struct ClearFilter {
    uint32_t id = 0;
    uint64_t job_id = 0;
    std::optional<uid_t> user;
  };
  struct ClearPlan {
    std::vector<uint32_t> ids;
    absl::Status status;
  };
  ClearPlan PlanClear(const ClearFilter& filter, uid_t uid) const;
  void Remove(const std::vector<uint32_t>& ids);

  // --get: the triggers not pulled, by id.
  std::vector<Trigger> Visible() const;
  const std::map<uint32_t, Trigger>& triggers() const { return triggers_; }
  // The jobs that TriggerWorld::jobs must describe.
  std::set<uint64_t> JobIds() const;

  // Matches `world` (observed at `now`) against the triggers and against the
  // previous observation, pulls what matched, and fires what is due.
  struct Outcome {
    std::vector<TriggerFiring> fired;
    std::vector<uint32_t> changed;  // triggers whose stored form changed (or that are gone)
    std::vector<std::string> log;   // "trigger[3] for node n1 down", ...
  };
  Outcome Observe(const TriggerWorld& world, int64_t now);

 private:
  // Nodes that went DOWN, DRAINED, FAILING, or came back from DOWN, since the
  // previous observation (none at the first).
  struct NodeEvents {
    std::set<std::string> down, drained, fail, up;
  };
  NodeEvents Changes(const TriggerWorld& world) const;
  // Pulls `trigger` when its event happened.
  void Match(Trigger& trigger, const TriggerWorld& world, const NodeEvents& events, int64_t now,
             bool* defunct, std::vector<std::string>* log) const;

  std::map<uint32_t, Trigger> triggers_;
  uint32_t next_id_ = 1;
  // The previous observation: node name -> what Changes compares.
  struct NodeSample {
    bool down = false, drained = false, fail = false;
  };
  std::optional<std::map<std::string, NodeSample>> previous_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_TRIGGERS_TRIGGER_TABLE_H_
