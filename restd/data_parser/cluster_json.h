// Nodes, partitions, reservations and fair-share as data_parser v0.0.42
// writes them (/slurm/{version}/nodes, partitions, reservations, shares), from
// ctld's replies. Fields Skiff has no notion of (energy, power, MCS, cloud
// instances, core specialisation) are left out; the schema requires none.
//
// Written as client::Json, restd's one writer. Pure; thread-safe.
#ifndef SKIFF_RESTD_DATA_PARSER_CLUSTER_JSON_H_
#define SKIFF_RESTD_DATA_PARSER_CLUSTER_JSON_H_

#include <functional>
#include <map>
#include <string>

#include "client/json_writer.h"
#include "client/shares.h"
#include "proto/ctld.pb.h"

namespace skiff::restd {

// A node (NODE_INFO). `user_name` names the uid that set the node's reason.
client::Json NodeJson(const v1::NodeInfo& node, const std::string& cluster,
                      const std::function<std::string(uint32_t)>& user_name);

// Slurm's node state words: the base state, then its flags ("IDLE",
// "DRAIN"; "MIXED", "NOT_RESPONDING"; "IDLE", "RESERVED").
client::Json NodeStateList(const v1::NodeInfo& node);

// A partition (PARTITION_INFO); `nodes` by name gives its CPU total and TRES.
client::Json PartitionJson(const v1::PartitionInfo& partition,
                           const std::map<std::string, const v1::NodeInfo*>& nodes,
                           const std::string& cluster);

// An advance reservation (RESERVATION_INFO).
client::Json ReservationJson(const v1::ReservationInfo& reservation);

// /shares' "shares" (SHARES_RESP_MSG): every association sshare computes, in
// its order, with Slurm's fair-share figures; with `keep`, only the lines it
// keeps (sshare -A/-u).
client::Json SharesJson(const v1::GetAccountsReply& accounts,
                        const std::function<bool(const client::ShareRow&)>& keep = nullptr);

}  // namespace skiff::restd

#endif  // SKIFF_RESTD_DATA_PARSER_CLUSTER_JSON_H_
