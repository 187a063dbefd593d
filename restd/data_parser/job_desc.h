// A job description as data_parser v0.0.42 reads it (JOB_DESC_MSG: the "job"
// of POST /slurm/{version}/job/submit) to the JobSpec sbatch would send.
// Numbers may come plain (4) or as data_parser's {"set":true,"number":4};
// times are minutes and unix seconds, memory MiB, as Slurm's.
//
// Fields of the schema that Skiff cannot honour (x11, cpu binding,
// ...) are not errors: each comes back as a warning naming it, as slurmrestd
// warns of fields it ignores. A field of the wrong type or a bad value is
// InvalidArgument naming the field.
//
// The body is read with nlohmann::json: restd reads JSON with nlohmann and
// writes every answer with client::Json (one writer; nlohmann reads).
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_DATA_PARSER_JOB_DESC_H_
#define SKIFF_RESTD_DATA_PARSER_JOB_DESC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "proto/ctld.pb.h"
#include "proto/job.pb.h"

namespace skiff::restd {

struct JobDescDefaults {
  std::string work_dir;     // the user's home: slurmrestd has no cwd of its own
  std::string submit_host;  // restd's host
};

struct ParsedJobDesc {
  v1::JobSpec spec;
  std::vector<std::string> warnings;
};

absl::StatusOr<ParsedJobDesc> JobSpecFromDesc(const nlohmann::json& desc,
                                              const JobDescDefaults& defaults);

// POST /slurm/{version}/job/{job_id}'s JOB_DESC_MSG as scontrol update's
// fields: hold (true: held, false: released), priority, time_limit
// (minutes; infinite: UNLIMITED), name, comment, partition, qos, account,
// nice, begin_time, minimum_nodes, reservation, constraints, excluded_nodes,
// required_nodes. Any other field comes back as a warning naming it; a body
// that changes nothing is InvalidArgument. job_id is the caller's to set.
struct ParsedJobUpdate {
  v1::UpdateJobRequest request;
  std::vector<std::string> warnings;
};
absl::StatusOr<ParsedJobUpdate> JobUpdateFromDesc(const nlohmann::json& desc);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DATA_PARSER_JOB_DESC_H_
