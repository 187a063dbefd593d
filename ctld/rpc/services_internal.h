// What more than one of CtldService's files (services*.cc) needs. Internal to
// the :services library.
#ifndef SKIFF_CTLD_RPC_SERVICES_INTERNAL_H_
#define SKIFF_CTLD_RPC_SERVICES_INTERNAL_H_

#include <string>
#include <vector>

#include "google/protobuf/repeated_field.h"

namespace skiff::ctld::services_internal {

// A request's repeated names (nodes, partitions, users, QOS) as a vector.
inline std::vector<std::string> Names(
    const google::protobuf::RepeatedPtrField<std::string>& names) {
  return {names.begin(), names.end()};
}

}  // namespace skiff::ctld::services_internal

#endif  // SKIFF_CTLD_RPC_SERVICES_INTERNAL_H_
