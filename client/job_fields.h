// Fields of a job that several views print alike (scontrol show job, squeue
// -O, restd's jobs): its node and CPU counts, its total memory, its TRES=
// text and its Dependency= text, each derived one way from ctld's JobInfo.
//
// Threads: none; pure functions.
#ifndef SKIFF_CLIENT_JOB_FIELDS_H_
#define SKIFF_CLIENT_JOB_FIELDS_H_

#include <cstdint>
#include <string>

#include "proto/job.pb.h"

namespace skiff::client {

// Nodes the job holds, or asks for while pending (at least 1).
int32_t JobNumNodes(const v1::JobInfo& job);

// CPUs the job holds, or 1 while ctld has not counted them.
int32_t JobNumCpus(const v1::JobInfo& job);

// Total memory of the job in MiB, 0 when unknown.
uint64_t JobTotalMemoryMb(const v1::JobInfo& job);

// The job's TRES= text ("cpu=2,mem=200M,node=1,billing=2,gres/gpu=1"), which
// squeue -O tres-alloc and restd's tres_req_str print too.
std::string JobTresText(const v1::JobInfo& job);

// The job's Dependency= text: its remaining dependencies, each marked
// "(unfulfilled)" or "(failed)" ("afterok:12(unfulfilled)"), "(null)" for none;
// squeue's %E prints the same.
std::string JobDependencyText(const v1::JobInfo& job);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_JOB_FIELDS_H_
