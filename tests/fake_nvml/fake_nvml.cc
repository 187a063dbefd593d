// A stand-in for NVIDIA's libnvidia-ml.so.1, for noded's GPU tests on machines
// without a GPU. Without a state file it has two idle "A100" GPUs, minors 0
// and 3. With $SKIFF_FAKE_NVML_STATE naming a file, a test drives it: the file
// is read again at every call, so what a test (or a job) writes there is what
// noded samples next. Its lines (unknown words are ignored):
//
//   gpu minor=0 name=NVIDIA_A100-SXM4-40GB util=37 memtotal=40960 memused=1024 energy=5000 ecc=0
//   process gpu=0 pid=1234 mem=512
//   xid gpu=1 code=79
//   jobs node=n3 conf=/tmp/skiff-x/etc/skiff.conf
//   gpu minor=1 uuid=GPU-5c1e... mig=1
//   mig gpu=1 gi=1 ci=0 slices=3 memory=20096 uuid=MIG-1b2c...
//
// one `gpu` line per GPU in index order (name: '_' stands for a blank; util in
// percent; memory in MiB; energy in millijoules since the driver loaded; ecc:
// uncorrected ECC errors; lost=1: every call about it says the GPU is lost),
// one `process` line per process on a GPU (gpu = its index; mem in MiB), one
// `xid` line per Xid error, each delivered once through the event set, in
// order. Only the calls Skiff makes exist, with NVML's C signatures and
// return codes.
//
// uuid= is the GPU's (default GPU-<minor as 32 hex digits>); mig=1 puts the
// GPU in MIG mode (mig=0, the default: MIG-capable, off; mig=none: not
// capable), and each `mig` line adds a MIG device to the GPU of that index:
// its GPU and compute instance ids, its slices of the GPU and memory (MiB),
// its uuid (default MIG-<parent's digits>-<gi>-<ci>). Handles of MIG devices
// answer the MIG calls, nvmlDeviceGetUUID and nvmlDeviceGetName; the rest is
// NOT_SUPPORTED. nvmlSystemGetDriverVersion says 535.104.05
// ($SKIFF_FAKE_NVML_DRIVER to change).
//
// `jobs node=NAME` (what ./skiff up writes for its fake GPUs) lets jobs drive
// it without writing the file: a process of this host whose environment says
// SLURMD_NODENAME=NAME and SKIFF_FAKE_GPU_UTIL=U is on each GPU of its
// SLURM_STEP_GPUS (else SLURM_JOB_GPUS), one per job and GPU, holding
// SKIFF_FAKE_GPU_MEM MiB (1024 unless set), and the GPU is at least U% busy;
// with conf=PATH, only if its SKIFF_CONF is PATH too (the jobs of one local
// cluster, when several on this host have a node of that name).
// A GPU without energy= then draws 60 W idle, 400 W at 100%, summed from call
// to call. (/proc's environ is a process's first environment: a shell's
// `export` shows in the programs it starts, not in the shell.)
#include <dirent.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kSuccess = 0;
constexpr int kUninitialized = 1;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kNotFound = 6;
constexpr int kInsufficientSize = 7;
constexpr int kTimeout = 10;
constexpr int kGpuIsLost = 15;
constexpr unsigned long long kMiB = 1024ull * 1024;

struct FakeProcess {
  unsigned pid = 0;
  unsigned long long mem_mib = 0;
};

struct FakeMig {
  unsigned gi = 0, ci = 0;
  unsigned slices = 1;
  unsigned long long memory_mib = 0;
  std::string uuid;
};

struct FakeGpu {
  unsigned minor = 0;
  std::string name = "NVIDIA A100-SXM4-40GB";
  std::string uuid;
  int mig_mode = 0;  // 1 on, 0 off, -1 not MIG-capable
  std::vector<FakeMig> migs;
  unsigned util = 0;
  unsigned long long mem_total_mib = 40960;
  unsigned long long mem_used_mib = 0;
  unsigned long long energy_mj = 0;
  bool energy_given = false;
  unsigned long long ecc = 0;
  bool lost = false;
  std::vector<FakeProcess> processes;
};

struct FakeXid {
  unsigned gpu = 0;
  unsigned long long code = 0;
};

std::vector<FakeXid> xids;  // the state file's, as last read
size_t xids_delivered = 0;

bool initialised = false;
std::mutex mu;  // the state above and the jobs' GPUs below; noded calls from any thread

unsigned long long Number(const std::string& word, const char* key) {
  const std::string prefix = std::string(key) + "=";
  if (word.compare(0, prefix.size(), prefix) != 0) return ~0ull;
  return std::strtoull(word.c_str() + prefix.size(), nullptr, 10);
}

// The value of NAME in a NUL-separated environment, or "".
std::string EnvValue(const std::string& environ, const std::string& name) {
  const std::string key = name + "=";
  for (size_t at = 0; at < environ.size();) {
    const size_t end = std::min(environ.find('\0', at), environ.size());
    if (environ.compare(at, key.size(), key) == 0) {
      return environ.substr(at + key.size(), end - at - key.size());
    }
    at = end + 1;
  }
  return "";
}

// When process `pid` started (clock ticks since boot: /proc/PID/stat's 22nd
// field); ~0 if unknown.
unsigned long long StartTicks(const char* pid) {
  std::ifstream in(std::string("/proc/") + pid + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t comm_end = stat.rfind(')');  // the command may hold spaces
  if (comm_end == std::string::npos) return ~0ull;
  std::istringstream fields(stat.substr(comm_end + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return ~0ull;
}

// `jobs node=NAME`: this host's processes that ask, through their
// environment, to look busy on the GPUs of their job on NAME. Each job is on
// a GPU once, as its oldest such process (the batch shell, not a `sleep` it
// runs: with pid numbers wrapping, the child may have the lower pid, and be
// gone before noded asks which job the pid is of).
void AddJobProcesses(const std::string& node, const std::string& conf, std::vector<FakeGpu>& gpus) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return;
  struct Candidate {
    unsigned long long started = ~0ull;
    unsigned pid = 0;
    unsigned long long mem_mib = 0;
    unsigned busy = 0;
  };
  std::map<std::pair<std::string, size_t>, Candidate> oldest;  // by (job, GPU index)
  while (struct dirent* entry = readdir(proc)) {
    const char* name = entry->d_name;
    if (name[0] < '0' || name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + name + "/environ", std::ios::binary);
    const std::string environ((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    const std::string util = EnvValue(environ, "SKIFF_FAKE_GPU_UTIL");
    if (util.empty() || EnvValue(environ, "SLURMD_NODENAME") != node) continue;
    if (!conf.empty() && EnvValue(environ, "SKIFF_CONF") != conf) continue;
    std::string indices = EnvValue(environ, "SLURM_STEP_GPUS");
    if (indices.empty()) indices = EnvValue(environ, "SLURM_JOB_GPUS");
    const std::string mem = EnvValue(environ, "SKIFF_FAKE_GPU_MEM");
    const std::string job = EnvValue(environ, "SLURM_JOB_ID");
    const unsigned long long started = StartTicks(name);
    std::istringstream list(indices);
    for (std::string index; std::getline(list, index, ',');) {
      const size_t i = std::strtoul(index.c_str(), nullptr, 10);
      if (index.empty() || i >= gpus.size()) continue;
      Candidate& best = oldest[{job, i}];
      if (best.pid != 0 && best.started <= started) continue;
      best.started = started;
      best.pid = std::strtoul(name, nullptr, 10);
      best.mem_mib = mem.empty() ? 1024 : std::strtoull(mem.c_str(), nullptr, 10);
      best.busy = std::strtoul(util.c_str(), nullptr, 10);
    }
  }
  closedir(proc);
  for (const auto& [key, best] : oldest) {
    FakeGpu& gpu = gpus[key.second];
    gpu.processes.push_back(FakeProcess{best.pid, best.mem_mib});
    gpu.mem_used_mib += best.mem_mib;
    if (best.busy > gpu.util) gpu.util = best.busy > 100 ? 100 : best.busy;
  }
}

// Energy for the GPUs without energy=: 60 W idle to 400 W at 100%, at the
// utilisation of the previous call, from then to now.
void AddModelledEnergy(std::vector<FakeGpu>& gpus) {
  struct Meter {
    double millijoules = 0;
    unsigned util = 0;
    std::chrono::steady_clock::time_point at;
  };
  static std::map<unsigned, Meter> meters;  // by minor
  const auto now = std::chrono::steady_clock::now();
  for (FakeGpu& gpu : gpus) {
    if (gpu.energy_given) continue;
    auto [it, added] = meters.try_emplace(gpu.minor);
    Meter& meter = it->second;
    if (!added) {
      const double seconds = std::chrono::duration<double>(now - meter.at).count();
      meter.millijoules += seconds * (60.0 + 3.4 * meter.util) * 1000.0;
    }
    meter.at = now;
    meter.util = gpu.util;
    gpu.energy_mj = static_cast<unsigned long long>(meter.millijoules);
  }
}

// The uuids a state file does not give: GPU-<minor as 32 hex digits, 8-4-4-4-12>,
// MIG-<the GPU's digits>-<gi>-<ci>.
void AddUuids(std::vector<FakeGpu>& gpus) {
  for (FakeGpu& gpu : gpus) {
    char digits[33];
    std::snprintf(digits, sizeof digits, "%032x", gpu.minor);
    const std::string hex(digits);
    if (gpu.uuid.empty()) {
      gpu.uuid = "GPU-" + hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) +
                 "-" + hex.substr(16, 4) + "-" + hex.substr(20, 12);
    }
    for (FakeMig& mig : gpu.migs) {
      if (!mig.uuid.empty()) continue;
      char id[96];
      std::snprintf(id, sizeof id, "MIG-%s-%04x-%04x", gpu.uuid.substr(4).c_str(), mig.gi, mig.ci);
      mig.uuid = id;
    }
  }
}

std::vector<FakeGpu> Gpus() {
  std::lock_guard<std::mutex> lock(mu);
  const char* path = std::getenv("SKIFF_FAKE_NVML_STATE");
  std::ifstream in(path != nullptr ? path : "");
  if (!in) {
    std::vector<FakeGpu> gpus(2);
    gpus[1].minor = 3;
    return gpus;
  }
  std::vector<FakeGpu> gpus;
  xids.clear();
  std::string jobs_of_node, jobs_conf;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, word;
    words >> kind;
    if (kind == "gpu") {
      FakeGpu gpu;
      gpu.minor = static_cast<unsigned>(gpus.size());
      while (words >> word) {
        if (unsigned long long v = Number(word, "minor"); v != ~0ull) gpu.minor = v;
        if (unsigned long long v = Number(word, "util"); v != ~0ull) gpu.util = v;
        if (unsigned long long v = Number(word, "memtotal"); v != ~0ull) gpu.mem_total_mib = v;
        if (unsigned long long v = Number(word, "memused"); v != ~0ull) gpu.mem_used_mib = v;
        if (unsigned long long v = Number(word, "energy"); v != ~0ull) {
          gpu.energy_mj = v;
          gpu.energy_given = true;
        }
        if (unsigned long long v = Number(word, "ecc"); v != ~0ull) gpu.ecc = v;
        if (unsigned long long v = Number(word, "lost"); v != ~0ull) gpu.lost = v != 0;
        if (word.compare(0, 5, "uuid=") == 0) gpu.uuid = word.substr(5);
        if (unsigned long long v = Number(word, "mig"); v != ~0ull) gpu.mig_mode = v != 0;
        if (word == "mig=none") gpu.mig_mode = -1;
        if (word.compare(0, 5, "name=") == 0) {
          gpu.name = word.substr(5);
          for (char& c : gpu.name) c = c == '_' ? ' ' : c;
        }
      }
      gpus.push_back(gpu);
    } else if (kind == "process") {
      unsigned long long index = ~0ull;
      FakeProcess process;
      while (words >> word) {
        if (unsigned long long v = Number(word, "gpu"); v != ~0ull) index = v;
        if (unsigned long long v = Number(word, "pid"); v != ~0ull) process.pid = v;
        if (unsigned long long v = Number(word, "mem"); v != ~0ull) process.mem_mib = v;
      }
      if (index < gpus.size()) gpus[index].processes.push_back(process);
    } else if (kind == "xid") {
      FakeXid xid;
      while (words >> word) {
        if (unsigned long long v = Number(word, "gpu"); v != ~0ull) xid.gpu = v;
        if (unsigned long long v = Number(word, "code"); v != ~0ull) xid.code = v;
      }
      xids.push_back(xid);
    } else if (kind == "mig") {
      unsigned long long index = ~0ull;
      FakeMig mig;
      while (words >> word) {
        if (unsigned long long v = Number(word, "gpu"); v != ~0ull) index = v;
        if (unsigned long long v = Number(word, "gi"); v != ~0ull) mig.gi = v;
        if (unsigned long long v = Number(word, "ci"); v != ~0ull) mig.ci = v;
        if (unsigned long long v = Number(word, "slices"); v != ~0ull) mig.slices = v;
        if (unsigned long long v = Number(word, "memory"); v != ~0ull) mig.memory_mib = v;
        if (word.compare(0, 5, "uuid=") == 0) mig.uuid = word.substr(5);
      }
      if (index < gpus.size()) gpus[index].migs.push_back(mig);
    } else if (kind == "jobs") {
      while (words >> word) {
        if (word.compare(0, 5, "node=") == 0) jobs_of_node = word.substr(5);
        if (word.compare(0, 5, "conf=") == 0) jobs_conf = word.substr(5);
      }
    }
  }
  if (!jobs_of_node.empty()) {
    AddJobProcesses(jobs_of_node, jobs_conf, gpus);
    AddModelledEnergy(gpus);
  }
  AddUuids(gpus);
  return gpus;
}

// A GPU's handle is its index + 1 (never null); a MIG device's has its GPU's
// in the low 16 bits and its own index + 1 above them.
unsigned long MigHandle(unsigned long gpu_handle, unsigned mig_index) {
  return gpu_handle | (static_cast<unsigned long>(mig_index + 1) << 16);
}

// kSuccess, or the code every call about the device answers. A MIG device's
// handle answers kNotSupported unless `mig` is asked for (then it is filled,
// and `out` is its GPU); a GPU's, kInvalidArgument when it is.
int Lookup(void* device, FakeGpu* out, FakeMig* mig = nullptr) {
  const unsigned long handle = reinterpret_cast<unsigned long>(device);
  const unsigned long index = (handle & 0xffff) - 1;
  const unsigned long mig_index = handle >> 16;
  std::vector<FakeGpu> gpus = Gpus();
  if (!initialised || index >= gpus.size()) return kInvalidArgument;
  *out = gpus[index];
  if (out->lost) return kGpuIsLost;
  if (mig_index == 0) return mig == nullptr ? kSuccess : kInvalidArgument;
  if (mig == nullptr) return kNotSupported;
  if (mig_index > out->migs.size()) return kInvalidArgument;
  *mig = out->migs[mig_index - 1];
  return kSuccess;
}

}  // namespace

extern "C" {

// NVML's structs, as nvml.h lays them out.
struct nvmlUtilization_t {
  unsigned gpu;
  unsigned memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlEventData_t {
  void* device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned gpuInstanceId, computeInstanceId;
};
struct nvmlDeviceAttributes_t {
  unsigned multiprocessorCount;
  unsigned sharedCopyEngineCount;
  unsigned sharedDecoderCount;
  unsigned sharedEncoderCount;
  unsigned sharedJpegCount;
  unsigned sharedOfaCount;
  unsigned gpuInstanceSliceCount;
  unsigned computeInstanceSliceCount;
  unsigned long long memorySizeMB;
};
struct nvmlProcessInfo_t {  // nvmlProcessInfo_v2_t, what the _v3 calls fill
  unsigned pid;
  unsigned long long usedGpuMemory;
  unsigned gpuInstanceId, computeInstanceId;
};

int nvmlInit_v2() {
  initialised = true;
  return kSuccess;
}
int nvmlShutdown() {
  initialised = false;
  return kSuccess;
}
int nvmlDeviceGetCount_v2(unsigned* count) {
  if (!initialised) return kUninitialized;
  *count = static_cast<unsigned>(Gpus().size());
  return kSuccess;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (!initialised) return kUninitialized;
  if (index >= Gpus().size()) return kInvalidArgument;
  *device = reinterpret_cast<void*>(static_cast<unsigned long>(index + 1));
  return kSuccess;
}
int nvmlDeviceGetMinorNumber(void* device, unsigned* minor) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  *minor = gpu.minor;
  return kSuccess;
}
int nvmlDeviceGetName(void* device, char* name, unsigned length) {
  FakeGpu gpu;
  FakeMig mig;
  if (Lookup(device, &gpu, &mig) == kSuccess) {
    std::snprintf(name, length, "%s MIG %ug.%llugb", gpu.name.c_str(), mig.slices,
                  (mig.memory_mib + 512) / 1024);
    return kSuccess;
  }
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  std::snprintf(name, length, "%s", gpu.name.c_str());
  return kSuccess;
}
int nvmlDeviceGetUUID(void* device, char* uuid, unsigned length) {
  FakeGpu gpu;
  FakeMig mig;
  if (Lookup(device, &gpu, &mig) == kSuccess) {
    std::snprintf(uuid, length, "%s", mig.uuid.c_str());
    return kSuccess;
  }
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  std::snprintf(uuid, length, "%s", gpu.uuid.c_str());
  return kSuccess;
}
int nvmlSystemGetDriverVersion(char* version, unsigned length) {
  const char* given = std::getenv("SKIFF_FAKE_NVML_DRIVER");
  std::snprintf(version, length, "%s", given != nullptr ? given : "535.104.05");
  return kSuccess;
}
int nvmlDeviceGetMigMode(void* device, unsigned* current, unsigned* pending) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  if (gpu.mig_mode < 0) return kNotSupported;
  *current = *pending = static_cast<unsigned>(gpu.mig_mode);
  return kSuccess;
}
int nvmlDeviceGetMaxMigDeviceCount(void* device, unsigned* count) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  if (gpu.mig_mode < 0) return kNotSupported;
  *count = gpu.mig_mode == 1 ? 7 : 0;  // an A100's most
  return kSuccess;
}
// MIG devices by index, up to the most there can be; an index without one: NOT_FOUND.
int nvmlDeviceGetMigDeviceHandleByIndex(void* device, unsigned index, void** mig) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  if (gpu.mig_mode != 1) return kInvalidArgument;
  if (index >= gpu.migs.size()) return kNotFound;
  *mig = reinterpret_cast<void*>(MigHandle(reinterpret_cast<unsigned long>(device), index));
  return kSuccess;
}
int nvmlDeviceGetGpuInstanceId(void* device, unsigned* id) {
  FakeGpu gpu;
  FakeMig mig;
  if (int rc = Lookup(device, &gpu, &mig); rc != kSuccess) return rc;
  *id = mig.gi;
  return kSuccess;
}
int nvmlDeviceGetComputeInstanceId(void* device, unsigned* id) {
  FakeGpu gpu;
  FakeMig mig;
  if (int rc = Lookup(device, &gpu, &mig); rc != kSuccess) return rc;
  *id = mig.ci;
  return kSuccess;
}
int nvmlDeviceGetAttributes_v2(void* device, nvmlDeviceAttributes_t* attributes) {
  FakeGpu gpu;
  FakeMig mig;
  if (int rc = Lookup(device, &gpu, &mig); rc != kSuccess) return rc;
  *attributes = {};
  attributes->multiprocessorCount = 14 * mig.slices;
  attributes->gpuInstanceSliceCount = mig.slices;
  attributes->computeInstanceSliceCount = mig.slices;
  attributes->memorySizeMB = mig.memory_mib;
  return kSuccess;
}
int nvmlDeviceGetUtilizationRates(void* device, nvmlUtilization_t* rates) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  rates->gpu = gpu.util;
  rates->memory = 0;
  return kSuccess;
}
int nvmlDeviceGetMemoryInfo(void* device, nvmlMemory_t* memory) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  memory->total = gpu.mem_total_mib * kMiB;
  memory->used = gpu.mem_used_mib * kMiB;
  memory->free = memory->total > memory->used ? memory->total - memory->used : 0;
  return kSuccess;
}
int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* energy_mj) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  *energy_mj = gpu.energy_mj;
  return kSuccess;
}
int nvmlDeviceGetComputeRunningProcesses_v3(void* device, unsigned* count,
                                            nvmlProcessInfo_t* infos) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  const unsigned have = static_cast<unsigned>(gpu.processes.size());
  if (infos == nullptr || *count < have) {
    const bool none = have == 0;
    *count = have;
    return none ? kSuccess : kInsufficientSize;
  }
  for (unsigned i = 0; i < have; ++i) {
    infos[i] = {gpu.processes[i].pid, gpu.processes[i].mem_mib * kMiB, 0, 0};
  }
  *count = have;
  return kSuccess;
}
int nvmlDeviceGetTotalEccErrors(void* device, int /*type*/, int /*counter*/,
                                unsigned long long* count) {
  FakeGpu gpu;
  if (int rc = Lookup(device, &gpu); rc != kSuccess) return rc;
  *count = gpu.ecc;
  return kSuccess;
}
int nvmlEventSetCreate(void** set) {
  *set = reinterpret_cast<void*>(1);
  return kSuccess;
}
int nvmlDeviceRegisterEvents(void* device, unsigned long long, void*) {
  FakeGpu gpu;
  return Lookup(device, &gpu);
}
// The next Xid line not yet delivered, at once (the timeout is not waited).
int nvmlEventSetWait_v2(void*, nvmlEventData_t* data, unsigned) {
  Gpus();
  if (xids_delivered >= xids.size()) return kTimeout;
  const FakeXid& xid = xids[xids_delivered++];
  *data = {reinterpret_cast<void*>(static_cast<unsigned long>(xid.gpu + 1)), 0x8, xid.code, 0, 0};
  return kSuccess;
}
int nvmlEventSetFree(void*) { return kSuccess; }
const char* nvmlErrorString(int rc) {
  switch (rc) {
    case kSuccess:
      return "Success";
    case kUninitialized:
      return "Uninitialized";
    case kInvalidArgument:
      return "Invalid Argument";
    case kNotSupported:
      return "Not Supported";
    case kNotFound:
      return "Not Found";
    case kInsufficientSize:
      return "Insufficient Size";
    case kTimeout:
      return "Timeout";
    case kGpuIsLost:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}
}
