// Small helpers shared by the integration tests.
#ifndef SKIFF_TESTS_HARNESS_TEST_UTIL_H_
#define SKIFF_TESTS_HARNESS_TEST_UTIL_H_

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/free_port.h"

namespace skiff::testing {

// A fresh directory under /tmp (short paths: sockets and daemons' files go
// there), readable by every user (jobs run as others), removed with all it
// holds when it goes. path() is "" when it could not be made.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix = "skiff-scratch") {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    if (mkdtemp(tmpl.data()) != nullptr) {
      path_ = tmpl;
      chmod(path_.c_str(), 0755);
    }
  }
  ~ScratchDir() {
    if (!path_.empty()) std::system(("rm -rf " + path_).c_str());
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The whole file, or "" when it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last SlurmctldPort= line of a skiff.conf (later lines win); "" if none.
inline std::string CtldPort(const std::string& conf) {
  const std::string text = ReadFile(conf);
  const std::regex key("SlurmctldPort=(\\d+)");
  std::string port;
  for (std::sregex_iterator it(text.begin(), text.end(), key), end; it != end; ++it) {
    port = (*it)[1];
  }
  return port;
}

// Polls `predicate` every 200 ms for up to `seconds`; true as soon as it holds.
// For waiting on daemons, never for timing: a loaded machine only makes it slower.
template <typename Predicate>
bool Eventually(int seconds, Predicate predicate) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (predicate()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return predicate();
}

inline bool Alive(pid_t pid) { return pid > 0 && kill(pid, 0) == 0; }

// Pids whose command line (arguments joined by spaces) contains `text`, from
// /proc (no procps needed on a bare machine).
inline std::vector<pid_t> PidsWithCommandLine(const std::string& text) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::string cmdline = ReadFile(std::string("/proc/") + entry->d_name + "/cmdline");
    for (char& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    if (cmdline.find(text) != std::string::npos) pids.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return pids;
}

// The parent of `pid` (field 4 of /proc/PID/stat), or -1.
inline pid_t ParentOf(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');  // the command name may contain spaces
  if (paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(paren + 1));
  std::string state;
  long parent = -1;
  fields >> state >> parent;
  return static_cast<pid_t>(parent);
}

// The state letter of `pid` (field 3 of /proc/PID/stat: R, S, D, T, Z...), or 0
// when it is gone.
inline char ProcessState(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? 0 : stat[paren + 2];
}

// CPU seconds (user + system) `pid` has used, from /proc/PID/stat; -1 when gone.
inline double CpuSeconds(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(paren + 1));
  std::string skip;
  for (int field = 3; field < 14; ++field) fields >> skip;  // state .. cmajflt
  long long utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) return -1;
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// How many descriptors `pid` has open (entries of /proc/PID/fd), -1 when unknown.
inline int OpenDescriptors(pid_t pid) {
  DIR* dir = opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
  if (dir == nullptr) return -1;
  int count = 0;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count;
}

// The value of `key` in `scontrol show job` output ("JobState", "Restarts"),
// "" when absent. Reason may contain spaces: it runs up to " Dependency=".
inline std::string ScontrolField(const std::string& scontrol_output, const std::string& key) {
  std::string text = " " + scontrol_output;
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  const std::string needle = " " + key + "=";
  size_t pos = text.find(needle);
  if (pos == std::string::npos) return "";
  pos += needle.size();
  const size_t end = key == "Reason" ? text.find(" Dependency=", pos) : text.find(' ', pos);
  return text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

// Every id in "Submitted batch job N" lines, in order.
inline std::vector<uint64_t> SubmittedJobIds(const std::string& text) {
  std::vector<uint64_t> ids;
  static const std::regex kSubmitted("Submitted batch job ([0-9]+)");
  for (std::sregex_iterator it(text.begin(), text.end(), kSubmitted), end; it != end; ++it) {
    ids.push_back(std::stoull((*it)[1]));
  }
  return ids;
}

// A TCP port of 127.0.0.1 free now (the kernel's choice), for a daemon a
// test starts; -1 if none could be had.
inline int FreePort() { return FreeLoopbackPort(); }

}  // namespace skiff::testing

#endif  // SKIFF_TESTS_HARNESS_TEST_UTIL_H_
