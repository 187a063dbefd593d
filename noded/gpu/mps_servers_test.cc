#include "noded/gpu/mps_servers.h"

#include <gtest/gtest.h>

namespace skiff::noded {
namespace {

TEST(MpsBook, TheFirstJobOfAGpuStartsItsServerAndTheLastEndsIt) {
  MpsBook book;
  EXPECT_EQ(book.Join(1, {0, 1001, 100}).value(), true);
  EXPECT_EQ(book.Join(2, {0, 1001, 100}).value(), false);
  EXPECT_EQ(book.Join(2, {0, 1001, 100}).value(), false);  // twice is once
  EXPECT_EQ(book.Join(3, {1, 1002, 100}).value(), true);   // another GPU, another user
  EXPECT_TRUE(book.EndAllBut({1, 2, 3}).empty());
  EXPECT_TRUE(book.EndAllBut({2, 3}).empty());  // job 2 still holds GPU 0
  const std::vector<MpsBook::Server> ended = book.EndAllBut({3});
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].gpu, 0);
  EXPECT_EQ(ended[0].uid, 1001u);
  EXPECT_EQ(book.Join(4, {0, 1002, 100}).value(), true);  // GPU 0's next server
}

TEST(MpsBook, OneServerServesOneUid) {
  MpsBook book;
  ASSERT_TRUE(book.Join(1, {0, 1001, 100}).ok());
  const absl::StatusOr<bool> other = book.Join(2, {0, 1002, 100});
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(other.status().message(), "the MPS server of GPU 0 serves uid 1001");
  book.Forget(0);
  EXPECT_EQ(book.Join(2, {0, 1002, 100}).value(), true);
}

// A fenced share's memory limit: its fraction of the GPU, in whole MiB, for
// device 0 (the GPU as its server numbers it).
TEST(PinnedMemoryLimit, IsTheShareOfTheGpusMemoryInMib) {
  constexpr uint64_t kMiB = 1024 * 1024;
  EXPECT_EQ(PinnedMemoryLimit(40960 * kMiB, 0.25), "0=10240M");
  EXPECT_EQ(PinnedMemoryLimit(40960 * kMiB, 1.0 / 3), "0=13653M");
  EXPECT_EQ(PinnedMemoryLimit(40960 * kMiB + 12345, 1), "0=40960M");
  EXPECT_EQ(PinnedMemoryLimit(40960 * kMiB, 2), "0=40960M");  // never beyond the GPU
  EXPECT_EQ(PinnedMemoryLimit(kMiB / 2, 0.5), "0=1M");        // at least 1
}

}  // namespace
}  // namespace skiff::noded
