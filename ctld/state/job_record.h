// Job <-> v1::JobRecord, the database blob. Pure.
#ifndef SKIFF_CTLD_STATE_JOB_RECORD_H_
#define SKIFF_CTLD_STATE_JOB_RECORD_H_

#include "ctld/core/job.h"
#include "proto/job_record.pb.h"

namespace skiff::ctld {

v1::JobRecord ToRecord(const Job& job);
Job FromRecord(const v1::JobRecord& record);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_STATE_JOB_RECORD_H_
