// What noded's GPU monitor costs a node (issue 51's target: under 1% of one
// core with 8 GPUs sampled every 30 s): one sample as the monitor takes it,
// through the fake NVML (tests/fake_nvml) with 8 GPUs of 4 processes each,
// their jobs looked up in /proc (this process stands for every pid) and the
// samples added up. Prints the CPU time per sample and the share of a core
// at JobAcctGatherFrequency=30.
//
//   bazel run //bench:gpu_sampling_bench [-- SAMPLES]
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "noded/file_io.h"
#include "noded/gpu/gpu_usage.h"
#include "noded/gpu/nvml.h"

namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

std::string FakeLibrary() {
  for (const char* base : {getenv("RUNFILES_DIR"), getenv("TEST_SRCDIR")}) {
    if (base != nullptr) return absl::StrCat(base, "/skiff/tests/fake_nvml/libnvidia-ml.so.1");
  }
  return "bazel-bin/tests/fake_nvml/libnvidia-ml.so.1";
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? atoi(argv[1]) : 2000;
  constexpr int kGpus = 8;
  const std::string state = absl::StrCat("/tmp/gpu_sampling_bench.", getpid());
  {
    std::ofstream out(state);
    for (int g = 0; g < kGpus; ++g) {
      out << "gpu minor=" << g << " util=" << 10 * g << " memtotal=81920 memused=4096 energy=" << g
          << "\n";
    }
    for (int g = 0; g < kGpus; ++g) {
      for (int p = 0; p < 4; ++p) out << "process gpu=" << g << " pid=" << getpid() << " mem=512\n";
    }
  }
  setenv("SKIFF_FAKE_NVML_STATE", state.c_str(), 1);
  absl::StatusOr<std::unique_ptr<skiff::noded::Nvml>> nvml =
      skiff::noded::Nvml::Open(FakeLibrary());
  if (!nvml.ok()) {
    fprintf(stderr, "gpu_sampling_bench: %s\n", std::string(nvml.status().message()).c_str());
    return 1;
  }
  std::vector<skiff::noded::GpuUse> uses(kGpus);
  const double start = CpuSeconds();
  for (int i = 0; i < samples; ++i) {
    absl::StatusOr<std::vector<skiff::noded::GpuReading>> readings = (*nvml)->Read();
    if (!readings.ok()) return 1;
    // The monitor's /proc lookups: one per distinct pid on the GPUs.
    std::map<pid_t, uint64_t> job_of_pid;
    const std::string proc = absl::StrCat("/proc/", getpid());
    std::optional<uint64_t> job =
        skiff::noded::JobOfProcess("n1", skiff::noded::ReadFile(proc + "/cgroup").value_or(""),
                                   skiff::noded::ReadFile(proc + "/environ").value_or(""));
    job_of_pid[getpid()] = job.value_or(1);
    for (int g = 0; g < kGpus; ++g) {
      skiff::noded::AddReading((*readings)[g], job_of_pid[getpid()], job_of_pid, &uses[g]);
    }
    skiff::noded::FormatGpuUses(uses);  // the job directory's file, unwritten
  }
  const double per_sample = (CpuSeconds() - start) / samples;
  unlink(state.c_str());
  printf("gpu sampling, %d GPUs x 4 processes (fake NVML), %d samples\n", kGpus, samples);
  printf("  CPU per sample: %.1f us\n", per_sample * 1e6);
  printf("  share of one core at JobAcctGatherFrequency=30: %.4f%% (target < 1%%)\n",
         per_sample / 30 * 100);
  return 0;
}
