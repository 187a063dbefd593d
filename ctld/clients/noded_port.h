// ctld's port to the node daemons, as plain data: a batch job's launch, signals,
// termination, notes and step signals. NodeClient (node_client.h) is the real
// port over gRPC, the one place that knows noded's wire messages; tests fake
// the port.
#ifndef SKIFF_CTLD_CLIENTS_NODED_PORT_H_
#define SKIFF_CTLD_CLIENTS_NODED_PORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ctld/core/container_spec.h"
#include "ctld/core/lifecycle/effects.h"

namespace skiff::ctld {

// One node's share of a job, as the job's step manager carves steps from it.
struct NodeShare {
  std::string name;
  std::string address;  // "addr:port" of its noded
  int cpus = 0;
  uint64_t memory_mb = 0;
  std::vector<int> gpu_indices;
  std::vector<int> cpu_ids;  // which of the node's logical CPUs (ctld's choice)
};

// A batch job's launch on its first node.
struct BatchLaunch {
  uint64_t job_id = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user_name;  // noded resolves supplementary groups from it
  std::string script;
  std::vector<std::string> argv;                   // the script's arguments
  std::map<std::string, std::string> environment;  // complete: the user's plus SLURM_*
  std::string work_dir;
  std::string stdout_path;  // expanded, absolute
  std::string stderr_path;  // expanded; "" = with stdout
  std::string stdin_path;   // "" = /dev/null
  int64_t time_limit = 0;   // seconds, informational (ctld enforces it)
  // This node's share, as in allocation.front().
  int cpus = 0;
  uint64_t memory_mb = 0;  // 0 = no limit
  std::vector<int> gpu_indices;
  std::vector<int> cpu_ids;
  int run = 0;  // ctld's restart count + 1: which run's end a report is
  // O_TRUNC (a first run with --open-mode=truncate); else O_APPEND.
  bool truncate_output = false;
  std::vector<NodeShare> allocation;  // every node of the job, this one first
  // What the batch script runs in (the job's --container or --container-image
  // ...); empty: on the host.
  ContainerSpec container;
  int mps_gpu = -1;                // gres/mps: LaunchJobRequest.mps_gpu; -1 = not an MPS job
  double mps_memory_fraction = 0;  // LaunchJobRequest.mps_memory_fraction; 0 = no limit
};

class NodedPort {
 public:
  virtual ~NodedPort() = default;
  // `target` is "addr:port" of the node's noded.
  virtual absl::Status LaunchJob(const std::string& target, const BatchLaunch& launch) = 0;
  virtual absl::Status SignalJob(const std::string& target, uint64_t job_id, int signal,
                                 SignalScope scope) = 0;
  virtual absl::Status TerminateJob(const std::string& target, uint64_t job_id, int kill_wait) = 0;
  // scontrol notify: to the batch job's first node.
  virtual absl::Status NotifyJob(const std::string& /*target*/, uint64_t /*job_id*/,
                                 const std::string& /*message*/) {
    return absl::UnimplementedError("this node client cannot notify jobs");
  }
  // scancel N.S: to the job's step manager.
  virtual absl::Status SignalStep(const std::string& /*target*/, uint64_t /*job_id*/,
                                  uint32_t /*step_id*/, int /*signal*/) {
    return absl::UnimplementedError("this node client cannot signal steps");
  }
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CLIENTS_NODED_PORT_H_
