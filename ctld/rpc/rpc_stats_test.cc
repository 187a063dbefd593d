#include "ctld/rpc/rpc_stats.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "proto/schema.h"

namespace skiff::ctld {
namespace {

TEST(RpcStatsTest, NamesSkiffRpcsAfterSlurmsRequests) {
  EXPECT_EQ(RpcTypeOf("/skiff.v1.Ctld/GetJobs").name, "REQUEST_JOB_INFO");
  EXPECT_EQ(RpcTypeOf("/skiff.v1.Ctld/GetJobs").id, 2003u);
  EXPECT_EQ(RpcTypeOf("/skiff.v1.Ctld/SubmitJob").id, 4003u);
  EXPECT_EQ(RpcTypeOf("/skiff.v1.Ctld/GetStats").name, "REQUEST_STATS_INFO");
  EXPECT_EQ(RpcTypeOf("/skiff.v1.NodeService/Register").name, "MESSAGE_NODE_REGISTRATION_STATUS");
  EXPECT_EQ(RpcTypeOf("/skiff.v1.NodeService/Heartbeat").name, "SKIFF_NODE_HEARTBEAT");
}

TEST(RpcStatsTest, AnUnknownMethodIsNamedAfterItself) {
  const RpcType type = RpcTypeOf("/skiff.v1.Ctld/GetFancyThings");
  EXPECT_EQ(type.name, "SKIFF_GET_FANCY_THINGS");
  EXPECT_EQ(type.id, 0u);
}

// Every RPC of ctld's main server has its own name and number: a new RPC
// added to the protos without a line in rpc_stats.cc's table fails here.
TEST(RpcStatsTest, EveryCtldMethodHasADistinctType) {
  std::set<std::string> names;
  std::set<uint32_t> ids;
  for (const char* service : {"skiff.v1.Ctld", "skiff.v1.NodeService", "skiff.v1.JoinTokens"}) {
    const google::protobuf::ServiceDescriptor* descriptor = proto_schema::Service(service);
    ASSERT_NE(descriptor, nullptr) << service;
    for (int i = 0; i < descriptor->method_count(); ++i) {
      const std::string method = "/" + std::string(service) + "/" + descriptor->method(i)->name();
      const RpcType type = RpcTypeOf(method);
      EXPECT_NE(type.id, 0u) << method << " is missing from rpc_stats.cc's table";
      EXPECT_TRUE(names.insert(type.name).second) << type.name;
      EXPECT_TRUE(ids.insert(type.id).second) << type.id;
    }
  }
}

}  // namespace
}  // namespace skiff::ctld
