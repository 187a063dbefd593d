// `scontrol show config`: the configuration as (key, value) pairs in Slurm
// 22.05's order and with its value formats ("60 sec", "(null)"), as Slurm's
// src/api/config_info.c lists them. Every key Slurm prints is listed: values
// Skiff takes from skiff.conf where it has the setting, Slurm's default (what
// Skiff behaves like) for every other key.
//
// Pure: no I/O; the caller passes what is not in the config (boot time, the
// next job id, the uid of SlurmUser).
#ifndef SKIFF_CTLD_RPC_CONFIG_ENTRIES_H_
#define SKIFF_CTLD_RPC_CONFIG_ENTRIES_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/config/config.h"

namespace skiff::ctld {

struct ConfigContext {
  int64_t boot_time = 0;     // BOOT_TIME
  uint64_t next_job_id = 1;  // NEXT_JOB_ID
  std::string conf_path;     // SLURM_CONF: the path of skiff.conf
  uid_t slurm_user_uid = 0;  // SlurmUser=name(uid)
};

std::vector<std::pair<std::string, std::string>> ConfigEntries(const SkiffConfig& config,
                                                               const ConfigContext& context);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_CONFIG_ENTRIES_H_
