#include "ctld/core/burst_buffer/pools.h"

#include <gtest/gtest.h>

namespace skiff::ctld {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;

// The reference cluster's pools: fast 8 GiB in 1 MiB granules, bulk 64 GiB in
// 1 GiB granules (scontrol_show_burst_idle.txt).
constexpr char kReferencePools[] = R"({"pools":[
  {"id":"fast","quantity":8192,"granularity":1048576,"free":8192},
  {"id":"bulk","quantity":64,"granularity":1073741824,"free":64}]})";

BbPoolTable ReferenceTable() {
  absl::StatusOr<std::vector<BbPoolDef>> defs = ParseBbPoolsJson(kReferencePools);
  EXPECT_TRUE(defs.ok()) << defs.status();
  BbPoolTable table;
  table.Update(*defs);
  return table;
}

BbAllocation Alloc(uint32_t job, const std::string& pool, uint64_t size) {
  BbAllocation a;
  a.job_id = job;
  a.user_id = 1001;
  a.pool = pool;
  a.size = size;
  return a;
}

TEST(ParseBbPoolsJson, TotalIsQuantityTimesGranularity) {
  absl::StatusOr<std::vector<BbPoolDef>> defs = ParseBbPoolsJson(kReferencePools);
  ASSERT_TRUE(defs.ok()) << defs.status();
  ASSERT_EQ(defs->size(), 2u);
  EXPECT_EQ((*defs)[0].name, "fast");
  EXPECT_EQ((*defs)[0].granularity, kMiB);
  EXPECT_EQ((*defs)[0].total, 8 * kGiB);
  EXPECT_EQ((*defs)[0].unfree, 0u);
  EXPECT_EQ((*defs)[1].name, "bulk");
  EXPECT_EQ((*defs)[1].total, 64 * kGiB);
}

TEST(ParseBbPoolsJson, FreeCountsGranulesAndDefaults) {
  absl::StatusOr<std::vector<BbPoolDef>> defs =
      ParseBbPoolsJson(R"({"pools":[{"id":"p","quantity":10,"granularity":2,"free":4},
                                    {"id":"q","quantity":5}]})");
  ASSERT_TRUE(defs.ok()) << defs.status();
  EXPECT_EQ((*defs)[0].total, 20u);
  EXPECT_EQ((*defs)[0].unfree, 12u);  // (10 - 4) granules of 2
  EXPECT_EQ((*defs)[1].granularity, 1u);
  EXPECT_EQ((*defs)[1].unfree, 0u);
}

TEST(ParseBbPoolsJson, NoPoolsIsFine) {
  for (const char* empty : {"", "  \n", "{}", R"({"pools":[]})", R"({"pools":null})"}) {
    absl::StatusOr<std::vector<BbPoolDef>> defs = ParseBbPoolsJson(empty);
    ASSERT_TRUE(defs.ok()) << empty << ": " << defs.status();
    EXPECT_TRUE(defs->empty());
  }
}

TEST(ParseBbPoolsJson, RejectsBadEntriesNamingThePool) {
  struct Case {
    const char* json;
    const char* message_part;
  };
  const Case cases[] = {
      {"[1]", "expected a JSON object"},
      {R"({"pools":{}})", "must be an array"},
      {R"({"pools":[{"quantity":1}]})", "pools[0]: \"id\""},
      {R"({"pools":[{"id":"p"}]})", "pool \"p\": \"quantity\""},
      {R"({"pools":[{"id":"p","quantity":-1}]})", "\"quantity\""},
      {R"({"pools":[{"id":"p","quantity":"8"}]})", "\"quantity\""},
      {R"({"pools":[{"id":"p","quantity":1,"granularity":0}]})", "\"granularity\""},
      {R"({"pools":[{"id":"p","quantity":1,"free":2}]})", "larger than \"quantity\""},
      {R"({"pools":[{"id":"p","quantity":1},{"id":"p","quantity":2}]})", "listed twice"},
      {R"({"pools":[{"id":"p","quantity":4294967296,"granularity":4294967296}]})", "overflows"},
      {R"({"pools":[)", "invalid JSON"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<BbPoolDef>> defs = ParseBbPoolsJson(c.json);
    ASSERT_FALSE(defs.ok()) << c.json;
    EXPECT_EQ(defs.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(defs.status().message().find(c.message_part), absl::string_view::npos)
        << c.json << " -> " << defs.status().message();
  }
}

TEST(BbPoolTable, RoundsUpToGranularity) {
  BbPoolTable table = ReferenceTable();
  EXPECT_EQ(*table.RoundUp("bulk", 1), kGiB);
  EXPECT_EQ(*table.RoundUp("bulk", kGiB), kGiB);
  EXPECT_EQ(*table.RoundUp("bulk", kGiB + 1), 2 * kGiB);
  EXPECT_EQ(*table.RoundUp("fast", 1000), kMiB);
  EXPECT_EQ(table.RoundUp("nope", 1).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(table.RoundUp("bulk", ~0ULL).status().code(), absl::StatusCode::kOutOfRange);
}

TEST(BbPoolTable, ReserveAndReleaseAccountSpace) {
  BbPoolTable table = ReferenceTable();
  ASSERT_TRUE(table.Reserve(Alloc(1, "bulk", 2 * kGiB)).ok());
  ASSERT_TRUE(table.Reserve(Alloc(2, "bulk", 60 * kGiB)).ok());
  EXPECT_EQ(table.Find("bulk")->Used(), 62 * kGiB);
  EXPECT_EQ(table.Find("bulk")->Free(), 2 * kGiB);
  EXPECT_TRUE(table.Fits("bulk", 2 * kGiB));
  EXPECT_FALSE(table.Fits("bulk", 3 * kGiB));
  EXPECT_FALSE(table.Fits("nope", 1));

  absl::Status full = table.Reserve(Alloc(3, "bulk", 3 * kGiB));
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(table.Find("bulk")->allocated, 62 * kGiB) << "a refused reserve changes nothing";

  ASSERT_TRUE(table.Release(2).ok());
  EXPECT_EQ(table.Find("bulk")->Free(), 62 * kGiB);
  ASSERT_TRUE(table.Release(1).ok());
  EXPECT_EQ(table.Find("bulk")->Used(), 0u);
  EXPECT_TRUE(table.allocations().empty());
}

TEST(BbPoolTable, DoubleReleaseIsAnErrorAndNeverNegative) {
  BbPoolTable table = ReferenceTable();
  ASSERT_TRUE(table.Reserve(Alloc(7, "fast", kGiB)).ok());
  ASSERT_TRUE(table.Release(7).ok());
  absl::Status again = table.Release(7);
  EXPECT_EQ(again.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(table.Find("fast")->allocated, 0u);
  EXPECT_EQ(table.Find("fast")->Free(), 8 * kGiB);
}

TEST(BbPoolTable, ReserveRejectsBadRequests) {
  BbPoolTable table = ReferenceTable();
  EXPECT_EQ(table.Reserve(Alloc(1, "nope", kGiB)).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(table.Reserve(Alloc(1, "bulk", kGiB + 1)).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(table.Reserve(Alloc(1, "bulk", 0)).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(table.Reserve(Alloc(1, "bulk", kGiB)).ok());
  EXPECT_EQ(table.Reserve(Alloc(1, "fast", kMiB)).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(table.Find("fast")->allocated, 0u);
}

TEST(BbPoolTable, UsedIsMaxOfAllocatedAndUnfree) {
  BbPoolTable table;
  table.Update({BbPoolDef{"p", 1, 100, 30}});  // storage says 30 in use
  EXPECT_EQ(table.Find("p")->Free(), 70u);
  ASSERT_TRUE(table.Reserve(Alloc(1, "p", 20)).ok());
  EXPECT_EQ(table.Find("p")->Used(), 30u) << "Skiff's 20 is part of the storage's 30";
  ASSERT_TRUE(table.Reserve(Alloc(2, "p", 40)).ok());
  EXPECT_EQ(table.Find("p")->Used(), 60u);
  EXPECT_EQ(table.Find("p")->Free(), 40u);
}

TEST(BbPoolTable, PoolMissingFromLaterAnswerIsZeroedButReleasable) {
  BbPoolTable table = ReferenceTable();
  ASSERT_TRUE(table.Reserve(Alloc(1, "fast", kGiB)).ok());
  table.Update({BbPoolDef{"bulk", kGiB, 64 * kGiB, 0}, BbPoolDef{"new", 1, 10, 0}});
  const BbPool* fast = table.Find("fast");
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->total, 0u);
  EXPECT_EQ(fast->Free(), 0u);
  EXPECT_EQ(fast->granularity, kMiB);
  EXPECT_EQ(table.Reserve(Alloc(2, "fast", kMiB)).code(), absl::StatusCode::kResourceExhausted);
  ASSERT_EQ(table.pools().size(), 3u);
  EXPECT_EQ(table.pools()[0].name, "fast") << "order of first appearance is kept";
  EXPECT_EQ(table.pools()[2].name, "new");
  ASSERT_TRUE(table.Release(1).ok());
  EXPECT_EQ(fast->allocated, 0u);
  // It comes back when the script lists it again.
  table.Update({BbPoolDef{"fast", kMiB, 8 * kGiB, 0}});
  EXPECT_EQ(table.Find("fast")->Free(), 8 * kGiB);
  EXPECT_EQ(table.Find("bulk")->total, 0u);
}

TEST(BbPoolTable, RestoreSkipsSpaceCheckAndCreatesUnknownPool) {
  BbPoolTable table = ReferenceTable();
  ASSERT_TRUE(table.Restore(Alloc(1, "bulk", 100 * kGiB)).ok());
  EXPECT_EQ(table.Find("bulk")->Free(), 0u);
  ASSERT_TRUE(table.Restore(Alloc(2, "gone", 5)).ok());
  EXPECT_EQ(table.Find("gone")->total, 0u);
  EXPECT_EQ(table.Restore(Alloc(2, "bulk", kGiB)).code(), absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(table.Release(1).ok());
  ASSERT_TRUE(table.Release(2).ok());
  EXPECT_EQ(table.Find("bulk")->Used(), 0u);
  EXPECT_EQ(table.Find("gone")->Used(), 0u);
}

TEST(BbPoolTable, RealSizeOnlyRaisesTheCharge) {
  BbPoolTable table = ReferenceTable();
  ASSERT_TRUE(table.Reserve(Alloc(1, "bulk", 2 * kGiB)).ok());
  EXPECT_EQ(*table.GrowAllocation(1, kGiB), 2 * kGiB);
  EXPECT_EQ(*table.GrowAllocation(1, 3 * kGiB + 5), 4 * kGiB);
  EXPECT_EQ(table.Find("bulk")->allocated, 4 * kGiB);
  EXPECT_EQ(table.FindAllocation(1)->size, 4 * kGiB);
  EXPECT_EQ(table.GrowAllocation(9, kGiB).status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(table.Release(1).ok());
  EXPECT_EQ(table.Find("bulk")->allocated, 0u);
}

}  // namespace
}  // namespace skiff::ctld
