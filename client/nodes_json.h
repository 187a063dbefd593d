// sinfo --json: what Slurm 22.05's sinfo prints for --json, the v0.0.38
// "nodes" response (src/sinfo/data.c, src/plugins/openapi/v0.0.38/nodes.c),
// with Skiff's addition of the v0.0.38 "partitions" response (partitions.c)
// under its own key. Keys in Slurm's order, values of Slurm's types; fields
// Skiff has no notion of carry Slurm's values for "unset" (see docs/json.md).
// Like Slurm, --json ignores sinfo's filters and formats.
// Pure; thread-safe.
#ifndef SKIFF_CLIENT_NODES_JSON_H_
#define SKIFF_CLIENT_NODES_JSON_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "client/json_writer.h"
#include "proto/ctld.pb.h"

namespace skiff::client {

// The whole document: SlurmJsonEnvelope() with "nodes" (every node of
// `nodes`) and "partitions" (every partition of `partitions`). `user_name`
// names a uid (reason_set_by_user); nullopt or nullptr give JSON null.
Json SinfoJson(const v1::GetNodesReply& nodes, const v1::GetPartitionsReply& partitions,
               const std::function<std::optional<std::string>(uint32_t)>& user_name);

// scontrol --json show node: the envelope with "nodes" only, the same objects
// as SinfoJson's.
Json NodesJson(const v1::GetNodesReply& nodes,
               const std::function<std::optional<std::string>(uint32_t)>& user_name);

// scontrol --json show partition: the envelope with "partitions" only, the
// same objects as SinfoJson's (`nodes` gives the partitions' CPU and memory
// totals).
Json PartitionsJson(const v1::GetPartitionsReply& partitions, const v1::GetNodesReply& nodes);

}  // namespace skiff::client

#endif  // SKIFF_CLIENT_NODES_JSON_H_
