#include "noded/allocation_epilogs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "noded/file_io.h"
#include "noded/gpu/gpu_usage.h"

namespace skiff::noded {

std::vector<AllocatedNode> OtherNodesOf(const LaunchSpec& spec) {
  if (spec.allocation.size() <= 1) return {};
  return std::vector<AllocatedNode>(spec.allocation.begin() + 1, spec.allocation.end());
}

AllocationEpilogs::AllocationEpilogs(JobReportSource& jobs,
                                     std::function<std::string(uint64_t)> job_dir,
                                     OtherNodes& nodes, spdlog::logger& logger)
    : jobs_(jobs), job_dir_(std::move(job_dir)), nodes_(nodes), logger_(logger) {}

AllocationEpilogs::~AllocationEpilogs() { Stop(); }

void AllocationEpilogs::SetFinishedListener(std::function<void()> listener) {
  listener_ = std::move(listener);
}

void AllocationEpilogs::Start() {
  worker_ = std::thread([this] { Loop(); });
}

void AllocationEpilogs::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !worker_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  nodes_.CancelAll();
  if (worker_.joinable()) worker_.join();
  std::map<uint64_t, std::thread> runners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    runners.swap(runners_);
  }
  for (auto& [id, runner] : runners) runner.join();
}

void AllocationEpilogs::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

AllocationEpilogs::Readiness AllocationEpilogs::Complete(JobReport& report) {
  const std::string dir = job_dir_(report.job_id);
  if (absl::StatusOr<std::string> done = ReadFile(absl::StrCat(dir, "/", kNodeEpilogsFileName));
      done.ok()) {
    absl::StatusOr<std::vector<NodeScriptError>> failures = ParseNodeEpilogs(*done);
    if (failures.ok()) {
      report.result.node_epilog_errors = std::move(*failures);
    } else {
      logger_.error("JobId={}: {}: {}", report.job_id, kNodeEpilogsFileName,
                    std::string(failures.status().message()));
    }
    return Readiness::kReady;
  }
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(dir, "/", kSpecFileName));
  if (!text.ok()) return Readiness::kReady;  // never launched: nothing ran anywhere
  absl::StatusOr<LaunchSpec> spec = ParseLaunchSpec(*text);
  if (!spec.ok() || OtherNodesOf(*spec).empty()) return Readiness::kReady;
  return Readiness::kWaiting;
}

std::vector<JobReport> AllocationEpilogs::Jobs() {
  std::vector<JobReport> reports = jobs_.Jobs();
  bool waiting = false;
  for (JobReport& report : reports) {
    if (!report.finished || Complete(report) == Readiness::kReady) continue;
    report.finished = false;  // for ctld, the job still holds its nodes
    report.result = JobResult{};
    waiting = true;
  }
  if (waiting) Wake();
  return reports;
}

std::vector<JobReport> AllocationEpilogs::FinishedJobs() {
  std::vector<JobReport> reports = jobs_.FinishedJobs();
  std::vector<JobReport> ready;
  ready.reserve(reports.size());
  bool waiting = false;
  for (JobReport& report : reports) {
    if (Complete(report) == Readiness::kReady) {
      ready.push_back(std::move(report));
    } else {
      waiting = true;
    }
  }
  if (waiting) Wake();
  return ready;
}

void AllocationEpilogs::Loop() {
  for (;;) {
    std::vector<std::thread> finished_runners;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Every second as well: a job found waiting by nobody's report.
      cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_ || woken_; });
      if (stopping_) return;
      woken_ = false;
      for (uint64_t id : done_runners_) {
        auto it = runners_.find(id);
        if (it == runners_.end()) continue;
        finished_runners.push_back(std::move(it->second));
        runners_.erase(it);
      }
      done_runners_.clear();
    }
    for (std::thread& t : finished_runners) t.join();
    for (JobReport& report : jobs_.FinishedJobs()) {
      if (Complete(report) == Readiness::kReady) continue;
      std::lock_guard<std::mutex> lock(mu_);
      // A runner that ended since Complete() looked (its file may now be
      // there) is still in runners_ until the next turn joins it: asking again
      // now would overwrite a joinable thread (std::terminate).
      if (stopping_ || in_flight_.count(report.job_id) != 0 || runners_.count(report.job_id) != 0) {
        continue;
      }
      in_flight_.insert(report.job_id);
      const uint64_t id = report.job_id;
      runners_[id] =
          std::thread([this, id, result = report.result] { EndOnOtherNodes(id, result); });
    }
  }
}

void AllocationEpilogs::EndOnOtherNodes(uint64_t job_id, const JobResult& result) {
  const std::string dir = job_dir_(job_id);
  std::vector<NodeScriptError> failures;
  std::vector<GpuUse> gpus;  // the other nodes'
  bool complete = false;     // false: ask again on the worker's next look
  absl::StatusOr<std::string> spec_text = ReadFile(absl::StrCat(dir, "/", kSpecFileName));
  absl::StatusOr<LaunchSpec> spec =
      spec_text.ok() ? ParseLaunchSpec(*spec_text) : absl::StatusOr<LaunchSpec>(spec_text.status());
  if (spec.ok()) {
    const std::vector<AllocatedNode> others = OtherNodesOf(*spec);
    std::vector<absl::StatusOr<OtherNodeEnd>> outcomes(others.size(),
                                                       absl::UnknownError("not asked"));
    std::vector<std::thread> calls;
    for (size_t i = 0; i < others.size(); ++i) {
      calls.emplace_back(
          [&, i] { outcomes[i] = nodes_.EndJobOnNode(job_id, others[i], *spec_text, result); });
    }
    for (std::thread& t : calls) t.join();
    bool stopping;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping = stopping_;
    }
    complete = !stopping;  // cancelled by Stop: ask again after the restart
    for (size_t i = 0; i < others.size() && complete; ++i) {
      if (!outcomes[i].ok()) {
        // Down or cut off: ctld notices that by itself (SlurmdTimeout) and
        // takes the node out; its Epilog does not run, as in Slurm when a node
        // does not answer the job's termination.
        logger_.warn("JobId={} NodeName={}: could not end the job there: {}", job_id,
                     others[i].name, std::string(outcomes[i].status().message()));
      } else {
        if (!outcomes[i]->epilog_error.empty()) {
          logger_.error("JobId={} Epilog error on NodeName={}: {}", job_id, others[i].name,
                        outcomes[i]->epilog_error);
          failures.push_back({others[i].name, outcomes[i]->epilog_error});
        }
        for (GpuUse gpu : outcomes[i]->gpus) {
          gpu.node = others[i].name;
          gpus.push_back(std::move(gpu));
        }
      }
    }
  } else {
    complete = true;  // nothing to ask with: report the job as it is
    logger_.error("JobId={}: cannot end the job on its other nodes: {}", job_id,
                  std::string(spec.status().message()));
  }
  if (complete && !gpus.empty()) {
    if (absl::Status s = WriteFileAtomically(absl::StrCat(dir, "/", kOtherNodesGpuUsageFileName),
                                             FormatGpuUses(gpus), 0600);
        !s.ok()) {
      logger_.error("JobId={}: {}", job_id, std::string(s.message()));
      complete = false;
    }
  }
  if (complete) {
    if (absl::Status s = WriteFileAtomically(absl::StrCat(dir, "/", kNodeEpilogsFileName),
                                             FormatNodeEpilogs(failures), 0600);
        !s.ok()) {
      logger_.error("JobId={}: {}", job_id, std::string(s.message()));
      complete = false;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.erase(job_id);
    done_runners_.push_back(job_id);
  }
  cv_.notify_all();
  if (complete && listener_) listener_();
}

}  // namespace skiff::noded
