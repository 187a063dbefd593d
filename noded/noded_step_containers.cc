// NodedService's step containers: a step run in an OCI bundle or an image
// (--container, --container-image): the image prepared in the node's cache as
// the user, each task's runtime flags, and the runtime's leftovers removed after
// the step. Split from noded_steps.cc along that seam; called from ServeTasks'
// thread (noded_steps.cc's header says which threads run a step).
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "noded/container/container_namespace.h"
#include "noded/container/container_support.h"
#include "noded/container/image_container.h"
#include "noded/container/oci_runner.h"
#include "noded/file_io.h"
#include "noded/noded_service.h"
#include "noded/run_captured.h"

namespace skiff::noded {

NodedService::StepContainer NodedService::PrepareStepContainer(const v1::TaskLaunch& launch,
                                                               StepTasksSpec& spec) {
  StepContainer container;
  std::vector<std::string> entry;
  const JobManagerOptions& options = jobs_.options();
  const bool image = !launch.container().image().empty() || !launch.container().name().empty();
  if (image) {
    absl::StatusOr<PreparedContainer> prepared = PrepareStepImage(launch, spec);
    if (prepared.ok()) {
      if (prepared->unpack_seconds >= 0 && logger_ != nullptr) {
        logger_->info("StepId={}.{}: image {} unpacked into the node's cache in {:.3f} s",
                      launch.job_id(), launch.step_id(), launch.container().image(),
                      prepared->unpack_seconds);
      }
      entry = prepared->entry;
      if (!prepared->named) container.image_bundle = prepared->bundle;
    } else {
      container.failure = std::string(prepared.status().message());
    }
  }
  if (!image && launch.container().bundle().empty()) return container;
  container.spool =
      absl::StrCat(options.spool_dir, "/oci-job", launch.job_id(), "-", launch.step_id());
  if (!container.failure.empty()) {
    container.spool.clear();
  } else if (!options.container_unavailable.empty()) {
    container.failure = absl::StrCat("container: ", options.container_unavailable);
  } else if ((mkdir(container.spool.c_str(), 0700) != 0 && errno != EEXIST) ||
             chown(container.spool.c_str(), spec.uid, spec.gid) != 0) {
    container.failure =
        absl::StrCat("container: cannot create ", container.spool, ": ", strerror(errno));
  }
  for (TaskSpawn& spawn : spec.tasks) {
    OciTask task;
    task.bundle = image ? ImageContainerDir(ContainersDir(), launch.job_id(), launch.step_id(),
                                            launch.container().name())
                        : launch.container().bundle();
    task.entry = entry;
    task.node_name = node_name_;
    task.user_name = launch.user_name();
    task.job_id = launch.job_id();
    task.step_id = launch.step_id();
    task.task_id = spawn.task_id;
    task.job_dir = options.spool_dir;
    task.terminal = spawn.pty;
    task.devices = ContainerDevices(options.gpu_files, options.control_devices,
                                    {launch.gpu_indices().begin(), launch.gpu_indices().end()});
    spawn.container_flags = OciRunnerFlags(task, options.oci_conf, options.spool_dir);
    if (image) spawn.mount_namespace = ContainerNamespaceFile(task.bundle);
  }
  return container;
}

namespace {

std::string HomeOf(uid_t uid) {
  std::vector<char> buf(16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return "";
  return pw.pw_dir != nullptr ? pw.pw_dir : "";
}

}  // namespace

std::string NodedService::ContainersDir() const {
  return absl::StrCat(jobs_.options().spool_dir, "/containers");
}

absl::StatusOr<PreparedContainer> NodedService::PrepareStepImage(const v1::TaskLaunch& launch,
                                                                 const StepTasksSpec& spec) {
  const JobManagerOptions& options = jobs_.options();
  if (options.container_user_helper.empty()) {
    return absl::FailedPreconditionError(kContainerImagesUnsupported);
  }
  if (!options.container_unavailable.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("container: ", options.container_unavailable));
  }
  ImageNode node;
  node.node_name = node_name_;
  node.containers_dir = ContainersDir();
  node.cache_dir = options.image_cache;
  node.cache_bytes = options.image_cache_bytes;
  node.mirror = options.registry_mirror;
  node.user_helper = options.container_user_helper;
  const v1::ContainerRequest& container = launch.container();
  ImageRequest request;
  request.image = container.image();
  request.mounts.assign(container.mounts().begin(), container.mounts().end());
  request.workdir = container.workdir();
  request.env_names.assign(container.env().begin(), container.env().end());
  request.name = container.name();
  request.remap_root = container.remap_root();
  request.mount_home = !container.no_mount_home();
  request.uid = spec.uid;
  request.gid = spec.gid;
  request.groups = spec.groups;
  request.home = HomeOf(spec.uid);
  request.cwd = spec.work_dir;
  request.job_id = launch.job_id();
  request.step_id = launch.step_id();
  if (launch.gpu_indices_size() > 0) request.driver_files = options.container_driver_files;
  if (absl::StatusOr<LaunchSpec> job = jobs_.RunningJobSpec(launch.job_id()); job.ok()) {
    request.memory_bytes = job->memory_mb << 20;  // else /dev/shm gets runc's default
  }
  return PrepareImageContainer(node, request);
}

// After a container step: each task's container killed and deleted if the
// runtime still has it (a task killed before its runner could), as the user;
// then the step's container directories go.
void NodedService::EndStepContainers(const StepTasksSpec& spec, const std::string& spool) {
  for (const TaskSpawn& spawn : spec.tasks) {
    std::vector<std::string> argv = {spec.task_wrapper, kOciCleanupFlag};
    argv.insert(argv.end(), spawn.container_flags.begin(), spawn.container_flags.end());
    RunSetup as_user{{}, std::nullopt, spool};
    if (geteuid() == 0) as_user.as = RunIdentity{spec.uid, spec.gid, spec.groups};
    (void)RunCaptured(argv, std::chrono::seconds(120), "container cleanup", as_user);
  }
  (void)RemoveJobDir(spool);
}

}  // namespace skiff::noded
