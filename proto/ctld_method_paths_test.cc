#include "proto/ctld_method_paths.h"

#include <string>

#include "gtest/gtest.h"
#include "proto/ctld.pb.h"

namespace skiff {
namespace {

template <typename Request, typename Reply>
const char* PathOf() {
  return v1::CtldMethodPathFor(Request::default_instance().GetTypeName(),
                               Reply::default_instance().GetTypeName());
}

TEST(CtldMethodPathFor, FindsAMethodByItsRequestAndReply) {
  EXPECT_STREQ((PathOf<v1::SubmitJobRequest, v1::SubmitJobReply>()), "/skiff.v1.Ctld/SubmitJob");
  EXPECT_STREQ((PathOf<v1::PingRequest, v1::PingReply>()), "/skiff.v1.Ctld/Ping");
  // A method not named after its request.
  EXPECT_STREQ((PathOf<v1::JobNotifyRequest, v1::JobNotifyReply>()), "/skiff.v1.Ctld/NotifyJob");
  EXPECT_STREQ((PathOf<v1::UpdateReservationRequest, v1::UpdateReservationReply>()),
               "/skiff.v1.Ctld/UpdateReservation");
  EXPECT_STREQ((PathOf<v1::GetConfigFilesRequest, v1::GetConfigFilesReply>()),
               "/skiff.v1.Ctld/GetConfigFiles");  // common/rpc/config_fetch.cc's
}

TEST(CtldMethodPathFor, NothingForAPairNoMethodHas) {
  EXPECT_EQ((PathOf<v1::SubmitJobRequest, v1::PingReply>()), nullptr);
  EXPECT_EQ(v1::CtldMethodPathFor("skiff.v1.NoSuchRequest", "skiff.v1.NoSuchReply"), nullptr);
}

}  // namespace
}  // namespace skiff
