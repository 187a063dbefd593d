// Issue 10's security holes, probed as a hostile user would, through the real
// daemons: raw GetJobs calls with another user's credential, PrivateData=jobs,
// and updates that try to reach what submission refuses. Runs as root (it
// creates test users and mints their munge credentials with runuser).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/config/config_loader.h"
#include "common/rpc/auth_metadata.h"
#include "proto/ctld.grpc.pb.h"
#include "proto/noded.grpc.pb.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

constexpr char kAlice[] = "skiffalice";
constexpr char kBob[] = "skiffbob";

class SecurityTest : public ::testing::Test {
 protected:
  void StartCluster(const std::string& extra_config,
                    const std::map<std::string, std::string>& environment = {}) {
    if (getuid() != 0) GTEST_SKIP() << "needs root to create test users";
    LocalCluster::Options options = NodesWithoutGpus(2);
    options.environment = environment;
    options.extra_config =
        "PartitionName=vip Nodes=n2 RootOnly=YES MaxTime=1-00:00:00 State=UP\n" + extra_config;
    StartLocalCluster(options, &cluster_);
    if (HasFatalFailure()) return;
    EnsureUsers(*cluster_, {kAlice, kBob});
    if (HasFatalFailure()) return;
    auto config = LoadConfig(cluster_->conf_path());
    ASSERT_TRUE(config.ok()) << config.status();
    munge_socket_ = config->skiff.auth_socket;
    ctld_target_ = absl::StrCat(config->skiff.ctld_addr, ":", config->skiff.ctld_port);
    stub_ =
        v1::Ctld::NewStub(grpc::CreateChannel(ctld_target_, grpc::InsecureChannelCredentials()));
  }

  // A raw call as `user`, with a credential minted by that user (what a
  // hostile user can do with their own munge credential and a gRPC client).
  grpc::Status CallAs(const std::string& user,
                      const std::function<grpc::Status(grpc::ClientContext*)>& call) {
    const std::string mint = absl::StrCat("munge -n -S ", munge_socket_);
    const CommandResult cred =
        RunShell(user == "root" ? mint : absl::StrCat("runuser -u ", user, " -- ", mint));
    EXPECT_EQ(cred.exit_code, 0) << cred.err;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    context.AddMetadata(kCredentialMetadataKey,
                        std::string(absl::StripTrailingAsciiWhitespace(cred.out)));
    return call(&context);
  }

  grpc::Status GetJobsAs(const std::string& user, const v1::GetJobsRequest& request,
                         v1::GetJobsReply* reply) {
    return CallAs(user, [&](grpc::ClientContext* context) {
      return stub_->GetJobs(context, request, reply);
    });
  }

  uint64_t SubmitAs(const std::string& user, const std::string& args) {
    const CommandResult r = cluster_->RunAs(user, "sbatch " + args);
    const std::vector<uint64_t> ids = SubmittedJobIds(r.out);
    EXPECT_EQ(ids.size(), 1u) << r.err;
    return ids.empty() ? 0 : ids[0];
  }

  std::string Show(uint64_t id) {
    return cluster_->Run(absl::StrCat("scontrol show job ", id)).out;
  }

  std::unique_ptr<LocalCluster> cluster_;
  std::string munge_socket_;
  std::string ctld_target_;
  std::unique_ptr<v1::Ctld::Stub> stub_;
};

// ctld's database holds every job's script and environment, and a node's
// spool the job's launch spec: under a StateSaveLocation of 0755 (as packages
// make it) and the usual umask, no other user may read them. In the spool only
// the script is the user's (0700); the rest is noded's alone.
TEST_F(SecurityTest, StateAndSpoolFilesAreReadableOnlyByTheirDaemon) {
  StartCluster("");
  const std::string state = cluster_->dir() + "/state/ctld";
  ASSERT_EQ(RunShell("chmod 755 " + state).exit_code, 0);
  const uint64_t id = SubmitAs(kAlice, "--wrap='sleep 60'");
  ASSERT_NE(id, 0u);
  std::string node;
  ASSERT_TRUE(Eventually(30, [&] {
    node = ScontrolField(Show(id), "NodeList");
    return ScontrolField(Show(id), "JobState") == "RUNNING" &&
           RunShell(absl::StrCat("test -s ", cluster_->dir(), "/state/noded/", node, "/job", id,
                                 "/pids"))
                   .exit_code == 0;
  })) << Show(id);

  for (const char* name : {"ctld.db", "ctld.db-wal", "ctld.db-shm"}) {
    EXPECT_EQ(RunShell(absl::StrCat("stat -c %a ", state, "/", name)).out, "600\n") << name;
  }
  const std::string job_dir = absl::StrCat(cluster_->dir(), "/state/noded/", node, "/job", id);
  EXPECT_EQ(RunShell("stat -c %a " + job_dir).out, "711\n");
  const CommandResult files = RunShell("cd " + job_dir + " && stat -c '%n %a %U' * | sort");
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_NE(files.out.find("lease 600 root\n"), std::string::npos) << files.out;
  EXPECT_NE(files.out.find("pids 600 root\n"), std::string::npos) << files.out;
  for (absl::string_view line : absl::StrSplit(files.out, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "slurm_script ")) {
      EXPECT_EQ(line, absl::StrCat("slurm_script 700 ", kAlice));
    } else {
      EXPECT_TRUE(absl::EndsWith(line, " 600 root")) << line;
    }
  }
  EXPECT_EQ(cluster_->Run(absl::StrCat("scancel ", id)).exit_code, 0);
}

// One ordinary user held every connection ctld would take, each with a valid
// credential (a Ping), and root's sinfo and other users' sbatch got "connect
// failure". ctld's descriptors are capped here so that its table holds 300
// connections (37 for one user): alice opens 320, each authenticated, yet root
// and bob still get in, and alice is left with no more than her share.
TEST_F(SecurityTest, OneUsersConnectionsNeverCrowdOutRootOrOtherUsers) {
  StartCluster("", {{"SKIFF_CTLD_PREFIX", "prlimit --nofile=600:600 --"}});
  constexpr int kConnections = 320;
  const CommandResult creds =
      RunShell(absl::StrCat("runuser -u ", kAlice, " -- sh -c 'for i in $(seq ", kConnections,
                            "); do munge -n -S ", munge_socket_, " || exit 1; done'"));
  ASSERT_EQ(creds.exit_code, 0) << creds.err;
  const std::vector<std::string> lines = absl::StrSplit(creds.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), static_cast<size_t>(kConnections));
  std::vector<std::shared_ptr<grpc::Channel>> held;
  int answered = 0;
  for (const std::string& cred : lines) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection of its own
    auto channel =
        grpc::CreateCustomChannel(ctld_target_, grpc::InsecureChannelCredentials(), args);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    context.AddMetadata(kCredentialMetadataKey, cred);
    v1::PingReply reply;
    if (v1::Ctld::NewStub(channel)->Ping(&context, v1::PingRequest(), &reply).ok()) ++answered;
    held.push_back(std::move(channel));
  }
  EXPECT_GT(answered, 37);  // each got its answer before the cap closed older ones

  const CommandResult sinfo = cluster_->Run("sinfo -h");
  EXPECT_EQ(sinfo.exit_code, 0) << sinfo.err;
  const uint64_t id = SubmitAs(kBob, "--wrap=true");
  EXPECT_NE(id, 0u);
  // What alice still holds, once her channels have seen ctld close the rest.
  int alice_open = 0;
  EXPECT_TRUE(Eventually(30, [&] {
    alice_open = 0;
    for (const auto& channel : held) {
      if (channel->GetState(false) == GRPC_CHANNEL_READY) ++alice_open;
    }
    return alice_open <= 37;
  })) << alice_open;
}

// Threads of a process, from /proc.
int ThreadsOf(pid_t pid) {
  const std::string status = ReadFile(absl::StrCat("/proc/", pid, "/status"));
  const size_t at = status.find("Threads:");
  return at == std::string::npos ? -1 : std::atoi(status.c_str() + at + 8);
}

// A RunStep stream holds one of noded's threads until its request arrives:
// 6,000 empty streams took a noded to 6,015 threads. A user with no job on the
// node is refused before any thread waits, and one with a job may hold at most
// max_step_streams_per_user streams there (256 unless set; 16 here, so the test
// does not depend on how fast, or how far, the host lets noded start threads:
// with 256 it failed on CI's machine).
TEST_F(SecurityTest, StepStreamsCannotPinANodedsThreads) {
  constexpr int kCap = 16;
  StartCluster(
      absl::StrCat("SlurmdParameters=config_overrides,max_step_streams_per_user=", kCap, "\n"));
  auto config = LoadConfig(cluster_->conf_path());
  ASSERT_TRUE(config.ok()) << config.status();
  std::string target;
  for (const NodeConfig& node : config->skiff.nodes) {
    if (node.name == "n1") {
      target = absl::StrCat(node.addr.empty() ? "127.0.0.1" : node.addr, ":",
                            node.port != 0 ? node.port : config->skiff.slurmd_port);
    }
  }
  ASSERT_FALSE(target.empty());
  auto stub = v1::Noded::NewStub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  const pid_t noded = cluster_->Pid("noded-n1");
  const int threads_before = ThreadsOf(noded);

  // Opens `count` streams as `user` and sends nothing; returns their ends.
  struct Open {
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::StepInput, v1::StepOutput>> stream;
  };
  auto open_streams = [&](const std::string& user, int count, int seconds = 60) {
    const CommandResult creds =
        RunShell(absl::StrCat("runuser -u ", user, " -- sh -c 'for i in $(seq ", count,
                              "); do munge -n -S ", munge_socket_, " || exit 1; done'"));
    EXPECT_EQ(creds.exit_code, 0) << creds.err;
    std::vector<Open> streams;
    for (absl::string_view cred : absl::StrSplit(creds.out, '\n', absl::SkipEmpty())) {
      Open open;
      open.context = std::make_unique<grpc::ClientContext>();
      open.context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
      open.context->AddMetadata(kCredentialMetadataKey, std::string(cred));
      open.stream = stub->RunStep(open.context.get());
      streams.push_back(std::move(open));
    }
    return streams;
  };

  // Bob has no job on n1.
  std::vector<Open> bobs = open_streams(kBob, 50);
  for (Open& open : bobs) {
    const grpc::Status status = open.stream->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  }
  // A burst of calls may start a few handler threads; none stays held.
  EXPECT_TRUE(Eventually(20, [&] { return ThreadsOf(noded) < threads_before + 10; }))
      << ThreadsOf(noded) << " threads, " << threads_before << " before";

  // Alice has one: kCap empty streams wait (each on a thread of noded's), and
  // the next ones are refused.
  // Outlives the test's longest wait; cancelled at the end.
  const uint64_t id = SubmitAs(kAlice, "-w n1 --wrap='sleep 1000'");
  ASSERT_TRUE(Eventually(30, [&] { return ScontrolField(Show(id), "JobState") == "RUNNING"; }))
      << Show(id);
  std::vector<Open> waiting = open_streams(kAlice, kCap, 300);
  // Once all kCap are counted, the next stream is refused at once; until then
  // a probe is taken and ends at its short deadline.
  auto probe = [&] {
    std::vector<Open> one = open_streams(kAlice, 1, 2);
    return one[0].stream->Finish().error_code();
  };
  // On a loaded machine noded may take a while to start a thread for each.
  EXPECT_TRUE(Eventually(120, [&] { return probe() == grpc::StatusCode::RESOURCE_EXHAUSTED; }))
      << ThreadsOf(noded) << " threads in noded, " << threads_before << " before";
  EXPECT_GE(ThreadsOf(noded), threads_before + kCap);  // each waiting stream holds a thread
  for (int k = 0; k < 3; ++k) EXPECT_EQ(probe(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  for (Open& open : waiting) open.context->TryCancel();
  for (Open& open : waiting) open.stream->Finish();
  EXPECT_EQ(cluster_->Run(absl::StrCat("scancel ", id)).exit_code, 0);
}

TEST_F(SecurityTest, OtherUsersNeverReceiveAJobsScriptOrEnvironment) {
  StartCluster("");
  if (cluster_ == nullptr) return;
  const uint64_t id =
      SubmitAs(kAlice, "--hold --export=ALL,API_TOKEN=hunter2 --wrap 'echo top-secret-step'");
  ASSERT_GT(id, 0u);
  v1::GetJobsRequest request;
  request.add_job_ids(id);
  request.set_with_script(true);

  v1::GetJobsReply as_bob;
  ASSERT_TRUE(GetJobsAs(kBob, request, &as_bob).ok());
  ASSERT_EQ(as_bob.jobs_size(), 1);  // without PrivateData the job itself is visible
  EXPECT_EQ(as_bob.jobs(0).spec().script(), "");
  EXPECT_EQ(as_bob.jobs(0).spec().environment_size(), 0);
  // Issue 32: --export's list carried the values (export_mode) to everyone.
  EXPECT_EQ(as_bob.jobs(0).spec().export_mode(), "");
  EXPECT_EQ(as_bob.jobs(0).spec().submit_dir(), "");
  // What Slurm shows everyone of another user's job stays.
  EXPECT_EQ(as_bob.jobs(0).spec().command(), "(wrap)");
  EXPECT_EQ(as_bob.jobs(0).user_name(), kAlice);
  EXPECT_FALSE(as_bob.jobs(0).spec().work_dir().empty());
  // No field of any reply another user gets carries the secret: by id, with
  // details, listed (squeue's summary), in accounting (sacct) and steps.
  auto carries_secret = [](const google::protobuf::MessageLite& reply) {
    return reply.SerializeAsString().find("hunter2") != std::string::npos;
  };
  EXPECT_FALSE(carries_secret(as_bob));
  v1::GetJobsRequest detailed = request;
  detailed.set_with_details(true);
  v1::GetJobsReply detailed_as_bob;
  ASSERT_TRUE(GetJobsAs(kBob, detailed, &detailed_as_bob).ok());
  EXPECT_FALSE(carries_secret(detailed_as_bob));
  v1::GetJobsRequest listed;
  listed.set_summary(true);
  v1::GetJobsReply listed_as_bob;
  ASSERT_TRUE(GetJobsAs(kBob, listed, &listed_as_bob).ok());
  EXPECT_EQ(listed_as_bob.jobs_size(), 1);
  EXPECT_FALSE(carries_secret(listed_as_bob));
  v1::GetAccountingRequest accounting;
  v1::AcctJobSelector* selector = accounting.add_jobs();
  selector->set_job_id(id);
  selector->set_array_task_id(-1);
  v1::GetAccountingReply accounting_as_bob;
  ASSERT_TRUE(CallAs(kBob, [&](grpc::ClientContext* context) {
                return stub_->GetAccounting(context, accounting, &accounting_as_bob);
              }).ok());
  EXPECT_EQ(accounting_as_bob.jobs_size(), 1);
  EXPECT_FALSE(carries_secret(accounting_as_bob));
  v1::GetStepsReply steps_as_bob;
  ASSERT_TRUE(CallAs(kBob, [&](grpc::ClientContext* context) {
                return stub_->GetSteps(context, v1::GetStepsRequest(), &steps_as_bob);
              }).ok());
  EXPECT_FALSE(carries_secret(steps_as_bob));
  const CommandResult shown = cluster_->RunAs(kBob, absl::StrCat("scontrol show job ", id));
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out.find("hunter2"), std::string::npos);
  const CommandResult json = cluster_->RunAs(kBob, absl::StrCat("scontrol --json show job ", id));
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(kAlice), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find("hunter2"), std::string::npos);

  v1::GetJobsReply as_alice;
  ASSERT_TRUE(GetJobsAs(kAlice, request, &as_alice).ok());
  ASSERT_EQ(as_alice.jobs_size(), 1);
  EXPECT_NE(as_alice.jobs(0).spec().script().find("top-secret-step"), std::string::npos);
  EXPECT_EQ(as_alice.jobs(0).spec().environment().at("API_TOKEN"), "hunter2");
  EXPECT_EQ(as_alice.jobs(0).spec().export_mode(), "ALL,API_TOKEN=hunter2");
  // Operators (root) get it too.
  v1::GetJobsReply as_root;
  ASSERT_TRUE(GetJobsAs("root", request, &as_root).ok());
  EXPECT_EQ(as_root.jobs(0).spec().export_mode(), "ALL,API_TOKEN=hunter2");

  // Nobody gets them without asking (squeue and scontrol show job do not).
  request.set_with_script(false);
  v1::GetJobsReply plain;
  ASSERT_TRUE(GetJobsAs(kAlice, request, &plain).ok());
  EXPECT_EQ(plain.jobs(0).spec().script(), "");

  // scontrol write batch_script: the owner gets it, others are refused.
  const CommandResult mine =
      cluster_->RunAs(kAlice, absl::StrCat("scontrol write batch_script ", id, " -"));
  EXPECT_EQ(mine.exit_code, 0) << mine.err;
  EXPECT_NE(mine.out.find("top-secret-step"), std::string::npos);
  const CommandResult theirs =
      cluster_->RunAs(kBob, absl::StrCat("scontrol write batch_script ", id, " -"));
  EXPECT_EQ(theirs.exit_code, 1);
  EXPECT_EQ(theirs.err, "job script retrieval failed: Access/permission denied\n");
  EXPECT_EQ(theirs.out, "");
}

TEST_F(SecurityTest, PrivateDataJobsHidesOtherUsersJobs) {
  StartCluster("PrivateData=jobs\n");
  if (cluster_ == nullptr) return;
  const uint64_t alices = SubmitAs(kAlice, "--hold --wrap true");
  const uint64_t bobs = SubmitAs(kBob, "--hold --wrap true");
  ASSERT_GT(alices, 0u);
  ASSERT_GT(bobs, 0u);

  v1::GetJobsReply all_as_bob;
  ASSERT_TRUE(GetJobsAs(kBob, v1::GetJobsRequest(), &all_as_bob).ok());
  ASSERT_EQ(all_as_bob.jobs_size(), 1);
  EXPECT_EQ(all_as_bob.jobs(0).job_id(), bobs);
  v1::GetJobsRequest alices_by_id;
  alices_by_id.add_job_ids(alices);
  v1::GetJobsReply by_id;
  EXPECT_EQ(GetJobsAs(kBob, alices_by_id, &by_id).error_code(), grpc::StatusCode::NOT_FOUND);

  const CommandResult squeue = cluster_->RunAs(kBob, "squeue -h -o %i");
  EXPECT_EQ(squeue.out, absl::StrCat(bobs, "\n"));
  // Operators (root here) still see everything.
  const CommandResult root = cluster_->Run("squeue -h -o %i");
  EXPECT_NE(root.out.find(absl::StrCat(alices)), std::string::npos);
  EXPECT_NE(root.out.find(absl::StrCat(bobs)), std::string::npos);
  EXPECT_NE(cluster_->Run("scontrol show config")
                .out.find(absl::StrCat("PrivateData", std::string(12, ' '), " = jobs\n")),
            std::string::npos);
}

TEST_F(SecurityTest, UpdateCannotReachWhatSubmissionRefuses) {
  StartCluster("");
  if (cluster_ == nullptr) return;
  const CommandResult direct = cluster_->RunAs(kAlice, "sbatch -p vip --wrap true");
  EXPECT_EQ(direct.exit_code, 1);
  EXPECT_NE(direct.err.find("RootOnly"), std::string::npos) << direct.err;

  const uint64_t id = SubmitAs(kAlice, "--hold -p debug -t 5 --wrap 'sleep 60'");
  ASSERT_GT(id, 0u);
  const CommandResult moved =
      cluster_->RunAs(kAlice, absl::StrCat("scontrol update JobId=", id, " Partition=vip"));
  EXPECT_EQ(moved.exit_code, 1);
  EXPECT_EQ(moved.err,
            absl::StrCat("Partition is restricted to root (RootOnly=YES) for job ", id, "\n"));
  EXPECT_EQ(ScontrolField(Show(id), "Partition"), "debug");

  // Someone else's job: Slurm's words for it.
  const CommandResult bobs =
      cluster_->RunAs(kBob, absl::StrCat("scontrol update JobId=", id, " TimeLimit=1"));
  EXPECT_EQ(bobs.err, absl::StrCat("Invalid user id for job ", id, "\n"));

  // Released, it runs where it was allowed to.
  ASSERT_EQ(cluster_->RunAs(kAlice, absl::StrCat("scontrol release ", id)).exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return ScontrolField(Show(id), "JobState") == "RUNNING"; }));
  EXPECT_EQ(ScontrolField(Show(id), "Partition"), "debug");
  EXPECT_EQ(ScontrolField(Show(id), "NodeList"), "n1") << "debug's first free node";

  // A running job's limit can be lowered by its owner, not raised; the refusal
  // says why.
  const CommandResult raised =
      cluster_->RunAs(kAlice, absl::StrCat("scontrol update JobId=", id, " TimeLimit=30"));
  EXPECT_EQ(raised.exit_code, 1);
  EXPECT_EQ(raised.err, absl::StrCat("Access/permission denied (only an operator can raise the "
                                     "time limit of a job that has started) for job ",
                                     id, "\n"));
  EXPECT_EQ(
      cluster_->RunAs(kAlice, absl::StrCat("scontrol update JobId=", id, " TimeLimit=2")).exit_code,
      0);
  EXPECT_EQ(ScontrolField(Show(id), "TimeLimit"), "00:02:00");
  cluster_->Run(absl::StrCat("scancel ", id));
}

// Issue 32: sbatch --priority from a user was dropped without a word (as Slurm
// 22.05 drops it), so the job ran at a priority its user did not ask for. Only
// operators set a priority: root, SlurmUser, SkiffOperators and AdminLevel.
TEST_F(SecurityTest, OnlyOperatorsSetAJobsPriority) {
  StartCluster("");
  if (cluster_ == nullptr) return;
  const std::string later = "--begin=now+3600 -t 5 -o /dev/null --wrap true";
  const CommandResult users = cluster_->RunAs(kAlice, "sbatch --priority=1000 " + later);
  EXPECT_EQ(users.exit_code, 1) << users.out;
  EXPECT_EQ(users.err,
            "sbatch: error: Batch job submission failed: Access/permission denied (only an "
            "operator can set a job's priority)\n");
  EXPECT_EQ(cluster_->Run("squeue -h -u " + std::string(kAlice)).out, "") << "nothing stored";

  const CommandResult root_submit = cluster_->Run("cd /tmp && sbatch --priority=1000 " + later);
  ASSERT_EQ(SubmittedJobIds(root_submit.out).size(), 1u) << root_submit.err;
  const uint64_t roots = SubmittedJobIds(root_submit.out)[0];
  // The scheduler's next pass gives a job its priority.
  EXPECT_TRUE(Eventually(20, [&] { return ScontrolField(Show(roots), "Priority") == "1000"; }))
      << Show(roots);
  ASSERT_EQ(cluster_->Run("sacctmgr -i add account lab").exit_code, 0);
  const CommandResult made = cluster_->Run(
      absl::StrCat("sacctmgr -i add user ", kBob, " account=lab adminlevel=operator"));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const uint64_t operators = SubmitAs(kBob, "--priority=900 " + later);
  ASSERT_GT(operators, 0u);
  EXPECT_TRUE(Eventually(20, [&] { return ScontrolField(Show(operators), "Priority") == "900"; }))
      << Show(operators);

  // scontrol update Priority= of one's own job: raising is an operator's too
  // (priority/basic, the default: its place in line, counting down from
  // 4294901759).
  const uint64_t own = SubmitAs(kAlice, later);
  ASSERT_GT(own, 0u);
  uint64_t current = 0;
  ASSERT_TRUE(Eventually(20, [&] {
    return absl::SimpleAtoi(ScontrolField(Show(own), "Priority"), &current) && current > 1;
  })) << Show(own);
  const std::string higher = absl::StrCat(current + 1000);
  const CommandResult raised =
      cluster_->RunAs(kAlice, absl::StrCat("scontrol update JobId=", own, " Priority=", higher));
  EXPECT_EQ(raised.exit_code, 1) << raised.out;
  EXPECT_EQ(raised.err, absl::StrCat("Access/permission denied (only an operator can raise a "
                                     "job's priority) for job ",
                                     own, "\n"));
  EXPECT_NE(ScontrolField(Show(own), "Priority"), higher);
  EXPECT_EQ(cluster_->RunAs(kBob, absl::StrCat("scontrol update JobId=", own, " Priority=", higher))
                .exit_code,
            0);
  EXPECT_EQ(ScontrolField(Show(own), "Priority"), higher);
  cluster_->Run(absl::StrCat("scancel ", roots, " ", operators, " ", own));
}

// Issue 32: with associations enforced, sbatch -A lab2 and -q special were
// refused, but scontrol update Account=lab2 QOS=special of one's own pending
// job was accepted and the job ran charged to lab2. An update passes
// admission's association, QOS and limit checks; operators pass all but a
// missing association, as in Slurm.
TEST_F(SecurityTest, UpdateCannotReachAnAccountOrQosSubmissionRefuses) {
  StartCluster("AccountingStorageEnforce=associations,limits,qos\n");
  if (cluster_ == nullptr) return;
  auto ok = [&](const std::string& command) {
    const CommandResult r = cluster_->Run(command);
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.out << r.err;
  };
  ok("sacctmgr -i add qos special");
  ok("sacctmgr -i add account lab1");
  ok("sacctmgr -i add account lab2");
  ok(absl::StrCat("sacctmgr -i add user ", kAlice, " account=lab1 qos=normal MaxWall=01:00:00"));
  ok(absl::StrCat("sacctmgr -i add user ", kBob, " account=lab2 qos=normal,special"));
  const std::string refused = "sbatch: error: Batch job submission failed: ";
  const CommandResult lab2 = cluster_->RunAs(kAlice, "sbatch -A lab2 --wrap true");
  EXPECT_EQ(lab2.exit_code, 1);
  EXPECT_EQ(lab2.err, refused + "Invalid account or account/partition combination specified\n");
  const CommandResult special = cluster_->RunAs(kAlice, "sbatch -q special --wrap true");
  EXPECT_EQ(special.exit_code, 1);
  EXPECT_EQ(special.err, refused + "Invalid qos specification\n");

  const uint64_t id = SubmitAs(kAlice, "--hold -t 5 --wrap 'sleep 60'");
  ASSERT_GT(id, 0u);
  ASSERT_EQ(ScontrolField(Show(id), "Account"), "lab1");
  auto update = [&](const std::string& user, const std::string& fields) {
    const std::string command = absl::StrCat("scontrol update JobId=", id, " ", fields);
    return user == "root" ? cluster_->Run(command) : cluster_->RunAs(user, command);
  };
  const CommandResult both = update(kAlice, "Account=lab2 QOS=special");
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_EQ(both.err, absl::StrCat("Invalid account or account/partition combination specified "
                                   "for job ",
                                   id, "\n"));
  const CommandResult account = update(kAlice, "Account=lab2");
  EXPECT_EQ(account.exit_code, 1);
  EXPECT_EQ(account.err, both.err);
  const CommandResult qos = update(kAlice, "QOS=special");
  EXPECT_EQ(qos.exit_code, 1);
  EXPECT_EQ(qos.err, absl::StrCat("Invalid qos specification for job ", id, "\n"));
  const CommandResult wall = update(kAlice, "TimeLimit=2:00:00");  // MaxWall is an hour
  EXPECT_EQ(wall.exit_code, 1);
  EXPECT_EQ(wall.err, absl::StrCat("Job violates accounting/QOS policy (job submit limit, "
                                   "user's size and/or time limits) for job ",
                                   id, "\n"));
  // Operators pass the QOS list, but a job runs only under an association of
  // its user.
  const CommandResult root_account = update("root", "Account=lab2");
  EXPECT_EQ(root_account.exit_code, 1);
  EXPECT_EQ(root_account.err, both.err);
  EXPECT_EQ(update("root", "QOS=special").exit_code, 0);
  EXPECT_EQ(update("root", "QOS=normal").exit_code, 0);
  std::string shown = Show(id);
  EXPECT_EQ(ScontrolField(shown, "Account"), "lab1");
  EXPECT_EQ(ScontrolField(shown, "QOS"), "normal");
  EXPECT_EQ(ScontrolField(shown, "TimeLimit"), "00:05:00");

  // Released, it runs charged to its own account, which then stays.
  ASSERT_EQ(cluster_->RunAs(kAlice, absl::StrCat("scontrol release ", id)).exit_code, 0);
  ASSERT_TRUE(Eventually(30, [&] { return ScontrolField(Show(id), "JobState") == "RUNNING"; }));
  const CommandResult running = update(kAlice, "Account=lab1");
  EXPECT_EQ(running.exit_code, 1);
  EXPECT_EQ(running.err, absl::StrCat("Job is no longer pending execution for job ", id, "\n"));
  EXPECT_EQ(ScontrolField(Show(id), "Account"), "lab1");
  cluster_->Run(absl::StrCat("scancel ", id));
}

// Item 10: a Latin-1 "# café" used to fail with a protobuf log line and an
// empty "Batch job submission failed: ".
TEST_F(SecurityTest, NonUtf8ScriptNameAndCommentAreTakenAsBytes) {
  StartCluster("");
  if (cluster_ == nullptr) return;
  const std::string dir = cluster_->dir();
  ASSERT_EQ(RunShell(absl::StrCat("printf '#!/bin/sh\\n# caf\\351\\necho caf\\351\\n' > ", dir,
                                  "/latin1.sh"))
                .exit_code,
            0);
  const CommandResult submitted =
      cluster_->Run(absl::StrCat("sbatch -o ", dir,
                                 "/latin1.out -J \"$(printf 'caf\\351')\" --comment=\"$(printf "
                                 "'caf\\351')\" ",
                                 dir, "/latin1.sh"));
  const std::vector<uint64_t> ids = SubmittedJobIds(submitted.out);
  ASSERT_EQ(ids.size(), 1u) << submitted.err;
  ASSERT_TRUE(
      Eventually(30, [&] { return ScontrolField(Show(ids[0]), "JobState") == "COMPLETED"; }));
  EXPECT_EQ(ScontrolField(Show(ids[0]), "JobName"), "caf\xe9");
  EXPECT_NE(Show(ids[0]).find("Comment=caf\xe9"), std::string::npos);
  EXPECT_EQ(RunShell(absl::StrCat("cat ", dir, "/latin1.out")).out, "caf\xe9\n");

  // A name that cannot exist is refused naming the option.
  const CommandResult bad =
      cluster_->Run(absl::StrCat("sbatch -A \"$(printf 'caf\\351')\" ", dir, "/latin1.sh"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_EQ(bad.err, "sbatch: error: Invalid --account specification: not valid UTF-8\n");
}

// Item 12: sbatch inputs that were accepted or refused with the wrong words.
TEST_F(SecurityTest, SbatchRefusesBadRequestsWithSlurmsWords) {
  StartCluster("");
  if (cluster_ == nullptr) return;
  const CommandResult gres = cluster_->Run("sbatch --gres=gpu:abc --wrap true");
  EXPECT_EQ(gres.exit_code, 1);
  EXPECT_EQ(gres.err,
            "sbatch: error: Batch job submission failed: Invalid generic resource (gres) "
            "specification\n");
  const CommandResult excluded = cluster_->Run("sbatch -x 'n[1-2]' --wrap true");
  EXPECT_EQ(excluded.exit_code, 1);
  EXPECT_EQ(excluded.err,
            "sbatch: error: Batch job submission failed: Requested node configuration is not "
            "available\n");

  // An empty --array is refused as such, not read as "the next word is the script".
  const CommandResult array = cluster_->Run("sbatch --array= --wrap true");
  EXPECT_EQ(array.err, "sbatch: error: Invalid --array specification: ''\n");
  EXPECT_NE(array.exit_code, 0);

  // A script over SchedulerParameters=max_script_size (4 MiB by default).
  const std::string big = cluster_->dir() + "/big.sh";
  ASSERT_EQ(RunShell(absl::StrCat("(echo '#!/bin/sh'; head -c 5000000 /dev/zero | tr '\\0' '#'; "
                                  "echo; echo true) > ",
                                  big))
                .exit_code,
            0);
  const CommandResult large = cluster_->Run("sbatch " + big);
  EXPECT_EQ(large.exit_code, 1);
  EXPECT_EQ(large.err,
            "sbatch: error: Batch job submission failed: Pathname of a file, directory or other "
            "parameter too long (the batch script has 5000016 bytes; "
            "SchedulerParameters=max_script_size allows 4194304)\n");
  EXPECT_EQ(cluster_->Run("squeue -h").out, "");
}

// Issue 47, item 15: PrivateData=reservations,users,accounts,usage were taken
// and meant nothing. Now, as Slurm's: a user sees only the reservations they
// may use; only their own user record and associations (users); no account
// definitions (accounts: Slurm shows a non-coordinator none, and Skiff has no
// coordinators); no one else's usage, nor an account's totals (usage).
// Operators see everything. Checked through raw calls (what sacctmgr, sshare,
// sreport and restd read) and through the commands.
TEST_F(SecurityTest, PrivateDataReservationsUsersAccountsAndUsageAreEnforced) {
  StartCluster(
      "PrivateData=reservations,users,accounts,usage\nAccountingStorageEnforce=associations\n");
  if (cluster_ == nullptr) return;
  for (const std::string& command :
       {std::string("sacctmgr -i add account lab,other"),
        absl::StrCat("sacctmgr -i add user ", kAlice, " account=lab"),
        absl::StrCat("sacctmgr -i add user ", kBob, " account=other"),
        absl::StrCat("scontrol create reservation ReservationName=alices StartTime=now+1hour "
                     "Duration=10 Nodes=n1 Users=",
                     kAlice),
        std::string("scontrol create reservation ReservationName=labs StartTime=now+2hours "
                    "Duration=10 Nodes=n1 Accounts=lab")}) {
    const CommandResult r = cluster_->Run(command);
    ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
  }
  // Usage of alice's: a job that holds its association's counts.
  const uint64_t held = SubmitAs(kAlice, "-A lab --hold --wrap true");
  ASSERT_NE(held, 0u);

  // Reservations: alice sees both (by user, by account); bob none; root both.
  auto reservations = [&](const std::string& user) {
    v1::GetReservationsReply reply;
    const grpc::Status status = CallAs(user, [&](grpc::ClientContext* context) {
      return stub_->GetReservations(context, v1::GetReservationsRequest(), &reply);
    });
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<std::string> names;
    for (const v1::ReservationInfo& r : reply.reservations()) names.push_back(r.name());
    return absl::StrJoin(names, ",");
  };
  EXPECT_EQ(reservations(kAlice), "alices,labs");
  EXPECT_EQ(reservations(kBob), "");
  EXPECT_EQ(reservations("root"), "alices,labs");
  EXPECT_EQ(cluster_->RunAs(kBob, "scontrol show reservation").out,
            "No reservations in the system\n");
  EXPECT_TRUE(absl::StrContains(cluster_->RunAs(kAlice, "scontrol show reservation").out,
                                "ReservationName=labs"));

  auto accounts = [&](const std::string& user) {
    v1::GetAccountsReply reply;
    const grpc::Status status = CallAs(user, [&](grpc::ClientContext* context) {
      return stub_->GetAccounts(context, v1::GetAccountsRequest(), &reply);
    });
    EXPECT_TRUE(status.ok()) << status.error_message();
    return reply;
  };
  // Every figure of a reply, "assoc:account/user" (with "+in_use" where jobs
  // hold something) and "qos:name/user".
  auto usage_keys = [](const v1::GetAccountsReply& reply) {
    std::vector<std::string> keys;
    for (const v1::AssocUsage& usage : reply.assoc_usage()) {
      keys.push_back(absl::StrCat("assoc:", usage.key().account(), "/", usage.key().user(),
                                  usage.has_in_use() ? "+in_use" : ""));
    }
    for (const v1::QosUsage& usage : reply.qos_usage()) {
      keys.push_back(absl::StrCat("qos:", usage.qos(), "/", usage.user()));
    }
    return keys;
  };
  const v1::GetAccountsReply as_root = accounts("root");
  EXPECT_GE(as_root.accounts_size(), 3);
  EXPECT_GE(as_root.users_size(), 3);
  std::vector<std::string> root_keys = usage_keys(as_root);
  EXPECT_TRUE(std::find(root_keys.begin(), root_keys.end(),
                        absl::StrCat("assoc:lab/", kAlice, "+in_use")) != root_keys.end())
      << absl::StrJoin(root_keys, " ");

  const v1::GetAccountsReply as_bob = accounts(kBob);
  EXPECT_EQ(as_bob.accounts_size(), 0);  // accounts
  ASSERT_EQ(as_bob.users_size(), 1);     // users
  EXPECT_EQ(as_bob.users(0).name(), kBob);
  for (const v1::AssocInfo& assoc : as_bob.assocs()) {
    EXPECT_EQ(assoc.user(), kBob) << assoc.account() << "/" << assoc.user();
  }
  EXPECT_EQ(as_bob.assocs_size(), 1);
  for (const v1::AssocUsage& usage : as_bob.assoc_usage()) {  // usage
    EXPECT_EQ(usage.key().user(), kBob) << usage.key().account();
  }
  for (const v1::QosUsage& usage : as_bob.qos_usage()) {
    EXPECT_EQ(usage.user(), kBob) << usage.qos();
  }
  const v1::GetAccountsReply as_alice = accounts(kAlice);
  std::vector<std::string> alice_keys = usage_keys(as_alice);
  EXPECT_TRUE(std::find(alice_keys.begin(), alice_keys.end(),
                        absl::StrCat("assoc:lab/", kAlice, "+in_use")) != alice_keys.end())
      << absl::StrJoin(alice_keys, " ");
  // The commands show the same.
  const CommandResult assocs =
      cluster_->RunAs(kBob, "sacctmgr -n -P show assoc format=Account,User");
  EXPECT_EQ(assocs.out, absl::StrCat("other|", kBob, "\n")) << assocs.err;
  const CommandResult users = cluster_->RunAs(kBob, "sacctmgr -n -P show user format=User");
  EXPECT_EQ(users.out, absl::StrCat(kBob, "\n")) << users.err;
  EXPECT_EQ(cluster_->RunAs(kBob, "sacctmgr -n -P show account format=Account").out, "");
  EXPECT_EQ(cluster_->Run("scancel " + std::to_string(held)).exit_code, 0);
}

// Issue 47, item 15: noded keeps job scripts, credentials and step sockets in
// SlurmdSpoolDir, as root. A spool a user owns, or one group or others may
// write, lets them plant or swap what root then reads and runs: noded refuses
// to start on one, naming SlurmdSpoolDir, its owner and mode. The node comes
// back once the directory is root's again.
TEST_F(SecurityTest, NodedRefusesASpoolDirectoryThatIsNotRootsAlone) {
  StartCluster("");
  if (cluster_ == nullptr) return;
  const pid_t noded = cluster_->Pid("noded-n2");
  ASSERT_GT(noded, 0);
  ASSERT_EQ(kill(noded, SIGTERM), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(noded); }));
  const std::string spool = cluster_->dir() + "/state/noded/n2";
  const std::string start = absl::StrCat("timeout 20 ", cluster_->dir(), "/bin/noded -f ",
                                         cluster_->conf_path(), " -N n2");
  const std::pair<std::string, std::string> bad[] = {
      {absl::StrCat("chown ", kAlice, " ", spool), absl::StrCat("is owned by ", kAlice)},
      {absl::StrCat("chown root ", spool, " && chmod 0777 ", spool), "mode 0777"},
      {absl::StrCat("chmod 0775 ", spool), "mode 0775"},
  };
  for (const auto& [make, words] : bad) {
    ASSERT_EQ(RunShell(make).exit_code, 0) << make;
    const CommandResult r = RunShell(start);
    EXPECT_EQ(r.exit_code, 1) << make << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "noded: fatal: SlurmdSpoolDir ")) << make << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, spool)) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, words)) << make << ": " << r.err;
  }
  ASSERT_EQ(RunShell(absl::StrCat("chown root:root ", spool, " && chmod 0755 ", spool)).exit_code,
            0);
  ASSERT_EQ(cluster_->Up().exit_code, 0);
  const uint64_t id = SubmitAs(kAlice, "-w n2 -o /dev/null --wrap true");
  ASSERT_NE(id, 0u);
  EXPECT_TRUE(Eventually(60, [&] { return ScontrolField(Show(id), "JobState") == "COMPLETED"; }))
      << Show(id);
}

}  // namespace
}  // namespace skiff::testing
