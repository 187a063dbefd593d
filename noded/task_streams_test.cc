#include "noded/task_streams.h"

#include "gtest/gtest.h"

namespace skiff::noded {
namespace {

// A node's side that echoes stdin as output until the step manager closes its
// side, then says it has finished (RunTasks's protocol).
void Echo(TaskPeer& peer) {
  v1::TaskInput input;
  while (peer.Read(&input)) {
    v1::TaskOutput out;
    out.set_data(input.stdin());
    peer.Write(out);
  }
  v1::TaskOutput last;
  last.set_finished(true);
  peer.Write(last);
}

TEST(LocalTaskStreamTest, CarriesBothWaysAndEndsLikeACall) {
  LocalTaskStream stream(&Echo);
  v1::TaskInput in;
  in.set_stdin("hello");
  ASSERT_TRUE(stream.Write(in));
  v1::TaskOutput out;
  ASSERT_TRUE(stream.Read(&out));
  EXPECT_EQ(out.data(), "hello");
  stream.WritesDone();
  EXPECT_FALSE(stream.Write(in)) << "no writes after WritesDone";
  ASSERT_TRUE(stream.Read(&out));
  EXPECT_TRUE(out.finished());
  EXPECT_FALSE(stream.Read(&out));
  EXPECT_TRUE(stream.Finish().ok());
}

TEST(LocalTaskStreamTest, CancelEndsTheOtherSide) {
  bool saw_cancel = false;
  LocalTaskStream stream([&](TaskPeer& peer) {
    v1::TaskInput input;
    while (peer.Read(&input)) {
    }
    saw_cancel = peer.Cancelled();
  });
  stream.Cancel();
  v1::TaskOutput out;
  EXPECT_FALSE(stream.Read(&out));
  EXPECT_EQ(stream.Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(saw_cancel);
}

}  // namespace
}  // namespace skiff::noded
