// OtherNodes (allocation_epilogs.h) over gRPC: Noded.EndJobOnNode on each of a
// job's other nodes, with noded's credential (root). Thread-safe.
#ifndef SKIFF_NODED_OTHER_NODES_GRPC_H_
#define SKIFF_NODED_OTHER_NODES_GRPC_H_

#include <cstdint>
#include <memory>

#include "common/auth/authenticator.h"
#include "noded/allocation_epilogs.h"

namespace skiff::noded {

// `prolog_epilog_timeout` (seconds, 0 = unlimited) bounds how long a node's
// Epilog may take; `auth` must outlive the result.
std::unique_ptr<OtherNodes> MakeGrpcOtherNodes(Authenticator& auth, int64_t prolog_epilog_timeout);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_OTHER_NODES_GRPC_H_
