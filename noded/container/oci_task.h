// Slurm's --container for one task, as slurmstepd's container.c does it: the
// bundle's config.json (OCI runtime spec) turned into the task's own, and
// oci.conf's RunTime* patterns expanded for it. What the runner
// (oci_runner.h) writes and runs; no I/O here.
//
// What the generated config.json gets, as in Slurm 24.05: process.terminal
// off (on for srun --pty), root.path made absolute, the container's spool
// directory bound at MountSpoolDir, for a batch script the script bound
// read-only at /tmp/slurm/startup and run from there (its stdin, stdout and
// stderr files bound at /tmp/slurm/{stdin,stdout,stderr}), process.args the
// task's command, process.env the task's environment with the bundle's own
// values winning (its PATH) and EnvExclude's matches dropped. Beyond Slurm:
// process.noNewPrivileges set, and the job's allocated GPU device files (plus
// NVIDIA's control devices the node has) bound in under /dev, so the
// container sees its GPUs and no others, with CUDA_VISIBLE_DEVICES and
// GPU_DEVICE_ORDINAL numbered as CUDA numbers them inside (0..N-1).
//
// Pure; thread-safe.
#ifndef SKIFF_NODED_CONTAINER_OCI_TASK_H_
#define SKIFF_NODED_CONTAINER_OCI_TASK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"

namespace skiff::noded {

// Slurm's step ids for the patterns' %s.
inline constexpr uint32_t kBatchStepId = 0xfffffffb;        // SLURM_BATCH_SCRIPT
inline constexpr uint32_t kInteractiveStepId = 0xfffffffa;  // SLURM_INTERACTIVE_STEP

// Where a batch script is bound inside the container, and its standard files.
inline constexpr char kContainerBatchScript[] = "/tmp/slurm/startup";
inline constexpr char kContainerStdin[] = "/tmp/slurm/stdin";
inline constexpr char kContainerStdout[] = "/tmp/slurm/stdout";
inline constexpr char kContainerStderr[] = "/tmp/slurm/stderr";
inline constexpr char kDefaultMountSpoolDir[] = "/var/run/slurm/";
inline constexpr char kContainerEnvFile[] = "environment";

struct OciTask {
  std::string bundle;  // --container PATH (absolute)
  std::string node_name;
  std::string user_name;
  uint32_t uid = 0;
  uint64_t job_id = 0;
  uint32_t step_id = kBatchStepId;
  int task_id = 0;
  // The job's directory on this node: the default ContainerPath is under it,
  // so the generated bundle goes when the job's directory does.
  std::string job_dir;
  std::vector<std::string> argv;  // the command; for a batch job argv[0] is the script on the host
  std::vector<std::string> env;   // NAME=value, the task's
  bool terminal = false;          // srun --pty
  // Batch jobs: the files bound at /tmp/slurm/std*; "" or /dev/null: none.
  std::string stdin_path;
  std::string stdout_path;
  std::string stderr_path;
  std::vector<std::string> devices;  // host device files to bind at /dev/<base name>
  // Inside the container the command goes through these first (an image
  // container's user helper, image_bundle.h); empty for Slurm's bundles.
  std::vector<std::string> entry;
};

// The values a pattern's %-letters stand for (oci.conf(5), "OCI Pattern").
struct OciPatternValues {
  std::string bundle;             // %b: the generated bundle (the spool directory)
  std::string spool_dir;          // %m
  std::string rootfs;             // %r
  std::string env_file;           // %e
  std::vector<std::string> argv;  // %@, each argument single-quoted
  int64_t pid = -1;               // %p; -1: unknown (Slurm prints INFINITE's value)
};

// Expands `pattern` for `task`. InvalidArgument names an unknown %-letter.
absl::StatusOr<std::string> ExpandOciPattern(const std::string& pattern, const OciTask& task,
                                             const OciPatternValues& values);

// The container's spool directory (%m, and %b when the bundle's config.json is
// rewritten): ContainerPath expanded, else
// <job_dir>/oci-job<J>-batch/task-<T> (-interactive, or -<step> for steps).
// %m inside ContainerPath is the node's SlurmdSpoolDir, as in Slurm.
absl::StatusOr<std::string> OciSpoolDir(const OciConfig& config, const OciTask& task,
                                        const std::string& slurmd_spool_dir);

struct OciTaskPlan {
  std::string config_json;        // "" with IgnoreFileConfigJson: nothing to write
  std::string rootfs;             // absolute
  std::vector<std::string> argv;  // for %@ (a batch script's is its bound path)
  std::vector<std::string> env;   // the container's, after EnvExclude
  std::string env_file;           // CreateEnvFile's contents; "" when disabled
};

// The task's config.json from the bundle's (`bundle_config`, its text; ""
// with IgnoreFileConfigJson, when the rootfs is the bundle itself).
// InvalidArgument: config.json is not a JSON object, or its root.path is
// missing or not a string ("config.json: root.path: ...").
absl::StatusOr<OciTaskPlan> PlanOciTask(const OciConfig& config, const std::string& bundle_config,
                                        const OciTask& task, const std::string& spool_dir);

// `entries` ("NAME=value") without those `regex` matches (an extended regular
// expression, checked when oci.conf was read; "" matches nothing).
std::vector<std::string> WithoutExcluded(const std::string& regex,
                                         std::vector<std::string> entries);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CONTAINER_OCI_TASK_H_
