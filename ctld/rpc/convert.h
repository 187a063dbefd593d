// Domain <-> protobuf conversion for ctld's services: the only place that knows both.
#ifndef SKIFF_CTLD_RPC_CONVERT_H_
#define SKIFF_CTLD_RPC_CONVERT_H_

#include "common/config/config.h"
#include "ctld/controller.h"
#include "ctld/core/node_table.h"
#include "proto/ctld.pb.h"
#include "proto/types.pb.h"

namespace skiff::ctld {

void NodeToProto(const Node& node, v1::NodeInfo* out);
void PartitionToProto(const PartitionConfig& partition, v1::PartitionInfo* out);
NodeRegistration RegistrationFromProto(const v1::RegisterRequest& request);
NodeRunReport ReportFromProto(const v1::NodeJobReport& report);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_CONVERT_H_
