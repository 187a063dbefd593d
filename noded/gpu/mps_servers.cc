#include "noded/gpu/mps_servers.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "noded/run_captured.h"

namespace skiff::noded {
namespace {

constexpr std::chrono::seconds kControlTimeout{20};

// A directory root makes for the user: made (or found) as root, then given
// to uid/gid. lchown: never through a link.
bool MakeUserDir(const std::string& path, uid_t uid, gid_t gid, std::string* error) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    *error = absl::StrCat("mkdir ", path, ": ", strerror(errno));
    return false;
  }
  if (lchown(path.c_str(), uid, gid) != 0) {
    *error = absl::StrCat("chown ", path, ": ", strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> MpsBook::Join(uint64_t job_id, const Server& server) {
  auto it = gpus_.find(server.gpu);
  if (it == gpus_.end()) {
    gpus_[server.gpu] = Gpu{server, {job_id}};
    return true;
  }
  if (it->second.server.uid != server.uid) {
    return absl::FailedPreconditionError(
        absl::StrCat("the MPS server of GPU ", server.gpu, " serves uid ", it->second.server.uid));
  }
  it->second.jobs.insert(job_id);
  return false;
}

std::vector<MpsBook::Server> MpsBook::EndAllBut(const std::set<uint64_t>& running) {
  std::vector<Server> ended;
  for (auto it = gpus_.begin(); it != gpus_.end();) {
    std::set<uint64_t>& jobs = it->second.jobs;
    for (auto job = jobs.begin(); job != jobs.end();) {
      job = running.count(*job) != 0 ? std::next(job) : jobs.erase(job);
    }
    if (!jobs.empty()) {
      ++it;
      continue;
    }
    ended.push_back(it->second.server);
    it = gpus_.erase(it);
  }
  return ended;
}

MpsServers::MpsServers(MpsServerOptions options, spdlog::logger& logger)
    : options_(std::move(options)), logger_(logger) {}

MpsServers::~MpsServers() { Stop(); }

void MpsServers::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void MpsServers::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string MpsServers::FindControl() {
  if (const char* given = getenv("SKIFF_MPS_CONTROL"); given != nullptr && given[0] != '\0') {
    return given;
  }
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/local/cuda/bin"}) {
    const std::string path = absl::StrCat(dir, "/nvidia-cuda-mps-control");
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

// One directory per GPU and user: what one user's daemon left there (its log
// above all) is never another user's to read.
std::string MpsServers::Dir(const MpsBook::Server& server) const {
  return absl::StrCat(options_.run_dir, "/gpu", server.gpu, ".", server.uid);
}

std::vector<std::string> MpsServers::Environment(const MpsBook::Server& server) const {
  const size_t index = static_cast<size_t>(server.gpu);
  const std::string cuda_name =
      index < options_.gpu_cuda_names.size() && !options_.gpu_cuda_names[index].empty()
          ? options_.gpu_cuda_names[index]
          : absl::StrCat(server.gpu);
  return {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
          absl::StrCat("CUDA_VISIBLE_DEVICES=", cuda_name),
          absl::StrCat("CUDA_MPS_PIPE_DIRECTORY=", Dir(server), "/pipe"),
          absl::StrCat("CUDA_MPS_LOG_DIRECTORY=", Dir(server), "/log")};
}

bool MpsServers::StartDaemon(const MpsBook::Server& server) {
  std::string error;
  if ((mkdir(options_.run_dir.c_str(), 0755) != 0 && errno != EEXIST) ||
      (mkdir(Dir(server).c_str(), 0755) != 0 && errno != EEXIST)) {
    error = absl::StrCat("mkdir ", Dir(server), ": ", strerror(errno));
  } else if (MakeUserDir(Dir(server) + "/pipe", server.uid, server.gid, &error) &&
             MakeUserDir(Dir(server) + "/log", server.uid, server.gid, &error)) {
    RunSetup setup;
    setup.environment = Environment(server);
    setup.as = RunIdentity{server.uid, server.gid, {server.gid}};
    setup.work_dir = "/";
    // -d forks the daemon and returns; it keeps no pipe of ours open.
    const CapturedRun run = RunCaptured(
        {"/bin/sh", "-c", "exec \"$0\" -d </dev/null >/dev/null 2>&1", options_.control},
        kControlTimeout, "nvidia-cuda-mps-control -d", setup);
    if (run.ok) {
      logger_.info("gres/mps: MPS control daemon of GPU {} started for uid {}", server.gpu,
                   server.uid);
      return true;
    }
    error = run.timed_out ? "timed out" : absl::StrCat("exit ", run.exit_code, ": ", run.output);
  }
  logger_.error(
      "gres/mps: cannot start the MPS control daemon of GPU {} for uid {} ({}): the "
      "job runs without MPS",
      server.gpu, server.uid, error);
  return false;
}

void MpsServers::QuitDaemon(const MpsBook::Server& server) {
  RunSetup setup;
  setup.environment = Environment(server);
  setup.as = RunIdentity{server.uid, server.gid, {server.gid}};
  setup.work_dir = "/";
  const CapturedRun run = RunCaptured({"/bin/sh", "-c", "echo quit | \"$0\"", options_.control},
                                      kControlTimeout, "nvidia-cuda-mps-control quit", setup);
  if (run.ok) {
    logger_.info("gres/mps: MPS control daemon of GPU {} told to quit (its jobs ended)",
                 server.gpu);
  } else {
    logger_.error("gres/mps: MPS control daemon of GPU {} did not take quit: {}", server.gpu,
                  run.timed_out ? "timed out" : run.output);
  }
}

std::string PinnedMemoryLimit(uint64_t total_bytes, double fraction) {
  constexpr uint64_t kMiB = 1024 * 1024;
  const double mib = static_cast<double>(total_bytes / kMiB) * std::min(1.0, fraction);
  return absl::StrCat("0=", std::max<uint64_t>(1, static_cast<uint64_t>(mib)), "M");
}

std::map<std::string, std::string> MpsServers::ForJob(uint64_t job_id, int gpu, uid_t uid,
                                                      gid_t gid, double memory_fraction) {
  const MpsBook::Server server{gpu, uid, gid};
  bool start = false;
  std::vector<MpsBook::Server> quit_first;  // this GPU's last daemon, not told yet
  {
    std::unique_lock<std::mutex> lock(mu_);
    // A new daemon of the GPU only once the last one was told to quit; a job
    // of a daemon being started waits for it to be up.
    wake_.wait(lock, [&] { return quitting_.count(gpu) == 0 && starting_.count(gpu) == 0; });
    for (auto it = to_quit_.begin(); it != to_quit_.end();) {
      if (it->gpu != gpu) {
        ++it;
        continue;
      }
      quit_first.push_back(*it);
      it = to_quit_.erase(it);
    }
    if (options_.control.empty()) {
      if (!said_no_control_) {
        logger_.warn(
            "gres/mps: no nvidia-cuda-mps-control on this node: MPS jobs run without "
            "an MPS server");
      }
      said_no_control_ = true;
      return {};
    }
    absl::StatusOr<bool> joined = book_.Join(job_id, server);
    if (!joined.ok()) {
      logger_.error("JobId={}: gres/mps: {}; it runs without MPS", job_id,
                    std::string(joined.status().message()));
      return {};
    }
    start = *joined;
    if (start) starting_.insert(gpu);
  }
  for (const MpsBook::Server& old : quit_first) QuitDaemon(old);
  if (start) {
    const bool up = StartDaemon(server);
    {
      std::lock_guard<std::mutex> lock(mu_);
      starting_.erase(gpu);
      if (!up) book_.Forget(gpu);
    }
    wake_.notify_all();
    if (!up) return {};
  }
  std::map<std::string, std::string> env = {{"CUDA_MPS_PIPE_DIRECTORY", Dir(server) + "/pipe"},
                                            {"CUDA_MPS_LOG_DIRECTORY", Dir(server) + "/log"}};
  if (memory_fraction > 0) {
    if (std::optional<uint64_t> total = GpuMemory(gpu)) {
      env["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"] = PinnedMemoryLimit(*total, memory_fraction);
    } else {
      logger_.warn(
          "JobId={}: GPU {}'s memory is unknown (no NVML figure): its fenced share "
          "runs without a memory limit",
          job_id, gpu);
    }
  }
  return env;
}

std::optional<uint64_t> MpsServers::GpuMemory(int gpu) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = gpu_memory_.find(gpu); it != gpu_memory_.end()) return it->second;
  }
  // A GPU's memory does not change: asked once (NVML opens slowly), outside the lock.
  std::optional<uint64_t> total;
  if (options_.gpu_memory_bytes) total = options_.gpu_memory_bytes(gpu);
  std::lock_guard<std::mutex> lock(mu_);
  gpu_memory_[gpu] = total;
  return total;
}

void MpsServers::Adopt(uint64_t job_id, int gpu, uid_t uid, gid_t gid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (options_.control.empty()) return;
  (void)book_.Join(job_id, {gpu, uid, gid});
}

void MpsServers::JobsRunning(const std::vector<uint64_t>& running) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const MpsBook::Server& server :
         book_.EndAllBut(std::set<uint64_t>(running.begin(), running.end()))) {
      to_quit_.push_back(server);
    }
    if (to_quit_.empty()) return;
  }
  wake_.notify_all();
}

void MpsServers::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !to_quit_.empty(); });
    if (to_quit_.empty()) return;  // stopping, nothing left to quit
    const MpsBook::Server server = to_quit_.front();
    to_quit_.pop_front();
    quitting_.insert(server.gpu);
    lock.unlock();
    QuitDaemon(server);
    lock.lock();
    quitting_.erase(server.gpu);
    wake_.notify_all();
  }
}

}  // namespace skiff::noded
