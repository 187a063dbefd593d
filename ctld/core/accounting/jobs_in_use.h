// What the jobs not yet ended hold, per association, account subtree and QOS:
// the "(used)" figures of scontrol show assoc_mgr (GrpJobs=N(2), GrpTRES=
// cpu=N(8), GrpTRESRunMins=...).
//
// Threads: none; pure. The Controller calls it under its mutex with the
// core's jobs.
#ifndef SKIFF_CTLD_CORE_ACCOUNTING_JOBS_IN_USE_H_
#define SKIFF_CTLD_CORE_ACCOUNTING_JOBS_IN_USE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/assoc_key.h"
#include "ctld/core/accounting/tres_spec.h"
#include "ctld/core/job.h"

namespace skiff::ctld {

struct JobsInUse {
  int64_t running_jobs = 0;    // holding nodes now
  int64_t submitted_jobs = 0;  // not yet ended: pending and running
  // What the running jobs hold: every TRES set once a running job counted,
  // none while only pending jobs did (scontrol prints 0 for both).
  TresSpec running_tres;
  // TRES x the seconds left of the running jobs' time limits (GrpTRESRunMins);
  // jobs without a limit count nothing.
  TresSpec running_tres_secs;
};

struct JobsInUseTables {
  std::map<AssocKey, JobsInUse> by_assoc;  // a user in an account; an account (its subtree)
  std::map<QosKey, JobsInUse> by_qos;      // a QOS; a user under it
};

// `parents`: each account's parent ("" for root), so that an account counts
// its whole subtree. A running job (one holding nodes) counts in running_jobs
// and its TRES; every job not final counts in submitted_jobs.
JobsInUseTables CountJobsInUse(const std::vector<const Job*>& jobs,
                               const std::map<std::string, std::string>& parents, int64_t now);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_ACCOUNTING_JOBS_IN_USE_H_
