// scontrol's show output as pure functions of what ctld returned, key for key and
// line for line as Slurm 22.05 prints them (see shared/reference/scontrol_show_*.txt).
// Fields that have no meaning in Skiff keep their place with Slurm's placeholder
// values (MCS_label=N/A, Reboot=0, Socks/Node=*, ...).
#ifndef SKIFF_CLI_SCONTROL_SCONTROL_FORMAT_H_
#define SKIFF_CLI_SCONTROL_SCONTROL_FORMAT_H_

#include <cstdint>
#include <string>

#include "proto/ctld.pb.h"

namespace skiff::cli {

struct ShowOptions {
  bool json = false;       // --json: show job|node|partition print Slurm's JSON
  bool one_liner = false;  // -o: one line per record
  int details = 0;         // -d (1), -dd (2): more of each record
  int64_t now = 0;         // the present: RunTime of running jobs, a buffer's unset CreateTime
  // show partition: the burst-buffer pools' total size (TRES bb/lua=); 0 = none.
  uint64_t bb_total_bytes = 0;
};

// One job record, ending with Slurm's "\n   \n\n" (or "\n" with one_liner).
// Where Skiff has no data Slurm would print, the values are: AllocNode:Sid's
// session id 0, LastSchedEval = start (or submit) time, AccrueTime =
// EligibleTime (Unknown while held), no SchedNodeList. A pending job with
// backfill's estimate (expected_start) shows it as StartTime, with EndTime =
// StartTime + TimeLimit and Scheduler=Backfill:*; otherwise Scheduler=Main.
// Array tasks add "ArrayJobId=A ArrayTaskId=T" to the first line (a pending
// task also its ArrayTaskThrottle); Dependency= is JobInfo.dependency with
// Slurm's (unfulfilled)/(failed) marks; BurstBuffer= is the spec's text and
// BurstBufferState= is JobInfo.burst_buffer_state, each only when set, as Slurm.
// -w/-x/-C/--exclusive show as ReqNodeList/ExcNodeList/Features/OverSubscribe=NO;
// after Power= come Slurm's optional KillOInInvalidDependent (sic), MemPerTres,
// TresPerJob (-G), TresPerNode (--gres, --gpus-per-node) and MailUser/MailType.
std::string FormatJobRecord(const v1::JobInfo& job, const ShowOptions& options);

// Every job in the reply, in ctld's order; "No jobs in the system\n" for none.
// As Slurm keeps an array's pending tasks in one record until they start, the
// pending tasks of an array (alike in reason and hold) print as one record, at
// the first of them, with ArrayTaskId="1-5" (plus "%N" when throttled).
std::string FormatJobRecords(const v1::GetJobsReply& reply, const ShowOptions& options);

// One node record ending with "\n\n". `slurmd_port` is the configured default
// (SlurmdPort): as in Slurm, Port= is shown only when the node's differs.
// CPULoad and FreeMem are what the node's noded last reported (N/A before it
// reports), LastBusyTime when the node last became idle (Unknown before), and
// AllocTRES counts the GPUs jobs hold (gres/gpu=N).
std::string FormatNodeRecord(const v1::NodeInfo& node, const ShowOptions& options, int slurmd_port);

// Every partition in the reply, each ending with "\n\n". Totals (TotalCPUs,
// TotalNodes, TRES) are summed over reply.nodes(); as in Slurm, every
// partition's TRES has bb/lua= with the size of all pools
// (options.bb_total_bytes) when there are burst buffers.
std::string FormatPartitionRecords(const v1::GetPartitionsReply& reply, const ShowOptions& options);

// "scontrol show config": a dated header, "Key = value" lines with the key padded
// to 23 columns, a blank line, and the ping line for `ctld_host`.
std::string FormatConfig(const v1::GetConfigReply& reply, int64_t now, const std::string& ctld_host,
                         bool ctld_up);

// "Slurmctld(primary) at <host> is UP" (or DOWN), newline-terminated.
std::string FormatPing(const std::string& ctld_host, bool up);
// scontrol ping with every SlurmctldHost, as Slurm prints them ("primary",
// "backup", or "backupN" with more than two), Slurm's RESTORE box for root
// when one is down, and with a standby over etcd (issue 53) a last line
// naming the controller that serves.
struct ControllerPing {
  std::string name;
  bool up = false;
  bool serving = false;  // answered as the serving controller (not standing by)
};
std::string FormatPings(const std::vector<ControllerPing>& pings, bool root);

// scontrol show step: one step as Slurm's slurm_sprint_job_step_info prints
// it, ending "\n\n" (or "\n" with one_liner).
std::string FormatStepRecord(const v1::StepInfo& step, const ShowOptions& options);

// A burst-buffer size as scontrol show burst prints it (Slurm's _get_size_str):
// the largest unit that divides it exactly, binary before decimal at each step:
// 8589934592 -> "8GiB", 1048576 -> "1MiB", 2000000000 -> "2GB", 1 -> "1", 0 -> "0".
std::string FormatBbSize(uint64_t bytes);

// "scontrol show burst": the plugin line, one line per pool, Flags, timeouts,
// AllowUsers (or DenyUsers), then "Allocated Buffers:" and "Per User Buffer
// Use:" (users by uid) when there are allocations. With one_liner the plugin's
// lines join with " ". When !reply.enabled() (no BurstBufferType), "", as
// Slurm prints nothing and exits 0 without a burst-buffer plugin. A buffer
// without a creation time shows options.now, as Slurm shows the present time.
std::string FormatBurstBuffers(const v1::GetBurstBuffersReply& reply, const ShowOptions& options);

// scontrol show licenses [NAME]: each license by name, "LicenseName=N\n
// Total=T Used=U Free=F Reserved=0 Remote=no" (one line with one_liner),
// only NAME's when given (nothing when there is no such license); "No
// licenses configured in Slurm." without Licenses=, as Slurm's info_lics.c.
std::string FormatLicenses(const v1::GetLicensesReply& reply, const std::string& name,
                           const ShowOptions& options);

// "scontrol show bbstat": the Lua hook's message, newline-terminated; "" for none.
std::string FormatBbStatus(const v1::GetBbStatusReply& reply);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SCONTROL_SCONTROL_FORMAT_H_
