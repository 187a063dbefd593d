// What a job's batch script runs in: Slurm's --container (an OCI bundle
// already on the nodes) or NVIDIA pyxis's --container-image with its options,
// as sbatch and salloc checked them (cli/common/container_options.h). The
// plain copy of v1::ContainerRequest that the core keeps with the job
// (JobRequest::container); ctld/rpc/container_convert.h converts.
//
// A step does not inherit it: srun sends its own (StepRequest.container), as
// in Slurm.
#ifndef SKIFF_CTLD_CORE_CONTAINER_SPEC_H_
#define SKIFF_CTLD_CORE_CONTAINER_SPEC_H_

#include <string>
#include <vector>

namespace skiff::ctld {

struct ContainerSpec {
  std::string bundle;               // --container: absolute path; "" = none
  std::string image;                // --container-image; "" = none
  std::vector<std::string> mounts;  // --container-mounts: SRC[:DST[:FLAGS]] each, as given
  std::string workdir;              // --container-workdir
  std::vector<std::string> env;     // --container-env: names
  std::string name;                 // --container-name NAME[:FLAG], as given
  bool remap_root = false;          // --container-remap-root
  bool no_mount_home = false;       // --no-container-mount-home

  // No container asked for: the script runs on the host.
  bool IsEmpty() const { return *this == ContainerSpec{}; }

  bool operator==(const ContainerSpec& other) const {
    return bundle == other.bundle && image == other.image && mounts == other.mounts &&
           workdir == other.workdir && env == other.env && name == other.name &&
           remap_root == other.remap_root && no_mount_home == other.no_mount_home;
  }
  bool operator!=(const ContainerSpec& other) const { return !(*this == other); }
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_CONTAINER_SPEC_H_
