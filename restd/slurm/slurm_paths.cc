#include "restd/slurm/slurm_paths.h"

namespace skiff::restd {

void AddSlurmPaths(Router& router) {
  AddPingAndDiagPaths(router);
  AddJobPaths(router);
  AddClusterPaths(router);
}

}  // namespace skiff::restd
