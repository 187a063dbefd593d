// --get-user-env (and sbatch --export=NONE or a list, which imply it): the
// job's environment on the node starts from the user's login environment,
// with everything the job was submitted with on top, as Slurm's slurmd does
// (_get_user_env: su - USER, then the job's variables win). The shepherd
// loads it (runuser -l, up to 120 s, after telling noded it is ready, so that
// a slow login never holds up ctld's launch call); a failure is written to
// the job's error output and the job runs with what it was sent, as in Slurm.
//
// Pure functions but FindRunuser; the shepherd runs the command with RunCaptured.
#ifndef SKIFF_NODED_USER_ENV_H_
#define SKIFF_NODED_USER_ENV_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace skiff::noded {

// Whether the job asked for it: SLURM_GET_USER_ENV=1 in its environment.
bool WantsLoginEnvironment(const std::map<std::string, std::string>& environment);

// The command that prints `user`'s login environment after a marker (a login
// shell may print a banner first): runuser -l USER -c '...; env -0'.
std::vector<std::string> LoginEnvironmentCommand(const std::string& runuser,
                                                 const std::string& user);

// The variables after the marker (NUL-separated NAME=VALUE). NotFound when
// the marker is missing (the shell failed before printing it).
absl::StatusOr<std::map<std::string, std::string>> ParseLoginEnvironment(const std::string& output);

// The login environment with the job's own variables on top.
std::map<std::string, std::string> MergeLoginEnvironment(
    std::map<std::string, std::string> login, const std::map<std::string, std::string>& job);

// The same for the batch script's "NAME=value" list: login variables it does
// not set are added.
void AddLoginEnvironment(const std::map<std::string, std::string>& login,
                         std::vector<std::string>* environment);

// runuser, where Debian and others install it; "" when absent.
std::string FindRunuser();

}  // namespace skiff::noded

#endif  // SKIFF_NODED_USER_ENV_H_
