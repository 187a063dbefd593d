#include "ctld/bb_runtime.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/hostlist.h"
#include "common/truncate.h"
#include "lua/bb_lua_json.h"

namespace skiff::ctld {
namespace {

BbLuaLogger LoggerFor(spdlog::logger* logger) {
  return [logger](BbLuaLogLevel level, std::string_view message) {
    const std::string text = absl::StrCat("burst_buffer.lua: ", std::string(message));
    switch (level) {
      case BbLuaLogLevel::kError:
        logger->error("{}", text);
        break;
      case BbLuaLogLevel::kInfo:
        logger->info("{}", text);
        break;
      case BbLuaLogLevel::kVerbose:
      case BbLuaLogLevel::kDebug:
        logger->debug("{}", text);
        break;
      default:
        logger->trace("{}", text);
    }
  };
}

// A script that failed to load is tried again sooner when it changes on disk.
constexpr std::chrono::minutes kLoadRetryInterval{5};

// Identifies the script file's version: inode, size and modification time
// ("" when it cannot be read).
std::string FileStamp(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  return absl::StrCat(st.st_ino, ":", st.st_size, ":", st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec);
}

}  // namespace

std::unique_ptr<BbRuntime> BbRuntime::Create(BurstBufferConfig config, std::string script_path,
                                             std::string state_dir, spdlog::logger* logger,
                                             const BbLuaOptions& lua_options) {
  // Job scripts: private to ctld's user, also where an older ctld made it 0755.
  ::mkdir(state_dir.c_str(), 0700);
  ::chmod(state_dir.c_str(), 0700);
  std::unique_ptr<BbRuntime> runtime(new BbRuntime(std::move(config), std::move(script_path),
                                                   std::move(state_dir), logger, lua_options));
  // A script that does not load must not keep ctld from starting: LoadState
  // logs why, and every call answers it until the script loads.
  absl::StatusOr<std::unique_ptr<BbLua>> lua = runtime->LoadState();
  if (lua.ok()) runtime->idle_.push_back(std::move(*lua));
  return runtime;
}

BbRuntime::BbRuntime(BurstBufferConfig config, std::string script_path, std::string state_dir,
                     spdlog::logger* logger, const BbLuaOptions& lua_options)
    : config_(std::move(config)),
      script_path_(std::move(script_path)),
      state_dir_(std::move(state_dir)),
      logger_(*logger),
      lua_options_(lua_options) {}

absl::StatusOr<std::unique_ptr<BbLua>> BbRuntime::LoadState() const {
  const std::string stamp = FileStamp(script_path_);
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (failure_.has_value() && failure_->file_stamp == stamp &&
        std::chrono::steady_clock::now() - failure_->at < kLoadRetryInterval) {
      return failure_->status;
    }
  }
  absl::StatusOr<std::unique_ptr<BbLua>> lua =
      BbLua::Load(script_path_, LoggerFor(&logger_), lua_options_);
  if (lua.ok()) {
    bool recovered = false;
    {
      std::lock_guard<std::mutex> lock(pool_mu_);
      recovered = failure_.has_value();
      failure_.reset();
    }
    if (recovered) {
      logger_.info("BurstBufferType=burst_buffer/lua: {} loads again; burst buffers are available",
                   script_path_);
    }
    return lua;
  }
  // BbLua's messages start "burst_buffer.lua: "; the path says it better.
  const std::string why =
      TruncateMessage(absl::StripPrefix(lua.status().message(), "burst_buffer.lua: "));
  absl::Status status =
      absl::FailedPreconditionError(absl::StrCat("burst_buffer/lua: ", script_path_, ": ", why));
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    failure_ = LoadFailure{status, stamp, std::chrono::steady_clock::now()};
  }
  logger_.error(
      "BurstBufferType=burst_buffer/lua: {}: {}; burst buffers are unavailable until it loads",
      script_path_, why);
  return status;
}

BurstBufferConfig BbRuntime::config() const {
  std::lock_guard<std::mutex> lock(pool_mu_);
  return config_;
}

absl::Status BbRuntime::Reload(BurstBufferConfig config) {
  {
    // A failure remembered for this very file would be returned unloaded.
    std::lock_guard<std::mutex> lock(pool_mu_);
    failure_.reset();
  }
  absl::StatusOr<std::unique_ptr<BbLua>> lua = LoadState();
  if (!lua.ok()) return lua.status();
  std::lock_guard<std::mutex> lock(pool_mu_);
  idle_.clear();
  idle_.push_back(std::move(*lua));
  config_ = std::move(config);
  return absl::OkStatus();
}

absl::StatusOr<BbRuntime::Lease> BbRuntime::Borrow() const {
  std::unique_ptr<BbLua> lua;
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!idle_.empty()) {
      lua = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (lua == nullptr) {
    // Another thread holds every state (or none loaded yet): load one more
    // (the pool grows to the number of threads calling at once, a handful).
    absl::StatusOr<std::unique_ptr<BbLua>> loaded = LoadState();
    if (!loaded.ok()) return loaded.status();
    lua = std::move(*loaded);
  }
  return Lease(lua.release(), [this](BbLua* state) {
    if (state->exceeded_limits()) {
      delete state;  // the next Borrow loads a fresh one
      return;
    }
    std::lock_guard<std::mutex> lock(pool_mu_);
    idle_.emplace_back(state);
  });
}

absl::Status BbRuntime::LuaError(const std::string& function,
                                 const absl::StatusOr<BbLuaResult>& result) const {
  if (!result.ok()) {
    switch (result.status().code()) {
      case absl::StatusCode::kDeadlineExceeded:
      case absl::StatusCode::kResourceExhausted:
      case absl::StatusCode::kFailedPrecondition:
        // A limit or a refused function: the admin's script needs fixing.
        logger_.error("burst_buffer/lua: {}: {}", script_path_,
                      TruncateMessage(result.status().message()));
        break;
      default:
        break;
    }
    // Internal whatever BbLua said: DeadlineExceeded would read as "ctld did
    // not answer" in the CLIs (CtldClient::Explain).
    return absl::InternalError(
        absl::StrCat("burst_buffer/lua: ", TruncateMessage(result.status().message())));
  }
  // The script's own words go to the submitter as the status message.
  return absl::InvalidArgumentError(absl::StrCat(
      "burst_buffer/lua: ",
      result->message.empty() ? function + " failed" : TruncateMessage(result->message)));
}

std::string BbRuntime::JobScriptPath(uint64_t job_id) const {
  return absl::StrCat(state_dir_, "/job_", job_id, "/script");
}

absl::Status BbRuntime::WriteJobScript(uint64_t job_id, const std::string& text) const {
  const std::string dir = absl::StrCat(state_dir_, "/job_", job_id);
  ::mkdir(dir.c_str(), 0700);
  const std::string path = JobScriptPath(job_id);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.good()) return absl::InternalError(absl::StrCat("cannot write ", tmp));
  }
  // The user's script: ctld's user reads it, and the helper that runs a hook
  // as the job's user hands it a copy (lua/README.md).
  ::chmod(tmp.c_str(), 0600);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot write ", path));
  }
  return absl::OkStatus();
}

void BbRuntime::RemoveJobFiles(uint64_t job_id) const {
  const std::string dir = absl::StrCat(state_dir_, "/job_", job_id);
  for (const char* name : {"/script", "/paths"}) ::unlink((dir + name).c_str());
  ::rmdir(dir.c_str());
}

BbJobInfo BbRuntime::JobInfoOf(const Job& job) {
  BbJobInfo info;
  info.job_id = static_cast<uint32_t>(job.id);
  info.user_id = job.uid;
  info.group_id = job.gid;
  info.user_name = job.user_name;
  info.account = job.account;
  info.partition = job.request.partition;
  info.qos = job.qos;
  info.time_limit = job.request.time_limit < 0 ? -1 : (job.request.time_limit + 59) / 60;
  info.nodes = CompressHostlist(job.nodes);
  info.burst_buffer = job.bb_directives;
  info.burst_buffer_state = job.bb_directives.empty() ? "" : BbStateName(job.bb_state);
  info.job_state = JobStateName(job.state);
  if (job.array_job_id != 0) {
    info.array_job_id = static_cast<uint32_t>(job.array_job_id);
    info.array_task_id = static_cast<uint32_t>(job.array_task_id);
  }
  const int gpus = job.request.gpus_per_node * job.request.num_nodes;
  if (gpus > 0) info.gres_total = absl::StrCat("gres/gpu=", gpus);
  return info;
}

absl::Status BbRuntime::JobProcess(const Job& job) const {
  absl::StatusOr<Lease> lua = Borrow();
  if (!lua.ok()) return lua.status();
  absl::StatusOr<BbLuaResult> result =
      (*lua)->JobProcess(JobScriptPath(job.id), job.uid, job.gid, JobInfoOf(job));
  if (result.ok() && result->ok()) return absl::OkStatus();
  return LuaError("slurm_bb_job_process", result);
}

absl::StatusOr<std::vector<BbPoolDef>> BbRuntime::Pools() const {
  absl::StatusOr<Lease> lua = Borrow();
  if (!lua.ok()) return lua.status();
  absl::StatusOr<BbLuaResult> result = (*lua)->Pools();
  if (!result.ok() || !result->ok()) return LuaError("slurm_bb_pools", result);
  return ParseBbPoolsJson(result->message);
}

absl::StatusOr<std::map<std::string, std::string>> BbRuntime::Paths(const Job& job) const {
  absl::StatusOr<Lease> lua = Borrow();
  if (!lua.ok()) return lua.status();
  const std::string path_file = absl::StrCat(state_dir_, "/job_", job.id, "/paths");
  ::unlink(path_file.c_str());
  absl::StatusOr<BbLuaResult> result =
      (*lua)->Paths(static_cast<uint32_t>(job.id), JobScriptPath(job.id), path_file, job.uid,
                    job.gid, JobInfoOf(job));
  if (!result.ok() || !result->ok()) return LuaError("slurm_bb_paths", result);
  std::map<std::string, std::string> env;
  std::ifstream in(path_file);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return env;
}

LuaCall BbRuntime::StageCall(const Job& job, const std::string& function,
                             std::vector<std::string> args, int64_t timeout_seconds,
                             int attempt) const {
  LuaCall call;
  call.request_id = absl::StrCat("bb-", function, "-", job.id, "-", attempt);
  call.job_id = job.id;
  call.script_path = script_path_;
  call.function = function;
  call.args = std::move(args);
  call.job_info_json = BbJobInfoToJson(JobInfoOf(job));
  call.timeout_seconds = timeout_seconds;
  return call;
}

LuaCall BbRuntime::StatusCall(uid_t uid, gid_t gid, const std::vector<std::string>& words) const {
  LuaCall call;
  static std::atomic<uint64_t> sequence{0};
  call.request_id = absl::StrCat("bb-status-", ++sequence);
  call.script_path = script_path_;
  call.function = "slurm_bb_get_status";
  call.args = {absl::StrCat(uid), absl::StrCat(gid)};
  call.args.insert(call.args.end(), words.begin(), words.end());
  call.timeout_seconds = config().other_timeout;
  return call;
}

}  // namespace skiff::ctld
