// burst_buffer/lua as ctld runs it: the loaded configuration, the synchronous
// Lua calls (slurm_bb_job_process, slurm_bb_pools, slurm_bb_paths) through a
// small pool of BbLua states, the per-job files the hooks read, and the
// RunLuaRequests for the asynchronous hooks that scriptd runs.
//
// Threads: any. Each synchronous call borrows one BbLua from the pool (one
// lua_State is never used by two threads at once) and may block in the script,
// so callers never hold the Controller's mutex while calling in.
#ifndef SKIFF_CTLD_BB_RUNTIME_H_
#define SKIFF_CTLD_BB_RUNTIME_H_

#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "ctld/core/burst_buffer/pools.h"
#include "ctld/core/job.h"
#include "lua/bb_lua.h"
#include "proto/scriptd.pb.h"
#include "spdlog/spdlog.h"

namespace skiff {

class BbRuntime {
 public:
  // Loads `script_path` once to check it (refusing a script that lacks one of
  // Slurm 22.05's 11 hooks, naming it). `state_dir` holds the per-job files.
  static absl::StatusOr<std::unique_ptr<BbRuntime>> Create(BurstBufferConfig config,
                                                           std::string script_path,
                                                           std::string state_dir,
                                                           spdlog::logger* logger);

  const BurstBufferConfig& config() const { return config_; }
  const std::string& script_path() const { return script_path_; }

  // The job_script file the hooks get: the batch script with its directives.
  std::string JobScriptPath(uint64_t job_id) const;
  // Writes it (0644: scriptd and the hooks read it; it holds no secrets beyond
  // the script). Errors name the file.
  absl::Status WriteJobScript(uint64_t job_id, const std::string& text) const;
  // Removes the job's directory once its buffer is torn down.
  void RemoveJobFiles(uint64_t job_id) const;

  // slurm_bb_job_process at submit: an error rc rejects the job with the
  // script's message (InvalidArgument "burst_buffer/lua: <message>").
  absl::Status JobProcess(const Job& job) const;
  // slurm_bb_pools: the pool definitions (empty when the script has none).
  absl::StatusOr<std::vector<BbPoolDef>> Pools() const;
  // slurm_bb_paths at job start: NAME=value lines for the job's environment.
  absl::StatusOr<std::map<std::string, std::string>> Paths(const Job& job) const;

  // An asynchronous hook for scriptd, with the job's job_info table.
  v1::RunLuaRequest StageRequest(const Job& job, const std::string& function,
                                 std::vector<std::string> args, int64_t timeout_seconds,
                                 int attempt) const;
  // slurm_bb_get_status(uid, gid, words...) for scontrol show bbstat.
  v1::RunLuaRequest StatusRequest(uid_t uid, gid_t gid,
                                  const std::vector<std::string>& words) const;

  static BbJobInfo JobInfoOf(const Job& job);

 private:
  BbRuntime(BurstBufferConfig config, std::string script_path, std::string state_dir,
            spdlog::logger* logger);

  // A BbLua for this call, returned to the pool by the deleter.
  using Lease = std::unique_ptr<BbLua, std::function<void(BbLua*)>>;
  absl::StatusOr<Lease> Borrow() const;

  const BurstBufferConfig config_;
  const std::string script_path_;
  const std::string state_dir_;
  spdlog::logger& logger_;
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<BbLua>> idle_;  // guarded by pool_mu_
};

}  // namespace skiff

#endif  // SKIFF_CTLD_BB_RUNTIME_H_
