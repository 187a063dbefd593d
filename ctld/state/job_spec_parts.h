// A submitted v1::JobSpec in two parts, so that ctld's memory holds only the
// small one.
//
// - the light part: everything but the batch script, its arguments and the
//   environment (a few hundred bytes). Every job, every array task, keeps it in
//   memory (Job::spec_blob) for squeue, scontrol and the launch's other fields.
// - the payload: the script, arguments and environment (usually kilobytes).
//   Stored once per submission, in the spec row of its first job (an array's
//   first task), as light + payload; read back from the store when a job
//   launches or scontrol writes its script.
//
// Both parts are serialized v1::JobSpec messages; their concatenation parses
// as the whole spec (protobuf's merge of disjoint fields), which is also what a
// spec row written before the split holds.
//
// Pure: no I/O.
#ifndef SKIFF_CTLD_STATE_JOB_SPEC_PARTS_H_
#define SKIFF_CTLD_STATE_JOB_SPEC_PARTS_H_

#include <cstdint>
#include <string>

#include "proto/job.pb.h"

namespace skiff::ctld {

struct SpecParts {
  std::string light;
  std::string payload;  // "" when the spec has no script, arguments or environment
};
SpecParts SplitSpec(const v1::JobSpec& spec);

// A stored spec row (light + payload, or a whole spec) reduced to its light part.
std::string LightPart(const std::string& stored);

// The whole spec: `light` (the job's own) with the payload of `stored` (its
// submission's first job's row).
v1::JobSpec JoinSpec(const std::string& light, const std::string& stored);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_STATE_JOB_SPEC_PARTS_H_
