#include "cli/scontrol/scontrol_commands.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

TEST(DescribeUpdateError, HoldOfUnknownJobMatchesSlurm) {
  // shared/reference/scontrol_hold_nonexistent.txt
  EXPECT_EQ(DescribeUpdateError("999999", absl::NotFoundError("no such job"), "hold"),
            "Invalid job id specified for job 999999\n"
            "slurm_suspend error: Invalid job id specified\n");
}

TEST(DescribeUpdateError, UpdateOfAnotherUsersJobMatchesSlurm) {
  // shared/reference/scontrol_update_other_users_job.txt
  EXPECT_EQ(DescribeUpdateError("15391", absl::PermissionDeniedError("Invalid user id"), "update"),
            "Invalid user id for job 15391\n");
}

TEST(DescribeUpdateError, OtherFailuresKeepCtldsMessage) {
  EXPECT_EQ(DescribeUpdateError("5", absl::InvalidArgumentError("Invalid partition name specified"),
                                "update"),
            "Invalid partition name specified for job 5\n");
}

TEST(ParseUpdate, JobTimeLimitAsInTheReference) {
  // shared/reference/scontrol_update_timelimit.txt
  absl::StatusOr<UpdateCommand> c = ParseUpdate({"JobId=15395", "TimeLimit=00:10:00"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_FALSE(c->is_node);
  ASSERT_EQ(c->jobs.size(), 1u);
  EXPECT_EQ(c->jobs[0].job_id(), 15395u);
  EXPECT_EQ(c->jobs[0].time_limit(), 600);
  EXPECT_FALSE(c->jobs[0].has_partition());
  EXPECT_FALSE(c->jobs[0].has_held());
}

TEST(ParseUpdate, EveryJobFieldAndIdLists) {
  absl::StatusOr<UpdateCommand> c =
      ParseUpdate({"jobid=1,2", "partition=gpu", "QOS=high", "NumNodes=2-4", "Name=x",
                   "Account=lab", "Comment=a b", "TimeLimit=UNLIMITED"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->jobs.size(), 2u);
  const v1::UpdateJobRequest& r = c->jobs[1];
  EXPECT_EQ(r.job_id(), 2u);
  EXPECT_EQ(r.partition(), "gpu");
  EXPECT_EQ(r.qos(), "high");
  EXPECT_EQ(r.min_nodes(), 2);
  EXPECT_EQ(r.name(), "x");
  EXPECT_EQ(r.account(), "lab");
  EXPECT_EQ(r.comment(), "a b");
  EXPECT_EQ(r.time_limit(), -1);
}

TEST(ParseUpdate, PartitionSendsItsSettingsAsTyped) {
  absl::StatusOr<UpdateCommand> command =
      ParseUpdate({"PartitionName=batch", "MaxTime=60", "state=DOWN"});
  ASSERT_TRUE(command.ok()) << command.status();
  EXPECT_TRUE(command->is_partition);
  EXPECT_EQ(command->partition.name(), "batch");
  ASSERT_EQ(command->partition.settings_size(), 2);
  EXPECT_EQ(command->partition.settings(1).key(), "state");
  EXPECT_EQ(command->partition.settings(1).value(), "DOWN");
  EXPECT_EQ(ParseUpdate({"PartitionName=batch"}).status().message(), "No changes specified");
  EXPECT_TRUE(ParseUpdate({"pa=batch", "Hidden=YES"}).ok());
}

TEST(ParseUpdate, JobErrors) {
  EXPECT_EQ(ParseUpdate({"JobId=5", "Shared=10"}).status().message(),
            "Update of this parameter is not supported: Shared=10\nRequest aborted");
  EXPECT_EQ(ParseUpdate({"JobId=5"}).status().message(), "No changes specified");
  EXPECT_EQ(ParseUpdate({"JobId=5", "TimeLimit=soon"}).status().message(),
            "Invalid TimeLimit value: soon");
  EXPECT_EQ(ParseUpdate({"JobId=5", "NumNodes=0"}).status().message(), "Invalid node count: 0");
  EXPECT_FALSE(ParseUpdate({"JobId=5_x", "Name=x"}).ok());
  EXPECT_EQ(ParseUpdate({"Name=x"}).status().message(),
            "No valid entity in update command\nInput line must include \"JobId\", \"NodeName\" "
            "or \"PartitionName\"");
  EXPECT_EQ(ParseUpdate({"JobId=5", "stray"}).status().message(),
            "Update of this parameter is not supported: stray\nRequest aborted");
}

TEST(ParseUpdate, NodeDrainWithReason) {
  absl::StatusOr<UpdateCommand> c =
      ParseUpdate({"NodeName=n[1-2]", "State=drain", "Reason=bad disk"});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->is_node);
  EXPECT_EQ(std::vector<std::string>(c->node.names().begin(), c->node.names().end()),
            (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(c->node.state(), "DRAIN");
  EXPECT_EQ(c->node.reason(), "bad disk");
  absl::StatusOr<UpdateCommand> resume = ParseUpdate({"nodename=n3", "state=RESUME"});
  ASSERT_TRUE(resume.ok());
  EXPECT_EQ(resume->node.state(), "RESUME");
}

TEST(ParseUpdate, NodeErrors) {
  EXPECT_EQ(ParseUpdate({"NodeName=n1", "State=DOWN"}).status().message(),
            "You must specify a reason when DOWNING or DRAINING a node. Request denied");
  EXPECT_FALSE(ParseUpdate({"NodeName=n1", "State=ASLEEP"}).ok());
  EXPECT_FALSE(ParseUpdate({"NodeName=n[1-", "State=RESUME"}).ok());
  EXPECT_EQ(ParseUpdate({"NodeName=n1"}).status().message(), "No changes specified");
  EXPECT_TRUE(ParseUpdate({"PartitionName=debug", "State=DOWN"})->is_partition);
}

TEST(MatchKeyword, AbbreviationsAndPlurals) {
  std::vector<std::string> commands = {"show",    "update",  "hold", "uhold",
                                       "release", "requeue", "ping", "version"};
  EXPECT_EQ(*MatchKeyword("sh", commands), "show");
  EXPECT_EQ(*MatchKeyword("SHOW", commands), "show");
  EXPECT_EQ(*MatchKeyword("rel", commands), "release");
  EXPECT_EQ(MatchKeyword("re", commands).status().message(), "ambiguous keyword: re");
  EXPECT_EQ(MatchKeyword("bogus", commands).status().message(), "invalid keyword: bogus");
  std::vector<std::string> entities = {"job", "node", "partition", "config"};
  EXPECT_EQ(*MatchKeyword("jobs", entities), "job");
  EXPECT_EQ(*MatchKeyword("nodes", entities), "node");
  EXPECT_EQ(*MatchKeyword("part", entities), "partition");
  EXPECT_EQ(*MatchKeyword("partitions", entities), "partition");
  EXPECT_FALSE(MatchKeyword("", entities).ok());
  // What scontrol.cc offers after "show"; Slurm takes "burst" and "bbstat".
  std::vector<std::string> shown = {"job", "node", "partition", "config", "burstbuffer", "bbstat"};
  EXPECT_EQ(*MatchKeyword("burst", shown), "burstbuffer");
  EXPECT_EQ(*MatchKeyword("BurstBuffer", shown), "burstbuffer");
  EXPECT_EQ(*MatchKeyword("bbstat", shown), "bbstat");
  EXPECT_EQ(*MatchKeyword("bb", shown), "bbstat");
  EXPECT_EQ(MatchKeyword("b", shown).status().message(), "ambiguous keyword: b");
}

TEST(ShowJobRequest, PlainIdsAndArrayTasks) {
  absl::StatusOr<v1::GetJobsRequest> plain = ShowJobRequest("42");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->job_ids_size(), 1);
  EXPECT_EQ(plain->job_ids(0), 42u);
  EXPECT_EQ(plain->refs_size(), 0);
  absl::StatusOr<v1::GetJobsRequest> task = ShowJobRequest("42_7");
  ASSERT_TRUE(task.ok());
  EXPECT_EQ(task->job_ids_size(), 0);
  ASSERT_EQ(task->refs_size(), 1);
  EXPECT_EQ(task->refs(0).job_id(), 42u);
  ASSERT_TRUE(task->refs(0).has_array_task_id());
  EXPECT_EQ(task->refs(0).array_task_id(), 7);
  for (const char* bad : {"x", "42_", "_7", "42_x", "0_1", "42.0", "42_[1-3]"}) {
    EXPECT_FALSE(ShowJobRequest(bad).ok()) << bad;
  }
}

v1::JobRef Ref(uint64_t id, int32_t task = -1) {
  v1::JobRef ref;
  ref.set_job_id(id);
  if (task >= 0) ref.set_array_task_id(task);
  return ref;
}

TEST(JobCommandRequest, HoldUholdReleaseRequeue) {
  v1::UpdateJobRequest hold = JobCommandRequest(Ref(5), "hold");
  EXPECT_EQ(hold.job_id(), 5u);
  EXPECT_TRUE(hold.held());
  EXPECT_FALSE(hold.user_hold());
  EXPECT_FALSE(hold.has_array_task_id());
  v1::UpdateJobRequest uhold = JobCommandRequest(Ref(5), "uhold");
  EXPECT_TRUE(uhold.held());
  EXPECT_TRUE(uhold.user_hold());
  v1::UpdateJobRequest release = JobCommandRequest(Ref(5, 7), "release");
  ASSERT_TRUE(release.has_held());
  EXPECT_FALSE(release.held());
  EXPECT_EQ(release.array_task_id(), 7);
  EXPECT_TRUE(JobCommandRequest(Ref(5), "requeue").requeue());
  v1::UpdateJobRequest requeue_hold = JobCommandRequest(Ref(5), "requeuehold");
  EXPECT_TRUE(requeue_hold.requeue_hold());
  EXPECT_FALSE(requeue_hold.has_held());
}

TEST(ParseUpdate, ArrayTasksAndTheFieldsUsersChange) {
  absl::StatusOr<UpdateCommand> update =
      ParseUpdate({"JobId=42_7,43", "Nice=50", "Priority=10", "Features=a&b", "ExcNodeList=n[1-2]",
                   "ReqNodeList=(null)", "ArrayTaskThrottle=2", "StartTime=now+60"});
  ASSERT_TRUE(update.ok()) << update.status();
  ASSERT_EQ(update->jobs.size(), 2u);
  const v1::UpdateJobRequest& task = update->jobs[0];
  EXPECT_EQ(task.job_id(), 42u);
  EXPECT_EQ(task.array_task_id(), 7);
  EXPECT_FALSE(update->jobs[1].has_array_task_id());
  EXPECT_EQ(task.nice(), 50);
  EXPECT_EQ(task.priority(), 10);
  EXPECT_EQ(task.features(), "a&b");
  EXPECT_EQ(task.exc_node_list(), "n[1-2]");
  ASSERT_TRUE(task.has_req_node_list());
  EXPECT_EQ(task.req_node_list(), "");
  EXPECT_EQ(task.array_task_throttle(), 2);
  EXPECT_GT(task.begin_time(), 0);
  EXPECT_EQ(ParseUpdate({"JobId=1", "Nice"})->jobs[0].nice(), 100);
  EXPECT_EQ(ParseUpdate({"JobId=1", "Nice=x"}).status().message(), "Invalid nice value: x");
  EXPECT_EQ(ParseUpdate({"JobId=1", "StartTime=soon"}).status().message(),
            "Invalid StartTime value: soon");
  EXPECT_EQ(ParseUpdate({"JobId=1", "Priority=-3"}).status().message(),
            "Invalid Priority value: -3");
}

TEST(ParseJobIdArgs, ListsAndErrors) {
  absl::StatusOr<std::vector<v1::JobRef>> refs = ParseJobIdArgs({"1,2", "3_4"});
  ASSERT_TRUE(refs.ok());
  ASSERT_EQ(refs->size(), 3u);
  EXPECT_EQ((*refs)[2].job_id(), 3u);
  EXPECT_EQ((*refs)[2].array_task_id(), 4);
  EXPECT_EQ(ParseJobIdArgs({}).status().message(), "No job id given");
  EXPECT_FALSE(ParseJobIdArgs({"x"}).ok());
}

TEST(ShowHosts, HostnamesExpandInOrderAndListsEncodeAsSlurmDoes) {
  EXPECT_EQ(*ShowHostnames("n[1-3],gpu01"), "n1\nn2\nn3\ngpu01\n");
  EXPECT_EQ(ShowHostnames("").status().message(), "host list is empty");
  EXPECT_EQ(ShowHostnames("n[1-").status().message(), "Invalid hostlist: n[1-");
  EXPECT_EQ(*EncodeHostlist("n1,n2,n3,n5", false), "n[1-3,5]\n");
  EXPECT_EQ(*EncodeHostlist("n3,n1,n2", false), "n[3,1-2]\n");
  EXPECT_EQ(*EncodeHostlist("n3,n1,n2,n1", true), "n[1-3]\n");
  EXPECT_EQ(*EncodeHostlist("gpu01\ngpu02\nlogin\nn7", false), "gpu[01-02],login,n7\n");
  EXPECT_EQ(*EncodeHostlist("n[8-12]", false), "n[8-12]\n");
  EXPECT_EQ(EncodeHostlist("n[2-1]", false).status().message(), "Invalid hostlist: n[2-1]");
}

}  // namespace
}  // namespace skiff::cli
