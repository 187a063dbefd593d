// The thin I/O around cgroup_plan.h: a job's cgroup on disk, behind one
// interface with a backend per hierarchy, detected at run time.
//
//   v1 (one mount per controller, <mount>/<controller>/skiff/<node>/job_<id>):
//      freezer (always: tracking and race-free kill), pids (when mounted),
//      memory, cpuset, devices (when their constraint is on).
//   v2 (the unified hierarchy, <mount>/skiff/<node>/job_<id>): cgroup.procs,
//      cgroup.kill (cgroup.freeze before 5.14), memory.max / memory.swap.max,
//      cpuset.cpus, memory.events; devices through an eBPF program
//      (BPF_PROG_TYPE_CGROUP_DEVICE, written out here without libbpf) attached
//      to each job's cgroup. Where it cannot be loaded, PrepareNode refuses
//      ConstrainDevices=yes (naming the failure) instead of running jobs unconfined.
//
// Used by noded (creates, signals, removes) and by the shepherd (the job child
// joins; the shepherd kills what is left, reads the OOM count and removes the
// cgroup). Only absl: the shepherd is linked statically.
//
// Thread-safety: a Cgroups object holds only its configuration (immutable after
// construction); its methods touch only the files of the cgroup they are given,
// so any thread may call them, and two callers on one job's cgroup are safe
// at the kernel's level (the job manager serialises create/remove per job).
#ifndef SKIFF_NODED_CGROUP_CGROUP_FS_H_
#define SKIFF_NODED_CGROUP_CGROUP_FS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "noded/cgroup/cgroup_plan.h"

namespace skiff::noded {

enum class CgroupVersion { kNone = 0, kV1 = 1, kV2 = 2 };

// Which hierarchy `mountpoint` holds: v2 when <mount>/cgroup.controllers exists,
// v1 when <mount>/freezer/tasks does. `plugin` (CgroupPlugin) may insist on one.
// FailedPrecondition says what is missing.
absl::StatusOr<CgroupVersion> DetectCgroupVersion(const std::string& mountpoint,
                                                  const std::string& plugin);

// What a job's cgroup enforces; computed by noded (cgroup_plan.h).
struct JobCgroupLimits {
  std::vector<int> cpus;        // host CPU ids; empty = the parent's
  uint64_t ram_bytes = 0;       // 0 = no limit
  uint64_t ram_swap_bytes = 0;  // RAM + swap (v1 memsw; v2 swap.max = this - ram); 0 = none
  int64_t swappiness = -1;      // v1; -1 = leave it
  std::vector<DeviceNumber> denied_devices;
};

class Cgroups {
 public:
  virtual ~Cgroups() = default;

  virtual CgroupVersion version() const = 0;
  // The controllers this backend uses (v2: those it enables below the root).
  virtual std::vector<std::string> controllers() const = 0;

  // Creates the node's subtree (rel = NodeCgroupRelPath) and checks it is
  // writable; v2 enables the controllers on the way down. Run once by noded at
  // start: an error means jobs here cannot be confined (the message says why).
  virtual absl::Status PrepareNode(const std::string& node_rel) = 0;
  // The CPUs the node's subtree may use (its cpuset); empty when unknown or
  // cores are not constrained.
  virtual std::vector<int> NodeCpus(const std::string& node_rel) const = 0;

  // Creates (or reuses, when it exists and is empty) the job's cgroup and
  // writes its limits. FailedPrecondition when it still holds processes.
  virtual absl::Status CreateJob(const std::string& rel, const JobCgroupLimits& limits) = 0;
  // The files a process writes its own pid to, to join the job (every
  // controller's; the child does it with open/write before exec).
  virtual std::vector<std::string> ProcsFiles(const std::string& rel) const = 0;
  // The processes in the job's cgroup; empty when none or it does not exist.
  virtual std::vector<pid_t> Pids(const std::string& rel) const = 0;
  // Sends `sig` to every process of the cgroup (those forking meanwhile may be
  // missed; KillAll does not miss them). OK when there is none.
  virtual absl::Status Signal(const std::string& rel, int sig) = 0;
  // SIGKILL to every process, without races: v1 freezes, kills, thaws; v2
  // writes cgroup.kill (or freezes). Returns when the kill is sent, not when the
  // processes are gone (poll Pids).
  virtual absl::Status KillAll(const std::string& rel) = 0;
  // How many processes the kernel killed for memory in this cgroup (0 when the
  // memory controller is not used).
  virtual uint64_t OomKills(const std::string& rel) const = 0;
  // Removes the job's cgroup (every controller's). NotFound-safe: OK when gone.
  // FailedPrecondition while it holds processes.
  virtual absl::Status Remove(const std::string& rel) = 0;
};

// A backend for `version` under `mountpoint` using `controllers` (from
// NeededControllers, or as recorded in a job's spec).
std::unique_ptr<Cgroups> MakeCgroups(CgroupVersion version, const std::string& mountpoint,
                                     const std::vector<std::string>& controllers);

// The controllers `settings` call for: freezer (v1 only), pids (when the
// hierarchy has it), then memory, cpuset, devices as constrained.
std::vector<std::string> NeededControllers(CgroupVersion version, const std::string& mountpoint,
                                           const CgroupSettings& settings);

// Writes `pid` in decimal to `path` with open/write/close only: async-signal-safe,
// for a forked child. Returns 0 or the errno.
int WritePidAsyncSignalSafe(const char* path, pid_t pid);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_CGROUP_CGROUP_FS_H_
