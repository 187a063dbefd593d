// The container options sbatch, salloc and srun share, and the
// v1::ContainerRequest they make (JobSpec.container for a job,
// StepRequest.container for a step):
//
//   --container=PATH            Slurm's: an OCI bundle already on the nodes; a
//                               relative PATH is made absolute against the
//                               command's current directory.
//   --container-image=IMAGE     NVIDIA pyxis's (its SPANK plugin's options, as
//   --container-mounts=SRC[:DST[:FLAGS]][,...]   its README and args.c spell
//   --container-workdir=PATH    them): an image and what goes with it.
//   --container-env=NAME[,NAME...]
//   --container-name=NAME[:FLAG]
//   --[no-]container-remap-root
//   --[no-]container-mount-home
//
// Pure, apart from AddContainerOptions/ApplyContainerFlags, which declare the
// options on a CLI11 app (salloc's and srun's command lines; sbatch reads its
// own with getopt's table). Thread-safe.
#ifndef SKIFF_CLI_COMMON_CONTAINER_OPTIONS_H_
#define SKIFF_CLI_COMMON_CONTAINER_OPTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/types.pb.h"

// CLI11 by reference only: the header costs each file that includes it seconds
// to compile, so only the files that build or read a parser include it.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace skiff::cli {

// The options as written, unset when not given.
struct ContainerOptions {
  std::optional<std::string> bundle;   // --container
  std::optional<std::string> image;    // --container-image
  std::optional<std::string> mounts;   // --container-mounts, the whole comma list
  std::optional<std::string> workdir;  // --container-workdir
  std::optional<std::string> env;      // --container-env, the whole comma list
  std::optional<std::string> name;     // --container-name
  // The last of --container-remap-root (true) and --no-container-remap-root.
  std::optional<bool> remap_root;
  // The last of --container-mount-home (true) and --no-container-mount-home.
  std::optional<bool> mount_home;
};

struct ContainerBuild {
  v1::ContainerRequest request;  // all empty: the tasks run on the host
  // Lines for "<program>: warning: ", for pyxis's options given without an
  // image or a name, which are dropped as pyxis ignores them.
  std::vector<std::string> warnings;
};

// Checks `options` and makes the request; `cwd` (absolute) resolves a relative
// --container. Each --container-mounts entry is kept as written, after the
// checks pyxis makes (a source that is a path, "tmpfs" or "umount"; a target
// that is a path) and flags ('+'-separated) that enroot's mount, which pyxis
// hands them to, knows; --container-env is split into names.
// Errors, naming the option:
//   InvalidArgument      an empty value, an empty list entry, a bad mount
//                        source, target or flag, a --container-name flag other
//                        than pyxis's auto, create, exec and no_exec, text
//                        that is not UTF-8 (image, name, env);
//   FailedPrecondition   "--container and --container-image options are
//                        mutually exclusive" (and the same for
//                        --container-name): one is Slurm's OCI bundle, the
//                        other pyxis's image, and a task runs in one container.
absl::StatusOr<ContainerBuild> BuildContainerRequest(const ContainerOptions& options,
                                                     const std::string& cwd);

// True when the request asks for a container at all.
bool HasContainer(const v1::ContainerRequest& request);

// The options on a CLI11 app (salloc, srun), bound to `*options`, which must
// outlive the parse. The opposing flags are plain flags, resolved after the
// parse by ApplyContainerFlags.
struct ContainerFlags {
  const CLI::Option* remap_root = nullptr;     // --container-remap-root
  const CLI::Option* no_remap_root = nullptr;  // --no-container-remap-root
  const CLI::Option* mount_home = nullptr;     // --container-mount-home
  const CLI::Option* no_mount_home = nullptr;  // --no-container-mount-home
};
void AddContainerOptions(CLI::App& app, ContainerOptions* options, ContainerFlags* flags);
// After `app` has parsed: of each pair (--container-remap-root and
// --no-container-remap-root, the same for mount-home) the one given last wins,
// as getopt's last option does.
void ApplyContainerFlags(const CLI::App& app, const ContainerFlags& flags,
                         ContainerOptions* options);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMON_CONTAINER_OPTIONS_H_
