// Nodes, partitions, reservations and fair-share as data_parser v0.0.42
// writes them (/slurm/{version}/nodes, partitions, reservations, shares), from
// ctld's replies. Fields Skiff has no notion of (energy, power, MCS, cloud
// instances, core specialisation) are left out; the schema requires none.
//
// Pure; thread-safe.
#ifndef SKIFF_RESTD_DATA_PARSER_CLUSTER_JSON_H_
#define SKIFF_RESTD_DATA_PARSER_CLUSTER_JSON_H_

#include <functional>
#include <map>
#include <string>

#include "nlohmann/json.hpp"
#include "proto/ctld.pb.h"

namespace skiff::restd {

// A node (NODE_INFO). `user_name` names the uid that set the node's reason.
nlohmann::json NodeJson(const v1::NodeInfo& node, const std::string& cluster,
                        const std::function<std::string(uint32_t)>& user_name);

// Slurm's node state words: the base state, then its flags ("IDLE",
// "DRAIN"; "MIXED", "NOT_RESPONDING"; "IDLE", "RESERVED").
nlohmann::json NodeStateList(const v1::NodeInfo& node);

// A partition (PARTITION_INFO); `nodes` by name gives its CPU total and TRES.
nlohmann::json PartitionJson(const v1::PartitionInfo& partition,
                             const std::map<std::string, const v1::NodeInfo*>& nodes,
                             const std::string& cluster);

// An advance reservation (RESERVATION_INFO).
nlohmann::json ReservationJson(const v1::ReservationInfo& reservation);

// /shares' "shares" (SHARES_RESP_MSG): every association sshare computes, in
// its order, with Slurm's fair-share figures.
nlohmann::json SharesJson(const v1::GetAccountsReply& accounts);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DATA_PARSER_CLUSTER_JSON_H_
