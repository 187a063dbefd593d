#include "noded/cgroup/cgroup_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace skiff::noded {
namespace {

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

absl::Status ErrnoStatus(int err, const std::string& what) {
  std::string message = absl::StrCat(what, ": ", strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EBUSY) return absl::FailedPreconditionError(message);
  return absl::InternalError(message);
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot read ", path));
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return ErrnoStatus(err, absl::StrCat("cannot read ", path));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

// One write(2) of the whole value, as cgroup files want it.
absl::Status WriteText(const std::string& path, const std::string& value) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("cannot open ", path));
  ssize_t n;
  do {
    n = write(fd, value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  close(fd);
  if (n < 0) {
    return ErrnoStatus(
        err, absl::StrCat("cannot write '", absl::StripAsciiWhitespace(value), "' to ", path));
  }
  return absl::OkStatus();
}

absl::Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoStatus(errno, absl::StrCat("cannot create cgroup ", path));
  }
  return absl::OkStatus();
}

// mkdir -p for `rel` under `base`, calling `init` on each directory made or found
// below base (parents first).
template <typename Init>
absl::Status MakeDirs(const std::string& base, const std::string& rel, Init init) {
  std::string path = base;
  for (absl::string_view part : absl::StrSplit(rel, '/', absl::SkipEmpty())) {
    const std::string parent = path;
    absl::StrAppend(&path, "/", part);
    if (absl::Status s = MakeDir(path); !s.ok()) return s;
    if (absl::Status s = init(parent, path); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::vector<pid_t> ReadPids(const std::string& procs_file) {
  std::vector<pid_t> pids;
  absl::StatusOr<std::string> text = ReadText(procs_file);
  if (!text.ok()) return pids;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    pid_t pid = 0;
    if (absl::SimpleAtoi(line, &pid) && pid > 0) pids.push_back(pid);
  }
  return pids;
}

absl::Status SignalPids(const std::vector<pid_t>& pids, int sig) {
  for (pid_t pid : pids) {
    if (kill(pid, sig) != 0 && errno != ESRCH) {
      return ErrnoStatus(errno, absl::StrCat("kill(", pid, ", ", sig, ")"));
    }
  }
  return absl::OkStatus();
}

// "key value" lines (memory.events, memory.oom_control): the value of `key`.
uint64_t CounterIn(const std::string& text, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
    uint64_t value = 0;
    if (words.size() == 2 && words[0] == key && absl::SimpleAtoi(words[1], &value)) return value;
  }
  return 0;
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Freezing waits for every task to reach a safe point; on a loaded machine a
// task in the middle of exec can take a while.
constexpr int kFreezeTries = 500;  // x 2 ms = 1 s
constexpr int kSweepRounds = 500;  // x 2 ms = 1 s

// Polls `done` every 2 ms for up to `tries` times.
template <typename Pred>
bool PollUntil(Pred done, int tries) {
  for (int i = 0; i < tries; ++i) {
    if (done()) return true;
    usleep(2000);
  }
  return done();
}

// Without a completed freeze (a task in uninterruptible sleep, e.g. mid-exec on
// a loaded disk, holds the cgroup in FREEZING), a task may fork between a
// listing and the kill. A killed task cannot fork, so SIGKILL every pid not yet
// signalled until a listing shows none new.
template <typename ListPids>
absl::Status KillUntilNoNewPids(ListPids list, const std::string& dir) {
  std::set<pid_t> signalled;
  for (int round = 0; round < kSweepRounds; ++round) {
    std::vector<pid_t> fresh;
    for (pid_t pid : list()) {
      if (signalled.insert(pid).second) fresh.push_back(pid);
    }
    if (fresh.empty()) return absl::OkStatus();
    if (absl::Status s = SignalPids(fresh, SIGKILL); !s.ok()) return s;
    usleep(2000);
  }
  return absl::UnavailableError(
      absl::StrCat(dir, " did not freeze and its processes kept forking faster than the kill"));
}

std::string Trimmed(const absl::StatusOr<std::string>& text) {
  return text.ok() ? std::string(absl::StripAsciiWhitespace(*text)) : "";
}

// ------------------------------------------------------------------ v1
class CgroupsV1 final : public Cgroups {
 public:
  CgroupsV1(std::string mount, std::vector<std::string> controllers)
      : mount_(std::move(mount)), controllers_(std::move(controllers)) {}

  CgroupVersion version() const override { return CgroupVersion::kV1; }
  std::vector<std::string> controllers() const override { return controllers_; }

  absl::Status PrepareNode(const std::string& node_rel) override {
    for (const std::string& controller : controllers_) {
      const std::string base = Dir(controller, "");
      if (!Exists(base)) {
        return absl::FailedPreconditionError(
            absl::StrCat("the ", controller, " controller is not mounted at ", base));
      }
      absl::Status s =
          MakeDirs(base, node_rel, [&](const std::string& parent, const std::string& path) {
            return controller == "cpuset" ? CopyCpuset(parent, path) : absl::OkStatus();
          });
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  std::vector<int> NodeCpus(const std::string& node_rel) const override {
    if (!Contains(controllers_, "cpuset")) return {};
    absl::StatusOr<std::vector<int>> cpus =
        ParseCpuList(Trimmed(ReadText(Dir("cpuset", node_rel) + "/cpuset.cpus")));
    return cpus.ok() ? *cpus : std::vector<int>{};
  }

  absl::Status CreateJob(const std::string& rel, const JobCgroupLimits& limits) override {
    if (!Pids(rel).empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("cgroup ", Dir("freezer", rel), " already holds processes"));
    }
    for (const std::string& controller : controllers_) {
      absl::Status s = MakeDirs(
          Dir(controller, ""), rel, [&](const std::string& parent, const std::string& path) {
            return controller == "cpuset" ? CopyCpuset(parent, path) : absl::OkStatus();
          });
      if (!s.ok()) return s;
      const std::string dir = Dir(controller, rel);
      if (controller == "freezer") {
        s = WriteText(dir + "/freezer.state", "THAWED");
      } else if (controller == "cpuset" && !limits.cpus.empty()) {
        s = WriteText(dir + "/cpuset.cpus", FormatCpuList(limits.cpus));
      } else if (controller == "memory") {
        s = SetMemory(dir, limits);
      } else if (controller == "devices") {
        s = WriteText(dir + "/devices.allow", "a *:* rwm");
        for (const DeviceNumber& device : limits.denied_devices) {
          if (s.ok()) s = WriteText(dir + "/devices.deny", DeviceRule(device));
        }
      }
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  std::vector<std::string> ProcsFiles(const std::string& rel) const override {
    std::vector<std::string> files;
    for (const std::string& controller : controllers_) {
      files.push_back(Dir(controller, rel) + "/cgroup.procs");
    }
    return files;
  }

  std::vector<pid_t> Pids(const std::string& rel) const override {
    return ReadPids(Dir("freezer", rel) + "/cgroup.procs");
  }

  absl::Status Signal(const std::string& rel, int sig) override {
    return SignalPids(Pids(rel), sig);
  }

  absl::Status KillAll(const std::string& rel) override {
    const std::string dir = Dir("freezer", rel);
    if (!Exists(dir)) return absl::OkStatus();
    // Frozen, nothing can fork between the listing and the kill; SIGKILL is
    // delivered to frozen tasks once they thaw.
    absl::Status s = WriteText(dir + "/freezer.state", "FROZEN");
    const bool frozen =
        s.ok() && PollUntil([&] { return Trimmed(ReadText(dir + "/freezer.state")) == "FROZEN"; },
                            kFreezeTries);
    absl::Status killed = SignalPids(Pids(rel), SIGKILL);
    absl::Status thawed = WriteText(dir + "/freezer.state", "THAWED");
    if (!frozen) return KillUntilNoNewPids([&] { return Pids(rel); }, dir);
    return killed.ok() ? thawed : killed;
  }

  uint64_t OomKills(const std::string& rel) const override {
    if (!Contains(controllers_, "memory")) return 0;
    const std::string dir = Dir("memory", rel);
    absl::StatusOr<std::string> control = ReadText(dir + "/memory.oom_control");
    if (!control.ok()) return 0;
    // "oom_kill N" since Linux 4.13.
    return CounterIn(*control, "oom_kill");
  }

  absl::Status Remove(const std::string& rel) override {
    absl::Status result = absl::OkStatus();
    for (const std::string& controller : controllers_) {
      const std::string dir = Dir(controller, rel);
      if (rmdir(dir.c_str()) != 0 && errno != ENOENT && result.ok()) {
        result = ErrnoStatus(errno, absl::StrCat("cannot remove cgroup ", dir));
      }
    }
    return result;
  }

 private:
  std::string Dir(const std::string& controller, const std::string& rel) const {
    return rel.empty() ? absl::StrCat(mount_, "/", controller)
                       : absl::StrCat(mount_, "/", controller, "/", rel);
  }

  // A new v1 cpuset has no CPUs and no memory nodes: no task may join it until
  // both are set. Copies the parent's where empty.
  static absl::Status CopyCpuset(const std::string& parent, const std::string& path) {
    for (const char* file : {"/cpuset.cpus", "/cpuset.mems"}) {
      if (!Trimmed(ReadText(path + file)).empty()) continue;
      absl::StatusOr<std::string> value = ReadText(parent + file);
      if (!value.ok()) return value.status();
      if (absl::Status s = WriteText(path + file, *value); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  static absl::Status SetMemory(const std::string& dir, const JobCgroupLimits& limits) {
    const std::string memsw = dir + "/memory.memsw.limit_in_bytes";
    const bool have_memsw = Exists(memsw);
    // memsw must stay >= limit_in_bytes: lift it first, lower it last.
    if (have_memsw) {
      if (absl::Status s = WriteText(memsw, "-1"); !s.ok()) return s;
    }
    const std::string ram = limits.ram_bytes == 0 ? "-1" : absl::StrCat(limits.ram_bytes);
    if (absl::Status s = WriteText(dir + "/memory.limit_in_bytes", ram); !s.ok()) return s;
    if (limits.ram_swap_bytes != 0) {
      if (!have_memsw) {
        // Without swap accounting (swapaccount=1) the kernel cannot bound swap;
        // a host without swap needs no bound.
        absl::StatusOr<std::string> swaps = ReadText("/proc/swaps");
        if (swaps.ok() && std::count(swaps->begin(), swaps->end(), '\n') > 1) {
          return absl::FailedPreconditionError(
              absl::StrCat("ConstrainSwapSpace=yes but ", memsw,
                           " is missing (boot with swapaccount=1) and this host has swap"));
        }
      } else if (absl::Status s = WriteText(memsw, absl::StrCat(limits.ram_swap_bytes)); !s.ok()) {
        return s;
      }
    }
    if (limits.swappiness >= 0) {
      (void)WriteText(dir + "/memory.swappiness", absl::StrCat(limits.swappiness));
    }
    return absl::OkStatus();
  }

  const std::string mount_;
  const std::vector<std::string> controllers_;
};

// ------------------------------------------------------------------ v2 devices
// cgroup v2 has no devices controller: the kernel asks a BPF_PROG_TYPE_CGROUP_DEVICE
// program attached to the cgroup (as runc and systemd do). The program here,
// written out in BPF instructions (no libbpf), denies the listed devices and
// allows everything else, as the v1 deny rules do.

bpf_insn Insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn insn;
  memset(&insn, 0, sizeof(insn));
  insn.code = code;
  insn.dst_reg = dst & 0xf;
  insn.src_reg = src & 0xf;
  insn.off = off;
  insn.imm = imm;
  return insn;
}

std::vector<bpf_insn> DeviceFilterProgram(const std::vector<DeviceNumber>& denied) {
  std::vector<bpf_insn> p;
  // r1 = struct bpf_cgroup_dev_ctx*: r2 = device type (access_type & 0xffff),
  // r3 = major, r4 = minor.
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, 0, 0));
  p.push_back(Insn(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff));
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1, 4, 0));
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1, 8, 0));
  for (const DeviceNumber& d : denied) {
    // Not this device: jump past the 5-instruction block; else return 0 (deny).
    const int32_t type = d.type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
    p.push_back(Insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 4, type));
    p.push_back(Insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3, static_cast<int32_t>(d.major)));
    p.push_back(Insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2, static_cast<int32_t>(d.minor)));
    p.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0));
    p.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  }
  p.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1));  // allow
  p.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  return p;
}

// The program's fd, or the errno as a status naming what failed.
absl::StatusOr<int> LoadDeviceFilter(const std::vector<DeviceNumber>& denied) {
  std::vector<bpf_insn> program = DeviceFilterProgram(denied);
  static const char kLicense[] = "GPL";
  union bpf_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  attr.insns = reinterpret_cast<uint64_t>(program.data());
  attr.insn_cnt = static_cast<uint32_t>(program.size());
  attr.license = reinterpret_cast<uint64_t>(kLicense);
  const int fd = static_cast<int>(syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr)));
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "bpf(BPF_PROG_LOAD) of a BPF_PROG_TYPE_CGROUP_DEVICE program failed: ", strerror(errno),
        " (needs CAP_BPF or CAP_SYS_ADMIN and a kernel with CONFIG_CGROUP_BPF)"));
  }
  return fd;
}

// Attaches a program denying `denied` to the cgroup `dir`, replacing the one an
// earlier use of the same cgroup attached (no BPF_F_ALLOW_MULTI). The attachment
// holds the program; it goes with the cgroup.
absl::Status AttachDeviceFilter(const std::string& dir, const std::vector<DeviceNumber>& denied) {
  absl::StatusOr<int> prog = LoadDeviceFilter(denied);
  if (!prog.ok()) return prog.status();
  const int cgroup_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cgroup_fd < 0) {
    const int err = errno;
    close(*prog);
    return ErrnoStatus(err, absl::StrCat("cannot open cgroup ", dir));
  }
  union bpf_attr attr;
  memset(&attr, 0, sizeof(attr));
  attr.target_fd = static_cast<uint32_t>(cgroup_fd);
  attr.attach_bpf_fd = static_cast<uint32_t>(*prog);
  attr.attach_type = BPF_CGROUP_DEVICE;
  const int rc = static_cast<int>(syscall(__NR_bpf, BPF_PROG_ATTACH, &attr, sizeof(attr)));
  const int err = errno;
  close(cgroup_fd);
  close(*prog);
  if (rc != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "bpf(BPF_PROG_ATTACH) of the device program to ", dir, " failed: ", strerror(err)));
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------ v2
class CgroupsV2 final : public Cgroups {
 public:
  CgroupsV2(std::string mount, std::vector<std::string> controllers)
      : mount_(std::move(mount)), controllers_(std::move(controllers)) {}

  CgroupVersion version() const override { return CgroupVersion::kV2; }
  std::vector<std::string> controllers() const override { return controllers_; }

  absl::Status PrepareNode(const std::string& node_rel) override {
    if (Contains(controllers_, "devices")) {
      // Refused rather than running jobs with every device open to them.
      absl::StatusOr<int> probe = LoadDeviceFilter({});
      if (!probe.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "ConstrainDevices=yes on cgroup v2 needs an eBPF device program attached to each "
            "job's cgroup, and this noded cannot load one: ",
            probe.status().message(), "; set ConstrainDevices=no or use cgroup v1"));
      }
      close(*probe);
    }
    std::vector<std::string> enable;  // real v2 controllers (devices and freezer are built in)
    for (const std::string& c : controllers_) {
      if (c != "freezer" && c != "devices") enable.push_back(c);
    }
    const std::string available = Trimmed(ReadText(mount_ + "/cgroup.controllers"));
    std::set<std::string> have;
    for (absl::string_view c : absl::StrSplit(available, ' ', absl::SkipEmpty())) {
      have.insert(std::string(c));
    }
    for (const std::string& c : enable) {
      if (have.count(c) == 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("the ", c, " controller is not available in ", mount_,
                         "/cgroup.controllers ('", available, "')"));
      }
    }
    auto enable_below = [&](const std::string& dir) -> absl::Status {
      for (const std::string& c : enable) {
        if (absl::Status s = WriteText(dir + "/cgroup.subtree_control", "+" + c); !s.ok()) {
          return s;
        }
      }
      return absl::OkStatus();
    };
    if (absl::Status s = enable_below(mount_); !s.ok()) return s;
    return MakeDirs(mount_, node_rel, [&](const std::string&, const std::string& path) {
      return enable_below(path);
    });
  }

  std::vector<int> NodeCpus(const std::string& node_rel) const override {
    if (!Contains(controllers_, "cpuset")) return {};
    absl::StatusOr<std::vector<int>> cpus =
        ParseCpuList(Trimmed(ReadText(Dir(node_rel) + "/cpuset.cpus.effective")));
    return cpus.ok() ? *cpus : std::vector<int>{};
  }

  absl::Status CreateJob(const std::string& rel, const JobCgroupLimits& limits) override {
    if (!Pids(rel).empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("cgroup ", Dir(rel), " already holds processes"));
    }
    if (absl::Status s = MakeDir(Dir(rel)); !s.ok()) return s;
    const std::string dir = Dir(rel);
    if (Exists(dir + "/cgroup.freeze")) (void)WriteText(dir + "/cgroup.freeze", "0");
    if (Contains(controllers_, "cpuset") && !limits.cpus.empty()) {
      if (absl::Status s = WriteText(dir + "/cpuset.cpus", FormatCpuList(limits.cpus)); !s.ok()) {
        return s;
      }
    }
    if (Contains(controllers_, "memory")) {
      const std::string max = limits.ram_bytes == 0 ? "max" : absl::StrCat(limits.ram_bytes);
      if (absl::Status s = WriteText(dir + "/memory.max", max); !s.ok()) return s;
      if (limits.ram_swap_bytes != 0 && Exists(dir + "/memory.swap.max")) {
        const uint64_t swap =
            limits.ram_swap_bytes > limits.ram_bytes ? limits.ram_swap_bytes - limits.ram_bytes : 0;
        if (absl::Status s = WriteText(dir + "/memory.swap.max", absl::StrCat(swap)); !s.ok()) {
          return s;
        }
      }
    }
    if (Contains(controllers_, "devices")) {
      if (absl::Status s = AttachDeviceFilter(dir, limits.denied_devices); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  std::vector<std::string> ProcsFiles(const std::string& rel) const override {
    return {Dir(rel) + "/cgroup.procs"};
  }

  std::vector<pid_t> Pids(const std::string& rel) const override {
    return ReadPids(Dir(rel) + "/cgroup.procs");
  }

  absl::Status Signal(const std::string& rel, int sig) override {
    return SignalPids(Pids(rel), sig);
  }

  absl::Status KillAll(const std::string& rel) override {
    const std::string dir = Dir(rel);
    if (!Exists(dir)) return absl::OkStatus();
    if (Exists(dir + "/cgroup.kill")) return WriteText(dir + "/cgroup.kill", "1");  // Linux 5.14
    absl::Status s = WriteText(dir + "/cgroup.freeze", "1");
    const bool frozen =
        s.ok() &&
        PollUntil(
            [&] { return CounterIn(Trimmed(ReadText(dir + "/cgroup.events")), "frozen") == 1; },
            kFreezeTries);
    absl::Status killed = SignalPids(Pids(rel), SIGKILL);
    absl::Status thawed = WriteText(dir + "/cgroup.freeze", "0");
    if (!frozen) return KillUntilNoNewPids([&] { return Pids(rel); }, dir);
    return killed.ok() ? thawed : killed;
  }

  uint64_t OomKills(const std::string& rel) const override {
    if (!Contains(controllers_, "memory")) return 0;
    absl::StatusOr<std::string> events = ReadText(Dir(rel) + "/memory.events");
    return events.ok() ? CounterIn(*events, "oom_kill") : 0;
  }

  absl::Status Remove(const std::string& rel) override {
    const std::string dir = Dir(rel);
    if (rmdir(dir.c_str()) != 0 && errno != ENOENT) {
      return ErrnoStatus(errno, absl::StrCat("cannot remove cgroup ", dir));
    }
    return absl::OkStatus();
  }

 private:
  std::string Dir(const std::string& rel) const { return absl::StrCat(mount_, "/", rel); }

  const std::string mount_;
  const std::vector<std::string> controllers_;
};

}  // namespace

absl::StatusOr<CgroupVersion> DetectCgroupVersion(const std::string& mountpoint,
                                                  const std::string& plugin) {
  const bool v2 = Exists(mountpoint + "/cgroup.controllers");
  const bool v1 = Exists(mountpoint + "/freezer/tasks");
  if (plugin == "cgroup/v2") {
    if (v2) return CgroupVersion::kV2;
    return absl::FailedPreconditionError(absl::StrCat("CgroupPlugin=cgroup/v2 but ", mountpoint,
                                                      " is not a cgroup v2 hierarchy (no ",
                                                      mountpoint, "/cgroup.controllers)"));
  }
  if (plugin == "cgroup/v1") {
    if (v1) return CgroupVersion::kV1;
    return absl::FailedPreconditionError(absl::StrCat("CgroupPlugin=cgroup/v1 but ", mountpoint,
                                                      "/freezer is not a mounted v1 freezer"));
  }
  if (v2) return CgroupVersion::kV2;
  if (v1) return CgroupVersion::kV1;
  return absl::FailedPreconditionError(
      absl::StrCat("no cgroup hierarchy at CgroupMountpoint=", mountpoint, " (neither ", mountpoint,
                   "/cgroup.controllers for v2 nor ", mountpoint, "/freezer/tasks for v1)"));
}

std::unique_ptr<Cgroups> MakeCgroups(CgroupVersion version, const std::string& mountpoint,
                                     const std::vector<std::string>& controllers) {
  switch (version) {
    case CgroupVersion::kV1:
      return std::make_unique<CgroupsV1>(mountpoint, controllers);
    case CgroupVersion::kV2:
      return std::make_unique<CgroupsV2>(mountpoint, controllers);
    case CgroupVersion::kNone:
      break;
  }
  return nullptr;
}

std::vector<std::string> NeededControllers(CgroupVersion version, const std::string& mountpoint,
                                           const CgroupSettings& settings) {
  std::vector<std::string> out;
  if (version == CgroupVersion::kV1) {
    out.push_back("freezer");
    if (Exists(mountpoint + "/pids/tasks")) out.push_back("pids");
  } else {
    const std::string available = Trimmed(ReadText(mountpoint + "/cgroup.controllers"));
    std::vector<std::string> have = absl::StrSplit(available, ' ', absl::SkipEmpty());
    if (Contains(have, "pids")) out.push_back("pids");
  }
  if (settings.constrain_ram) out.push_back("memory");
  if (settings.constrain_cores) out.push_back("cpuset");
  if (settings.constrain_devices) out.push_back("devices");
  return out;
}

int WritePidAsyncSignalSafe(const char* path, pid_t pid) {
  char buf[24];
  char* end = buf + sizeof(buf);
  char* p = end;
  unsigned long value = static_cast<unsigned long>(pid);
  do {
    *--p = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && p > buf);
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n;
  do {
    n = write(fd, p, static_cast<size_t>(end - p));
  } while (n < 0 && errno == EINTR);
  const int err = n < 0 ? errno : 0;
  close(fd);
  return err;
}

}  // namespace skiff::noded
