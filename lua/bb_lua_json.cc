#include "lua/bb_lua_json.h"

#include <cstdint>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace skiff {
namespace {

// job_info's fields, once: the writer and the reader walk the same tables.
struct U32Field {
  const char* key;
  uint32_t BbJobInfo::*member;
};
constexpr U32Field kU32Fields[] = {
    {"job_id", &BbJobInfo::job_id},
    {"user_id", &BbJobInfo::user_id},
    {"group_id", &BbJobInfo::group_id},
    {"array_job_id", &BbJobInfo::array_job_id},
    {"array_task_id", &BbJobInfo::array_task_id},
};
struct I64Field {
  const char* key;
  int64_t BbJobInfo::*member;
};
constexpr I64Field kI64Fields[] = {
    {"time_limit", &BbJobInfo::time_limit},
};
struct StringField {
  const char* key;
  std::string BbJobInfo::*member;
};
constexpr StringField kStringFields[] = {
    {"user_name", &BbJobInfo::user_name},
    {"account", &BbJobInfo::account},
    {"partition", &BbJobInfo::partition},
    {"qos", &BbJobInfo::qos},
    {"nodes", &BbJobInfo::nodes},
    {"work_dir", &BbJobInfo::work_dir},
    {"burst_buffer", &BbJobInfo::burst_buffer},
    {"burst_buffer_state", &BbJobInfo::burst_buffer_state},
    {"job_state", &BbJobInfo::job_state},
    {"gres_total", &BbJobInfo::gres_total},
};

absl::Status WrongType(const char* key, const char* expected) {
  return absl::InvalidArgumentError(absl::StrCat("job_info: ", key, " must be ", expected));
}

}  // namespace

JsonValue BbJobInfoToJsonValue(const BbJobInfo& info) {
  JsonValue::Object object;
  for (const U32Field& f : kU32Fields) object[f.key] = JsonValue::Integer(info.*f.member);
  for (const I64Field& f : kI64Fields) object[f.key] = JsonValue::Integer(info.*f.member);
  for (const StringField& f : kStringFields) object[f.key] = JsonValue::String(info.*f.member);
  return JsonValue::MakeObject(std::move(object));
}

std::string BbJobInfoToJson(const BbJobInfo& info) { return WriteJson(BbJobInfoToJsonValue(info)); }

absl::StatusOr<BbJobInfo> BbJobInfoFromJson(const JsonValue& value) {
  if (value.type() != JsonValue::Type::kObject) {
    return absl::InvalidArgumentError("job_info must be a JSON object");
  }
  BbJobInfo info;
  for (const U32Field& f : kU32Fields) {
    const JsonValue* v = value.Find(f.key);
    if (v == nullptr) continue;
    if (v->type() != JsonValue::Type::kInteger || v->as_integer() < 0 ||
        v->as_integer() > std::numeric_limits<uint32_t>::max()) {
      return WrongType(f.key, "an integer from 0 to 4294967295");
    }
    info.*f.member = static_cast<uint32_t>(v->as_integer());
  }
  for (const I64Field& f : kI64Fields) {
    const JsonValue* v = value.Find(f.key);
    if (v == nullptr) continue;
    if (v->type() != JsonValue::Type::kInteger) return WrongType(f.key, "an integer");
    info.*f.member = v->as_integer();
  }
  for (const StringField& f : kStringFields) {
    const JsonValue* v = value.Find(f.key);
    if (v == nullptr) continue;
    if (v->type() != JsonValue::Type::kString) return WrongType(f.key, "a string");
    info.*f.member = v->as_string();
  }
  return info;
}

absl::StatusOr<BbJobInfo> BbJobInfoFromJson(std::string_view text) {
  absl::StatusOr<JsonValue> value = ParseJson(text);
  if (!value.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("job_info: ", value.status().message()));
  }
  return BbJobInfoFromJson(*value);
}

std::string BbLuaRequestToJson(const BbLuaRequest& request) {
  JsonValue::Array args;
  for (const std::string& arg : request.args) args.push_back(JsonValue::String(arg));
  JsonValue::Object object;
  object["args"] = JsonValue::MakeArray(std::move(args));
  if (request.job_info.has_value()) object["job_info"] = BbJobInfoToJsonValue(*request.job_info);
  return WriteJson(JsonValue::MakeObject(std::move(object)));
}

absl::StatusOr<BbLuaRequest> ParseBbLuaRequest(std::string_view text) {
  absl::StatusOr<JsonValue> value = ParseJson(text);
  if (!value.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("request: ", value.status().message()));
  }
  if (value->type() != JsonValue::Type::kObject) {
    return absl::InvalidArgumentError("request: must be a JSON object");
  }
  const JsonValue* args = value->Find("args");
  if (args == nullptr || args->type() != JsonValue::Type::kArray) {
    return absl::InvalidArgumentError("request: \"args\" must be an array of strings");
  }
  BbLuaRequest request;
  for (const JsonValue& arg : args->as_array()) {
    if (arg.type() != JsonValue::Type::kString) {
      return absl::InvalidArgumentError("request: \"args\" must be an array of strings");
    }
    request.args.push_back(arg.as_string());
  }
  const JsonValue* job_info = value->Find("job_info");
  if (job_info != nullptr && !job_info->is_null()) {
    absl::StatusOr<BbJobInfo> info = BbJobInfoFromJson(*job_info);
    if (!info.ok()) return info.status();
    request.job_info = *std::move(info);
  }
  return request;
}

}  // namespace skiff
