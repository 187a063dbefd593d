#include "noded/shepherd.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "noded/cgroup/cgroup_fs.h"
#include "noded/cgroup/cgroup_plan.h"
#include "noded/container/image_bundle.h"
#include "noded/container/image_container.h"
#include "noded/container/oci_runner.h"
#include "noded/container/oci_task.h"
#include "noded/file_io.h"
#include "noded/job_env.h"
#include "noded/job_files.h"
#include "noded/node_scripts.h"
#include "noded/run_captured.h"
#include "noded/shepherd_protocol.h"
#include "noded/user_env.h"

namespace skiff::noded {
namespace {

// ------------------------------------------------------------ the job child
// Runs in the forked child of the (single-threaded) shepherd, so it may allocate.
// This binary, which the batch script runs through in a container
// (--oci-run, noded/container/oci_runner.h). readlink only: safe in a child.
std::string SelfBinary() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

// The node's SlurmdSpoolDir: the job's directory is in it.
std::string SpoolOf(const std::string& job_dir) { return job_dir.substr(0, job_dir.rfind('/')); }

bool InContainer(const LaunchSpec& spec) {
  return !spec.container_bundle.empty() || spec.HasImageContainer();
}

// The image container's side of the batch script (image_container.h).
ImageNode ImageNodeOf(const LaunchSpec& spec, const std::string& job_dir) {
  ImageNode node;
  node.node_name = spec.node_name;
  node.containers_dir = absl::StrCat(SpoolOf(job_dir), "/containers");
  node.cache_dir = spec.image_cache;
  node.cache_bytes = spec.image_cache_bytes;
  node.mirror = spec.registry_mirror;
  node.user_helper = spec.container_user_helper;
  return node;
}

ImageBundleOptions EntryOptions(const LaunchSpec& spec) {
  ImageBundleOptions options;
  options.uid = spec.uid;
  options.gid = spec.gid;
  options.remap_root = spec.container_remap_root;
  return options;
}

// The runner's flags for the batch script's container (its command follows "--").
std::vector<std::string> BatchOciRunnerFlags(const LaunchSpec& spec, const std::string& job_dir) {
  OciTask task;
  task.bundle = spec.container_bundle;
  if (spec.HasImageContainer()) {
    task.bundle = ImageContainerDir(ImageNodeOf(spec, job_dir).containers_dir, spec.job_id,
                                    kBatchStepId, spec.container_name);
    task.entry = ContainerEntry(EntryOptions(spec));
  }
  task.node_name = spec.node_name;
  task.user_name = spec.user_name;
  task.job_id = spec.job_id;
  task.step_id = kBatchStepId;
  task.job_dir = job_dir;
  task.stdin_path = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path;
  task.stdout_path = spec.stdout_path.empty() ? "/dev/null" : spec.stdout_path;
  task.stderr_path = spec.stderr_path.empty() ? task.stdout_path : spec.stderr_path;
  task.devices = spec.container_devices;
  return OciRunnerFlags(task, spec.oci_conf, SpoolOf(job_dir));
}

// Failures go to `err_fd` (close-on-exec: empty at EOF means exec succeeded).
class JobChild {
 public:
  // `cgroup_procs`: the files the child writes its pid to, to join the job's
  // cgroup (cgroup_fs.h); empty without cgroups.
  JobChild(const LaunchSpec& spec, const std::string& job_dir, int err_fd,
           const std::vector<std::string>& cgroup_procs = {})
      : spec_(spec), job_dir_(job_dir), err_fd_(err_fd), cgroup_procs_(cgroup_procs) {}

  [[noreturn]] void Run() {
    // The node's Prolog, as root, outside the job's cgroup. A failure ends this
    // child with kPrologFailedMarker and the reason: the job never starts.
    if (!spec_.prolog.empty()) {
      ResetSignals();  // the shepherd ignores SIGPIPE and others: not the Prolog
      const CapturedRun prolog =
          RunCaptured({spec_.prolog}, NodeScriptTimeout(spec_.prolog_epilog_timeout), "Prolog",
                      {NodeScriptEnvironment(spec_, "prolog_slurmd"), std::nullopt, ""});
      if (!prolog.ok) {
        Fail(absl::StrCat(kPrologFailedMarker,
                          NodeScriptFailure(prolog, spec_.prolog_epilog_timeout)));
      }
    }
    // --get-user-env: the user's login environment, as root through runuser,
    // before anything of the job runs (user_env.h).
    if (WantsLoginEnvironment(spec_.environment)) LoadLoginEnvironment();
    JoinCgroup();
    ResetSignals();
    setpgid(0, 0);
    if (spec_.HasImageContainer()) PrepareImage();
    if (InContainer(spec_)) PrepareContainerSpool();
    DropPrivileges();
    ApplyUmask();
    if (!spec_.container_bundle.empty()) CheckBundle();  // an image's is root's own
    if (spec_.work_dir.empty()) Fail("work_dir is empty");
    if (chdir(spec_.work_dir.c_str()) != 0) {
      FailErrno("cannot chdir to work_dir ", spec_.work_dir);
    }
    // As the job's user: it may only read and create what that user may.
    const std::string in = spec_.stdin_path.empty() ? "/dev/null" : spec_.stdin_path;
    OpenOnto(STDIN_FILENO, in, O_RDONLY, "stdin_path");
    const std::string out = spec_.stdout_path.empty() ? "/dev/null" : spec_.stdout_path;
    // O_APPEND always (several writers may share one file); truncated first on
    // a first run, as Slurm's --open-mode=truncate.
    const int mode = O_WRONLY | O_CREAT | O_APPEND | (spec_.truncate_output ? O_TRUNC : 0);
    OpenOnto(STDOUT_FILENO, out, mode, "stdout_path");
    if (spec_.stderr_path.empty()) {
      if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0) FailErrno("dup2 stdout onto stderr");
    } else if (spec_.stderr_path == out) {
      if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0) FailErrno("dup2 stdout onto stderr");
    } else {
      OpenOnto(STDERR_FILENO, spec_.stderr_path, mode, "stderr_path");
    }
    if (!login_error_.empty()) {
      const std::string note = absl::StrCat(
          "slurmstepd: error: Unable to get user's local environment, running only with passed "
          "environment (",
          login_error_, ")\n");
      ssize_t ignored = write(STDERR_FILENO, note.data(), note.size());
      (void)ignored;
    }
    Exec();
  }

  // Appends `message` to the job's error output as the job's user (so it can
  // only write where the job itself could), then exits. Used by the shepherd
  // to tell the job's owner why its end is not recorded yet.
  [[noreturn]] void AppendToOutput(const std::string& message) {
    ResetSignals();
    DropPrivileges();
    if (chdir(spec_.work_dir.c_str()) != 0) _exit(1);
    const std::string& path = spec_.stderr_path.empty() ? spec_.stdout_path : spec_.stderr_path;
    if (path.empty()) _exit(0);
    const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) _exit(1);
    ssize_t ignored = write(fd, message.data(), message.size());
    (void)ignored;
    _exit(0);
  }

 private:
  [[noreturn]] void Fail(const std::string& message) {
    ssize_t ignored = write(err_fd_, message.data(), message.size());
    (void)ignored;
    _exit(1);
  }

  // errno is read first thing, before building the message can change it.
  template <typename... Pieces>
  [[noreturn]] void FailErrno(const Pieces&... what) {
    const int err = errno;
    Fail(absl::StrCat(what..., ": ", strerror(err)));
  }

  // First thing, as root, before exec: from here on every process of the job
  // (whatever it forks, setsid or not) is in the job's cgroup, and no instant of
  // the job's own code runs outside it. open/write only (WritePidAsyncSignalSafe),
  // although this child of the single-threaded shepherd could do more.
  void JoinCgroup() {
    for (const std::string& file : cgroup_procs_) {
      if (int err = WritePidAsyncSignalSafe(file.c_str(), getpid()); err != 0) {
        Fail(absl::StrCat("cannot join the job's cgroup (", file, "): ", strerror(err)));
      }
    }
  }

  static void ResetSignals() {
    for (int sig = 1; sig < NSIG; ++sig) {
      if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
  }

  void DropPrivileges() {
    if (geteuid() != 0) {
      if (spec_.uid != getuid()) {
        Fail(absl::StrCat("noded runs as uid ", getuid(), " and cannot start a job as uid ",
                          spec_.uid, " (only root can)"));
      }
      return;
    }
    if (setgroups(spec_.groups.size(), spec_.groups.data()) != 0) {
      FailErrno("setgroups for user ", spec_.user_name);
    }
    if (setgid(spec_.gid) != 0) FailErrno("setgid(", spec_.gid, ")");
    if (setuid(spec_.uid) != 0) FailErrno("setuid(", spec_.uid, ")");
  }

  // Slurm passes the submitter's umask as SLURM_UMASK (octal); 022 otherwise.
  void ApplyUmask() {
    mode_t mask = 022;
    auto it = spec_.environment.find("SLURM_UMASK");
    if (it != spec_.environment.end() && !it->second.empty()) {
      char* end = nullptr;
      const unsigned long value = strtoul(it->second.c_str(), &end, 8);
      if (*end == '\0' && value <= 0777) mask = static_cast<mode_t>(value);
    }
    umask(mask);
  }

  void OpenOnto(int target, const std::string& path, int flags, const char* field) {
    int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd < 0) FailErrno("cannot open ", field, " ", path);
    if (fd != target) {
      if (dup2(fd, target) < 0) FailErrno("dup2 ", field);
      close(fd);
    } else {
      fcntl(fd, F_SETFD, 0);
    }
  }

  // The default ContainerPath's parent, in the job's directory (root's, 0711):
  // created for the user, who makes the task's directory in it.
  void PrepareContainerSpool() {
    const std::string dir = absl::StrCat(job_dir_, "/oci-job", spec_.job_id, "-batch");
    if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
      FailErrno("container: cannot create ", dir);
    if (chown(dir.c_str(), spec_.uid, spec_.gid) != 0) FailErrno("container: cannot chown ", dir);
  }

  // As root: the image's container, made for the script (image_container.h).
  void PrepareImage() {
    ImageRequest request;
    request.image = spec_.container_image;
    request.mounts = spec_.container_mounts;
    request.workdir = spec_.container_workdir;
    request.env_names = spec_.container_env;
    request.name = spec_.container_name;
    request.remap_root = spec_.container_remap_root;
    request.mount_home = spec_.container_mount_home;
    request.uid = spec_.uid;
    request.gid = spec_.gid;
    request.groups = spec_.groups;
    request.home = spec_.home_dir;
    request.cwd = spec_.work_dir;
    request.job_id = spec_.job_id;
    request.step_id = kBatchStepId;
    request.memory_bytes = spec_.memory_mb << 20;
    request.driver_files = spec_.container_driver_files;
    absl::StatusOr<PreparedContainer> prepared =
        PrepareImageContainer(ImageNodeOf(spec_, job_dir_), request);
    if (!prepared.ok()) Fail(std::string(prepared.status().message()));
    // Its root is mounted only in its own namespace: the script's runner, and
    // the runtime it starts, work there (container_namespace.h).
    const int ns = open(prepared->mount_namespace.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (ns < 0 || setns(ns, CLONE_NEWNS) != 0) {
      FailErrno("container: cannot enter the container's mount namespace ",
                prepared->mount_namespace);
    }
    close(ns);
  }

  // As the job's user: the bundle must be theirs to use.
  void CheckBundle() {
    const std::string& bundle = spec_.container_bundle;
    if (bundle[0] != '/') Fail(absl::StrCat("container: ", bundle, " is not an absolute path"));
    if (access(bundle.c_str(), X_OK) != 0) FailErrno("container: cannot use bundle ", bundle);
    const std::string config = absl::StrCat(bundle, "/config.json");
    if (spec_.container_config_json && access(config.c_str(), R_OK) != 0) {
      FailErrno("container: cannot read ", config);
    }
  }

  [[noreturn]] void Exec() {
    const std::string script = absl::StrCat(job_dir_, "/", kScriptFileName);
    std::vector<std::string> env = BuildJobEnvironment(spec_, getpid());
    AddLoginEnvironment(login_env_, &env);
    // TaskProlog, as the user (privileges are dropped) in the job's cgroup:
    // its export/unset lines shape the script's environment, its print lines
    // go to the job's output. Slurm runs the task anyway when it fails.
    if (!spec_.task_prolog.empty()) {
      const CapturedRun task =
          RunCaptured({spec_.task_prolog}, NodeScriptTimeout(spec_.prolog_epilog_timeout),
                      "TaskProlog", {env, std::nullopt, ""});
      const TaskPrologOutput output = ParseTaskPrologOutput(task.output);
      ApplyTaskProlog(output, &env);
      if (!output.print.empty()) {
        ssize_t ignored = write(STDOUT_FILENO, output.print.data(), output.print.size());
        (void)ignored;
      }
    }
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);

    std::vector<std::string> args = {script};
    args.insert(args.end(), spec_.argv.begin(), spec_.argv.end());
    if (InContainer(spec_)) {
      // The script runs in the container, through this binary as its runner.
      const std::string runner = SelfBinary();
      std::vector<std::string> wrapped = {runner, kOciRunFlag};
      for (std::string& flag : BatchOciRunnerFlags(spec_, job_dir_))
        wrapped.push_back(std::move(flag));
      wrapped.push_back("--");
      wrapped.insert(wrapped.end(), args.begin(), args.end());
      std::vector<char*> wrapped_argv;
      for (std::string& a : wrapped) wrapped_argv.push_back(a.data());
      wrapped_argv.push_back(nullptr);
      execve(runner.c_str(), wrapped_argv.data(), envp.data());
      FailErrno("container: cannot execute ", runner);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execve(script.c_str(), argv.data(), envp.data());
    // ETXTBSY: noded wrote the script, and a child another noded thread was
    // forking at that moment still holds the write descriptor until its own exec.
    // That lasts microseconds; retry for up to a second.
    for (int attempt = 0; attempt < 100 && errno == ETXTBSY; ++attempt) {
      usleep(10000);
      execve(script.c_str(), argv.data(), envp.data());
    }
    if (errno == ENOEXEC) {  // no "#!" line: run it as sh would
      std::string sh = "/bin/sh";
      argv.insert(argv.begin(), sh.data());
      execve(sh.c_str(), argv.data(), envp.data());
    }
    FailErrno("cannot execute the batch script ", script);
  }

  void LoadLoginEnvironment() {
    const std::string runuser = geteuid() == 0 ? FindRunuser() : "";
    if (runuser.empty()) {
      login_error_ = geteuid() == 0 ? "no runuser on this node"
                                    : "noded does not run as root and cannot switch users";
      return;
    }
    ResetSignals();
    const CapturedRun run = RunCaptured(LoginEnvironmentCommand(runuser, spec_.user_name),
                                        std::chrono::seconds(120), "runuser");
    absl::StatusOr<std::map<std::string, std::string>> login = ParseLoginEnvironment(run.output);
    if (run.timed_out) {
      login_error_ = "the login shell did not finish within 120 s";
    } else if (!login.ok()) {
      login_error_ = std::string(login.status().message());
    } else {
      login_env_ = std::move(*login);
    }
  }

  const LaunchSpec& spec_;
  const std::string& job_dir_;
  const int err_fd_;
  std::map<std::string, std::string> login_env_;  // --get-user-env
  std::string login_error_;                       // why it could not be loaded
  const std::vector<std::string>& cgroup_procs_;
};

// ------------------------------------------------------------ the shepherd
void QuietStdio() {
  int fd = open("/dev/null", O_RDWR);
  if (fd < 0) return;
  for (int target : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) dup2(fd, target);
  if (fd > STDERR_FILENO) close(fd);
}

// Closes every descriptor noded may have leaked past 2, except `keep`.
void CloseInheritedFds(int keep) {
  std::vector<int> fds;
  if (DIR* d = opendir("/proc/self/fd")) {
    const int own = dirfd(d);
    while (struct dirent* entry = readdir(d)) {
      int fd = 0;
      if (absl::SimpleAtoi(entry->d_name, &fd) && fd > STDERR_FILENO && fd != keep && fd != own) {
        fds.push_back(fd);
      }
    }
    closedir(d);
  }
  for (int fd : fds) close(fd);
}

void SignalReady(int* ready_fd) {
  if (*ready_fd < 0) return;
  ssize_t ignored = write(*ready_fd, &kShepherdReadyByte, 1);
  (void)ignored;
  close(*ready_fd);
  *ready_fd = -1;
}

std::string ReadAllFrom(int fd) {
  std::string text;
  char buf[1024];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

// Space set aside in the job's spool directory at start, so that the job's end
// can be recorded even when the job (or anything else) filled the spool's
// filesystem meanwhile: freed just before the status is written again.
constexpr char kStatusReserveFileName[] = "status.reserve";
constexpr size_t kStatusReserveBytes = 64 * 1024;

void ReserveStatusSpace(const std::string& job_dir) {
  // Best effort: a spool already full at start only loses the head start.
  (void)WriteFileAtomically(absl::StrCat(job_dir, "/", kStatusReserveFileName),
                            std::string(kStatusReserveBytes, '\0'), 0600);
}

// Records the job's end in <job_dir>/status, which is how noded learns it.
// A shepherd that cannot write it must not exit: "shepherd gone, no status"
// reads as a lost job, so a job that succeeded would be recorded FAILED. It
// frees its reserve and, if that is not enough, tells the job's owner once in
// the job's error output and retries every second until space is freed (the
// job stays RUNNING meanwhile) or noded kills it.
int WriteStatus(const std::string& job_dir, const JobResult& result,
                const LaunchSpec* spec = nullptr) {
  const std::string path = absl::StrCat(job_dir, "/", kStatusFileName);
  const std::string reserve = absl::StrCat(job_dir, "/", kStatusReserveFileName);
  const std::string text = FormatJobStatus(result);
  absl::Status written = WriteFileAtomically(path, text, 0600);
  if (!written.ok()) {
    unlink(reserve.c_str());
    written = WriteFileAtomically(path, text, 0600);
  }
  if (!written.ok() && spec != nullptr) {
    const std::string message =
        absl::StrCat("skiff: error: JobId=", spec->job_id, " ended (exit code ", result.exit_code,
                     ") but its end cannot be recorded in SlurmdSpoolDir: ", written.message(),
                     "; retrying every second until space is freed\n");
    AppendToJobOutput(*spec, job_dir, message);
    while (!written.ok()) {
      sleep(1);
      written = WriteFileAtomically(path, text, 0600);
    }
  }
  unlink(reserve.c_str());
  return written.ok() ? 0 : 1;
}

// Waits until the batch script `child` has ended, without reaping it. Meanwhile,
// once a second, reads the job's lease (job_files.h); when it has run out, ctld
// may requeue the job elsewhere at any moment (it does so only after
// SlurmdTimeout, longer than the lease): the whole group is killed now and true
// is returned once the script has ended. No lease file: no fencing.
bool WaitWithinLease(const std::string& job_dir, pid_t child) {
  const std::string lease_path = absl::StrCat(job_dir, "/", kLeaseFileName);
  int pidfd = -1;
#ifdef SYS_pidfd_open
  pidfd = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
#endif
  bool fenced = false;
  for (;;) {
    siginfo_t info;
    memset(&info, 0, sizeof(info));
    const int waited = waitid(P_PID, child, &info, WEXITED | WNOWAIT | (fenced ? 0 : WNOHANG));
    if (waited == 0 && info.si_pid == child) break;
    if (waited != 0 && errno != EINTR) break;  // not our child any more: nothing to wait for
    if (fenced) continue;
    if (absl::StatusOr<std::string> text = ReadFile(lease_path); text.ok()) {
      absl::StatusOr<int64_t> expiry = ParseLease(*text);
      if (expiry.ok() && MonotonicMillis() > *expiry) {
        kill(-child, SIGKILL);
        fenced = true;
        continue;
      }
    }
    if (pidfd >= 0) {
      struct pollfd ready = {pidfd, POLLIN, 0};
      poll(&ready, 1, 1000);
    } else {
      usleep(200 * 1000);
    }
  }
  if (pidfd >= 0) close(pidfd);
  return fenced;
}

// After the batch script's end: kills whatever is left in the job's cgroup
// (processes that left its process group included), waits for them to go (up
// to 5 s), and removes the cgroup. Returns the cgroup's OOM kill count.
uint64_t EndCgroup(Cgroups& cgroups, const std::string& path) {
  for (int attempt = 0; attempt < 500; ++attempt) {
    if (cgroups.Pids(path).empty()) break;
    if (attempt % 50 == 0) (void)cgroups.KillAll(path);
    usleep(10 * 1000);
  }
  const uint64_t oom_kills = cgroups.OomKills(path);
  // A killed process leaves its cgroup when it has exited; rmdir may see it
  // a moment longer. noded removes what is left when the job is acknowledged.
  for (int attempt = 0; attempt < 50 && !cgroups.Remove(path).ok(); ++attempt) {
    usleep(10 * 1000);
  }
  return oom_kills;
}

int Failed(const std::string& job_dir, int* ready_fd, const std::string& failure) {
  JobResult result;
  result.exit_code = 1;
  result.failure = failure;
  const int rc = WriteStatus(job_dir, result);
  SignalReady(ready_fd);
  return rc;
}

}  // namespace

// Appends `message` to the job's error output as the job's user, from a child
// (JobChild::AppendToOutput), and waits for it (shepherd.h).
void AppendToJobOutput(const LaunchSpec& spec, const std::string& job_dir,
                       const std::string& message) {
  const pid_t child = fork();
  if (child == 0) JobChild(spec, job_dir, -1).AppendToOutput(message);
  if (child > 0) {
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

namespace {

// After a container job: the runtime's kill and delete of the container, as
// the user, for a runner that was killed before it could (scancel, time limit).
void EndContainer(const LaunchSpec& spec, const std::string& job_dir) {
  std::vector<std::string> argv = {SelfBinary(), kOciCleanupFlag};
  for (std::string& flag : BatchOciRunnerFlags(spec, job_dir)) argv.push_back(std::move(flag));
  RunSetup as_user{{}, std::nullopt, job_dir};
  if (geteuid() == 0) as_user.as = RunIdentity{spec.uid, spec.gid, spec.groups};
  (void)RunCaptured(argv, std::chrono::seconds(120), "container cleanup", as_user);
}

// After the job: TaskEpilog as the user (when the script ran), then the node's
// Epilog as root; the Epilog's failure goes to `epilog_error`.
void RunEpilogs(const LaunchSpec& spec, pid_t job_pid, const JobResult& result,
                std::string* epilog_error) {
  const auto timeout = NodeScriptTimeout(spec.prolog_epilog_timeout);
  if (!spec.task_epilog.empty() && result.prolog_error.empty() && result.failure.empty()) {
    RunSetup as_user{BuildJobEnvironment(spec, job_pid), std::nullopt, spec.work_dir};
    if (geteuid() == 0) as_user.as = RunIdentity{spec.uid, spec.gid, spec.groups};
    (void)RunCaptured({spec.task_epilog}, timeout, "TaskEpilog", as_user);
  }
  if (spec.epilog.empty()) return;
  const CapturedRun epilog =
      RunCaptured({spec.epilog}, timeout, "Epilog",
                  {NodeScriptEnvironment(spec, "epilog_slurmd",
                                         absl::StrCat(result.exit_code, ":", result.signal)),
                   std::nullopt, ""});
  *epilog_error = NodeScriptFailure(epilog, spec.prolog_epilog_timeout);
}

}  // namespace

int RunShepherd(const std::string& job_dir, int ready_fd) {
  setsid();  // out of noded's session and process group: noded may die, the job goes on
  QuietStdio();
  CloseInheritedFds(ready_fd);
  if (ready_fd >= 0) fcntl(ready_fd, F_SETFD, FD_CLOEXEC);  // never into the job
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  const std::string pids_path = absl::StrCat(job_dir, "/", kPidsFileName);
  JobPids pids;
  pids.shepherd_pid = getpid();
  // Best effort: noded, our parent, knows our pid anyway; a restarted noded
  // without this file reports the job as failed.
  (void)WriteFileAtomically(pids_path, FormatJobPids(pids), 0600);
  ReserveStatusSpace(job_dir);

  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(job_dir, "/", kSpecFileName));
  if (!text.ok()) {
    return Failed(job_dir, &ready_fd,
                  absl::StrCat("cannot read launch spec: ", std::string(text.status().message())));
  }
  absl::StatusOr<LaunchSpec> spec = ParseLaunchSpec(*text);
  if (!spec.ok()) {
    return Failed(job_dir, &ready_fd,
                  absl::StrCat("bad launch spec: ", std::string(spec.status().message())));
  }

  std::unique_ptr<Cgroups> cgroups;
  std::vector<std::string> cgroup_procs;
  if (spec->cgroup_version != 0) {
    cgroups = MakeCgroups(static_cast<CgroupVersion>(spec->cgroup_version), spec->cgroup_mount,
                          spec->cgroup_controllers);
    if (!cgroups) {
      return Failed(job_dir, &ready_fd,
                    absl::StrCat("bad launch spec: cgroup_version ", spec->cgroup_version));
    }
    cgroup_procs = cgroups->ProcsFiles(spec->cgroup_path);
  }

  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    return Failed(job_dir, &ready_fd, absl::StrCat("pipe: ", strerror(errno)));
  }
  const pid_t child = fork();
  if (child < 0) {
    return Failed(job_dir, &ready_fd, absl::StrCat("fork: ", strerror(errno)));
  }
  if (child == 0) {
    close(err_pipe[0]);
    JobChild(*spec, job_dir, err_pipe[1], cgroup_procs).Run();
  }
  setpgid(child, child);  // also done by the child: whichever runs first
  close(err_pipe[1]);
  pids.job_pid = child;
  pids.job_pgid = child;
  (void)WriteFileAtomically(pids_path, FormatJobPids(pids), 0600);
  // A Prolog (PrologEpilogTimeout) or a login shell (--get-user-env) may take
  // long: noded's launch, and so ctld's call, does not wait for them; a
  // Prolog's failure reaches ctld in the status.
  if (!spec->prolog.empty() || WantsLoginEnvironment(spec->environment)) {
    SignalReady(&ready_fd);
  }
  std::string failure = ReadAllFrom(err_pipe[0]);  // EOF at exec or at _exit
  close(err_pipe[0]);
  SignalReady(&ready_fd);
  std::string prolog_error;
  if (absl::StartsWith(failure, kPrologFailedMarker)) {
    prolog_error = failure.substr(strlen(kPrologFailedMarker));
    failure = absl::StrCat("Prolog error on ", spec->node_name, ": ", prolog_error);
  }

  // The batch script's end is the job's end. Wait without reaping, so that the
  // job's pid (= its process group id) cannot be reused, and kill what the
  // script left running in its group.
  const bool fenced = WaitWithinLease(job_dir, child);
  kill(-child, SIGKILL);
  int wstatus = 0;
  struct rusage usage {};
  while (wait4(child, &wstatus, 0, &usage) < 0 && errno == EINTR) {
  }
  const uint64_t oom_kills = cgroups ? EndCgroup(*cgroups, spec->cgroup_path) : 0;
  if (oom_kills > 0) AppendToJobOutput(*spec, job_dir, OomMessage(spec->job_id, oom_kills));

  JobResult result;
  if (WIFEXITED(wstatus)) result.exit_code = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) result.signal = WTERMSIG(wstatus);
  // An allocation ended by its owner (salloc's command exited): its code.
  if (absl::StatusOr<std::string> end =
          ReadFile(absl::StrCat(job_dir, "/", kAllocationEndFileName));
      end.ok()) {
    if (absl::StatusOr<int> code = ParseAllocationEnd(*end); code.ok()) {
      result.exit_code = *code;
      result.signal = 0;
    }
  }
  result.failure = failure;
  result.run = spec->run;
  result.oom_kills = oom_kills;
  result.prolog_error = prolog_error;
  if (failure.empty()) {
    result.has_usage = true;
    result.user_cpu_usec = int64_t{usage.ru_utime.tv_sec} * 1000000 + usage.ru_utime.tv_usec;
    result.system_cpu_usec = int64_t{usage.ru_stime.tv_sec} * 1000000 + usage.ru_stime.tv_usec;
    result.max_rss_kb = usage.ru_maxrss;
  }
  if (InContainer(*spec)) EndContainer(*spec, job_dir);
  // Every image container of the job on this node: the script's, and named
  // ones its steps made here.
  ReleaseJobImageContainers(absl::StrCat(SpoolOf(job_dir), "/containers"), spec->job_id);
  RunEpilogs(*spec, child, result, &result.epilog_error);
  if (fenced) {
    result.fenced = true;
    result.failure = absl::StrCat(
        "fenced: ctld did not confirm NodeName=", spec->node_name,
        " before the job's lease ran out; killed so that a requeued copy never runs beside it");
  }
  return WriteStatus(job_dir, result, &*spec);
}

}  // namespace skiff::noded
