#include "tests/harness/local_cluster.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace skiff::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Job cgroups are named by node and job id (skiff/n1/job_1), the same in every
// test cluster on this host: two at once (two test targets, or two people's
// runs on one machine) killed, confined and removed each other's jobs. A
// cluster that uses cgroups holds this host-wide lock for its life; the
// process-wide count lets one process hold several such clusters at once.
constexpr char kCgroupLockPath[] = "/tmp/skiff-test-cgroups.lock";
std::mutex cgroup_lock_mu;
int cgroup_lock_fd = -1;    // under cgroup_lock_mu
int cgroup_lock_users = 0;  // under cgroup_lock_mu

void LockCgroups() {
  std::lock_guard<std::mutex> lock(cgroup_lock_mu);
  if (cgroup_lock_users++ > 0) return;
  cgroup_lock_fd = open(kCgroupLockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (cgroup_lock_fd < 0) return;  // no lock to take: go on unguarded
  if (flock(cgroup_lock_fd, LOCK_EX | LOCK_NB) == 0) return;
  fprintf(stderr, "waiting for another test cluster on this host to stop using cgroups (%s)\n",
          kCgroupLockPath);
  while (flock(cgroup_lock_fd, LOCK_EX) != 0 && errno == EINTR) {
  }
}

void UnlockCgroups() {
  std::lock_guard<std::mutex> lock(cgroup_lock_mu);
  if (--cgroup_lock_users > 0 || cgroup_lock_fd < 0) return;
  close(cgroup_lock_fd);  // releases the flock
  cgroup_lock_fd = -1;
}

}  // namespace

CommandResult RunShell(const std::string& command, const std::string& env_file) {
  char out_template[] = "/tmp/skiff-cmd-out-XXXXXX";
  char err_template[] = "/tmp/skiff-cmd-err-XXXXXX";
  int out_fd = mkstemp(out_template);
  int err_fd = mkstemp(err_template);
  close(out_fd);
  close(err_fd);
  std::string script =
      env_file.empty() ? command : absl::StrCat("source ", ShellQuote(env_file), " && ", command);
  std::string line = absl::StrCat("bash -c ", ShellQuote(script), " >", out_template, " 2>",
                                  err_template, " </dev/null");
  int status = system(line.c_str());
  CommandResult result;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  result.out = ReadFile(out_template);
  result.err = ReadFile(err_template);
  unlink(out_template);
  unlink(err_template);
  return result;
}

std::string RunfilesRoot() {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir ? srcdir : ".", "/", workspace ? workspace : "skiff");
}

namespace {
constexpr char kCgroupMount[] = "/sys/fs/cgroup";
constexpr const char* kV1Controllers[] = {"freezer", "pids", "memory", "cpuset", "devices"};

bool IsV2() { return access(absl::StrCat(kCgroupMount, "/cgroup.controllers").c_str(), F_OK) == 0; }

// mkdir + rmdir of a probe directory: the hierarchy is writable.
std::string ProbeWritable(const std::string& base) {
  const std::string probe = absl::StrCat(base, "/skiff_probe_", getpid());
  if (mkdir(probe.c_str(), 0755) != 0) {
    return absl::StrCat("cannot create a cgroup under ", base, ": ", strerror(errno));
  }
  rmdir(probe.c_str());
  return "";
}
}  // namespace

std::string LocalCluster::CgroupsUnavailable() {
  if (getuid() != 0) return "cgroups need root";
  if (IsV2()) return ProbeWritable(kCgroupMount);
  for (const char* controller : {"freezer", "memory", "cpuset", "devices"}) {
    const std::string base = absl::StrCat(kCgroupMount, "/", controller);
    if (access(absl::StrCat(base, "/tasks").c_str(), F_OK) != 0) {
      return absl::StrCat("neither a cgroup v2 hierarchy nor a v1 ", controller,
                          " controller is mounted at ", kCgroupMount);
    }
    if (std::string why = ProbeWritable(base); !why.empty()) return why;
  }
  return "";
}

absl::StatusOr<std::unique_ptr<LocalCluster>> LocalCluster::Start(const Options& options) {
  char dir_template[] = "/tmp/skiff-test-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) return absl::InternalError("mkdtemp failed");
  // munged insists that every user can reach its socket, and jobs run as other users.
  chmod(dir_template, 0755);
  if (options.cgroups) LockCgroups();  // released by the destructor
  std::unique_ptr<LocalCluster> cluster(new LocalCluster(dir_template, options));
  std::map<std::string, std::string> files = options.files;
  if (options.cgroups) {
    files.emplace("etc/cgroup.conf",
                  "ConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainSwapSpace=yes\n"
                  "ConstrainDevices=yes\n");
  }
  for (const auto& [relative, contents] : files) {
    const std::string path = absl::StrCat(dir_template, "/", relative);
    RunShell(absl::StrCat("mkdir -p \"$(dirname ", ShellQuote(path), ")\""));
    std::string text = contents;
    for (size_t pos = text.find("@DIR@"); pos != std::string::npos; pos = text.find("@DIR@")) {
      text.replace(pos, 5, dir_template);
    }
    std::ofstream(path) << text;
    if (text.rfind("#!", 0) == 0) chmod(path.c_str(), 0755);  // a script to run
    // A key (jwt_hs256.key): as an admin keeps it, or ctld refuses it.
    if (relative.size() > 4 && relative.compare(relative.size() - 4, 4, ".key") == 0) {
      chmod(path.c_str(), 0600);
    }
  }
  CommandResult up = cluster->Up();
  if (up.exit_code != 0) {
    return absl::InternalError(absl::StrCat("skiff up failed (", up.exit_code, "):\n", up.out,
                                            up.err, "\nctld.out:\n", cluster->Log("ctld.out"),
                                            "\nctld.log:\n", cluster->Log("ctld.log")));
  }
  return cluster;
}

LocalCluster::LocalCluster(std::string dir, Options options)
    : dir_(std::move(dir)), options_(options) {}

LocalCluster::~LocalCluster() {
  Down();
  if (options_.cgroups) {  // the nodes' subtrees; their jobs' cgroups are gone with the jobs
    for (int i = 1; i <= options_.nodes; ++i) {
      if (IsV2()) {
        rmdir(absl::StrCat(kCgroupMount, "/skiff/n", i).c_str());
        continue;
      }
      for (const char* controller : kV1Controllers) {
        rmdir(absl::StrCat(kCgroupMount, "/", controller, "/skiff/n", i).c_str());
      }
    }
    // The shared parent too, once no other cluster uses it (rmdir fails otherwise).
    rmdir(absl::StrCat(kCgroupMount, "/skiff").c_str());
    for (const char* controller : kV1Controllers) {
      rmdir(absl::StrCat(kCgroupMount, "/", controller, "/skiff").c_str());
    }
    UnlockCgroups();
  }
  if (getenv("SKIFF_KEEP_CLUSTER") == nullptr) {
    RunShell(absl::StrCat("rm -rf ", ShellQuote(dir_)));
  }
}

CommandResult LocalCluster::Run(const std::string& command) const {
  return RunShell(command, dir_ + "/env.sh");
}

CommandResult LocalCluster::Up() const {
  const std::string root = RunfilesRoot();
  std::string extra = options_.extra_config;
  if (options_.cgroups) {
    extra = absl::StrCat("ProctrackType=proctrack/cgroup\nTaskPlugin=task/affinity,task/cgroup\n",
                         extra);
  }
  for (size_t pos = extra.find("@DIR@"); pos != std::string::npos; pos = extra.find("@DIR@")) {
    extra.replace(pos, 5, dir_);
  }
  std::string environment;
  for (const auto& [name, value] : options_.environment) {
    absl::StrAppend(&environment, name, "=", ShellQuote(value), " ");
  }
  return RunShell(absl::StrCat(
      environment, "SKIFF_RESTD=", options_.restd ? 1 : 0,
      " SKIFF_BURST_BUFFERS=", options_.burst_buffers ? 1 : 0,
      " SKIFF_GPU_NODES=", options_.gpu_nodes, " SKIFF_CONF_EXTRA=", ShellQuote(extra), " ",
      ShellQuote(root + "/skiff"), " up --dir ", ShellQuote(dir_), " --nodes ", options_.nodes,
      " --cpus ", options_.cpus, " --bin-from ", ShellQuote(root), options_.ha ? " --ha" : ""));
}

CommandResult LocalCluster::RunAs(const std::string& user, const std::string& command) const {
  const std::string home = absl::StrCat(dir_, "/home/", user);
  const std::string script = absl::StrCat("source ", ShellQuote(dir_ + "/env.sh"), " && cd ",
                                          ShellQuote(home), " && ", command);
  return RunShell(absl::StrCat("runuser -u ", user, " -- bash -c ", ShellQuote(script)));
}

absl::StatusOr<uid_t> LocalCluster::EnsureUser(const std::string& name) const {
  if (getuid() != 0) return absl::FailedPreconditionError("creating users needs root");
  CommandResult made = RunShell(absl::StrCat(
      "id -u ", name, " >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/bash ",
      name, "; mkdir -p ", ShellQuote(dir_ + "/home/" + name), " && chown ", name, ": ",
      ShellQuote(dir_ + "/home/" + name), " && id -u ", name));
  if (made.exit_code != 0) {
    return absl::InternalError(absl::StrCat("useradd ", name, ": ", made.err));
  }
  return static_cast<uid_t>(atoi(made.out.c_str()));
}

CommandResult LocalCluster::Down() const {
  return RunShell(
      absl::StrCat(ShellQuote(RunfilesRoot() + "/skiff"), " down --dir ", ShellQuote(dir_)));
}

pid_t LocalCluster::Pid(const std::string& name) const {
  std::string text = ReadFile(absl::StrCat(dir_, "/run/", name, ".pid"));
  if (text.empty()) return -1;
  return static_cast<pid_t>(atoi(text.c_str()));
}

std::string LocalCluster::Log(const std::string& name) const {
  return ReadFile(absl::StrCat(dir_, "/log/", name));
}

}  // namespace skiff::testing
