// A job as data_parser v0.0.42 writes it (JOB_INFO: /slurm/{version}/jobs and
// job/{job_id}), from ctld's JobInfo. Fields Skiff has no notion of (federation,
// power, cron, MCS, core specialisation, ...) are left out rather than given
// made-up values; the schema requires none of them.
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_DATA_PARSER_JOB_JSON_H_
#define SKIFF_RESTD_DATA_PARSER_JOB_JSON_H_

#include <map>
#include <string>

#include "nlohmann/json.hpp"
#include "proto/ctld.pb.h"
#include "restd/data_parser/json_out.h"

namespace skiff::restd {

struct JobJsonContext {
  std::string cluster;
  // The nodes by name, for each GPU's type in gres_detail and the sockets and
  // cores of job_resources; a node missing here gets untyped GPUs and no sockets.
  std::map<std::string, const v1::NodeInfo*> nodes;
};

// Written straight into `out` (GET /jobs writes 10,000 of them).
void WriteJob(const v1::JobInfo& job, const JobJsonContext& context, JsonOut& out);

// The same as a tree, for tests and single answers.
nlohmann::json JobJson(const v1::JobInfo& job, const JobJsonContext& context);

// "END,FAIL" as data_parser's mail_type list, keeping only the flags it names.
nlohmann::json MailTypeList(const std::string& mail_type);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DATA_PARSER_JOB_JSON_H_
