// TimedScripts: ctld's port to scriptd with a stopwatch. Each script and
// burst_buffer.lua hook the Controller runs is timed, from the call to its
// answer (scriptd's start of the child, the child's run, the answer's way
// back), into DiagStats::ScriptFinished under a name an admin knows:
// PrologSlurmctld, EpilogSlurmctld, MailProg, "strigger program", or the Lua
// function's own name. sdiag and restd's /metrics show the figures, so a stage
// that got slower is seen where it runs (issue 48).
//
// Threads: any; the wrapped port and the statistics are thread-safe, and this
// adds no state of its own. Both are borrowed and must outlive it.
#ifndef SKIFF_CTLD_TIMED_SCRIPTS_H_
#define SKIFF_CTLD_TIMED_SCRIPTS_H_

#include <cstdint>
#include <string>

#include "ctld/clients/scriptd_port.h"
#include "ctld/diag_stats.h"

namespace skiff::ctld {

// The statistics' name of a script call, from its request id's kind
// ("prolog-42-0" is PrologSlurmctld; launch_builder.cc, controller_mail.cc and
// controller_triggers.cc make them).
std::string ScriptStatName(const ScriptCall& call);

class TimedScripts final : public ScriptdPort {
 public:
  TimedScripts(ScriptdPort& scripts, DiagStats& stats) : scripts_(scripts), stats_(stats) {}

  absl::StatusOr<ScriptEnd> RunScript(const ScriptCall& call) override;
  void KillScript(const std::string& request_id) override { scripts_.KillScript(request_id); }
  absl::StatusOr<LuaEnd> RunLua(const LuaCall& call) override;
  absl::StatusOr<int> FlushJob(uint64_t job_id) override { return scripts_.FlushJob(job_id); }

 private:
  ScriptdPort& scripts_;
  DiagStats& stats_;
};

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_TIMED_SCRIPTS_H_
