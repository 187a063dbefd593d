// scontrol's show output as pure functions of what ctld returned, key for key and
// line for line as Slurm 22.05 prints them (see shared/reference/scontrol_show_*.txt).
// Fields that have no meaning in Skiff keep their place with Slurm's placeholder
// values (MCS_label=N/A, Reboot=0, Socks/Node=*, ...).
#ifndef SKIFF_CLI_SCONTROL_SCONTROL_FORMAT_H_
#define SKIFF_CLI_SCONTROL_SCONTROL_FORMAT_H_

#include <cstdint>
#include <string>

#include "proto/ctld.pb.h"

namespace skiff {

struct ShowOptions {
  bool one_liner = false;  // -o: one line per record
  int64_t now = 0;         // ctld's clock, for RunTime of running jobs
};

// One job record, ending with Slurm's "\n   \n\n" (or "\n" with one_liner).
// Where Skiff has no data Slurm would print, the values are: AllocNode:Sid's
// session id 0, Scheduler=Main, LastSchedEval = start (or submit) time,
// AccrueTime = EligibleTime (Unknown while held), no SchedNodeList, and
// BurstBufferState derived from the job state.
std::string FormatJobRecord(const v1::JobInfo& job, const ShowOptions& options);

// Every job in the reply, in ctld's order; "No jobs in the system\n" for none.
std::string FormatJobRecords(const v1::GetJobsReply& reply, const ShowOptions& options);

// One node record ending with "\n\n". `slurmd_port` is the configured default
// (SlurmdPort): as in Slurm, Port= is shown only when the node's differs.
// CPULoad, FreeMem and LastBusyTime are not tracked by Skiff and print as
// N/A, N/A and Unknown; AllocTRES has no gres (NodeInfo does not carry them).
std::string FormatNodeRecord(const v1::NodeInfo& node, const ShowOptions& options, int slurmd_port);

// Every partition in the reply, each ending with "\n\n". Totals (TotalCPUs,
// TotalNodes, TRES) are summed over reply.nodes(). TRES has no bb/ entry
// (PartitionInfo does not carry burst-buffer pools).
std::string FormatPartitionRecords(const v1::GetPartitionsReply& reply, const ShowOptions& options);

// "scontrol show config": a dated header, "Key = value" lines with the key padded
// to 23 columns, a blank line, and the ping line for `ctld_host`.
std::string FormatConfig(const v1::GetConfigReply& reply, int64_t now, const std::string& ctld_host,
                         bool ctld_up);

// "Slurmctld(primary) at <host> is UP" (or DOWN), newline-terminated.
std::string FormatPing(const std::string& ctld_host, bool up);

}  // namespace skiff

#endif  // SKIFF_CLI_SCONTROL_SCONTROL_FORMAT_H_
