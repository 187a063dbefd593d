#include "scriptd/process_groups.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace skiff::scriptd {
namespace {

struct StatFields {
  char state = '?';
  pid_t pgrp = 0;
  uint64_t start_ticks = 0;
};

// /proc/PID/stat: "pid (comm) state ppid pgrp ... starttime(22) ...". comm may hold
// spaces and parentheses, so the fields are counted from the last ')'.
std::optional<StatFields> ReadStat(pid_t pid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/stat", static_cast<int>(pid));
  FILE* file = fopen(path, "re");
  if (file == nullptr) return std::nullopt;
  char buffer[1024];
  const size_t n = fread(buffer, 1, sizeof(buffer) - 1, file);
  fclose(file);
  buffer[n] = '\0';
  const std::string line(buffer, n);
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  StatFields fields;
  int ppid = 0;
  int pgrp = 0;
  unsigned long long start = 0;
  // Fields 3..22 after the command name: state ppid pgrp session tty_nr tpgid flags
  // minflt cminflt majflt cmajflt utime stime cutime cstime priority nice
  // num_threads itrealvalue starttime.
  if (sscanf(line.c_str() + paren + 1,
             " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
             &fields.state, &ppid, &pgrp, &start) != 4) {
    return std::nullopt;
  }
  fields.pgrp = pgrp;
  fields.start_ticks = start;
  return fields;
}

}  // namespace

std::optional<uint64_t> ProcessStartTicks(pid_t pid) {
  std::optional<StatFields> fields = ReadStat(pid);
  if (!fields) return std::nullopt;
  return fields->start_ticks;
}

int KillGroupLeftovers(pid_t pgid, uint64_t leader_start_ticks) {
  if (pgid <= 1) return 0;
  std::set<pid_t> killed;
  for (int round = 0; round < 5; ++round) {
    std::vector<pid_t> members;
    DIR* proc = opendir("/proc");
    if (proc == nullptr) break;
    while (struct dirent* entry = readdir(proc)) {
      const pid_t pid = static_cast<pid_t>(atoi(entry->d_name));
      if (pid <= 0) continue;
      std::optional<StatFields> fields = ReadStat(pid);
      if (fields && fields->pgrp == pgid && fields->state != 'Z' &&
          fields->start_ticks >= leader_start_ticks) {
        members.push_back(pid);
      }
    }
    closedir(proc);
    if (members.empty()) break;
    for (pid_t pid : members) {
      if (kill(pid, SIGKILL) == 0) killed.insert(pid);
    }
  }
  return static_cast<int>(killed.size());
}

}  // namespace skiff::scriptd
