// The GPU monitor through the real daemons: noded samples the GPUs a job holds
// through NVML (the fake library, driven by a state file the test and the
// job write) every JobAcctGatherFrequency, and the job's end carries them to
// ctld: sacct's gres/gpuutil and gres/gpumem on the batch step, the GPUs'
// energy as ConsumedEnergy, seff's GPU lines; a process on a GPU no job holds
// is logged. A restarted noded goes on from the figures it kept; a running
// job's GPUs are in sstat and on /metrics.
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/test_util.h"
#include "tests/integration/restd_client.h"

namespace skiff::testing {
namespace {

// One node with the cluster's two fake GPUs (nvidia0, nvidia1), its noded
// loading the fake NVML driven by `state`.
LocalCluster::Options FakeNvmlNode(const std::string& state) {
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 1;
  options.environment["SKIFF_NODED_PREFIX_n1"] = absl::StrCat(
      "env LD_LIBRARY_PATH=", RunfilesRoot(), "/tests/fake_nvml SKIFF_FAKE_NVML_STATE=", state);
  return options;
}

// restd's /metrics, read with the scrape credential ./skiff up wrote.
std::string Metrics(const LocalCluster& cluster) {
  const std::string secret(
      absl::StripAsciiWhitespace(ReadFile(cluster.dir() + "/etc/metrics.token")));
  return cluster
      .Run(absl::StrCat("curl -s -H 'Authorization: Bearer ", secret,
                        "' http://127.0.0.1:", RestdAddressOf(cluster).port, "/metrics"))
      .out;
}

TEST(GpuUsageTest, AJobsSampledGpusReachSacctAndSeff) {
  ScratchDir state_dir("skiff-nvml");
  ASSERT_FALSE(state_dir.path().empty());
  const std::string state = state_dir.path() + "/nvml.state";
  // Two GPUs (minors 0 and 1, as the cluster's fake nvidia0 and nvidia1), and
  // a process on the second one that no job holds (pid 1).
  const std::string idle_energy =
      "gpu minor=0 util=80 memtotal=40960 energy=1000\n"
      "gpu minor=1 util=80 memtotal=40960 energy=1000\n"
      "process gpu=1 pid=1 mem=64\n";
  std::ofstream(state) << idle_energy;
  chmod(state.c_str(), 0666);

  LocalCluster::Options options = FakeNvmlNode(state);
  options.extra_config =
      "JobAcctGatherFrequency=task=1\nHeartbeatInterval=1\nHpcJobMappingDir=@DIR@/jobmap\n";
  options.restd = true;
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  EXPECT_NE(cluster.Run("scontrol show config").out.find("JobAcctGatherFrequency  = task=1"),
            std::string::npos);

  // The job puts its own process on its GPU (2 GiB), then waits to be released.
  const std::string dir = cluster.dir();
  std::ofstream(dir + "/gpu.sh") << "#!/bin/bash\n"
                                    "echo \"process gpu=$SLURM_JOB_GPUS pid=$$ mem=2048\" >> "
                                 << state << "\n"
                                 << "echo $SLURM_JOB_GPUS > " << dir << "/gpu.$SLURM_JOB_ID\n"
                                 << "touch " << dir << "/started\n"
                                 << "for i in $(seq 600); do [ -e " << dir
                                 << "/release ] && exit 0; sleep 0.2; done\nexit 1\n";
  CommandResult submit =
      cluster.Run(absl::StrCat("sbatch -p gpu --gres=gpu:1 -o /dev/null ", dir, "/gpu.sh"));
  ASSERT_EQ(submit.exit_code, 0) << submit.err;
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 1u) << submit.out;
  const std::string id = absl::StrCat(ids[0]);
  ASSERT_TRUE(Eventually(60, [&] { return access((dir + "/started").c_str(), F_OK) == 0; }));

  // The job directory's file counts the samples; two, then the energy moves.
  const std::string usage_file = absl::StrCat(dir, "/state/noded/n1/job", id, "/gpu_usage");
  auto samples = [&] {
    const std::string text = ReadFile(usage_file);
    const size_t at = text.find(" samples=");
    return at == std::string::npos ? 0 : atoi(text.c_str() + at + 9);
  };
  ASSERT_TRUE(Eventually(60, [&] { return samples() >= 2; })) << ReadFile(usage_file);
  {
    // Replaced whole, as noded may read it at any moment.
    std::ofstream(state + ".new") << absl::StrReplaceAll(ReadFile(state),
                                                         {{"energy=1000", "energy=61000"}});
    ASSERT_EQ(rename((state + ".new").c_str(), state.c_str()), 0);
  }
  // dcgm-exporter's job mapping: the file of the job's GPU (NVML index =
  // gres index here) names the job.
  const std::string gpu_index =
      std::string(absl::StripAsciiWhitespace(ReadFile(absl::StrCat(dir, "/gpu.", id))));
  const std::string mapping = absl::StrCat(dir, "/jobmap/", gpu_index);
  EXPECT_TRUE(Eventually(60, [&] { return ReadFile(mapping) == id + "\n"; }))
      << ReadFile(mapping) << cluster.Log("noded-n1.log");

  // The running job's GPU on /metrics, from noded's heartbeats.
  auto metrics = [&] { return Metrics(cluster); };
  const std::string family = absl::StrCat("skiff_job_gpu_utilization_percent{job=\"", id, "\",");
  ASSERT_TRUE(Eventually(60, [&] {
    const std::string text = metrics();
    const size_t at = text.find(family);
    return at != std::string::npos && text.find("node=\"n1\"", at) != std::string::npos &&
           text.find("} 80\n", at) != std::string::npos;
  })) << metrics();
  EXPECT_NE(metrics().find(absl::StrCat("skiff_job_gpu_memory_max_bytes{job=\"", id, "\",")),
            std::string::npos);

  // sstat of the running batch step: its GPUs so far.
  const CommandResult sstat = cluster.Run("sstat -P -n -o TRESUsageInMax -j " + id + ".batch");
  EXPECT_NE(sstat.out.find(",gres/gpumem=2G,gres/gpuutil=80,mem="), std::string::npos)
      << sstat.out << sstat.err;

  // noded restarted (killed outright): the new one goes on from the job
  // directory's figures, so the energy counts from the job's first sample.
  const pid_t noded = cluster.Pid("noded-n1");
  ASSERT_EQ(kill(noded, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(noded); }));
  const int before = samples();
  CommandResult up = cluster.Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  ASSERT_TRUE(Eventually(60, [&] { return samples() >= before + 2; })) << ReadFile(usage_file);
  std::ofstream(dir + "/release") << "";
  ASSERT_TRUE(Eventually(60, [&] {
    return cluster.Run("sacct -n -X -o State -j " + id).out.find("COMPLETED") != std::string::npos;
  })) << cluster.Run("sacct -j " + id).out;

  EXPECT_TRUE(Eventually(60, [&] { return access(mapping.c_str(), F_OK) != 0; }))
      << "the job ended: its GPU's file is gone";

  CommandResult sacct =
      cluster.Run("sacct -P -n -o JobID,TRESUsageInMax,TRESUsageInAve,ConsumedEnergyRaw -j " + id);
  ASSERT_EQ(sacct.exit_code, 0) << sacct.err;
  EXPECT_NE(sacct.out.find(absl::StrCat(id, "|||60\n")), std::string::npos) << sacct.out;
  EXPECT_NE(sacct.out.find(absl::StrCat(id, ".batch|gres/gpumem=2G,gres/gpuutil=80|")),
            std::string::npos)
      << sacct.out;
  EXPECT_NE(sacct.out.find(",gres/gpuutil=80|60\n"), std::string::npos) << sacct.out;

  CommandResult seff = cluster.Run("seff " + id);
  ASSERT_EQ(seff.exit_code, 0) << seff.err;
  EXPECT_NE(seff.out.find("State: COMPLETED (exit code 0)\n"), std::string::npos) << seff.out;
  EXPECT_NE(seff.out.find("GPUs: 1\n"), std::string::npos) << seff.out;
  EXPECT_NE(seff.out.find(" on n1: utilisation 80.00% average, 80% peak; memory 2.00 GB peak of "
                          "40.00 GB (5.00%)\n"),
            std::string::npos)
      << seff.out;
  EXPECT_NE(seff.out.find("GPU energy: 60 J\n"), std::string::npos) << seff.out;
  EXPECT_EQ(cluster.Run("seff 999999").err, "Job not found.\n");
  EXPECT_EQ(cluster.Run("seff 999999").exit_code, 2);

  EXPECT_NE(cluster.Log("noded-n1.log")
                .find("GPU /dev/nvidia1: process 1 holds memory on it and "
                      "is no job's"),
            std::string::npos)
      << cluster.Log("noded-n1.log");
}

// GpuIdlePolicy: a job whose GPU stays idle is warned (a line in its output,
// a mail to its user whatever --mail-type says, once across a kill -9 of
// ctld, scontrol show job), and after the grace cancelled with a reason; a
// warned job whose GPU is busy again is left alone.
TEST(GpuUsageTest, IdleGpusAreWarnedThenGivenBackButABusyAgainJobIsLeftAlone) {
  ScratchDir state_dir("skiff-nvml");
  ASSERT_FALSE(state_dir.path().empty());
  const std::string state = state_dir.path() + "/nvml.state";
  // Both GPUs busy until the test says otherwise.
  auto set_util = [&](int gpu0, int gpu1) {
    std::ofstream(state + ".new") << "gpu minor=0 util=" << gpu0 << "\ngpu minor=1 util=" << gpu1
                                  << "\n";
    return rename((state + ".new").c_str(), state.c_str()) == 0;
  };
  ASSERT_TRUE(set_util(80, 80));

  LocalCluster::Options options = FakeNvmlNode(state);
  // Idle for 3 s: warned; 12 s later, still idle: cancelled.
  options.extra_config =
      "JobAcctGatherFrequency=1\nHeartbeatInterval=1\nMailProg=@DIR@/etc/mail.sh\n"
      "GpuIdlePolicy=threshold=5,minutes=0.05,action=cancel,grace=0.2\n";
  options.files["etc/mail.sh"] =
      "#!/bin/sh\necho \"$SLURM_JOB_ID|$SLURM_JOB_MAIL_TYPE|$SKIFF_GPU_IDLE|$*\" >> "
      "@DIR@/log/mail.txt\n";
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  chmod((dir + "/etc/mail.sh").c_str(), 0755);
  std::ofstream(dir + "/hold.sh") << "#!/bin/bash\n"
                                     "echo $SLURM_JOB_GPUS > "
                                  << dir << "/gpu.$SLURM_JOB_ID\n"
                                  << "for i in $(seq 900); do [ -e " << dir
                                  << "/release ] && exit 0; sleep 0.2; done\nexit 1\n";
  auto submit = [&]() -> std::string {
    CommandResult r = cluster.Run(
        absl::StrCat("sbatch -p gpu --gres=gpu:1 -o ", dir, "/out.%j ", dir, "/hold.sh"));
    const std::vector<uint64_t> ids = SubmittedJobIds(r.out);
    return ids.size() == 1 ? absl::StrCat(ids[0]) : "";
  };
  auto gpu_of = [&](const std::string& id) {
    const std::string text = ReadFile(absl::StrCat(dir, "/gpu.", id));
    return text.empty() ? -1 : atoi(text.c_str());
  };
  auto output = [&](const std::string& id) { return ReadFile(absl::StrCat(dir, "/out.", id)); };
  auto state_of = [&](const std::string& id) {
    return cluster.Run("sacct -n -X -P -o State,Reason -j " + id).out;
  };

  // B goes idle, is warned, and is busy again before its grace ends.
  const std::string b = submit();
  ASSERT_FALSE(b.empty());
  ASSERT_TRUE(Eventually(60, [&] { return gpu_of(b) >= 0; }));
  const int b_gpu = gpu_of(b);
  ASSERT_TRUE(set_util(b_gpu == 0 ? 0 : 80, b_gpu == 1 ? 0 : 80));
  ASSERT_TRUE(Eventually(
      60,
      [&] {
        return output(b).find(
                   "slurmstepd: error: GPUs idle: every GPU of the job under 5% since ") !=
               std::string::npos;
      }))
      << output(b) << cluster.Log("ctld.log");
  EXPECT_NE(output(b).find("; it will be cancelled at "), std::string::npos) << output(b);
  EXPECT_NE(cluster.Run("scontrol show job " + b).out.find("Reason=GPUs_idle:_every_GPU"),
            std::string::npos)
      << cluster.Run("scontrol show job " + b).out;
  EXPECT_NE(cluster.Run("squeue --explain " + b)
                .out.find(" is RUNNING, not pending, but GpuIdlePolicy warned it: GPUs idle: "
                          "every GPU of the job under 5% since "),
            std::string::npos)
      << cluster.Run("squeue --explain " + b).out;
  ASSERT_TRUE(set_util(80, 80));
  ASSERT_TRUE(Eventually(60, [&] {
    return cluster.Log("ctld.log").find("JobId=" + b + " GPUs in use again") != std::string::npos;
  })) << cluster.Log("ctld.log");
  EXPECT_EQ(cluster.Run("scontrol show job " + b).out.find("GPUs_idle"), std::string::npos);

  // A stays idle: warned, then cancelled with the reason (long after B's
  // grace would have ended).
  const std::string a = submit();
  ASSERT_FALSE(a.empty());
  ASSERT_TRUE(Eventually(60, [&] { return gpu_of(a) >= 0; }));
  const int a_gpu = gpu_of(a);
  ASSERT_NE(a_gpu, b_gpu);
  ASSERT_TRUE(set_util(a_gpu == 0 ? 0 : 80, a_gpu == 1 ? 0 : 80));
  // ctld killed outright once A's mail went out: the new ctld warns A again
  // (its idle time counted again from its restart) but does not mail it
  // again, and still acts on it. (A mail whose MailProg was still running
  // goes out again: at least once, never lost.)
  const std::string a_mail = absl::StrCat(a, "|GPUs idle|");
  ASSERT_TRUE(Eventually(90, [&] {
    return cluster.Log("ctld.log").find("JobId=" + a + " mailed GPU_IDLE") != std::string::npos;
  })) << cluster.Log("ctld.log");
  const pid_t ctld = cluster.Pid("ctld");
  ASSERT_EQ(kill(ctld, SIGKILL), 0);
  ASSERT_TRUE(Eventually(30, [&] { return !Alive(ctld); }));
  const CommandResult up = cluster.Up();
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  ASSERT_TRUE(Eventually(90, [&] { return state_of(a).find("CANCELLED") != std::string::npos; }))
      << state_of(a) << cluster.Log("ctld.log");
  EXPECT_EQ(state_of(a), "CANCELLED|GpuIdle\n");
  EXPECT_NE(cluster.Run("scontrol show job " + a).out.find("Reason=GPUs_idle_under_5%_for_15_s"),
            std::string::npos)
      << cluster.Run("scontrol show job " + a).out;
  EXPECT_NE(output(a).find("slurmstepd: error: GPUs idle"), std::string::npos) << output(a);
  const std::string mail = ReadFile(dir + "/log/mail.txt");
  EXPECT_NE(
      mail.find(absl::StrCat(a, "|GPUs idle|GPUs idle: every GPU of the job under 5% since ")),
      std::string::npos)
      << mail;
  EXPECT_NE(mail.find(absl::StrCat("-s Slurm Job_id=", a, " Name=hold.sh GPUs idle ")),
            std::string::npos)
      << mail;
  EXPECT_EQ(mail.find(a_mail), mail.rfind(a_mail)) << "one mail across ctld's restart:\n" << mail;

  EXPECT_EQ(state_of(b), "RUNNING|None\n") << "a job busy again is left alone";
  std::ofstream(dir + "/release") << "";
  EXPECT_TRUE(Eventually(60, [&] { return state_of(b) == "COMPLETED|None\n"; })) << state_of(b);
}

// GpuIdlePolicy's requeue: an idle job goes back to the queue (and runs
// again), while an idle job in an exempt QOS is never warned.
TEST(GpuUsageTest, AnIdleJobIsRequeuedAndAnExemptQosIsNeverTouched) {
  ScratchDir state_dir("skiff-nvml");
  ASSERT_FALSE(state_dir.path().empty());
  const std::string state = state_dir.path() + "/nvml.state";
  std::ofstream(state) << "gpu minor=0 util=0\ngpu minor=1 util=0\n";
  LocalCluster::Options options = FakeNvmlNode(state);
  options.extra_config =
      "JobAcctGatherFrequency=1\nHeartbeatInterval=1\n"
      "GpuIdlePolicy=threshold=5,minutes=0.05,action=requeue,grace=0.05,exempt_qos=long\n";
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  ASSERT_EQ(cluster.Run("sacctmgr -i add qos long").exit_code, 0);
  std::ofstream(dir + "/idle.sh") << "#!/bin/bash\nsleep 600\n";
  auto submit = [&](const std::string& qos) {
    CommandResult r = cluster.Run(
        absl::StrCat("sbatch -p gpu --gres=gpu:1 ", qos, " -o ", dir, "/out.%j ", dir, "/idle.sh"));
    const std::vector<uint64_t> ids = SubmittedJobIds(r.out);
    return ids.size() == 1 ? absl::StrCat(ids[0]) : r.err;
  };
  const std::string exempt = submit("--qos=long");
  const std::string plain = submit("");
  auto show = [&](const std::string& id) { return cluster.Run("scontrol show job " + id).out; };
  ASSERT_TRUE(Eventually(60,
                         [&] {
                           return show(exempt).find("JobState=RUNNING") != std::string::npos &&
                                  show(plain).find("JobState=RUNNING") != std::string::npos;
                         }))
      << show(exempt) << show(plain);

  // Warned after 3 s idle, requeued 3 s later; back in the queue it runs again.
  ASSERT_TRUE(Eventually(90, [&] { return show(plain).find("Restarts=1") != std::string::npos; }))
      << show(plain) << cluster.Log("ctld.log");
  EXPECT_NE(
      cluster.Log("ctld.log").find("JobId=" + plain + " requeued: GPUs idle under 5% for 6 s"),
      std::string::npos)
      << cluster.Log("ctld.log");
  const std::string kept = show(exempt);
  EXPECT_NE(kept.find("JobState=RUNNING"), std::string::npos) << kept;
  EXPECT_NE(kept.find("Restarts=0"), std::string::npos) << kept;
  EXPECT_EQ(cluster.Log("ctld.log").find("JobId=" + exempt + " GPUs idle"), std::string::npos)
      << "a job in an exempt QOS is never warned";
  cluster.Run("scancel " + exempt + " " + plain);
}

// A GPU that reports a fault Xid drains its node with a reason naming the
// GPU and the error, and the job on it goes back to the queue while the job
// on the other GPU runs on; RESUME brings the node back and the job runs again.
TEST(GpuUsageTest, AGpuFaultDrainsTheNodeAndRequeuesTheJobOnIt) {
  ScratchDir state_dir("skiff-nvml");
  ASSERT_FALSE(state_dir.path().empty());
  const std::string state = state_dir.path() + "/nvml.state";
  std::ofstream(state) << "gpu minor=0 util=50\ngpu minor=1 util=50\n";
  LocalCluster::Options options = FakeNvmlNode(state);
  options.extra_config = "JobAcctGatherFrequency=1\n";
  options.restd = true;
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  // Two jobs, one on each GPU; each notes which.
  std::ofstream(dir + "/run.sh") << "#!/bin/bash\necho $SLURM_JOB_GPUS > " << dir
                                 << "/gpu.$SLURM_JOB_ID\nsleep 600\n";
  std::vector<std::string> jobs;
  for (int i = 0; i < 2; ++i) {
    CommandResult submit =
        cluster.Run(absl::StrCat("sbatch -p gpu --gres=gpu:1 -o /dev/null ", dir, "/run.sh"));
    const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
    ASSERT_EQ(ids.size(), 1u) << submit.out << submit.err;
    jobs.push_back(absl::StrCat(ids[0]));
  }
  auto gpu_of = [&](const std::string& job) {
    const std::string text = ReadFile(absl::StrCat(dir, "/gpu.", job));
    return text.empty() ? -1 : atoi(text.c_str());
  };
  ASSERT_TRUE(Eventually(60, [&] { return gpu_of(jobs[0]) >= 0 && gpu_of(jobs[1]) >= 0; }));
  const std::string id = jobs[0];
  const std::string other = jobs[1];
  const int gpu = gpu_of(id);

  std::ofstream(state, std::ios::app) << "xid gpu=" << gpu << " code=79\n";
  const std::string reason =
      absl::StrCat("GPU /dev/nvidia", gpu, ": Xid 79 (GPU has fallen off the bus)");
  ASSERT_TRUE(
      Eventually(60, [&] { return cluster.Run("sinfo -R -h -o '%E|%N'").out == reason + "|n1\n"; }))
      << cluster.Run("sinfo -R").out << cluster.Log("noded-n1.log");
  EXPECT_TRUE(Eventually(60, [&] {
    return Metrics(cluster).find(absl::StrCat(
               "skiff_node_gpu_fault{node=\"n1\",gpu=\"/dev/nvidia", gpu,
               "\",error=\"Xid 79 (GPU has fallen off the bus)\"} 1\n")) != std::string::npos;
  })) << Metrics(cluster);
  ASSERT_TRUE(Eventually(60,
                         [&] {
                           const std::string job = cluster.Run("scontrol show job " + id).out;
                           return job.find("Restarts=1") != std::string::npos &&
                                  job.find("JobState=PENDING") != std::string::npos;
                         }))
      << cluster.Run("scontrol show job " + id).out << cluster.Log("ctld.log");
  const std::string on_the_other = cluster.Run("scontrol show job " + other).out;
  EXPECT_NE(on_the_other.find("JobState=RUNNING"), std::string::npos) << on_the_other;
  EXPECT_NE(on_the_other.find("Restarts=0"), std::string::npos) << on_the_other;

  ASSERT_EQ(cluster.Run("scontrol update NodeName=n1 State=RESUME").exit_code, 0);
  EXPECT_TRUE(
      Eventually(60, [&] { return cluster.Run("squeue -h -o %T -j " + id).out == "RUNNING\n"; }))
      << cluster.Run("squeue").out << cluster.Run("sinfo -R").out;
  EXPECT_EQ(cluster.Run("sinfo -R -h").out, "") << "a fault is reported once";
  cluster.Run("scancel " + id + " " + other);
}

// ./skiff up as a newcomer runs it: its GPU nodes' noded answer through the
// fake NVML (installed beside the binaries, its state under dev/NODE/), idle
// until a job's environment asks its GPUs to look busy, sampled at the local
// cluster's JobAcctGatherFrequency (5 s).
TEST(GpuUsageTest, TheLocalClustersFakeGpusShowWhatAJobAsksFor) {
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 1;
  options.restd = true;
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  EXPECT_NE(cluster.Run("scontrol show config").out.find("JobAcctGatherFrequency  = task=5"),
            std::string::npos);

  // The job's environment (sbatch passes the caller's) asks for 70%, 3 GiB.
  std::ofstream(dir + "/busy.sh") << "#!/bin/bash\nfor i in $(seq 600); do [ -e " << dir
                                  << "/release ] && exit 0; sleep 0.2; done\nexit 1\n";
  CommandResult submit =
      cluster.Run(absl::StrCat("SKIFF_FAKE_GPU_UTIL=70 SKIFF_FAKE_GPU_MEM=3072 sbatch -p gpu ",
                               "--gres=gpu:1 -o /dev/null ", dir, "/busy.sh"));
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 1u) << submit.out << submit.err;
  const std::string id = absl::StrCat(ids[0]);

  // While it runs: its GPU on /metrics, as busy as it asked.
  const std::string family = absl::StrCat("skiff_job_gpu_utilization_percent{job=\"", id, "\",");
  ASSERT_TRUE(Eventually(90,
                         [&] {
                           const std::string text = Metrics(cluster);
                           const size_t at = text.find(family);
                           return at != std::string::npos &&
                                  text.find("} 70\n", at) != std::string::npos;
                         }))
      << Metrics(cluster) << cluster.Log("noded-n1.log");
  // A second sample, so that the energy between them counts.
  const std::string usage_file = absl::StrCat(dir, "/state/noded/n1/job", id, "/gpu_usage");
  EXPECT_TRUE(Eventually(60, [&] {
    const std::string text = ReadFile(usage_file);
    const size_t at = text.find(" samples=");
    return at != std::string::npos && atoi(text.c_str() + at + 9) >= 2;
  })) << ReadFile(usage_file);
  std::ofstream(dir + "/release") << "";
  ASSERT_TRUE(Eventually(60, [&] {
    return cluster.Run("sacct -n -X -o State -j " + id).out.find("COMPLETED") != std::string::npos;
  })) << cluster.Run("sacct -j " + id).out;

  const CommandResult sacct =
      cluster.Run("sacct -P -n -o JobID,TRESUsageInAve,ConsumedEnergyRaw -j " + id + ".batch");
  EXPECT_NE(sacct.out.find(absl::StrCat(id, ".batch|gres/gpumem=3G,gres/gpuutil=70")),
            std::string::npos)
      << sacct.out << sacct.err;
  // 60 W idle to 400 W busy: at 70%, 298 W for at least one 5 s interval.
  const size_t bar = sacct.out.rfind('|');
  EXPECT_GT(atoll(sacct.out.c_str() + (bar == std::string::npos ? 0 : bar + 1)), 1000) << sacct.out;
  const CommandResult seff = cluster.Run("seff " + id);
  EXPECT_NE(seff.out.find(" on n1: utilisation 70.00% average, 70% peak; memory 3.00 GB peak of "
                          "40.00 GB (7.50%)\n"),
            std::string::npos)
      << seff.out << seff.err;
}

// GpuIdlePolicy covers interactive allocations too: an salloc holding an
// idle GPU (the local cluster's fake NVML, idle unless asked) is warned, then
// cancelled; its step ends with it, and so does salloc.
TEST(GpuUsageTest, AnIdleInteractiveAllocationIsGivenBackToo) {
  LocalCluster::Options options;
  options.nodes = 1;
  options.gpu_nodes = 1;
  options.extra_config =
      "JobAcctGatherFrequency=1\nHeartbeatInterval=1\n"
      "GpuIdlePolicy=threshold=5,minutes=0.05,action=cancel,grace=0.05\n";
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  ASSERT_EQ(cluster
                .Run(absl::StrCat("setsid salloc -p gpu --gres=gpu:1 srun sleep 600 > ", dir,
                                  "/salloc.out 2>&1 < /dev/null & echo started"))
                .exit_code,
            0);
  std::string id;
  ASSERT_TRUE(Eventually(60, [&] {
    id = std::string(absl::StripAsciiWhitespace(cluster.Run("squeue -h -o %i -t R").out));
    return !id.empty();
  })) << ReadFile(dir + "/salloc.out");
  ASSERT_TRUE(Eventually(90,
                         [&] {
                           return cluster.Run("sacct -n -X -P -o State,Reason -j " + id).out ==
                                  "CANCELLED|GpuIdle\n";
                         }))
      << cluster.Run("sacct -j " + id).out << cluster.Log("ctld.log");
  EXPECT_NE(cluster.Log("ctld.log").find("JobId=" + id + " GPUs idle: every GPU of the job"),
            std::string::npos)
      << "warned first";
  EXPECT_TRUE(Eventually(60, [&] { return cluster.Run("pgrep -x salloc").out.empty(); }))
      << "salloc ended with its allocation: " << ReadFile(dir + "/salloc.out");
}

// A two-node GPU job: its batch host samples its GPU there, the other node
// the GPU its step's task uses there (the local cluster's fake NVML, made
// busy by the tasks' environment); the running job's GPUs on both nodes are
// on /metrics, and its end carries both nodes' to sacct and seff.
TEST(GpuUsageTest, AMultiNodeJobsGpusAreSampledOnEveryNode) {
  LocalCluster::Options options;
  options.nodes = 2;
  options.gpu_nodes = 2;
  options.restd = true;
  options.extra_config = "JobAcctGatherFrequency=1\nHeartbeatInterval=1\n";
  auto started = LocalCluster::Start(options);
  ASSERT_TRUE(started.ok()) << started.status();
  LocalCluster& cluster = **started;
  const std::string dir = cluster.dir();
  std::ofstream(dir + "/step.sh") << "#!/bin/bash\nfor i in $(seq 900); do [ -e " << dir
                                  << "/release ] && exit 0; sleep 0.2; done\nexit 1\n";
  chmod((dir + "/step.sh").c_str(), 0755);
  const CommandResult submit = cluster.Run(absl::StrCat(
      "SKIFF_FAKE_GPU_UTIL=60 SKIFF_FAKE_GPU_MEM=1024 sbatch -N2 -p gpu --gres=gpu:1 -o ", dir,
      "/job.out --wrap 'srun ", dir, "/step.sh'"));
  const std::vector<uint64_t> ids = SubmittedJobIds(submit.out);
  ASSERT_EQ(ids.size(), 1u) << submit.out << submit.err;
  const std::string id = absl::StrCat(ids[0]);

  // Both nodes' GPUs, from each node's heartbeats.
  auto on_node = [&](const std::string& text, const std::string& node) {
    for (size_t at = text.find(absl::StrCat("skiff_job_gpu_utilization_percent{job=\"", id, "\""));
         at != std::string::npos;
         at = text.find(absl::StrCat("skiff_job_gpu_utilization_percent{job=\"", id, "\""),
                        at + 1)) {
      const std::string line = text.substr(at, text.find('\n', at) - at);
      if (line.find("node=\"" + node + "\"") != std::string::npos && absl::EndsWith(line, "} 60")) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(Eventually(90,
                         [&] {
                           const std::string text = Metrics(cluster);
                           return on_node(text, "n1") && on_node(text, "n2");
                         }))
      << Metrics(cluster) << cluster.Log("noded-n2.log");
  std::ofstream(dir + "/release") << "";
  ASSERT_TRUE(
      Eventually(90,
                 [&] {
                   return cluster.Run("sacct -n -X -o State -j " + id).out.find("COMPLETED") !=
                          std::string::npos;
                 }))
      << cluster.Run("sacct -j " + id).out << ReadFile(dir + "/job.out");

  // Two GPUs at 60%: Slurm's sums over them.
  const CommandResult sacct = cluster.Run("sacct -P -n -o JobID,TRESUsageInMax -j " + id);
  EXPECT_NE(sacct.out.find(absl::StrCat(id, ".batch|gres/gpumem=2G,gres/gpuutil=120")),
            std::string::npos)
      << sacct.out;
  const CommandResult seff = cluster.Run("seff " + id);
  EXPECT_NE(seff.out.find("GPUs: 2\n"), std::string::npos) << seff.out;
  // Each node's GPU at its peak (a sample as a task starts or ends may find
  // it not yet, or no longer, busy: the averages vary).
  for (const char* node : {"n1", "n2"}) {
    const size_t at = seff.out.find(absl::StrCat(" on ", node, ": utilisation "));
    ASSERT_NE(at, std::string::npos) << seff.out;
    EXPECT_NE(seff.out.substr(at, seff.out.find('\n', at) - at).find("% average, 60% peak"),
              std::string::npos)
        << seff.out;
  }
}

}  // namespace
}  // namespace skiff::testing
