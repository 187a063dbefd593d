// burst_buffer/lua as ctld runs it: the loaded configuration, the synchronous
// Lua calls (slurm_bb_job_process, slurm_bb_pools, slurm_bb_paths) through a
// small pool of BbLua states, the per-job files the hooks read, and the
// LuaCalls for the asynchronous hooks that scriptd runs.
//
// Threads: any. Each synchronous call borrows one BbLua from the pool (one
// lua_State is never used by two threads at once) and may block in the script
// for up to its time budget (BbLuaOptions::InCtld: 5 s), so callers never hold
// the Controller's mutex while calling in.
//
// The script runs inside ctld, so its states are restricted and bounded
// (lua/bb_lua.h): a hook that loops, exhausts memory or calls os.exit fails
// that one call. A script that does not load (syntax error, missing hook, a
// top level that loops or calls os.exit) leaves ctld running with burst
// buffers unavailable: every call fails naming the file and the reason, and
// the script is loaded again when it changes on disk.
#ifndef SKIFF_CTLD_BB_RUNTIME_H_
#define SKIFF_CTLD_BB_RUNTIME_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config.h"
#include "ctld/clients/scriptd_port.h"
#include "ctld/core/burst_buffer/pools.h"
#include "ctld/core/job.h"
#include "lua/bb_lua.h"
#include "spdlog/spdlog.h"

namespace skiff::ctld {

class BbRuntime {
 public:
  // Loads `script_path` once to check it. When it does not load (it lacks one
  // of Slurm 22.05's 11 hooks, a syntax error, a limit crossed at the top
  // level), logs why, naming the file, and returns a runtime whose calls fail
  // with that reason until the script loads. `state_dir` holds the per-job
  // files. `lua_options` are for tests; ctld uses the default.
  static std::unique_ptr<BbRuntime> Create(
      BurstBufferConfig config, std::string script_path, std::string state_dir,
      spdlog::logger* logger, const BbLuaOptions& lua_options = BbLuaOptions::InCtld());

  // burst_buffer.conf as in force now (a copy: Reload may replace it).
  BurstBufferConfig config() const;
  // scontrol reconfigure: loads the script afresh and, when it loads, makes it
  // and `config` the ones in force (idle Lua states are dropped, so the next
  // calls run the new script). When it does not load, nothing changes and the
  // error names the file and the reason.
  absl::Status Reload(BurstBufferConfig config);
  const std::string& script_path() const { return script_path_; }

  // The job_script file the hooks get: the batch script with its directives.
  std::string JobScriptPath(uint64_t job_id) const;
  // Writes it (0644: scriptd and the hooks read it; it holds no secrets beyond
  // the script). Errors name the file.
  absl::Status WriteJobScript(uint64_t job_id, const std::string& text) const;
  // Removes the job's directory once its buffer is torn down.
  void RemoveJobFiles(uint64_t job_id) const;

  // slurm_bb_job_process at submit: an error rc rejects the job with the
  // script's message (InvalidArgument "burst_buffer/lua: <message>"); a Lua
  // error or a crossed limit is Internal ("burst_buffer/lua:
  // slurm_bb_job_process exceeded 5 s"); a script that does not load is
  // FailedPrecondition ("burst_buffer/lua: <file>: <why>").
  absl::Status JobProcess(const Job& job) const;
  // slurm_bb_pools: the pool definitions (empty when the script has none).
  absl::StatusOr<std::vector<BbPoolDef>> Pools() const;
  // slurm_bb_paths at job start: NAME=value lines for the job's environment.
  absl::StatusOr<std::map<std::string, std::string>> Paths(const Job& job) const;

  // An asynchronous hook for scriptd, with the job's job_info table.
  LuaCall StageCall(const Job& job, const std::string& function, std::vector<std::string> args,
                    int64_t timeout_seconds, int attempt) const;
  // slurm_bb_get_status(uid, gid, words...) for scontrol show bbstat.
  LuaCall StatusCall(uid_t uid, gid_t gid, const std::vector<std::string>& words) const;

  static BbJobInfo JobInfoOf(const Job& job);

 private:
  // A load that failed, and the script file as it was then: the same file is
  // not loaded again (up to 5 s each time) before kLoadRetryInterval.
  struct LoadFailure {
    absl::Status status;
    std::string file_stamp;
    std::chrono::steady_clock::time_point at;
  };

  BbRuntime(BurstBufferConfig config, std::string script_path, std::string state_dir,
            spdlog::logger* logger, const BbLuaOptions& lua_options);

  // A fresh BbLua, or the reason it does not load (FailedPrecondition
  // "burst_buffer/lua: <file>: <why>"), remembered in failure_ and logged.
  absl::StatusOr<std::unique_ptr<BbLua>> LoadState() const;

  // A BbLua for this call, returned to the pool by the deleter (dropped
  // instead when the call crossed a limit: its globals may be half-updated).
  using Lease = std::unique_ptr<BbLua, std::function<void(BbLua*)>>;
  absl::StatusOr<Lease> Borrow() const;

  // A Lua error or crossed limit from a synchronous call, logged when a limit.
  absl::Status LuaError(const std::string& function,
                        const absl::StatusOr<BbLuaResult>& result) const;

  BurstBufferConfig config_;  // guarded by pool_mu_
  const std::string script_path_;
  const std::string state_dir_;
  spdlog::logger& logger_;
  const BbLuaOptions lua_options_;
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<BbLua>> idle_;  // guarded by pool_mu_
  mutable std::optional<LoadFailure> failure_;        // guarded by pool_mu_
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_BB_RUNTIME_H_
