// sstat's table, as Slurm 22.05's sstat prints it (src/sstat/print.c): the
// usage of running steps' tasks, averaged, maximized and minimized over the
// tasks with the node and task where each extreme is. Pure.
#ifndef SKIFF_CLI_SSTAT_SSTAT_FORMAT_H_
#define SKIFF_CLI_SSTAT_SSTAT_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/common/print_fields.h"
#include "proto/noded.pb.h"

namespace skiff::cli {

// Slurm's default field list (STAT_FIELDS) and -i's.
inline constexpr char kSstatDefaultFields[] =
    "jobid,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,maxrsstask,averss,"
    "maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,"
    "avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,consumedenergy,maxdiskread,"
    "maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,"
    "avediskwrite,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,"
    "tresusageinminn,tresusageinmint,tresusageintot,tresusageoutave,tresusageoutmax,"
    "tresusageoutmaxn,tresusageoutmaxt,tresusageoutmin,tresusageoutminn,tresusageoutmint,"
    "tresusageouttot";
inline constexpr char kSstatPidFields[] = "jobid,nodelist,pids";

struct SstatField {
  std::string name;  // as Slurm spells it in the header
  int width = 10;    // negative: left-aligned
  int column = 0;    // internal
};

// "jobid,maxrss%20": names match a field's prefix, without case (Slurm's
// xstrncasecmp), the first in Slurm's table order. Error: InvalidArgument
// `Invalid field requested: "X"`.
absl::StatusOr<std::vector<SstatField>> ParseSstatFormat(const std::string& format);

// One running step: "42.0" and what its step manager answered.
struct SstatStep {
  std::string id;
  v1::StatStepReply usage;
};

std::string FormatSstat(const std::vector<SstatStep>& steps, const std::vector<SstatField>& fields,
                        const PrintFieldsLayout& layout);

// sstat -e: the field names, as Slurm lists them.
std::string SstatHelpFormat();

// Slurm's sizes: 4194304 -> "4M", 1236992 -> "1208K", 1000 -> "1000"
// (convert_num_unit with CONVERT_NUM_UNIT_EXACT).
std::string SstatSize(double value);
// Slurm's sstat CPU times: "00:01:05", "02:00:00", "1-00:00:00".
std::string SstatCpuTime(uint64_t seconds);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SSTAT_SSTAT_FORMAT_H_
