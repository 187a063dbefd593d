// shepherd: runs one batch job for noded. See shepherd.h and shepherd_protocol.h.
//   shepherd <job dir> [--ready-fd=N]
//   shepherd --task-wrap [--prolog=P] [--epilog=E] -- PROGRAM ARGS...
//   shepherd --oci-run FLAGS -- PROGRAM ARGS...   (container/oci_runner.h)
//   shepherd --oci-cleanup FLAGS
#include <cstdio>
#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "noded/container/oci_runner.h"
#include "noded/shepherd.h"
#include "noded/shepherd_protocol.h"
#include "noded/task_wrapper.h"

int main(int argc, char** argv) {
  // A step's task with srun --task-prolog/--task-epilog (task_wrapper.h).
  if (argc >= 2 && std::string(argv[1]) == "--task-wrap") {
    return skiff::noded::RunWrappedTask(argc - 2, argv + 2);
  }
  // A task in its OCI container, and the container's end (oci_runner.h).
  if (argc >= 2 && std::string(argv[1]) == skiff::noded::kOciRunFlag) {
    return skiff::noded::RunOciTask(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::string(argv[1]) == skiff::noded::kOciCleanupFlag) {
    return skiff::noded::CleanUpOciTask(argc - 2, argv + 2);
  }
  std::string job_dir;
  int ready_fd = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string flag = skiff::noded::kShepherdReadyFdFlag;
    if (arg.compare(0, flag.size(), flag) == 0) {
      if (!absl::SimpleAtoi(arg.substr(flag.size()), &ready_fd) || ready_fd < 0) {
        fprintf(stderr, "shepherd: bad %s\n", arg.c_str());
        return 2;
      }
    } else if (job_dir.empty() && !arg.empty() && arg[0] == '/') {
      job_dir = arg;
    } else {
      fprintf(stderr, "usage: shepherd /path/to/job/dir [%sN]\n",
              skiff::noded::kShepherdReadyFdFlag);
      return 2;
    }
  }
  if (job_dir.empty()) {
    fprintf(stderr, "usage: shepherd /path/to/job/dir [%sN]\n", skiff::noded::kShepherdReadyFdFlag);
    return 2;
  }
  return skiff::noded::RunShepherd(job_dir, ready_fd);
}
