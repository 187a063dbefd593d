// ScriptdSupervisor: ctld's side of scriptd's life (the slurmscriptd idea:
// every script ctld would fork is run by a process forked once, at start).
//
// Start forks scriptd while ctld is still single-threaded (scriptd_launcher.h);
// WaitUntilAnswering holds ctld's start until scriptd answers on its socket, so
// a broken scriptd is reported before anything is served; RestartIfDied
// replaces a scriptd that died (ctld's signal loop calls it on SIGCHLD); Stop
// closes the lifeline, which tells scriptd to stop its children and exit, and
// waits for it. A supervisor destroyed without Stop (ctld failing to start
// after scriptd did) ends its scriptd too.
//
// Thread: ctld's main thread owns the object and makes every call.
#ifndef SKIFF_CTLD_SCRIPTD_SUPERVISOR_H_
#define SKIFF_CTLD_SCRIPTD_SUPERVISOR_H_

#include <spdlog/spdlog.h>
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ctld/scriptd_launcher.h"

namespace skiff::ctld {

struct ScriptdOptions {
  std::string binary;     // FindScriptdBinary's answer
  std::string conf_path;  // the skiff.conf ctld loaded
  std::string socket;     // where scriptd serves ctld
  std::string journal;    // scriptd's record of the calls it was running
  int verbose = 0;        // ctld's -v count, passed on
};

class ScriptdSupervisor {
 public:
  // REQUIRES: the calling process has no other thread (it forks).
  static absl::StatusOr<std::unique_ptr<ScriptdSupervisor>> Start(ScriptdOptions options);
  ~ScriptdSupervisor();
  ScriptdSupervisor(const ScriptdSupervisor&) = delete;
  ScriptdSupervisor& operator=(const ScriptdSupervisor&) = delete;

  // Waits for scriptd's first answer as long as it runs, up to about a
  // minute: a loaded machine (a fresh install paging in, many daemons
  // starting at once) may take longer than one ping's 10 seconds. A scriptd
  // that exited fails at once. False: it never answered (and is killed).
  bool WaitUntilAnswering(spdlog::logger& logger);

  // On SIGCHLD: if scriptd exited, reaps it and starts a new one (posix_spawn:
  // ctld has threads by now). Other children's SIGCHLDs change nothing.
  void RestartIfDied(spdlog::logger& logger);

  // Closes the lifeline and waits up to 5 s for scriptd to end, then kills it.
  void Stop();

  pid_t pid() const { return process_.pid; }
  const std::string& socket() const { return options_.socket; }

 private:
  ScriptdSupervisor(ScriptdOptions options, ScriptdProcess process)
      : options_(std::move(options)), process_(process) {}
  std::vector<std::string> Args() const;

  const ScriptdOptions options_;
  ScriptdProcess process_;
  bool stopped_ = false;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_SCRIPTD_SUPERVISOR_H_
