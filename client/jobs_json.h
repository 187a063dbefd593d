// squeue --json: Slurm 22.05's output, the OpenAPI v0.0.38 jobs response
// (src/plugins/openapi/v0.0.38/jobs.c dump_job_info): SlurmJsonEnvelope() and
// "jobs", one object per job with v0.0.38's keys, in its order. Values Skiff
// has no notion of carry what Slurm prints for a job without them (null, 0,
// false, "" or an empty list); docs/json.md lists which. Pure; thread-safe.
#ifndef SKIFF_CLIENT_JOBS_JSON_H_
#define SKIFF_CLIENT_JOBS_JSON_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "client/json_writer.h"
#include "proto/ctld.pb.h"

namespace skiff::client {

// One job as v0.0.38 prints it. `cluster` is ClusterName.
Json SqueueJobJson(const v1::JobInfo& job, const std::string& cluster);

// The whole document for `jobs`, in the order given.
Json SqueueJson(const std::vector<const v1::JobInfo*>& jobs, const std::string& cluster);

// SqueueJson(jobs, cluster).Dump(), handed to `write` a piece at a time and
// made one job at a time (Json::DumpWithElements).
void WriteSqueueJson(const std::vector<const v1::JobInfo*>& jobs, const std::string& cluster,
                     const std::function<void(std::string_view)>& write);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_JOBS_JSON_H_
