// sstatus's report as pure functions of what ctld returned: the cluster's GPU
// usage and free nodes, the GPU limits (QOS MaxTRESPerUser, association GrpTRES)
// that apply to one user and what that user's jobs hold under each, and the
// user's jobs. sstatus is Skiff's own command, after the hand-written `sstatus`
// of a lab's admin course (issue 36); Slurm has none.
//
// Pure (no RPCs, no clock, no passwd lookups); thread-safe.
#ifndef SKIFF_CLIENT_STATUS_REPORT_H_
#define SKIFF_CLIENT_STATUS_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proto/ctld.pb.h"

namespace skiff::client {

// What main fetched from ctld. The report reads only these.
struct SstatusInput {
  std::string cluster_name;       // ClusterName from GetConfig
  std::string user;               // whose jobs and limits are shown
  v1::GetNodesReply nodes;        // every node
  v1::GetJobsReply jobs;          // the user's jobs not yet ended (others are ignored)
  v1::GetQosReply qos;            // every QOS, in ctld's order
  v1::GetAccountsReply accounts;  // associations and what they hold
};

// GPUs of the cluster, or of one GPU type.
struct GpuCount {
  std::string type;  // "" for the cluster's total
  int64_t allocated = 0;
  int64_t total = 0;
};

// One GPU limit that applies to the user.
struct GpuLimit {
  enum class Kind {
    kQos,        // the QOS's MaxTRESPerUser gres/gpu; `used`: the user's jobs in it
    kUserAssoc,  // GrpTRES gres/gpu on the user's association; `used`: the user's jobs in it
    kAccount,    // GrpTRES gres/gpu on an account; `used`: every job in its subtree
  };
  Kind kind = Kind::kQos;
  std::string name;  // the QOS or the account
  int64_t used = 0;
  int64_t limit = 0;
};

// One of the user's jobs, as the table shows it.
struct SstatusJob {
  std::string partition;
  std::string job_id;  // "42", or "42_7" for an array task
  std::string name;
  std::string state;        // Slurm's long name: RUNNING, PENDING, ...
  std::string req_gres;     // "gpu:4", "gpu:a100:2"; "" when none
  int64_t cpu_seconds = 0;  // elapsed x CPUs; 0 for a job that has not started
  int64_t gpus = 0;         // GPUs the job holds now
};

struct SstatusReport {
  std::string cluster_name;
  std::string user;
  GpuCount gpus;                       // every node's gres/gpu
  std::vector<GpuCount> gpus_by_type;  // by type name; empty when no GPU has a type
  int64_t total_nodes = 0;
  std::vector<std::string> free_nodes;  // up, idle, nothing allocated; in ctld's order
  std::vector<GpuLimit> limits;         // QOS (in ctld's order), then associations
  int64_t user_gpus = 0;                // GPUs all of the user's jobs hold
  std::vector<SstatusJob> jobs;         // by job id
};

// Builds the report. The QOS that apply to the user are those its
// associations allow (inherited from the parent account when an association
// names none) and those its jobs run in; a QOS applies with a limit when its
// MaxTRESPerUser names gres/gpu. Association limits are GrpTRES gres/gpu on
// the user's associations and on the accounts above them.
SstatusReport BuildSstatusReport(const SstatusInput& input);

// The report as text:
//   <cluster> status:
//   GPU Usage: 2/6
//   GPU Usage (a100): 2/4            (one line per type, when GPUs have types)
//   Free Nodes: 1/4: n1              (no ": names" part when none is free)
//   =====
//   Job details for user alice:
//   Using 2/4 GPUs allowed on gpu4 queue.      (one line per limit, or:)
//   Using 2 GPUs (no GPU limit).
//   <blank>
//   Partition\tJobID\tJobName\tState\tReqGRES\tCPUTime
//   -----\t-----\t-----\t-----\t-----\t-----
//   gpu\t42\tinception\tRUNNING\tgpu:2\t00:01:10
std::string FormatSstatusText(const SstatusReport& report);

// The same data as one JSON object (two-space indented, newline-terminated).
std::string FormatSstatusJson(const SstatusReport& report);

// CPU time as sacct's CPUTime prints it: "HH:MM:SS", or "D-HH:MM:SS" from a
// day on. Negative values print as 0.
std::string FormatCpuTime(int64_t seconds);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_STATUS_REPORT_H_
