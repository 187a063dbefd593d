// The files in a job's spool directory and their formats. Pure: text in, text
// out; file I/O is in file_io.h.
//
// <SlurmdSpoolDir>/job<ID>/          0711 owned by noded's user (root): the job's
//                                    user must traverse it to exec its script
//   slurm_script   the batch script, owned by the job's uid, 0700 (noded)
//   spec           the launch spec below, 0600 (noded)
//   pids           shepherd and job pids, written atomically (shepherd)
//   status         how the job ended, written atomically, last (shepherd; noded
//                  for launch failures found before a shepherd ran)
//   abandoned      present when ctld no longer wants the job (noded)
//   node_epilogs   a multi-node job's Epilog on its other nodes, once they all
//                  answered (noded, allocation_epilogs.h)
//
// Every file is lines of `key=value`, values C-escaped (absl::CEscape) so that a
// value may hold any byte; lines starting with '#' and unknown keys are ignored,
// so newer versions can add keys. Repeated keys (group, gpu, arg, env) are lists
// in order.
#ifndef SKIFF_NODED_JOB_FILES_H_
#define SKIFF_NODED_JOB_FILES_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "noded/job_report.h"

namespace skiff::noded {

inline constexpr char kScriptFileName[] = "slurm_script";
inline constexpr char kSpecFileName[] = "spec";
inline constexpr char kPidsFileName[] = "pids";
inline constexpr char kStatusFileName[] = "status";
inline constexpr char kAbandonedFileName[] = "abandoned";
// An allocation's end (salloc, srun outside a job): "exit_code=N", the exit code
// of salloc's command, written by noded before it ends the allocation's holder
// (the script that keeps the nodes); the shepherd reports that code instead of
// the holder's signal.
inline constexpr char kAllocationEndFileName[] = "allocation_end";
// The job's lease (fencing): "expiry_ms=N", N on CLOCK_MONOTONIC in ms. noded
// writes it at launch and renews it while ctld confirms the node; the shepherd
// kills the job once it has expired. No file: no fencing.
inline constexpr char kLeaseFileName[] = "lease";
// A multi-node job's end on its other nodes (allocation_epilogs.h), written once
// every one has run its Epilog or could not be reached: a `failed=NODE<TAB>ERROR`
// line for each node whose Epilog failed. Present: the job may be reported.
inline constexpr char kNodeEpilogsFileName[] = "node_epilogs";
std::string FormatNodeEpilogs(const std::vector<NodeScriptError>& failures);
absl::StatusOr<std::vector<NodeScriptError>> ParseNodeEpilogs(const std::string& text);

// CLOCK_MONOTONIC in milliseconds: the lease's clock, shared by noded and the
// shepherds and immune to wall-clock steps.
int64_t MonotonicMillis();
std::string FormatLease(int64_t expiry_ms);
absl::StatusOr<int64_t> ParseLease(const std::string& text);

// One node of the job's allocation (LaunchJobRequest.allocation): what the job's
// step manager carves steps from. Spec line: `alloc=NAME ADDRESS CPUS MEMORY_MB GPUS`,
// GPUS comma-separated or "-".
struct AllocatedNode {
  std::string name;
  std::string address;
  int cpus = 0;
  uint64_t memory_mb = 0;
  std::vector<int> gpus;

  bool operator==(const AllocatedNode& o) const {
    return name == o.name && address == o.address && cpus == o.cpus && memory_mb == o.memory_mb &&
           gpus == o.gpus;
  }
};

// Everything the shepherd needs to start a job: LaunchJobRequest's fields plus
// what noded resolved on this node (supplementary groups, node name).
struct LaunchSpec {
  uint64_t job_id = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string user_name;
  std::vector<gid_t> groups;      // supplementary groups (getgrouplist), resolved by noded
  std::string node_name;          // resolved by noded
  std::vector<std::string> argv;  // arguments after the script
  std::map<std::string, std::string> environment;  // as ctld sent it
  std::string work_dir;
  std::string stdout_path;  // empty: /dev/null
  std::string stderr_path;  // empty: same file as stdout
  std::string stdin_path;   // empty: /dev/null
  int64_t time_limit = 0;   // seconds, informational
  int32_t cpus = 0;
  uint64_t memory_mb = 0;  // enforced by the job's cgroup with ConstrainRAMSpace
  std::vector<int32_t> gpu_indices;
  // By the node's GPU index: a MIG device's name in CUDA_VISIBLE_DEVICES
  // (JobManagerOptions::gpu_cuda_names); "" or missing = the index.
  std::vector<std::string> gpu_cuda_names;
  // gres/mps: the GPU whose MPS server the job uses (LaunchJobRequest.mps_gpu);
  // kept so that a restarted noded knows its GPU's server still has the job.
  int32_t mps_gpu = -1;
  int32_t run = 0;               // LaunchJobRequest.run; 0 = unknown (an older ctld)
  bool truncate_output = false;  // LaunchJobRequest.truncate_output
  // The node's logical CPU ids noded chose for the job (noded/cgroup/): kept
  // here so that a restarted noded knows which CPUs its running jobs hold.
  std::vector<int> cpu_ids;
  // The job's cgroup (noded/cgroup/cgroup_fs.h); cgroup_version 0: none, the job
  // is tracked by its process group only.
  int cgroup_version = 0;
  std::string cgroup_mount;                     // CgroupMountpoint
  std::string cgroup_path;                      // skiff/<node>/job_<id>
  std::vector<std::string> cgroup_controllers;  // as the backend uses them
  std::vector<AllocatedNode> allocation;        // every node of the job, this one first
  // Node scripts (noded/node_scripts.h), from skiff.conf: Prolog and Epilog run
  // as root around the job, TaskProlog and TaskEpilog as the user; empty = none.
  std::string prolog;
  std::string epilog;
  std::string task_prolog;
  std::string task_epilog;
  int64_t prolog_epilog_timeout = 0;  // seconds; 0 = Slurm's unlimited
  // --container (noded/container/oci_runner.h): the batch script runs in this
  // OCI bundle, through the runtime oci.conf names (`oci_conf`, "" = Skiff's
  // default, crun). `container_config_json`: the bundle must have a
  // config.json (not with IgnoreFileConfigJson). `container_devices`: the
  // job's GPU device files (and NVIDIA's control devices) bound in.
  std::string container_bundle;
  std::string oci_conf;
  bool container_config_json = true;
  std::vector<std::string> container_devices;
  // --container-image / --container-name (pyxis; noded/container/
  // image_container.h): the shepherd makes the container from the image, as
  // root, before the script runs in it as in a bundle; and the node's image
  // cache, registry mirror and user helper it does that with.
  std::string container_image;
  std::string container_name;
  std::vector<std::string> container_mounts;
  std::string container_workdir;
  std::vector<std::string> container_env;
  bool container_remap_root = false;
  bool container_mount_home = true;
  std::string image_cache;
  uint64_t image_cache_bytes = 0;
  std::string registry_mirror;
  std::string container_user_helper;
  std::vector<std::string> container_driver_files;  // NVIDIA's, bound in with GPUs
  std::string home_dir;  // the user's (noded resolves it: the shepherd makes no NSS calls)
  bool HasImageContainer() const { return !container_image.empty() || !container_name.empty(); }

  bool operator==(const LaunchSpec& o) const;
};

std::string FormatLaunchSpec(const LaunchSpec& spec);
// InvalidArgument names the bad line; job_id is required.
absl::StatusOr<LaunchSpec> ParseLaunchSpec(const std::string& text);

// <jobdir>/status: exit_code=, signal=, failure=.
std::string FormatJobStatus(const JobResult& result);
// InvalidArgument for a malformed file (a torn write cannot happen: it is renamed
// into place) or one missing exit_code or signal.
absl::StatusOr<JobResult> ParseJobStatus(const std::string& text);

// <jobdir>/pids. The shepherd writes it with shepherd_pid alone as soon as it
// runs, then again with the job's pid once it has forked the job.
struct JobPids {
  pid_t shepherd_pid = 0;
  pid_t job_pid = 0;   // the batch shell; 0 until forked
  pid_t job_pgid = 0;  // its process group (= job_pid), which every job process shares

  bool operator==(const JobPids& o) const {
    return shepherd_pid == o.shepherd_pid && job_pid == o.job_pid && job_pgid == o.job_pgid;
  }
};
std::string FormatJobPids(const JobPids& pids);

std::string FormatAllocationEnd(int exit_code);
absl::StatusOr<int> ParseAllocationEnd(const std::string& text);
absl::StatusOr<JobPids> ParseJobPids(const std::string& text);

// "job42" for 42.
std::string JobDirName(uint64_t job_id);
// 42 for "job42"; nullopt for anything else ("job", "job0", "job4x", "spec").
std::optional<uint64_t> ParseJobDirName(const std::string& name);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_JOB_FILES_H_
