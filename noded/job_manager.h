// The batch jobs on this node: launches them through shepherds, watches them
// end, signals and terminates them, and re-adopts them after a noded restart.
//
// Each job lives in <spool>/job<ID>/ (layout in job_files.h); the directory, not
// this object, is the record of truth, so a new JobManager on the same spool
// (noded restarted) picks up where the last one stopped: a finished job is
// reported, a running one is watched again (its shepherd never depended on noded),
// and one whose shepherd vanished without a status is reported failed
// ("shepherd lost").
//
// Launch failures (unknown user, work_dir not usable, output file not writable,
// script not executable, shepherd missing...) are not RPC errors: Launch returns
// OK with pid 0 or the shepherd's pid, and the job finishes at once with a
// `failure` text naming the field, reported like any other end
// (NodeService.JobComplete / registration); ctld marks the job FAILED with that
// text as its reason. Launch fails only for a request that is not a job (job_id 0).
//
// Threads and ownership:
//  - Launch, Signal, Terminate: any thread (gRPC's). Launch forks and waits for the
//    shepherd without holding the lock.
//  - JobReportSource methods: any thread (the NodeAgent's).
//  - The monitor thread (Start() to Stop()) polls every poll_interval: reaps this
//    manager's own shepherd children with waitpid(pid, WNOHANG) (never -1), checks
//    adopted shepherds through /proc/<pid>/cmdline, reads status files, and
//    delivers the delayed SIGKILL of TerminateJob.
//  - One mutex, mu_, guards jobs_ and stopping_; no file I/O (log lines aside),
//    fork, kill, cgroup write or callback runs under it. CPU ids are chosen under
//    it (pure, cgroup_plan.h), so two launches never pick the same ones. The finished listener is
//    called from the monitor thread without the lock.
// Destroying the manager stops the monitor and leaves every job running.
#ifndef SKIFF_NODED_JOB_MANAGER_H_
#define SKIFF_NODED_JOB_MANAGER_H_

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "noded/cgroup/cgroup_fs.h"
#include "noded/cgroup/cgroup_plan.h"
#include "noded/job_files.h"
#include "noded/job_report.h"
#include "spdlog/spdlog.h"

namespace skiff::noded {

// Why a job or step with pyxis's --container-image or --container-name fails
// when the node has no way to run images.
inline constexpr char kContainerImagesUnsupported[] =
    "container: this node cannot run container images (--container-image, --container-name): "
    "skiff-container-user is not installed beside noded";

struct JobManagerOptions {
  std::string spool_dir;        // SlurmdSpoolDir with %n substituted; must exist
  std::string node_name;        // SLURMD_NODENAME
  std::string shepherd_binary;  // see FindShepherdBinary
  int kill_wait = 30;           // KillWait: seconds TERM -> KILL for abandoned jobs
  std::chrono::milliseconds poll_interval{20};
  std::chrono::milliseconds ready_timeout{10000};  // Launch's wait for the shepherd
  // SKIFF_CONF in every job's environment here: a configless noded's cached
  // skiff.conf, since the path the job was submitted with names a file on the
  // submit host (Slurm's slurmd sets SLURM_CONF so). Empty: the job keeps its own.
  std::string job_conf_path;
  // Fencing (SkiffConfig::FenceLeaseSeconds): a job whose lease is not renewed
  // within this is killed by its shepherd. 0 = no lease, no fencing.
  std::chrono::seconds fence_lease{0};
  // Confinement (noded/cgroup/). Null: jobs are tracked by their process group
  // only (ProctrackType not proctrack/cgroup, or no usable hierarchy). Set: each
  // job gets the cgroup JobCgroupRelPath(node_name, id), created here before its
  // shepherd starts; its processes join it before exec (shepherd.h); signals and
  // kills reach every process in it, and it is removed once the job is
  // acknowledged (the shepherd removes it first when it can).
  std::shared_ptr<Cgroups> cgroups;
  CgroupSettings cgroup_settings;
  int node_cpus = 0;           // this node's CPUs= (the logical ids 0..N-1)
  std::vector<int> host_cpus;  // real CPUs behind them (the node cgroup's cpuset)
  // By GPU index: its device numbers (a MIG device's: its GPU's and its
  // capability devices), for ConstrainDevices.
  std::vector<std::vector<DeviceNumber>> gpu_devices;
  // By GPU index: what CUDA_VISIBLE_DEVICES names it by (a MIG device's
  // MIG-... id); "" or missing = its index.
  std::vector<std::string> gpu_cuda_names;
  // Node scripts (node_scripts.h), put in every launch spec for the shepherd.
  std::string prolog, epilog, task_prolog, task_epilog;
  int64_t prolog_epilog_timeout = 0;
  // --container (noded/container/): oci.conf's path ("" = Skiff's default
  // runtime), whether bundles need a config.json, the GPU device files by
  // index (gres.conf File=) and NVIDIA's control devices this node has, bound
  // into a job's container; and why containers cannot run here ("" = they can).
  std::string oci_conf;
  bool container_config_json = true;
  std::vector<std::vector<std::string>> gpu_files;
  std::vector<std::string> control_devices;
  std::string container_unavailable;
  // --container-image (image_container.h): the node's image cache
  // (ContainerImageCache, its size), registry mirror, and the user helper
  // bound into each image container.
  std::string image_cache;
  uint64_t image_cache_bytes = 0;
  std::string registry_mirror;
  std::string container_user_helper;
  std::vector<std::string> container_driver_files;  // ContainerSupport::driver_files
};

class JobManager final : public JobReportSource {
 public:
  // `logger` must outlive the manager.
  JobManager(JobManagerOptions options, spdlog::logger& logger);
  ~JobManager() override;

  // Called (from the monitor thread, no lock held) whenever a job finishes.
  // REQUIRES: before Start().
  void SetFinishedListener(std::function<void()> listener);

  // Re-adopts every job directory in the spool, then starts the monitor thread.
  void Start();
  // Stops the monitor thread; jobs keep running. Idempotent.
  void Stop();

  // Starts job `spec.job_id` (groups and node_name are filled in here) running
  // `script`. Returns the shepherd's pid, or 0 when the job could not start (it
  // is then finished, with the failure text). Idempotent: a job id already known
  // returns its shepherd's pid without starting anything. InvalidArgument for
  // job_id 0.
  absl::StatusOr<pid_t> Launch(LaunchSpec spec, const std::string& script);

  // Which of the job's processes on this node Signal reaches.
  enum class SignalTarget {
    kEveryProcess,  // the batch shell's process group and all in the job's cgroup
    kBatchShell,    // the batch shell alone
    kBatchGroup,    // the batch shell and its children (its process group)
  };
  // Sends `sig` to `target`. NotFound: unknown job; FailedPrecondition:
  // finished or no process left; Unavailable: still starting; InvalidArgument:
  // bad signal.
  absl::Status Signal(uint64_t job_id, int sig, SignalTarget target);

  // SIGCONT + SIGTERM to the job's process group now (or as soon as it is known),
  // SIGKILL `kill_wait` seconds later if the job has not ended. Returns at once.
  // OK for a finished job; NotFound for an unknown one.
  absl::Status Terminate(uint64_t job_id, int kill_wait);
  // scontrol notify: "slurmstepd: error: MESSAGE" appended to the job's error
  // output as the job's user (as Slurm's slurmstepd logs it there). NotFound
  // when the job is not running here.
  absl::Status Notify(uint64_t job_id, const std::string& message);

  // JobReportSource.
  std::vector<JobReport> Jobs() override;
  std::vector<JobReport> FinishedJobs() override;
  void Acknowledge(uint64_t job_id) override;
  void Abandon(uint64_t job_id) override;
  void RenewLeases() override;

  // The job's directory (whether or not it exists).
  std::string JobDir(uint64_t job_id) const;

  // Job steps (noded/steps/). Whether the job's batch script still runs here:
  // from the moment its shepherd may have started it (still kLaunching while
  // Launch reads the shepherd's pids, when a fast `srun` in the script may
  // already ask for a step) until it ended.
  bool IsRunning(uint64_t job_id);
  // The jobs whose batch script runs here now, by id (the GPU monitor's).
  std::vector<uint64_t> RunningJobIds();
  // Whether any job of `uid` runs here now: who may open a step stream at all.
  bool RunsAJobOf(uid_t uid);
  // The running job's launch spec, read from its directory; NotFound when the
  // job does not run here (unknown, or finished).
  absl::StatusOr<LaunchSpec> RunningJobSpec(uint64_t job_id);
  // Ends an allocation's holder (salloc): records `exit_code` as the job's
  // (kAllocationEndFileName) and terminates it. NotFound: not running here.
  absl::Status EndAllocation(uint64_t job_id, int exit_code);
  // The next step id of a running job, kept in its directory (next_step) so
  // that a restarted noded never hands out an id twice. NotFound when the job
  // does not run here.
  absl::StatusOr<uint32_t> NextStepId(uint64_t job_id);
  // KillWait: seconds between SIGTERM and SIGKILL.
  int kill_wait() const { return options_.kill_wait; }
  // What it was made with (the node scripts, for the job's other nodes).
  const JobManagerOptions& options() const { return options_; }
  // The batch script's pid (sstat N.batch): NotFound when the job does not
  // run here or its shepherd has not started the script yet.
  absl::StatusOr<pid_t> BatchPid(uint64_t job_id);
  // The files a process writes its pid to in order to join the job's cgroup
  // (empty without cgroups).
  std::vector<std::string> CgroupProcsFiles(const LaunchSpec& spec) const;

 private:
  struct Job {
    // kCleaning: acknowledged, its directory being removed; a launch of the same
    // job id (a requeued job's next run) waits for that to finish.
    enum State { kLaunching, kRunning, kFinished, kCleaning };
    State state = kLaunching;
    pid_t shepherd_pid = 0;
    bool own_child = false;  // forked here: reap it with waitpid
    JobPids pids;            // job_pgid 0 until the shepherd has written it
    JobResult result;        // kFinished
    bool abandoned = false;  // ctld no longer wants it: never report; remove when done
    // TerminateJob.
    bool terminate_requested = false;
    int kill_wait = 0;
    bool term_sent = false;
    std::optional<std::chrono::steady_clock::time_point> kill_at;
    bool kill_sent = false;
    // Confinement: the logical CPU ids it holds on this node (also in its spec
    // file, so they survive a noded restart) and its cgroup, empty for none.
    std::vector<int> cpu_ids;
    std::string cgroup_path;
    uid_t uid = 0;  // the job's user: who may start steps here
  };
  // A launching job counts as started: its script may run before Launch has
  // marked it kRunning.
  static bool Started(const Job& job) {
    return job.state == Job::kLaunching || job.state == Job::kRunning;
  }

  struct SignalAction {
    pid_t target;  // kill(target, sig)
    int sig;
    std::string cgroup;  // also every process in this cgroup (SIGKILL: race-free)
  };

  void Recover();
  void MonitorLoop();
  void Tick();
  // Sets up the job directory; returns the failure text, empty when ready.
  std::string PrepareJobDir(LaunchSpec& spec, const std::string& script, const std::string& dir);
  // Records a job that ended before or while starting (status written if possible).
  void FinishLaunchFailure(uint64_t job_id, const std::string& dir, const std::string& failure);
  // Appends the signals a pending TerminateJob calls for now.
  void CollectTerminationLocked(Job& job, std::chrono::steady_clock::time_point now,
                                std::vector<SignalAction>* actions)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SendSignals(uint64_t job_id, const std::vector<SignalAction>& actions);

  // Creates the job's cgroup with its limits and records it in `spec`; returns
  // the failure text, empty when done (or when cgroups are off).
  std::string SetUpCgroup(LaunchSpec& spec);
  // Kills what is left in the job's cgroup and removes it (best effort, logged).
  void RemoveCgroup(uint64_t job_id, const std::string& cgroup_path);

  // Writes the job directory's lease, expiring fence_lease from now.
  bool WriteLease(const std::string& dir);

  const JobManagerOptions options_;
  spdlog::logger& logger_;
  std::function<void()> finished_listener_;

  absl::Mutex mu_;
  std::mutex step_ids_mu_;  // serializes NextStepId's read-and-bump of next_step
  std::map<uint64_t, Job> jobs_ ABSL_GUARDED_BY(mu_);  // node-stable: Launch waits on entries
  // Own-child shepherds whose job had ended (its status file written) while
  // they were still exiting: reaped on the next ticks, so none stays a zombie.
  // Only the monitor thread touches it.
  std::vector<pid_t> exiting_shepherds_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread monitor_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_JOB_MANAGER_H_
