#include "noded/gpu/gpu_monitor.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "noded/file_io.h"

namespace skiff::noded {
namespace {

int64_t SteadySeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// How long an ended visit's figures are kept for a retried EndJobOnNode.
constexpr int64_t kEndedVisitSeconds = 3600;

}  // namespace

GpuMonitor::GpuMonitor(GpuMonitorOptions options, JobManager& jobs, JobReportSource& reports,
                       spdlog::logger& logger)
    : options_(std::move(options)), jobs_(jobs), reports_(reports), logger_(logger) {}

GpuMonitor::~GpuMonitor() { Stop(); }

void GpuMonitor::Start() {
  if (options_.gpu_files.empty()) return;  // no GPU here: nothing to say
  if (options_.period.count() <= 0) {
    logger_.info("GPU usage: not sampled (JobAcctGatherFrequency task=0)");
    return;
  }
  absl::StatusOr<std::unique_ptr<Nvml>> nvml = Nvml::Open(options_.library);
  if (!nvml.ok()) {
    logger_.info("GPU usage: not sampled: {}", std::string(nvml.status().message()));
    return;
  }
  nvml_ = std::move(*nvml);
  logger_.info("GPU usage: sampled every {} s through NVML", options_.period.count());
  if (!options_.job_mapping_dir.empty()) {
    // Root writes there: only a directory no one else may write (no planted
    // link is followed).
    const std::string& dir = options_.job_mapping_dir;
    mkdir(dir.c_str(), 0755);
    struct stat st;
    mapping_usable_ = lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
                      st.st_uid == geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
    if (!mapping_usable_) {
      logger_.error(
          "HpcJobMappingDir={}: not a directory of uid {} that only it may write; "
          "no job mapping is written",
          dir, geteuid());
    }
  }
  thread_ = std::thread([this] { Loop(); });
}

void GpuMonitor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GpuMonitor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, options_.period, [this] { return stopping_; })) {
    lock.unlock();
    SampleNow();
    lock.lock();
  }
}

void GpuMonitor::SampleNow() {
  if (!nvml_) return;
  // Which running job holds which GPU, by device minor.
  std::map<uint64_t, std::vector<std::pair<int, unsigned>>> held;  // job -> (index, minor)
  // The jobs on each GPU: one, or one per MIG device of it.
  std::map<unsigned, std::vector<uint64_t>> holders_of_minor;
  auto hold = [&](uint64_t id, int index) {
    if (index < 0 || static_cast<size_t>(index) >= options_.gpu_files.size()) return;
    std::optional<unsigned> minor = DeviceFileMinor(options_.gpu_files[index]);
    if (!minor) return;
    held[id].emplace_back(index, *minor);
    std::vector<uint64_t>& holders = holders_of_minor[*minor];
    if (std::find(holders.begin(), holders.end(), id) == holders.end()) holders.push_back(id);
  };
  for (uint64_t id : jobs_.RunningJobIds()) {
    absl::StatusOr<LaunchSpec> spec = jobs_.RunningJobSpec(id);
    if (!spec.ok()) continue;
    for (int index : spec->gpu_indices) hold(id, index);
  }
  // Other nodes' jobs: the GPUs their steps' tasks use here now.
  std::set<uint64_t> visiting;
  if (step_gpus_) {
    for (const auto& [id, indices] : step_gpus_()) {
      if (held.count(id) != 0 || jobs_.IsRunning(id)) continue;  // this node's own job
      for (int index : indices) hold(id, index);
      if (held.count(id) != 0) visiting.insert(id);
    }
  }
  absl::StatusOr<std::vector<GpuReading>> readings = nvml_->Read();
  if (!readings.ok()) {
    logger_.warn("GPU usage: {}", std::string(readings.status().message()));
    return;
  }
  std::vector<unsigned> expected;
  for (const std::string& file : options_.gpu_files) {
    if (std::optional<unsigned> minor = DeviceFileMinor(file)) expected.push_back(*minor);
  }
  for (const GpuFault& fault : faults_.Check(*readings, expected)) {
    std::vector<uint64_t> on_it;
    if (auto holders = holders_of_minor.find(fault.minor); holders != holders_of_minor.end()) {
      on_it = holders->second;
    }
    const std::string reason = GpuFaultReason(fault);
    logger_.error("{}: the node is drained{}", reason,
                  on_it.empty()
                      ? std::string()
                      : absl::StrCat(" and JobId=", absl::StrJoin(on_it, ","), " requeued"));
    if (fault_listener_) fault_listener_(reason, on_it);
  }
  if (mapping_usable_) WriteJobMapping(*readings, holders_of_minor);
  if (held.empty()) return;
  std::map<unsigned, const GpuReading*> by_minor;
  std::map<pid_t, uint64_t> job_of_pid;
  for (const GpuReading& r : *readings) {
    by_minor[r.minor] = &r;
    if (!r.processes) continue;
    for (const GpuProcess& p : *r.processes) {
      if (job_of_pid.count(p.pid) != 0) continue;
      const std::string proc = absl::StrCat("/proc/", p.pid);
      std::optional<uint64_t> job =
          JobOfProcess(options_.node_name, ReadFile(proc + "/cgroup").value_or(""),
                       ReadFile(proc + "/environ").value_or(""));
      if (job) job_of_pid[p.pid] = *job;
    }
  }
  for (const StrayGpuProcess& stray : StrayGpuProcesses(*readings, holders_of_minor, job_of_pid)) {
    if (!strays_logged_.insert({stray.minor, stray.pid}).second) continue;
    logger_.warn(
        "GPU /dev/nvidia{}: process {} holds memory on it and is {}", stray.minor, stray.pid,
        stray.job_id == 0 ? std::string("no job's")
                          : absl::StrCat("job ", stray.job_id, "'s, which does not hold it"));
  }

  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t now = SteadySeconds();
    for (auto it = visits_ended_.begin(); it != visits_ended_.end();) {
      if (now - it->second < kEndedVisitSeconds) {
        ++it;
        continue;
      }
      uses_.erase(it->first);
      it = visits_ended_.erase(it);
    }
    running_.clear();
    for (const auto& entry : held) {
      if (visits_ended_.count(entry.first) == 0) running_.insert(entry.first);
    }
    for (auto it = recent_peaks_.begin(); it != recent_peaks_.end();) {
      it = running_.count(it->first) != 0 ? std::next(it) : recent_peaks_.erase(it);
    }
  }
  for (const auto& [id, gpus] : held) {
    const bool visit = visiting.count(id) != 0;
    const std::string path =
        visit ? std::string() : absl::StrCat(jobs_.JobDir(id), "/", kGpuUsageFileName);
    std::lock_guard<std::mutex> lock(mu_);
    // Ended since: its report (or EndJobOnNode's answer) may be out.
    if (visit ? visits_ended_.count(id) != 0 : !jobs_.IsRunning(id)) continue;
    auto known = uses_.find(id);
    if (known == uses_.end() && visit) known = uses_.emplace(id, std::vector<GpuUse>{}).first;
    if (known == uses_.end()) {
      // A restarted noded goes on from what the directory holds.
      absl::StatusOr<std::string> text = ReadFile(path);
      absl::StatusOr<std::vector<GpuUse>> kept =
          text.ok() ? ParseGpuUses(*text) : absl::StatusOr<std::vector<GpuUse>>();
      known = uses_.emplace(id, kept.ok() ? *kept : std::vector<GpuUse>{}).first;
    }
    std::vector<GpuUse>& uses = known->second;
    for (const auto& [index, minor] : gpus) {
      auto reading = by_minor.find(minor);
      if (reading == by_minor.end()) continue;  // not NVML's: nothing to read
      auto use = std::find_if(uses.begin(), uses.end(),
                              [index = index](const GpuUse& u) { return u.index == index; });
      if (use == uses.end()) {
        uses.push_back(GpuUse{});
        use = std::prev(uses.end());
        use->index = index;
      }
      AddReading(*reading->second, id, job_of_pid, &*use);
      if (const GpuReading& r = *reading->second; r.error.empty() && r.util_percent) {
        int& peak = recent_peaks_[id].emplace(index, -1).first->second;
        peak = std::max(peak, static_cast<int>(std::min(*r.util_percent, 100u)));
      }
    }
    if (visit) continue;  // kept in memory only: no job directory here
    if (absl::Status s = WriteFileAtomically(path, FormatGpuUses(uses), 0600); !s.ok()) {
      logger_.warn("JobId={}: {}", id, std::string(s.message()));
    }
  }
}

void GpuMonitor::WriteJobMapping(
    const std::vector<GpuReading>& readings,
    const std::map<unsigned, std::vector<uint64_t>>& holders_of_minor) {
  for (size_t index = 0; index < readings.size(); ++index) {
    if (!readings[index].error.empty()) continue;
    // One job id a line: a GPU's MIG devices may hold several jobs.
    auto holders = holders_of_minor.find(readings[index].minor);
    std::string text;
    if (holders != holders_of_minor.end()) {
      for (uint64_t id : holders->second) absl::StrAppend(&text, id, "\n");
    }
    auto written = mapping_written_.find(index);
    if (written != mapping_written_.end() && written->second == text) continue;
    const std::string path = absl::StrCat(options_.job_mapping_dir, "/", index);
    if (text.empty()) {
      // A free GPU has no file: dcgm-exporter then labels it with no job.
      if (unlink(path.c_str()) != 0 && errno != ENOENT) {
        logger_.warn("HpcJobMappingDir: cannot remove {}: {}", path, strerror(errno));
        continue;
      }
    } else if (absl::Status s = WriteFileAtomically(path, text, 0644); !s.ok()) {
      logger_.warn("HpcJobMappingDir: {}", std::string(s.message()));
      continue;
    }
    mapping_written_[index] = text;
  }
}

std::vector<RunningJobGpus> GpuMonitor::TakeRunning() {
  std::vector<RunningJobGpus> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (uint64_t id : running_) {
    auto uses = uses_.find(id);
    if (uses == uses_.end()) continue;
    RunningJobGpus job;
    job.job_id = id;
    job.gpus = uses->second;
    std::map<int, int>& peaks = recent_peaks_[id];
    for (const GpuUse& use : job.gpus) {
      auto peak = peaks.find(use.index);
      job.recent_peaks.push_back(peak == peaks.end() ? -1 : peak->second);
    }
    peaks.clear();
    out.push_back(std::move(job));
  }
  return out;
}

std::vector<GpuUse> GpuMonitor::UsesOf(uint64_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = uses_.find(job_id);
  return it == uses_.end() ? std::vector<GpuUse>{} : it->second;
}

std::vector<GpuUse> GpuMonitor::EndedJobGpus(uint64_t job_id) {
  std::lock_guard<std::mutex> lock(mu_);
  visits_ended_.emplace(job_id, SteadySeconds());
  running_.erase(job_id);
  recent_peaks_.erase(job_id);
  auto it = uses_.find(job_id);
  if (it == uses_.end()) return {};
  std::vector<GpuUse> out = it->second;
  for (GpuUse& use : out) use.node = options_.node_name;
  return out;
}

void GpuMonitor::Restore(const std::vector<RunningJobGpus>& taken) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const RunningJobGpus& job : taken) {
    if (running_.count(job.job_id) == 0) continue;
    std::map<int, int>& peaks = recent_peaks_[job.job_id];
    for (size_t i = 0; i < job.gpus.size() && i < job.recent_peaks.size(); ++i) {
      if (job.recent_peaks[i] < 0) continue;
      int& peak = peaks.emplace(job.gpus[i].index, -1).first->second;
      peak = std::max(peak, job.recent_peaks[i]);
    }
  }
}

void GpuMonitor::AddGpus(std::vector<JobReport>* reports) {
  for (JobReport& report : *reports) {
    if (!report.finished) continue;
    // This node's, then the other nodes' (a multi-node job's).
    for (const char* name : {kGpuUsageFileName, kOtherNodesGpuUsageFileName}) {
      absl::StatusOr<std::string> text =
          ReadFile(absl::StrCat(jobs_.JobDir(report.job_id), "/", name));
      if (!text.ok()) continue;  // never sampled there
      absl::StatusOr<std::vector<GpuUse>> uses = ParseGpuUses(*text);
      if (!uses.ok()) {
        logger_.warn("JobId={}: {}", report.job_id, std::string(uses.status().message()));
        continue;
      }
      report.result.gpus.insert(report.result.gpus.end(), uses->begin(), uses->end());
    }
  }
}

std::vector<JobReport> GpuMonitor::Jobs() {
  std::vector<JobReport> reports = reports_.Jobs();
  AddGpus(&reports);
  return reports;
}

std::vector<JobReport> GpuMonitor::FinishedJobs() {
  std::vector<JobReport> reports = reports_.FinishedJobs();
  AddGpus(&reports);
  return reports;
}

void GpuMonitor::Acknowledge(uint64_t job_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);  // waits for a write in flight
    uses_.erase(job_id);
    recent_peaks_.erase(job_id);
    running_.erase(job_id);
  }
  reports_.Acknowledge(job_id);
}

void GpuMonitor::Abandon(uint64_t job_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    uses_.erase(job_id);
    recent_peaks_.erase(job_id);
    running_.erase(job_id);
  }
  reports_.Abandon(job_id);
}

void GpuMonitor::RenewLeases() { reports_.RenewLeases(); }

}  // namespace skiff::noded
