// slurmrestd's /slurm/{version}/ paths (openapi/slurmctld), answered from
// ctld's live state in data_parser v0.0.42's shapes (issue 36):
//   ping, diag, jobs, job/{job_id} (GET, POST, DELETE), job/submit, nodes,
//   node/{node_name} (GET, POST, DELETE), partitions,
//   partition/{partition_name}, reservations, reservation/{reservation_name},
//   shares.
// One file per kind of record; each adds its paths here.
#ifndef SKIFF_RESTD_SLURM_SLURM_PATHS_H_
#define SKIFF_RESTD_SLURM_SLURM_PATHS_H_

#include "restd/router.h"

namespace skiff::restd {

void AddSlurmPaths(Router& router);

// Each file's share of them.
void AddPingAndDiagPaths(Router& router);
void AddJobPaths(Router& router);
void AddClusterPaths(Router& router);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_SLURM_SLURM_PATHS_H_
