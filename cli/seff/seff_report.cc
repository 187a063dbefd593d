#include "cli/seff/seff_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/gpu_usage_summary.h"

namespace skiff::cli {
namespace {

int64_t Elapsed(const v1::AcctJob& job, int64_t now) {
  if (job.start_time() == 0) return 0;
  const int64_t end = job.end_time() != 0 ? job.end_time() : now;
  return std::max<int64_t>(0, end - job.start_time() - job.suspended());
}

// The GPUs the job was given: its AllocTRES's gres/gpu.
int64_t AllocGpus(const v1::AcctJob& job) {
  const std::string& tres = job.alloc_tres();
  const size_t at = tres.find("gres/gpu=");
  if (at == std::string::npos) return 0;
  return std::strtoll(tres.c_str() + at + 9, nullptr, 10);
}

std::string GpuLines(const v1::AcctJob& job, int64_t walltime) {
  const int64_t held = std::max<int64_t>(AllocGpus(job), job.gpus_size());
  if (held == 0) return "";
  std::string out = absl::StrCat("GPUs: ", held, "\n");
  const client::GpuUsageSummary summary = client::SummarizeGpuUsage(job.gpus());
  if (!summary.measured) {
    return absl::StrCat(out,
                        "GPU usage: not sampled (no NVML on the node, or "
                        "JobAcctGatherFrequency=task=0)\n");
  }
  double used_hours = 0;
  for (const v1::GpuUsage& gpu : job.gpus()) {
    const double average = client::GpuUtilAverage(gpu);
    used_hours += average / 100 * static_cast<double>(walltime) / 3600;
    absl::StrAppend(&out, absl::StrFormat("GPU %d on %s: utilisation %.2f%% average, %d%% peak",
                                          gpu.index(), gpu.node(), average, gpu.util_max()));
    if (gpu.memory_samples() > 0) {
      const double peak_kb = static_cast<double>(gpu.memory_max_bytes()) / 1024;
      const double total_kb = static_cast<double>(gpu.memory_total_bytes()) / 1024;
      absl::StrAppend(&out, "; memory ", SeffKbytes(peak_kb), " peak");
      if (total_kb > 0) {
        absl::StrAppend(&out, absl::StrFormat(" of %s (%.2f%%)", SeffKbytes(total_kb),
                                              peak_kb / total_kb * 100));
      }
    }
    out += "\n";
  }
  const double held_hours = static_cast<double>(held * walltime) / 3600;
  absl::StrAppend(
      &out, absl::StrFormat("GPU-hours: %.2f used of %.2f held (%.2f%%)\n", used_hours, held_hours,
                            held_hours > 0 ? used_hours / held_hours * 100 : 0.0));
  if (summary.energy_joules > 0) {
    absl::StrAppend(&out, "GPU energy: ", summary.energy_joules, " J\n");
  }
  return out;
}

}  // namespace

std::string SeffKbytes(double kbytes) {
  if (kbytes == 0) return "0.00 MB";
  static const char* const kPrefix[] = {"K", "M", "G", "T", "P", "E"};
  int exp = static_cast<int>(std::log(kbytes) / std::log(1024.0));
  exp = std::clamp(exp, 0, 5);
  return absl::StrFormat("%.2f %sB", kbytes / std::pow(1024.0, exp), kPrefix[exp]);
}

std::string SeffTime(int64_t seconds) {
  const int64_t days = seconds / 86400;
  seconds -= days * 86400;
  const std::string clock =
      absl::StrFormat("%02d:%02d:%02d", seconds / 3600, (seconds / 60) % 60, seconds % 60);
  return days < 1 ? clock : absl::StrCat(days, "-", clock);
}

std::string SeffReport(const v1::AcctJob& job, int64_t now, bool debug) {
  const int64_t ncpus = job.alloc_cpus() > 0 ? job.alloc_cpus() : 1;
  const int64_t nnodes = job.alloc_nodes() > 0 ? job.alloc_nodes() : 1;
  double reqmem_kb = static_cast<double>(job.req_mem_mb()) * 1024;
  const bool per_node = !job.req_mem_per_cpu();
  reqmem_kb *= per_node ? nnodes : ncpus;
  const int64_t walltime = Elapsed(job, now);
  // The state's name alone ("CANCELLED", not sacct's "CANCELLED by 0").
  const std::string state = job.state();

  int64_t cpu_sec = 0, cpu_usec = 0;
  double mem_kb = 0;
  int64_t ntasks = 0;
  for (const v1::AcctStep& step : job.steps()) {
    const int64_t usec = step.user_cpu_usec() + step.system_cpu_usec();
    cpu_sec += usec / 1000000;
    cpu_usec += usec % 1000000;
    if (step.has_usage() && static_cast<double>(step.max_rss_kb()) > mem_kb) {
      mem_kb = static_cast<double>(step.max_rss_kb());
      ntasks = step.ntasks();
    }
  }
  const int64_t cput = cpu_sec + static_cast<int64_t>(static_cast<double>(cpu_usec) / 1e6 + 0.5);
  mem_kb *= static_cast<double>(ntasks);

  std::string out;
  const std::string array_jobid =
      job.array_job_id() != 0 ? absl::StrCat(job.array_job_id(), "_", job.array_task_id()) : "";
  if (debug) {
    absl::StrAppend(
        &out,
        "Slurm data: JobID ArrayJobID User Group State Clustername Ncpus Nnodes "
        "Ntasks Reqmem PerNode Cput Walltime Mem ExitStatus\n",
        absl::StrFormat("Slurm data: %d %s %s %s %s %s %d %d %d %.0f %d %d %d %.0f %d\n\n",
                        job.job_id(), array_jobid, job.user(), job.group(), state, job.cluster(),
                        ncpus, nnodes, ntasks, reqmem_kb, per_node ? 1 : 0, cput, walltime, mem_kb,
                        job.exit_code()));
  }
  absl::StrAppend(&out, "Job ID: ", job.job_id(), "\n");
  if (!array_jobid.empty()) absl::StrAppend(&out, "Array Job ID: ", array_jobid, "\n");
  absl::StrAppend(&out, "Cluster: ", job.cluster(), "\n");
  absl::StrAppend(&out, "User/Group: ", job.user(), "/", job.group(), "\n");
  if (state == "PENDING" || state == "RUNNING") {
    absl::StrAppend(&out, "State: ", state, "\n");
  } else {
    absl::StrAppend(&out, "State: ", state, " (exit code ", job.exit_code(), ")\n");
  }
  if (ncpus == 1) {
    absl::StrAppend(&out, "Cores: ", ncpus, "\n");
  } else {
    absl::StrAppend(&out, "Nodes: ", nnodes, "\n", "Cores per node: ", ncpus / nnodes, "\n");
  }
  if (state == "PENDING") {
    return absl::StrCat(out, "Efficiency not available for jobs in the PENDING state.\n");
  }
  const int64_t corewalltime = walltime * ncpus;
  const double cpu_eff =
      corewalltime != 0 ? static_cast<double>(cput) / static_cast<double>(corewalltime) * 100 : 0;
  absl::StrAppend(&out, "CPU Utilized: ", SeffTime(cput), "\n");
  absl::StrAppend(&out, absl::StrFormat("CPU Efficiency: %.2f%% of %s core-walltime\n", cpu_eff,
                                        SeffTime(corewalltime)));
  absl::StrAppend(&out, "Job Wall-clock time: ", SeffTime(walltime), "\n");
  absl::StrAppend(&out, "Memory Utilized: ", SeffKbytes(mem_kb),
                  ntasks == 1 ? "\n" : " (estimated maximum)\n");
  const double mem_eff = reqmem_kb != 0 ? mem_kb / reqmem_kb * 100 : 0;
  if (ntasks == 1) {
    absl::StrAppend(
        &out, absl::StrFormat("Memory Efficiency: %.2f%% of %s\n", mem_eff, SeffKbytes(reqmem_kb)));
  } else {
    absl::StrAppend(
        &out,
        absl::StrFormat("Memory Efficiency: %.2f%% of %s (%s/%s)\n", mem_eff, SeffKbytes(reqmem_kb),
                        SeffKbytes(reqmem_kb / static_cast<double>(per_node ? nnodes : ncpus)),
                        per_node ? "node" : "core"));
  }
  absl::StrAppend(&out, GpuLines(job, walltime));
  if (state == "RUNNING") {
    absl::StrAppend(&out, "WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n");
  }
  return out;
}

}  // namespace skiff::cli
