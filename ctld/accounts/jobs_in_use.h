// What the jobs not yet ended hold, per association, account subtree and QOS:
// the "(used)" figures of scontrol show assoc_mgr (GrpJobs=N(2), GrpTRES=
// cpu=N(8), GrpTRESRunMins=...). Pure; the Controller calls it under its
// mutex with the core's jobs.
#ifndef SKIFF_CTLD_ACCOUNTS_JOBS_IN_USE_H_
#define SKIFF_CTLD_ACCOUNTS_JOBS_IN_USE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ctld/core/job.h"
#include "proto/ctld.pb.h"

namespace skiff {

struct JobsInUseTables {
  std::map<std::string, v1::JobsInUse> by_assoc;  // "account|user" and "account"
  std::map<std::string, v1::JobsInUse> by_qos;    // "qos" and "qos|user"
};

// `parents`: each account's parent ("" for root), so that an account counts
// its whole subtree. A running job (one holding nodes) counts in running_jobs
// and its TRES; every job not final counts in submitted_jobs.
JobsInUseTables CountJobsInUse(const std::vector<const Job*>& jobs,
                               const std::map<std::string, std::string>& parents, int64_t now);

}  // namespace skiff

#endif  // SKIFF_CTLD_ACCOUNTS_JOBS_IN_USE_H_
