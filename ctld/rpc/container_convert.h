// ContainerSpec <-> v1::ContainerRequest, for every ctld edge that carries a
// job's container: the submitted spec (job_convert), the stored record
// (ctld/state/job_record) and the batch launch (ctld/clients/node_client).
// Pure.
#ifndef SKIFF_CTLD_RPC_CONTAINER_CONVERT_H_
#define SKIFF_CTLD_RPC_CONTAINER_CONVERT_H_

#include "ctld/core/container_spec.h"
#include "proto/types.pb.h"

namespace skiff::ctld {

ContainerSpec ContainerFromProto(const v1::ContainerRequest& request);

// Writes `spec` into `*out` (cleared first); an empty spec leaves it empty.
void ContainerToProto(const ContainerSpec& spec, v1::ContainerRequest* out);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_CONTAINER_CONVERT_H_
