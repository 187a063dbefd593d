#include "ctld/state/job_spec_parts.h"

#include <utility>

namespace skiff::ctld {
namespace {

void MovePayload(v1::JobSpec* from, v1::JobSpec* to) {
  to->set_script(std::move(*from->mutable_script()));
  from->clear_script();
  to->mutable_argv()->Swap(from->mutable_argv());
  from->clear_argv();
  to->mutable_environment()->swap(*from->mutable_environment());
  from->clear_environment();
}

}  // namespace

SpecParts SplitSpec(const v1::JobSpec& spec) {
  v1::JobSpec light = spec;
  v1::JobSpec payload;
  MovePayload(&light, &payload);
  SpecParts parts;
  light.SerializeToString(&parts.light);
  payload.SerializeToString(&parts.payload);
  return parts;
}

std::string LightPart(const std::string& stored) {
  v1::JobSpec spec;
  if (!spec.ParseFromString(stored)) return stored;  // not ours to judge
  if (spec.script().empty() && spec.argv().empty() && spec.environment().empty()) return stored;
  v1::JobSpec payload;
  MovePayload(&spec, &payload);
  return spec.SerializeAsString();
}

v1::JobSpec JoinSpec(const std::string& light, const std::string& stored) {
  v1::JobSpec spec;
  spec.ParseFromString(light);
  v1::JobSpec whole;
  whole.ParseFromString(stored);
  MovePayload(&whole, &spec);
  return spec;
}

}  // namespace skiff::ctld
