#include "ctld/timed_scripts.h"

#include <chrono>

#include "absl/strings/match.h"

namespace skiff::ctld {
namespace {

int64_t SteadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string ScriptStatName(const ScriptCall& call) {
  const std::string& id = call.request_id;
  if (absl::StartsWith(id, "prolog-")) return "PrologSlurmctld";
  if (absl::StartsWith(id, "epilog-")) return "EpilogSlurmctld";
  if (absl::StartsWith(id, "mail-")) return "MailProg";
  if (absl::StartsWith(id, "trigger-")) return "strigger program";
  return "other";
}

absl::StatusOr<ScriptEnd> TimedScripts::RunScript(const ScriptCall& call) {
  const int64_t started = SteadyMicros();
  absl::StatusOr<ScriptEnd> end = scripts_.RunScript(call);
  stats_.ScriptFinished(ScriptStatName(call), SteadyMicros() - started);
  return end;
}

absl::StatusOr<LuaEnd> TimedScripts::RunLua(const LuaCall& call) {
  const int64_t started = SteadyMicros();
  absl::StatusOr<LuaEnd> end = scripts_.RunLua(call);
  stats_.ScriptFinished(call.function, SteadyMicros() - started);
  return end;
}

}  // namespace skiff::ctld
