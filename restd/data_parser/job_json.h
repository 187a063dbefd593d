// A job as data_parser v0.0.42 writes it (JOB_INFO: /slurm/{version}/jobs and
// job/{job_id}), from ctld's JobInfo. Fields Skiff has no notion of (federation,
// power, cron, MCS, core specialisation, ...) are left out rather than given
// made-up values; the schema requires none of them.
//
// Written as client::Json, restd's one writer: a GET /jobs of 10,000 jobs
// streams them one tree at a time (Json::WriteWithElements).
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_DATA_PARSER_JOB_JSON_H_
#define SKIFF_RESTD_DATA_PARSER_JOB_JSON_H_

#include <map>
#include <string>

#include "client/json_writer.h"
#include "proto/ctld.pb.h"

namespace skiff::restd {

struct JobJsonContext {
  std::string cluster;
  // The nodes by name, for each GPU's type in gres_detail and the sockets and
  // cores of job_resources; a node missing here gets untyped GPUs and no sockets.
  std::map<std::string, const v1::NodeInfo*> nodes;
};

client::Json JobJson(const v1::JobInfo& job, const JobJsonContext& context);

// "END,FAIL" as data_parser's mail_type list, keeping only the flags it names.
client::Json MailTypeList(const std::string& mail_type);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DATA_PARSER_JOB_JSON_H_
