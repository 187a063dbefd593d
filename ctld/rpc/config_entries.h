// `scontrol show config`: the configuration as (key, value) pairs in Slurm's
// order and with its value formats ("60 sec", "(null)").
#ifndef SKIFF_CTLD_RPC_CONFIG_ENTRIES_H_
#define SKIFF_CTLD_RPC_CONFIG_ENTRIES_H_

#include <string>
#include <utility>
#include <vector>

#include "common/config/config.h"

namespace skiff {

std::vector<std::pair<std::string, std::string>> ConfigEntries(const SkiffConfig& config,
                                                               int64_t boot_time);

}  // namespace skiff

#endif  // SKIFF_CTLD_RPC_CONFIG_ENTRIES_H_
