// Test harness: a real local cluster (munged, ctld + scriptd, N noded) on loopback,
// started and stopped through `./skiff up` / `./skiff down`, the same code path a
// person uses. For integration tests under `bazel test`; needs the binaries and the
// skiff script as data dependencies (see tests/integration/BUILD).
//
// Not thread-safe: one test thread drives one cluster.
#ifndef SKIFF_TESTS_HARNESS_LOCAL_CLUSTER_H_
#define SKIFF_TESTS_HARNESS_LOCAL_CLUSTER_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace skiff::testing {

struct CommandResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

// Runs `command` with bash, capturing stdout and stderr. `env_file`, if not empty,
// is sourced first.
CommandResult RunShell(const std::string& command, const std::string& env_file = "");

// Root of the test's runfiles, where ctld/ctld, noded/noded, skiff ... are.
std::string RunfilesRoot();

class LocalCluster {
 public:
  struct Options {
    int nodes = 4;
    int cpus = 4;       // per node
    int gpu_nodes = 2;  // the last gpu_nodes nodes have 2 fake GPUs each
    // Lines appended to the generated skiff.conf (later keys win), e.g.
    // "PrologSlurmctld=/path\nSlurmdTimeout=6". "@DIR@" is replaced with dir().
    std::string extra_config;
    // Files written under dir() before the cluster starts (relative path ->
    // contents, "@DIR@" replaced), e.g. {"etc/burst_buffer.conf", "..."}.
    std::map<std::string, std::string> files;
    // As `skiff up` does by default: burst_buffer/lua with the example script
    // (pools "fast" and "bulk", job directories under dir()/bb). Off unless
    // asked, so that a test's cluster has only what the test configures.
    bool burst_buffers = false;
    // Jobs in cgroups: ProctrackType=proctrack/cgroup, TaskPlugin=task/cgroup and
    // an etc/cgroup.conf constraining cores, RAM, swap and devices (unless
    // `files` brings its own). The fake GPUs are then character devices (the
    // skiff script mknods them as root). The destructor removes the nodes'
    // skiff/<node> cgroups. Check CgroupsUnavailable() first. Such clusters share
    // the host's cgroup names (skiff/n1/job_1): one at a time per host, so Start
    // waits for any other one's destructor.
    bool cgroups = false;
    // Environment for `skiff up`, e.g. {"SKIFF_NODE_ADDR_n2", "10.231.7.2"} and
    // {"SKIFF_NODED_PREFIX_n2", "nsenter --net=/run/netns/NS"} to run a noded in a
    // network namespace at that address.
    std::map<std::string, std::string> environment;
    // Start restd as `./skiff up` does (etc/restd.env says where it listens).
    bool restd = false;
    // `./skiff up --ha`: three etcd members and a standby ctld ("ctld-standby",
    // SlurmctldHost=standby(127.0.0.2)) beside the first (issue 53).
    bool ha = false;
  };

  // Why this host cannot confine jobs with cgroups (not root; no v1 freezer,
  // memory, cpuset and devices, nor a v2 hierarchy, writable under
  // /sys/fs/cgroup), for GTEST_SKIP; "" when it can.
  static std::string CgroupsUnavailable();

  // Makes a fresh directory under /tmp (short: Unix socket paths are limited to
  // 108 bytes, and Bazel's TEST_TMPDIR is long) and runs `skiff up` in it.
  static absl::StatusOr<std::unique_ptr<LocalCluster>> Start(const Options& options);

  // `skiff down`, then removes the directory (kept when $SKIFF_KEEP_CLUSTER is
  // set, for debugging).
  ~LocalCluster();

  const std::string& dir() const { return dir_; }
  std::string conf_path() const { return dir_ + "/etc/skiff.conf"; }

  // A command with the cluster's env.sh sourced (CLIs on PATH, SKIFF_CONF set).
  CommandResult Run(const std::string& command) const;
  // The same as another user (runuser), starting in that user's work directory
  // dir()/home/USER. REQUIRES: running as root; the user exists (EnsureUser).
  CommandResult RunAs(const std::string& user, const std::string& command) const;

  // Creates system user `name` if missing (useradd), with a work directory
  // dir()/home/NAME it owns. Returns its uid. REQUIRES: running as root.
  absl::StatusOr<uid_t> EnsureUser(const std::string& name) const;

  // `skiff up` again on the same directory: starts whatever is not running.
  CommandResult Up() const;
  // Later Up() calls pass --ha (on a stopped cluster without a standby, `skiff
  // up --ha` adds one and its etcd members to the configuration).
  void set_ha(bool ha) { options_.ha = ha; }
  CommandResult Down() const;

  // Pid from run/NAME.pid ("ctld", "noded-n2", "munge/munged"); -1 if none.
  pid_t Pid(const std::string& name) const;

  // Contents of a log file under log/.
  std::string Log(const std::string& name) const;

 private:
  LocalCluster(std::string dir, Options options);

  std::string dir_;
  Options options_;
};

}  // namespace skiff::testing

#endif  // SKIFF_TESTS_HARNESS_LOCAL_CLUSTER_H_
