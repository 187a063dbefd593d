// What the container tests share (container_test: Slurm's --container;
// container_image_test: pyxis's images): Slurm's oci.conf example for runc,
// the host facts rootless runtimes need, and jobs submitted and watched as a
// test user.
#ifndef SKIFF_TESTS_INTEGRATION_CONTAINER_FIXTURE_H_
#define SKIFF_TESTS_INTEGRATION_CONTAINER_FIXTURE_H_

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"

namespace skiff::testing {

// Slurm's containers.shtml, "oci.conf example for runc using run", as is.
inline constexpr char kSlurmRuncOciConf[] =
    "EnvExclude=\"^(SLURM_CONF|SLURM_CONF_SERVER)=\"\n"
    "RunTimeEnvExclude=\"^(SLURM_CONF|SLURM_CONF_SERVER)=\"\n"
    "RunTimeQuery=\"runc --rootless=true --root=/run/user/%U/ state %n.%u.%j.%s.%t\"\n"
    "RunTimeKill=\"runc --rootless=true --root=/run/user/%U/ kill -a %n.%u.%j.%s.%t\"\n"
    "RunTimeDelete=\"runc --rootless=true --root=/run/user/%U/ delete --force "
    "%n.%u.%j.%s.%t\"\n"
    "RunTimeRun=\"runc --rootless=true --root=/run/user/%U/ run %n.%u.%j.%s.%t -b %b\"\n";

// Why `user` cannot make a user namespace here (a chroot, or a host with them
// turned off), for GTEST_SKIP: rootless containers cannot run; "" = they can.
inline std::string UserNamespacesUnavailable(const LocalCluster& cluster, const std::string& user) {
  const CommandResult userns = cluster.Run(
      absl::StrCat("runuser -u ", user, " -- unshare --user --map-root-user true 2>&1"));
  if (userns.exit_code == 0) return "";
  return absl::StrCat("this host gives users no user namespaces (",
                      absl::StripAsciiWhitespace(userns.out),
                      "): rootless containers cannot run here");
}

// /run/user/UID, the runtime's state directory, which systemd makes at login
// (Slurm's guide relies on it). False when it cannot be given to the user.
inline bool MakeRunUserDir(uid_t uid) {
  const std::string run_user = absl::StrCat("/run/user/", uid);
  mkdir("/run/user", 0755);
  mkdir(run_user.c_str(), 0700);
  return chown(run_user.c_str(), uid, static_cast<gid_t>(-1)) == 0;
}

// sbatch --parsable ARGS as `user`: the job's id ("" when refused).
inline std::string SubmitAs(const LocalCluster& cluster, const std::string& user,
                            const std::string& args) {
  const CommandResult r = cluster.RunAs(user, "sbatch --parsable " + args);
  return r.exit_code == 0 ? std::string(absl::StripAsciiWhitespace(r.out)) : "";
}

inline std::string ShowJob(const LocalCluster& cluster, const std::string& id) {
  return cluster.Run("scontrol show job " + id).out;
}

inline bool JobEnded(const LocalCluster& cluster, const std::string& id) {
  const std::string shown = ShowJob(cluster, id);
  return absl::StrContains(shown, "JobState=COMPLETED") ||
         absl::StrContains(shown, "JobState=FAILED") ||
         absl::StrContains(shown, "JobState=CANCELLED") ||
         absl::StrContains(shown, "JobState=OUT_OF_MEMORY");
}

}  // namespace skiff::testing

#endif  // SKIFF_TESTS_INTEGRATION_CONTAINER_FIXTURE_H_
