#include "client/nodes_json.h"

#include <gtest/gtest.h>

namespace skiff::client {
namespace {

TEST(SinfoJson, NodesCarrySlurmsKeysAndUnsetValues) {
  v1::GetNodesReply nodes;
  v1::NodeInfo* n = nodes.add_nodes();
  n->set_name("n1");
  n->set_state("IDLE");
  n->set_drain(true);
  n->set_reason("fan");
  n->set_reason_time(100);
  n->set_cpus(2);
  n->add_partitions("debug");
  v1::GetPartitionsReply parts;
  v1::PartitionInfo* p = parts.add_partitions();
  p->set_name("debug");
  p->set_is_default(true);
  p->set_state("UP");
  p->set_max_time(86400);
  p->set_default_time(-1);
  p->set_max_nodes(-1);
  p->add_nodes("n1");
  const std::string out = SinfoJson(nodes, parts, nullptr).Dump();
  EXPECT_NE(out.find("\"meta\": {"), std::string::npos) << out;
  EXPECT_NE(out.find("\"state\": \"idle\",\n      \"state_flags\": [\n        \"DRAIN\"\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"reason\": \"fan\""), std::string::npos);
  EXPECT_NE(out.find("\"reason_changed_at\": 100"), std::string::npos);
  EXPECT_NE(out.find("\"reason_set_by_user\": null"), std::string::npos);
  EXPECT_NE(out.find("\"cpu_load\": 4294967294"), std::string::npos);
  EXPECT_NE(out.find("\"free_memory\": -2"), std::string::npos);
  EXPECT_NE(out.find("\"gres\": null"), std::string::npos);
  EXPECT_NE(out.find("\"max_time_limit\": 1440"), std::string::npos);
  EXPECT_NE(out.find("\"default_time_limit\": null"), std::string::npos);
  EXPECT_NE(out.find("\"nodes\": \"n1\""), std::string::npos);
  EXPECT_NE(out.find("\"flags\": [\n        \"default\"\n      ]"), std::string::npos) << out;
}

}  // namespace
TEST(SinfoJson, ScontrolGetsNodesOrPartitionsAlone) {
  v1::GetNodesReply nodes;
  v1::NodeInfo* n = nodes.add_nodes();
  n->set_name("n1");
  n->set_state("IDLE");
  n->set_cpus(4);
  v1::GetPartitionsReply parts;
  v1::PartitionInfo* p = parts.add_partitions();
  p->set_name("debug");
  p->set_state("UP");
  p->add_nodes("n1");
  const std::string node_doc = NodesJson(nodes, nullptr).Dump();
  // Top-level keys are indented by two spaces (node objects have their own
  // "partitions" list).
  EXPECT_NE(node_doc.find("\n  \"nodes\": ["), std::string::npos) << node_doc;
  EXPECT_EQ(node_doc.find("\n  \"partitions\""), std::string::npos) << node_doc;
  const std::string part_doc = PartitionsJson(parts, nodes).Dump();
  EXPECT_NE(part_doc.find("\n  \"partitions\": ["), std::string::npos) << part_doc;
  EXPECT_EQ(part_doc.find("\n  \"nodes\""), std::string::npos) << part_doc;
  EXPECT_EQ(SinfoJson(nodes, parts, nullptr)
                    .Dump()
                    .find(node_doc.substr(node_doc.find("\"nodes\""), 200)) != std::string::npos,
            true);
}

}  // namespace skiff::client
