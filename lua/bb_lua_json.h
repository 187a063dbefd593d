// JSON forms of what an asynchronous burst_buffer.lua call needs, for the
// request scriptd writes on the stdin of its `scriptd --run-lua` helper
// (README.md, "Running asynchronous hooks"):
//
//   {"args": ["42", "/var/spool/skiff/bb/job_42/script", "1001", "1001"],
//    "job_info": {"job_id": 42, "user_id": 1001, ...}}
//
// ctld builds RunLuaRequest.job_info_json with BbJobInfoToJson; scriptd checks
// it with BbJobInfoFromJson and writes the request with BbLuaRequestToJson; the
// helper reads it back with ParseBbLuaRequest. job_info's keys are the Lua
// table's (BbJobInfo's field names). Pure functions; thread-compatible.
#ifndef SKIFF_LUA_BB_LUA_JSON_H_
#define SKIFF_LUA_BB_LUA_JSON_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "lua/bb_lua.h"

namespace skiff {

// Every field, always (a reader never has to guess a default).
JsonValue BbJobInfoToJsonValue(const BbJobInfo& info);
std::string BbJobInfoToJson(const BbJobInfo& info);

// Missing keys keep BbJobInfo's defaults; unknown keys are ignored (a newer
// ctld may send more). InvalidArgument names a key of the wrong type or a
// number out of its field's range, or a value that is not an object.
absl::StatusOr<BbJobInfo> BbJobInfoFromJson(const JsonValue& value);
absl::StatusOr<BbJobInfo> BbJobInfoFromJson(std::string_view text);

// One call of a hook, as the helper receives it.
struct BbLuaRequest {
  std::vector<std::string> args;      // already strings, in Slurm 24.05's order
  std::optional<BbJobInfo> job_info;  // absent for hooks that take none
};

std::string BbLuaRequestToJson(const BbLuaRequest& request);

// InvalidArgument for malformed JSON, a missing or non-array "args", a
// non-string argument, or a bad "job_info" (null counts as absent).
absl::StatusOr<BbLuaRequest> ParseBbLuaRequest(std::string_view text);

}  // namespace skiff

#endif  // SKIFF_LUA_BB_LUA_JSON_H_
