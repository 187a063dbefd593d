#include "cli/common/sbatch_options.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/schema.h"

namespace skiff::cli {
namespace {

SubmitContext Context() {
  SubmitContext context;
  context.cwd = "/home/alice/work";
  context.hostname = "login1";
  context.environment = {{"HOME", "/home/alice"}, {"FOO", "1"}, {"SLURM_CONF", "/etc/s.conf"}};
  context.now = 1795324490;
  return context;
}

SbatchCommandLine Cli(std::vector<std::string> args) {
  absl::StatusOr<SbatchCommandLine> cl = ParseSbatchCommandLine(args);
  EXPECT_TRUE(cl.ok()) << cl.status();
  return cl.ok() ? *cl : SbatchCommandLine();
}

absl::StatusOr<SbatchSubmission> Submit(std::vector<std::string> args, const std::string& script,
                                        const SubmitContext& context = Context()) {
  absl::StatusOr<SbatchCommandLine> cl = ParseSbatchCommandLine(args);
  if (!cl.ok()) return cl.status();
  return BuildSubmission(*cl, script, context);
}

constexpr char kScript[] =
    "#!/bin/bash\n"
    "#SBATCH -J first\n"
    "\n"
    "# a plain comment\n"
    "   #SBATCH --partition=indented-is-a-comment\n"
    "#SBATCH --mem=4G -t 10 # a trailing comment -p ignored\n"
    "#SBATCH --comment=\"two words\" --output='out %j.txt'\n"
    "echo hello\n"
    "#SBATCH -p after-the-first-command\n";

TEST(ParseSbatchCommandLine, TmpIsCheckedAsSlurmChecksIt) {
  absl::StatusOr<SbatchCommandLine> bad = ParseSbatchCommandLine({"--tmp=abc", "j.sh"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);  // exit 255
  EXPECT_EQ(bad.status().message(), "Invalid --tmp specification");
  EXPECT_FALSE(ParseSbatchCommandLine({"--tmp=4X", "j.sh"}).ok());
  for (const char* good : {"--tmp=100", "--tmp=10G", "--tmp=512M"}) {
    absl::StatusOr<SbatchCommandLine> line = ParseSbatchCommandLine({good, "j.sh"});
    ASSERT_TRUE(line.ok()) << good << ": " << line.status();
  }
  EXPECT_TRUE(CheckTmpOption("1T").ok());
  EXPECT_FALSE(CheckTmpOption("").ok());
}

// --tmp reaches the spec in MB (rounded up, as Slurm's str_to_mbytes), from
// the command line, a directive or salloc's and srun's same option, with no
// warning; -v shows it as Slurm 22.05's sbatch did on the anchor ("tmp : 2G"
// for --tmp=2048, "tmp : 2" for --tmp=1500K).
// --gpu-bind is left in the job as SLURM_GPU_BIND for its sruns (Slurm's
// set_env_from_opts), checked as Slurm checks it, with no warning.
TEST(BuildSubmission, GpuBindIsLeftForTheJobsSteps) {
  absl::StatusOr<SbatchSubmission> s = Submit({"--gpu-bind=map_gpu:1,0", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.environment().at("SLURM_GPU_BIND"), "map_gpu:1,0");
  EXPECT_TRUE(s->warnings.empty());
  s = Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --gpu-bind=single:2\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.environment().at("SLURM_GPU_BIND"), "single:2");
  s = Submit({"--gpu-bind=foo", "j.sh"}, "#!/bin/sh\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "Invalid --gpu-bind argument: gpu:foo");
}

// -B S[:C[:T]] and its three siblings become the job's floors on its nodes'
// layout; -B sets all three, so the later of -B and a sibling wins, and the
// command line's over a directive's, field by field.
TEST(BuildSubmission, ExtraNodeInfoAndItsSiblingsBecomeTheJobsTopology) {
  auto sct = [](const SbatchSubmission& s) {
    return absl::StrCat(s.spec.sockets_per_node(), ":", s.spec.cores_per_socket(), ":",
                        s.spec.threads_per_core());
  };
  absl::StatusOr<SbatchSubmission> s = Submit({"-B", "2:4:1", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(sct(*s), "2:4:1");
  EXPECT_TRUE(s->warnings.empty()) << s->warnings.front();
  s = Submit({"--cores-per-socket=4", "--extra-node-info=2-3", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(sct(*s), "2:0:0");
  s = Submit({"-B", "*:2", "--threads-per-core=2", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(sct(*s), "0:2:2");
  s = Submit({"--sockets-per-node=1", "j.sh"}, "#!/bin/sh\n#SBATCH -B 2:2\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(sct(*s), "1:2:0");
  s = Submit({"j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(sct(*s), "0:0:0");
}

TEST(BuildSubmission, TmpBecomesTheJobsMinTmpDisk) {
  absl::StatusOr<SbatchSubmission> s = Submit({"--tmp=10G", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.min_tmp_disk_mb(), 10240u);
  EXPECT_TRUE(s->warnings.empty());
  s = Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --tmp=1500K\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.min_tmp_disk_mb(), 2u);
  s = Submit({"--tmp=100", "j.sh"}, "#!/bin/sh\n#SBATCH --tmp=1G\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.min_tmp_disk_mb(), 100u);  // the command line wins
  s = Submit({"j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.min_tmp_disk_mb(), 0u);
  // A bad value in a directive is refused as on the command line.
  s = Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --tmp=lots\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "Invalid --tmp specification");
  EXPECT_EQ(SbatchExitCode(s.status()), 255);
  for (const auto& [value, shown] :
       std::vector<std::pair<std::string, std::string>>{{"2048", "tmp                 : 2G"},
                                                        {"1500K", "tmp                 : 2"},
                                                        {"100", "tmp                 : 100"}}) {
    s = Submit({"-v", "--tmp=" + value, "--wrap=true"}, WrapScript("true"));
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_NE(std::find(s->defined_options.begin(), s->defined_options.end(), shown),
              s->defined_options.end())
        << value;
  }
}

TEST(ExtractDirectives, ReadsTheLeadingCommentBlockLikeSlurm) {
  EXPECT_EQ(*ExtractDirectives(kScript),
            (std::vector<std::string>{"-J", "first", "--mem=4G", "-t", "10", "--comment=two words",
                                      "--output=out %j.txt"}));
}

TEST(ExtractDirectives, EscapesAndUnmatchedQuotes) {
  EXPECT_EQ(*ExtractDirectives("#!/bin/sh\n#SBATCH --comment=a\\\"b\\#c\n"),
            (std::vector<std::string>{"--comment=a\"b#c"}));
  // As in Slurm's get_argument, an escaped blank still ends the argument.
  EXPECT_EQ(*ExtractDirectives("#!/bin/sh\n#SBATCH --comment=a\\ b\n"),
            (std::vector<std::string>{"--comment=a", "b"}));
  absl::StatusOr<std::vector<std::string>> bad = ExtractDirectives("#!/bin/sh\n#SBATCH -J \"x\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Unmatched \" in #SBATCH line 2: #SBATCH -J \"x");
}

TEST(BuildSubmission, DirectivesFillTheSpec) {
  absl::StatusOr<SbatchSubmission> s = Submit({"job.sh"}, kScript);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.name(), "first");
  EXPECT_EQ(s->spec.mem_per_node_mb(), 4096u);
  EXPECT_EQ(s->spec.time_limit(), 600);
  EXPECT_EQ(s->spec.comment(), "two words");
  EXPECT_EQ(s->spec.stdout_pattern(), "/home/alice/work/out %j.txt");
  EXPECT_EQ(s->spec.partition(), "");  // neither the indented nor the late -p counts
  EXPECT_EQ(s->spec.script(), kScript);
}

TEST(BuildSubmission, FreeTextIsBytesButNamesMustBeText) {
  // Latin-1 "café" (0xe9) in the script, the job name and the comment: Slurm
  // takes them as bytes, so does Skiff.
  const std::string latin1 = "caf\xe9";
  const std::string script = "#!/bin/sh\n# " + latin1 + "\n#SBATCH -J " + latin1 + "\ntrue\n";
  absl::StatusOr<SbatchSubmission> s = Submit({"--comment=" + latin1, "job.sh"}, script);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.name(), latin1);
  EXPECT_EQ(s->spec.comment(), latin1);
  EXPECT_EQ(s->spec.script(), script);
  // An account by that name cannot exist: refused, naming the option.
  absl::StatusOr<SbatchSubmission> bad = Submit({"-A", latin1, "job.sh"}, script);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Invalid --account specification: not valid UTF-8");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

// The UTF-8 check sees every text field of JobSpec: a `string` field added to
// proto/job.proto fails here until JobSpecTextFields lists it.
TEST(BuildSubmission, TheTextFieldsListedAreTheSchemasStringFields) {
  const google::protobuf::Descriptor* schema = proto_schema::Message("skiff.v1.JobSpec");
  ASSERT_NE(schema, nullptr);
  std::vector<std::string> in_schema;
  for (int i = 0; i < schema->field_count(); ++i) {
    if (schema->field(i)->type() == google::protobuf::FieldDescriptor::TYPE_STRING) {
      in_schema.push_back(schema->field(i)->name());
    }
  }
  v1::JobSpec spec;
  spec.add_nodelist("n1");
  spec.add_nodelist("n2");
  std::vector<std::string> listed;
  for (const JobSpecTextField& field : JobSpecTextFields(spec)) {
    listed.emplace_back(field.name);
    if (field.name == "nodelist") EXPECT_EQ(field.values.size(), 2u);
    if (field.name == "partition") EXPECT_EQ(field.values, std::vector{&spec.partition()});
  }
  std::sort(in_schema.begin(), in_schema.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, in_schema);
}

TEST(BuildSubmission, EachTextFieldNamesItsOptionWhenNotUtf8) {
  const std::string latin1 = "caf\xe9";
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"-p", latin1, "job.sh"}, "Invalid --partition specification: not valid UTF-8"},
           {{"--qos", latin1, "job.sh"}, "Invalid --qos specification: not valid UTF-8"},
           {{"--export=ALL,X=" + latin1, "job.sh"},
            "Invalid --export specification: not valid UTF-8"},
           {{"--mail-user=" + latin1, "job.sh"},
            "Invalid --mail-user specification: not valid UTF-8"}}) {
    absl::StatusOr<SbatchSubmission> bad = Submit(args, kScript);
    ASSERT_FALSE(bad.ok()) << args[1];
    EXPECT_EQ(bad.status().message(), message);
  }
}

TEST(BuildSubmission, CommandLineOverridesDirectives) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"-J", "cli", "--time=5", "--mem-per-cpu=100", "job.sh", "arg1", "-x"}, kScript);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.name(), "cli");
  EXPECT_EQ(s->spec.time_limit(), 300);
  // --mem-per-cpu on the command line replaces the script's --mem.
  EXPECT_EQ(s->spec.mem_per_node_mb(), 0u);
  EXPECT_EQ(s->spec.mem_per_cpu_mb(), 100u);
  EXPECT_EQ(s->spec.comment(), "two words");
  EXPECT_EQ(std::vector<std::string>(s->spec.argv().begin(), s->spec.argv().end()),
            (std::vector<std::string>{"arg1", "-x"}));
}

// What Slurm 22.05's sbatch printed for `sbatch -v --test-only -J cli
// job.sh arg1 -x` with the script's -J, --mem and -t (../shared/slurm-anchor):
// directives and the command line merged, the script's arguments not shown.
TEST(BuildSubmission, VerbosePrintsSlurmsDefinedOptions) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"-v", "--test-only", "-J", "cli", "job.sh", "arg1", "-x"},
             "#!/bin/bash\n#SBATCH -J first\n#SBATCH --mem=4G -t 10\ntrue\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->defined_options, (std::vector<std::string>{
                                    "defined options",
                                    "-------------------- --------------------",
                                    "job-name            : cli",
                                    "mem                 : 4G",
                                    "test-only           : set",
                                    "time                : 00:10:00",
                                    "verbose             : 1",
                                    "-------------------- --------------------",
                                    "end of defined options",
                                }));
  s = Submit({"--no-requeue", "-vv", "--wrap", "true"}, WrapScript("true"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->defined_options[2], "no-requeue          : no-requeue");
  EXPECT_EQ(s->defined_options[3], "verbose             : 2");
  EXPECT_TRUE(Submit({"-n2", "--wrap", "true"}, WrapScript("true"))->defined_options.empty())
      << "only with -v";
}

TEST(BuildSubmission, EnvironmentSitsBetweenDirectivesAndCommandLine) {
  SubmitContext context = Context();
  context.environment["SBATCH_PARTITION"] = "gpu";
  context.environment["SBATCH_JOB_NAME"] = "fromenv";
  absl::StatusOr<SbatchSubmission> s = Submit({"-J", "cli", "job.sh"}, kScript, context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.partition(), "gpu");
  EXPECT_EQ(s->spec.name(), "cli");
}

TEST(BuildSubmission, DefaultsFollowSlurm) {
  absl::StatusOr<SbatchSubmission> s = Submit({"sub/job.sh"}, "#!/bin/sh\ntrue\n");
  ASSERT_TRUE(s.ok()) << s.status();
  const v1::JobSpec& spec = s->spec;
  EXPECT_EQ(spec.name(), "job.sh");
  EXPECT_EQ(spec.command(), "/home/alice/work/sub/job.sh");
  EXPECT_EQ(spec.work_dir(), "/home/alice/work");
  EXPECT_EQ(spec.submit_dir(), "/home/alice/work");
  EXPECT_EQ(spec.submit_host(), "login1");
  EXPECT_EQ(spec.export_mode(), "ALL");
  EXPECT_EQ(spec.environment().size(), 3u);
  EXPECT_FALSE(spec.has_time_limit());
  EXPECT_FALSE(spec.has_requeue());
  EXPECT_FALSE(spec.hold());
  EXPECT_FALSE(s->parsable);
  EXPECT_TRUE(s->warnings.empty());
}

TEST(BuildSubmission, StdinScriptIsNamedSbatch) {
  absl::StatusOr<SbatchSubmission> s = Submit({}, "#!/bin/sh\ntrue\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.name(), "sbatch");
  EXPECT_EQ(s->spec.command(), "");
}

TEST(BuildSubmission, WrapMakesAShScriptAndIgnoresDirectives) {
  SbatchCommandLine cl = Cli({"--wrap=hostname -s"});
  ASSERT_TRUE(cl.options.wrap.has_value());
  std::string script = WrapScript(*cl.options.wrap);
  EXPECT_EQ(script, "#!/bin/sh\nhostname -s\n");
  absl::StatusOr<SbatchSubmission> s = BuildSubmission(cl, script, Context());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.name(), "wrap");
  EXPECT_EQ(s->spec.command(), "(wrap)");
  EXPECT_EQ(s->spec.script(), "#!/bin/sh\nhostname -s\n");
  EXPECT_EQ(ParseSbatchCommandLine({"--wrap=true", "job.sh"}).status().message(),
            "Script arguments not permitted with --wrap option");
}

TEST(BuildSubmission, ChdirAndFilesBecomeAbsolute) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"-D", "runs", "-o", "log/%j.out", "-e", "/tmp/err", "-i", "./in.txt", "job.sh"},
             "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.work_dir(), "/home/alice/work/runs");
  EXPECT_EQ(s->spec.stdout_pattern(), "/home/alice/work/runs/log/%j.out");
  EXPECT_EQ(s->spec.stderr_pattern(), "/tmp/err");
  EXPECT_EQ(s->spec.stdin_path(), "/home/alice/work/runs/in.txt");
  EXPECT_EQ(s->spec.command(), "/home/alice/work/job.sh");
}

TEST(BuildSubmission, GetUserEnvAsksNodedForTheLoginEnvironment) {
  for (const char* option :
       {"--get-user-env", "--get-user-env=10", "--get-user-env=10L", "--get-user-env=S"}) {
    absl::StatusOr<SbatchSubmission> s = Submit({option, "j.sh"}, "#!/bin/sh\n");
    ASSERT_TRUE(s.ok()) << option << ": " << s.status();
    EXPECT_EQ(s->spec.environment().at("SLURM_GET_USER_ENV"), "1") << option;
    EXPECT_EQ(s->spec.environment().at("HOME"), "/home/alice") << option;
  }
  for (const char* option : {"--get-user-env=10X", "--get-user-env=abc"}) {
    absl::StatusOr<SbatchSubmission> s = Submit({option, "j.sh"}, "#!/bin/sh\n");
    ASSERT_FALSE(s.ok()) << option;
    EXPECT_EQ(s.status().message(), "Invalid --get-user-env specification");
  }
  absl::StatusOr<SbatchSubmission> plain = Submit({"j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->spec.environment().count("SLURM_GET_USER_ENV"), 0u);
}

TEST(BuildSubmission, ExportVariants) {
  auto env = [](const std::string& mode) {
    absl::StatusOr<SbatchSubmission> s = Submit({"--export=" + mode, "j.sh"}, "#!/bin/sh\n");
    EXPECT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->spec.export_mode(), mode);
    return std::map<std::string, std::string>(s->spec.environment().begin(),
                                              s->spec.environment().end());
  };
  using Env = std::map<std::string, std::string>;
  EXPECT_EQ(env("ALL"),
            (Env{{"HOME", "/home/alice"}, {"FOO", "1"}, {"SLURM_CONF", "/etc/s.conf"}}));
  // Anything but ALL also loads the login environment on the node, as Slurm.
  EXPECT_EQ(env("NONE"), (Env{{"SLURM_CONF", "/etc/s.conf"}, {"SLURM_GET_USER_ENV", "1"}}));
  EXPECT_EQ(
      env("FOO,BAR=2,MISSING"),
      (Env{
          {"FOO", "1"}, {"BAR", "2"}, {"SLURM_CONF", "/etc/s.conf"}, {"SLURM_GET_USER_ENV", "1"}}));
  EXPECT_EQ(env("ALL,FOO=9"), (Env{{"HOME", "/home/alice"},
                                   {"FOO", "9"},
                                   {"SLURM_CONF", "/etc/s.conf"},
                                   {"SLURM_GET_USER_ENV", "1"}}));
  absl::StatusOr<SbatchSubmission> bad = Submit({"--export=FOO,NONE", "j.sh"}, "#!/bin/sh\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(SbatchExitCode(bad.status()), 255);
}

TEST(BuildSubmission, ResourceOptions) {
  absl::StatusOr<SbatchSubmission> s = Submit({"-N",
                                               "2-4",
                                               "-n",
                                               "8",
                                               "-c",
                                               "2",
                                               "--mem=1536K",
                                               "--gres=gpu:2,gres:nic:1",
                                               "--gpus-per-node=a100:1",
                                               "-p",
                                               "gpu",
                                               "-q",
                                               "high",
                                               "-A",
                                               "lab",
                                               "--hold",
                                               "--parsable",
                                               "--no-requeue",
                                               "-d",
                                               "afterok:42",
                                               "--bb",
                                               "pool=fast capacity=1G",
                                               "-t",
                                               "UNLIMITED",
                                               "j.sh"},
                                              "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  const v1::JobSpec& spec = s->spec;
  EXPECT_EQ(spec.min_nodes(), 2);
  EXPECT_EQ(spec.max_nodes(), 4);
  EXPECT_EQ(spec.ntasks(), 8);
  EXPECT_EQ(spec.cpus_per_task(), 2);
  EXPECT_EQ(spec.mem_per_node_mb(), 2u);  // 1.5 MiB rounds up
  EXPECT_EQ(std::vector<std::string>(spec.gres().begin(), spec.gres().end()),
            (std::vector<std::string>{"gpu:2", "nic:1"}));
  EXPECT_EQ(spec.gpus_per_node(), "a100:1");
  EXPECT_EQ(spec.partition(), "gpu");
  EXPECT_EQ(spec.qos(), "high");
  EXPECT_EQ(spec.account(), "lab");
  EXPECT_TRUE(spec.hold());
  EXPECT_TRUE(s->parsable);
  ASSERT_TRUE(spec.has_requeue());
  EXPECT_FALSE(spec.requeue());
  EXPECT_EQ(spec.dependency(), "afterok:42");
  EXPECT_EQ(spec.burst_buffer(), "pool=fast capacity=1G");
  EXPECT_EQ(spec.time_limit(), -1);
}

TEST(BuildSubmission, BadTimeMatchesSlurm) {
  // shared/reference/sbatch_err_invalid_time.txt: exit 255.
  absl::StatusOr<SbatchSubmission> s = Submit({"-t", "abc", "--wrap=true"}, "#!/bin/sh\ntrue\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "Invalid --time specification");
  EXPECT_EQ(SbatchExitCode(s.status()), 255);
  // Past Slurm's largest limit, 0xfffffffd minutes (issue 32 item 5).
  s = Submit({"-t", "4294967294", "--wrap=true"}, "#!/bin/sh\ntrue\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "Invalid --time specification");
  s = Submit({"-t", "4294967293", "--wrap=true"}, "#!/bin/sh\ntrue\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.time_limit(), int64_t{4294967293} * 60);
}

TEST(BuildSubmission, BadValuesNameTheValue) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
    int exit_code = 255;  // 1 for a count: Slurm's parse_int exits 1
  };
  std::vector<Case> cases = {
      {{"--mem=4X"}, "Invalid --mem specification"},
      {{"--mem-per-cpu=-1"}, "Invalid --mem-per-cpu specification"},
      {{"-N", "3-2"}, "Maximum node count 2 is less than minimum node count 3"},
      {{"-N", "x"}, "\"x\" is not a valid node count"},
      {{"-N", "2-y"}, "\"y\" is not a valid node count"},
      {{"-n", "0"}, "Invalid numeric value \"0\" for --ntasks.", 1},
      {{"-c", "two"}, "Invalid numeric value \"two\" for --cpus-per-task.", 1},
      // Counts past int are refused, not wrapped (issue 32 item 5).
      {{"-c", "2147483648"}, "Invalid numeric value \"2147483648\" for --cpus-per-task.", 1},
      {{"-n", "4294967296"}, "Invalid numeric value \"4294967296\" for --ntasks.", 1},
      {{"--sockets-per-node=0"}, "Invalid numeric value \"0\" for --sockets-per-node.", 1},
      {{"--threads-per-core=x"}, "Invalid numeric value \"x\" for --threads-per-core.", 1},
      {{"-B", "2:x"}, "Invalid numeric value \"x\" for second arg of -B.", 1},
      {{"-B", "2-0"}, "Invalid numeric value \"2-0\" for first arg of -B.", 1},
      {{"--gres=,"}, "Invalid --gres specification: ','"},
      {{"--begin=soonish"}, "Invalid --begin specification: 'soonish'"},
      {{"--export=,"}, "Invalid --export specification: ','"},
  };
  for (Case& c : cases) {
    c.args.push_back("j.sh");
    absl::StatusOr<SbatchSubmission> s = Submit(c.args, "#!/bin/sh\n");
    ASSERT_FALSE(s.ok()) << c.message;
    EXPECT_EQ(s.status().message(), c.message);
    EXPECT_EQ(SbatchExitCode(s.status()), c.exit_code) << c.message;
  }
}

TEST(BuildSubmission, MemoryOptionsAtOneLevelConflict) {
  // Slurm's fatal() (exit 1) from slurm_opt.c.
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--mem=1G", "--mem-per-cpu=1G", "j.sh"},
                                             {"--mem-per-gpu=1G", "--mem=1G", "j.sh"},
                                             {"--mem-per-cpu=1G", "--mem-per-gpu=2G", "j.sh"}}) {
    absl::StatusOr<SbatchSubmission> s = Submit(args, "#!/bin/sh\n");
    ASSERT_FALSE(s.ok()) << args[0];
    EXPECT_EQ(s.status().message(),
              "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
    EXPECT_EQ(SbatchExitCode(s.status()), 1);
  }
  // Within the script too.
  EXPECT_FALSE(Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --mem=1G --mem-per-gpu=1G\n").ok());
}

TEST(BuildSubmission, MemoryOptionOnTheCommandLineReplacesTheScripts) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"--mem-per-gpu=2G", "j.sh"}, "#!/bin/sh\n#SBATCH --mem=4G\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.mem_per_gpu_mb(), 2048u);
  EXPECT_EQ(s->spec.mem_per_node_mb(), 0u);
  s = Submit({"--mem=1G", "j.sh"}, "#!/bin/sh\n#SBATCH --mem-per-gpu=4G\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.mem_per_gpu_mb(), 0u);
  EXPECT_EQ(s->spec.mem_per_node_mb(), 1024u);
}

TEST(BuildSubmission, ZeroTimeMeansUnlimited) {
  absl::StatusOr<SbatchSubmission> s = Submit({"-t", "0", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->spec.time_limit(), -1);
}

TEST(BuildSubmission, InvalidDirectivesAreReported) {
  for (const char* script : {"#!/bin/sh\n#SBATCH --bogus=1\n", "#!/bin/sh\n#SBATCH stray\n"}) {
    absl::StatusOr<SbatchSubmission> s = Submit({"j.sh"}, script);
    ASSERT_FALSE(s.ok()) << script;
    EXPECT_EQ(SbatchExitCode(s.status()), 255);
  }
  // An unknown option in the script is refused in getopt's words, as Slurm's
  // second pass does (its '?' case prints the Try line and exits 255); only a
  // word that is no option is an "Invalid directive".
  absl::StatusOr<SbatchSubmission> unknown = Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --bogus=1\n");
  EXPECT_EQ(unknown.status().message(), "unrecognized option '--bogus=1'");
  EXPECT_TRUE(IsGetoptError(unknown.status()));
  EXPECT_EQ(Submit({"j.sh"}, "#!/bin/sh\n#SBATCH -t\n").status().message(),
            "option requires an argument -- 't'");
  EXPECT_EQ(Submit({"j.sh"}, "#!/bin/sh\n#SBATCH -J ok stray\n").status().message(),
            "Invalid directive found in batch script: stray");
}

TEST(BuildSubmission, ScriptChecksMatchSlurm) {
  // shared/reference/sbatch_err_no_script.txt: "Batch script is empty!", exit 1.
  absl::StatusOr<SbatchSubmission> empty = Submit({}, "");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "Batch script is empty!");
  EXPECT_EQ(SbatchExitCode(empty.status()), 1);
  EXPECT_EQ(Submit({}, " \n\t\n").status().message(), "Batch script contains only whitespace!");
  absl::StatusOr<SbatchSubmission> no_shebang = Submit({"j.sh"}, "echo hi\n");
  ASSERT_FALSE(no_shebang.ok());
  EXPECT_EQ(no_shebang.status().message(),
            "This does not look like a batch script.  The first\n"
            "line must start with #! followed by the path to an interpreter.\n"
            "For instance: #!/bin/sh");
  EXPECT_EQ(SbatchExitCode(no_shebang.status()), 1);
  EXPECT_FALSE(Submit({"j.sh"}, "#!/bin/sh\r\necho\r\n").ok());
  EXPECT_FALSE(Submit({"j.sh"}, std::string("#!/bin/sh\n\0\n", 12)).ok());
}

TEST(ParseSbatchCommandLine, UnknownOptionsAndHelp) {
  absl::StatusOr<SbatchCommandLine> bad = ParseSbatchCommandLine({"--bogus", "j.sh"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unrecognized option '--bogus'");
  // Slurm's sbatch exits -1 (255) from its '?' case.
  EXPECT_TRUE(IsGetoptError(bad.status()));
  EXPECT_EQ(SbatchExitCode(bad.status()), 255);
  EXPECT_EQ(ParseSbatchCommandLine({"--mem-per", "1", "j.sh"}).status().message(),
            "option '--mem-per' is ambiguous; possibilities: '--mem-per-cpu' '--mem-per-gpu'");
  // Candidates in Slurm's table order, not Skiff's order of declaration;
  // pyxis's options come after Slurm's, as a SPANK plugin's do.
  EXPECT_EQ(ParseSbatchCommandLine({"--no", "j.sh"}).status().message(),
            "option '--no' is ambiguous; possibilities: '--no-kill' '--no-requeue' '--nodelist' "
            "'--nodes' '--no-container-mount-home' '--no-container-remap-root'");
  EXPECT_EQ(ParseSbatchCommandLine({"--hold=yes", "j.sh"}).status().message(),
            "option '--hold' doesn't allow an argument");
  EXPECT_EQ(ParseSbatchCommandLine({"-t"}).status().message(),
            "option requires an argument -- 't'");
  EXPECT_FALSE(IsGetoptError(ParseSbatchCommandLine({"--wrap=x", "j.sh"}).status()));
  SbatchCommandLine help = Cli({"--help"});
  EXPECT_TRUE(help.help);
  EXPECT_NE(help.help_text.find("  -p, --partition=partition   partition requested\n"),
            std::string::npos);
  SbatchCommandLine usage = Cli({"--usage"});
  EXPECT_TRUE(usage.help);
  EXPECT_EQ(usage.help_text.rfind("Usage: sbatch [-N nnodes] [-n ntasks]\n", 0), 0u);
  // Long options abbreviate, as getopt_long's.
  EXPECT_EQ(*Cli({"--part=gpu", "j.sh"}).options.partition, "gpu");
  SbatchCommandLine dashdash = Cli({"--", "-odd.sh"});
  EXPECT_EQ(dashdash.script_path, "-odd.sh");
  SbatchCommandLine last_wins = Cli({"-t", "5", "-t", "7", "j.sh"});
  EXPECT_EQ(*last_wins.options.time, "7");
}

// As getopt_long: a value-taking option takes the next argument whatever it
// looks like, and "--opt=" gives it the empty value.
TEST(ParseSbatchCommandLine, ValuesAreTakenAsGetoptTakesThem) {
  SbatchCommandLine empty = Cli({"--array=", "--wrap", "true"});
  ASSERT_TRUE(empty.options.array.has_value());
  EXPECT_EQ(*empty.options.array, "");
  EXPECT_EQ(*empty.options.wrap, "true");
  absl::StatusOr<SbatchSubmission> refused = Submit({"--array=", "--wrap", "true"}, "#!/bin/sh\n");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "Invalid --array specification: ''");

  SbatchCommandLine dash_value = Cli({"--job-name", "-x", "-J", "--y", "j.sh"});
  EXPECT_EQ(*dash_value.options.job_name, "--y");
  EXPECT_EQ(dash_value.script_path, "j.sh");
  SbatchCommandLine glued = Cli({"-a1-3", "-Jname", "--time=5", "j.sh", "-a", "arg"});
  EXPECT_EQ(*glued.options.array, "1-3");
  EXPECT_EQ(*glued.options.job_name, "name");
  EXPECT_EQ(*glued.options.time, "5");
  EXPECT_EQ(glued.script_args, (std::vector<std::string>{"-a", "arg"}));
  // Flags take nothing; --exclusive's value comes only with '='.
  SbatchCommandLine flags = Cli({"-H", "--exclusive", "j.sh"});
  EXPECT_TRUE(flags.options.hold);
  EXPECT_EQ(flags.script_path, "j.sh");
}

TEST(BuildSubmission, IgnoredSlurmOptionsWarn) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"--wckey=x", "--reboot", "--hint=compute_bound", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  // In the order they were given, as getopt reads them.
  EXPECT_EQ(s->warnings,
            (std::vector<std::string>{"--wckey is not supported by Skiff and was ignored",
                                      "--reboot is not supported by Skiff and was ignored",
                                      "--hint is not supported by Skiff and was ignored"}));
}

TEST(ParseSbatchCommandLine, TheLastOfOpposingOptionsWins) {
  EXPECT_FALSE(*Cli({"--requeue", "--no-requeue", "j.sh"}).options.requeue);
  EXPECT_TRUE(*Cli({"--no-requeue", "--requeue", "j.sh"}).options.requeue);
  EXPECT_EQ(*Cli({"--exclusive=user", "--exclusive", "j.sh"}).options.exclusive, "exclusive");
  EXPECT_EQ(*Cli({"--nice", "--nice=5", "j.sh"}).options.nice, "5");
  EXPECT_EQ(*Cli({"--get-user-env", "j.sh"}).options.get_user_env, "0");
  EXPECT_EQ(*Cli({"-J", "a", "--job-name=b", "-Jc", "j.sh"}).options.job_name, "c");
}

// A reader over an in-memory file system, for --bbf and node files.
std::function<absl::StatusOr<std::string>(const std::string&)> Files(
    std::map<std::string, std::string> files) {
  return [files](const std::string& path) -> absl::StatusOr<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return absl::NotFoundError("No such file or directory");
    return it->second;
  };
}

TEST(BuildSubmission, SchedulingOptionsFillTheSpec) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"-a", "1-100%5", "-d", "afterok:42:43,afterany:44", "--kill-on-invalid-dep=YES", "-G",
              "a100:4", "--gpus-per-node=2", "--mem-per-gpu=1536K", "--exclusive", "-w",
              "n[1-3],n2,gpu01", "-x", "n[7-8]", "-C", "a100&ib", "--mail-type=END,fail",
              "--mail-user=alice@lab.org", "j.sh"},
             "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  const v1::JobSpec& spec = s->spec;
  EXPECT_EQ(spec.array(), "1-100%5");
  EXPECT_EQ(spec.dependency(), "afterok:42:43,afterany:44");
  EXPECT_TRUE(spec.kill_on_invalid_dep());
  EXPECT_EQ(spec.gpus(), "a100:4");
  EXPECT_EQ(spec.gpus_per_node(), "2");
  EXPECT_TRUE(spec.gres().empty());
  EXPECT_EQ(spec.mem_per_gpu_mb(), 2u);  // rounded up to whole MiB
  EXPECT_TRUE(spec.exclusive());
  // Expanded, duplicates dropped, order kept.
  EXPECT_EQ(std::vector<std::string>(spec.nodelist().begin(), spec.nodelist().end()),
            (std::vector<std::string>{"n1", "n2", "n3", "gpu01"}));
  EXPECT_EQ(std::vector<std::string>(spec.exclude().begin(), spec.exclude().end()),
            (std::vector<std::string>{"n7", "n8"}));
  EXPECT_EQ(spec.constraint(), "a100&ib");
  EXPECT_EQ(spec.mail_type(), "END,fail");
  EXPECT_EQ(spec.mail_user(), "alice@lab.org");
  EXPECT_TRUE(s->warnings.empty());
}

TEST(BuildSubmission, SchedulingOptionsAsDirectivesAndShortForms) {
  absl::StatusOr<SbatchSubmission> s = Submit({"j.sh"},
                                              "#!/bin/bash\n"
                                              "#SBATCH --array=0-15:4 --dependency=singleton\n"
                                              "#SBATCH --gpus=1 --exclusive=user\n"
                                              "#SBATCH --nodelist=n1 --exclude=n2\n"
                                              "#SBATCH --constraint=fast --mail-type=ALL\n"
                                              "#SBATCH --kill-on-invalid-dep=no\n"
                                              "hostname\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.array(), "0-15:4");
  EXPECT_EQ(s->spec.dependency(), "singleton");
  EXPECT_EQ(s->spec.gpus(), "1");
  EXPECT_TRUE(s->spec.exclusive());
  EXPECT_EQ(s->spec.nodelist_size(), 1);
  EXPECT_EQ(s->spec.exclude(0), "n2");
  EXPECT_EQ(s->spec.constraint(), "fast");
  EXPECT_EQ(s->spec.mail_type(), "ALL");
  EXPECT_FALSE(s->spec.kill_on_invalid_dep());
  EXPECT_EQ(s->warnings, (std::vector<std::string>{
                             "--exclusive=user is not supported by Skiff; the job gets its nodes "
                             "to itself, as with --exclusive"}));
  // The bare flag does not swallow the script name that follows it.
  SbatchCommandLine cl = Cli({"--exclusive", "j.sh", "arg"});
  EXPECT_EQ(*cl.options.exclusive, "exclusive");
  EXPECT_EQ(cl.script_path, "j.sh");
  s = Submit({"--exclusive=oversubscribe", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->spec.exclusive());
}

TEST(BuildSubmission, SchedulingOptionsFromTheEnvironment) {
  SubmitContext context = Context();
  context.environment["SBATCH_ARRAY_INX"] = "1-3";
  context.environment["SBATCH_EXCLUSIVE"] = "";
  context.environment["SBATCH_GPUS_PER_NODE"] = "v100:1";
  context.environment["SBATCH_CONSTRAINT"] = "big";
  absl::StatusOr<SbatchSubmission> s = Submit({"j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.array(), "1-3");
  EXPECT_TRUE(s->spec.exclusive());
  EXPECT_EQ(s->spec.gpus_per_node(), "v100:1");
  EXPECT_EQ(s->spec.constraint(), "big");
}

TEST(BuildSubmission, BadSchedulingValuesExit255) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::vector<Case> cases = {
      {{"--array=5-1"}, "Invalid --array specification: '5-1'"},
      {{"--array=1-5%x"}, "Invalid --array specification: '1-5%x'"},
      {{"-a", "1,,3"}, "Invalid --array specification: '1,,3'"},
      {{"-a", "1:2"}, "Invalid --array specification: '1:2'"},
      {{"--array=a-b"}, "Invalid --array specification: 'a-b'"},
      {{"--kill-on-invalid-dep=maybe"}, "Invalid --kill-on-invalid-dep specification: 'maybe'"},
      {{"-G", "0"}, "Invalid --gpus specification: '0'"},
      {{"--gpus=a100:"}, "Invalid --gpus specification: 'a100:'"},
      {{"--gpus=a:b:1"}, "Invalid --gpus specification: 'a:b:1'"},
      {{"--gpus-per-node=:2"}, "Invalid --gpus-per-node specification: ':2'"},
      {{"--gpus-per-node=a,b"}, "Invalid --gpus-per-node specification: 'a,b'"},
      {{"--mem-per-gpu=lots"}, "Invalid --mem-per-gpu specification"},
      {{"--exclusive=everyone"}, "Invalid --exclusive specification"},
      {{"-w", "n[1-"}, "Invalid --nodelist specification: 'n[1-'"},
      {{"-x", "n[3-1]"}, "Invalid --exclude specification: 'n[3-1]'"},
      {{"--mail-type=END,SOMETIMES"}, "Invalid --mail-type specification"},
      {{"--mail-type=,"}, "Invalid --mail-type specification"},
  };
  for (Case& c : cases) {
    c.args.push_back("j.sh");
    absl::StatusOr<SbatchSubmission> s = Submit(c.args, "#!/bin/sh\n");
    ASSERT_FALSE(s.ok()) << c.message;
    EXPECT_EQ(s.status().message(), c.message);
    EXPECT_EQ(SbatchExitCode(s.status()), 255) << c.message;
  }
  // Accepted forms.
  for (const char* ok : {"--array=7", "--array=1,3,5", "--array=1-5,10%2", "--array=0-15:4%1",
                         "-G2", "--gpus=a100:1,v100:2", "--mail-type=none",
                         "--mail-type=TIME_LIMIT_90,STAGE_OUT,ARRAY_TASKS,INVALID_DEPEND"}) {
    EXPECT_TRUE(Submit({ok, "j.sh"}, "#!/bin/sh\n").ok()) << ok;
  }
}

TEST(BuildSubmission, GpusPerTaskAndCpusPerGpuReachTheSpec) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"-n2", "--gpus-per-task=a100:1", "--cpus-per-gpu=2", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.gpus_per_task(), "a100:1");
  EXPECT_EQ(s->spec.cpus_per_gpu(), 2);
  EXPECT_TRUE(s->warnings.empty());
  // As #SBATCH lines and from SBATCH_GPUS_PER_TASK / SBATCH_CPUS_PER_GPU too.
  s = Submit({"j.sh"}, "#!/bin/sh\n#SBATCH -n 4 --gpus-per-task=2\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.gpus_per_task(), "2");
  // Slurm's client refuses both CPU counts, and a bad count names the option.
  s = Submit({"-c2", "--cpus-per-gpu=2", "-G1", "j.sh"}, "#!/bin/sh\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "--cpus-per-gpu is mutually exclusive with --cpus-per-task");
  s = Submit({"--gpus-per-task=a:b:1", "-n1", "j.sh"}, "#!/bin/sh\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "Invalid --gpus-per-task specification: 'a:b:1'");
}

// -s and --exclusive set one thing in Slurm (opt->shared): the later wins,
// and -v shows each one given with the value that won (Slurm 22.05 on the
// anchor: "-s --exclusive" shows "exclusive : exclusive" and "oversubscribe :
// exclusive", and the job OverSubscribe=NO).
TEST(BuildSubmission, OversubscribeAndExclusiveAreOneSettingTheLaterWins) {
  absl::StatusOr<SbatchSubmission> s = Submit({"-s", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->spec.oversubscribe());
  EXPECT_FALSE(s->spec.exclusive());
  EXPECT_TRUE(s->warnings.empty());
  s = Submit({"--exclusive", "-s", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->spec.oversubscribe());
  EXPECT_FALSE(s->spec.exclusive());
  s = Submit({"-s", "--exclusive", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->spec.oversubscribe());
  EXPECT_TRUE(s->spec.exclusive());
  // The command line over a directive.
  s = Submit({"--exclusive", "j.sh"}, "#!/bin/sh\n#SBATCH -s\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->spec.exclusive());
  EXPECT_FALSE(s->spec.oversubscribe());
  s = Submit({"--exclusive=user", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.exclusive_kind(), "user");
  EXPECT_TRUE(s->spec.exclusive());

  auto shown = [](const std::vector<std::string>& args) {
    std::vector<std::string> args_v = args;
    args_v.insert(args_v.begin(), "-v");
    args_v.push_back("--wrap=true");
    absl::StatusOr<SbatchSubmission> sub = Submit(args_v, WrapScript("true"));
    std::vector<std::string> lines;
    if (!sub.ok()) return lines;
    for (const std::string& line : sub->defined_options) {
      if (line.rfind("exclusive", 0) == 0 || line.rfind("oversubscribe", 0) == 0) {
        lines.push_back(line);
      }
    }
    return lines;
  };
  EXPECT_EQ(shown({"-s"}), std::vector<std::string>{"oversubscribe       : oversubscribe"});
  EXPECT_EQ(shown({"-s", "--exclusive"}),
            (std::vector<std::string>{"exclusive           : exclusive",
                                      "oversubscribe       : exclusive"}));
  EXPECT_EQ(shown({"--exclusive", "-s"}),
            (std::vector<std::string>{"exclusive           : oversubscribe",
                                      "oversubscribe       : oversubscribe"}));
  EXPECT_EQ(shown({"--exclusive=user", "-s"}),
            (std::vector<std::string>{"exclusive           : oversubscribe",
                                      "oversubscribe       : oversubscribe"}));
  EXPECT_EQ(shown({"--exclusive=user"}), std::vector<std::string>{"exclusive           : user"});
}

// -k/--no-kill[=off], and SBATCH_NO_KILL (set but empty: -k), as Slurm 22.05's
// arg_set_no_kill reads them; -v shows "set" or "unset" (the anchor's).
TEST(BuildSubmission, NoKillAsSlurmReadsIt) {
  absl::StatusOr<SbatchSubmission> s = Submit({"-k", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->spec.no_kill());
  EXPECT_TRUE(s->warnings.empty());
  s = Submit({"j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->spec.no_kill());
  s = Submit({"-koff", "j.sh"}, "#!/bin/sh\n#SBATCH --no-kill\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->spec.no_kill());
  SubmitContext context = Context();
  context.environment["SBATCH_NO_KILL"] = "";
  s = Submit({"j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->spec.no_kill());
  s = Submit({"--no-kill=OFF", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->spec.no_kill());
  context.environment["SBATCH_NO_KILL"] = "1";
  s = Submit({"j.sh"}, "#!/bin/sh\n", context);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "Invalid --no-kill specification");
  EXPECT_EQ(SbatchExitCode(s.status()), 255);
  absl::StatusOr<SbatchCommandLine> bad = ParseSbatchCommandLine({"--no-kill=bogus", "j.sh"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Invalid --no-kill specification");
  s = Submit({"-v", "-k", "--wrap=true"}, WrapScript("true"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->defined_options[2], "no-kill             : set");
  s = Submit({"-v", "--no-kill=no", "--wrap=true"}, WrapScript("true"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->defined_options[2], "no-kill             : unset");
}

TEST(BuildSubmission, ContainerBundleIsMadeAbsoluteAgainstTheSubmittingDirectory) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"-D", "runs", "--container=bundles/alpine", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(s->spec.has_container());
  EXPECT_EQ(s->spec.container().bundle(), "/home/alice/work/bundles/alpine");
  EXPECT_TRUE(s->spec.container().image().empty());
  s = Submit({"--container", "/srv/oci/alpine", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.container().bundle(), "/srv/oci/alpine");
  // No container option: no container at all.
  s = Submit({"j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->spec.has_container());
}

TEST(BuildSubmission, PyxisOptionsOnTheCommandLineAndAsDirectives) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"--container-image=ubuntu:22.04", "--container-mounts=/data:/data:ro,/scratch",
              "--container-workdir=/work", "--container-env=A,B", "--container-name=u:create",
              "--container-remap-root", "--no-container-mount-home", "j.sh"},
             "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  const v1::ContainerRequest& c = s->spec.container();
  EXPECT_EQ(c.image(), "ubuntu:22.04");
  EXPECT_EQ(std::vector<std::string>(c.mounts().begin(), c.mounts().end()),
            (std::vector<std::string>{"/data:/data:ro", "/scratch"}));
  EXPECT_EQ(c.workdir(), "/work");
  EXPECT_EQ(std::vector<std::string>(c.env().begin(), c.env().end()),
            (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(c.name(), "u:create");
  EXPECT_TRUE(c.remap_root());
  EXPECT_TRUE(c.no_mount_home());

  const std::string script =
      "#!/bin/sh\n"
      // Quoted: an unquoted '#' starts a comment in an #SBATCH line, as in Slurm.
      "#SBATCH --container-image='nvcr.io#nvidia/pytorch:24.01-py3'\n"
      "#SBATCH --container-mounts=/data:/data --no-container-remap-root\n"
      "#SBATCH --container-remap-root\n"
      "python train.py\n";
  s = Submit({"j.sh"}, script);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.container().image(), "nvcr.io#nvidia/pytorch:24.01-py3");
  EXPECT_EQ(s->spec.container().mounts_size(), 1);
  EXPECT_TRUE(s->spec.container().remap_root()) << "the last of the two flags wins";
  // The command line over the script, option by option.
  s = Submit({"--container-mounts=/other", "--no-container-remap-root", "j.sh"}, script);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.container().image(), "nvcr.io#nvidia/pytorch:24.01-py3");
  EXPECT_EQ(s->spec.container().mounts(0), "/other");
  EXPECT_FALSE(s->spec.container().remap_root());
  // --container on the command line replaces the script's image instead of
  // conflicting with it (the script's pyxis options then go, with a warning).
  s = Submit({"--container=/b", "j.sh"}, script);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.container().bundle(), "/b");
  EXPECT_TRUE(s->spec.container().image().empty());
  EXPECT_EQ(s->spec.container().mounts_size(), 0);
  EXPECT_EQ(s->warnings,
            (std::vector<std::string>{
                "ignoring --container-mounts because neither --container-image nor "
                "--container-name is set",
                "ignoring --[no-]container-remap-root because neither --container-image nor "
                "--container-name is set"}));
}

TEST(BuildSubmission, ContainerFromSbatchContainerBelowTheCommandLine) {
  SubmitContext context = Context();
  context.environment["SBATCH_CONTAINER"] = "oci/env";
  absl::StatusOr<SbatchSubmission> s = Submit({"j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.container().bundle(), "/home/alice/work/oci/env");
  // Over the script's directive, under the command line.
  s = Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --container=/script\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.container().bundle(), "/home/alice/work/oci/env");
  s = Submit({"--container=/cli", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.container().bundle(), "/cli");
  // An image on the command line replaces the variable's bundle.
  s = Submit({"--container-image=alpine", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->spec.container().bundle().empty());
  EXPECT_EQ(s->spec.container().image(), "alpine");
  context.environment["SBATCH_CONTAINER"] = "";  // set but empty: none
  s = Submit({"j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->spec.has_container());
}

TEST(BuildSubmission, BadContainerOptionsAreRefused) {
  absl::StatusOr<SbatchSubmission> s =
      Submit({"--container=/b", "--container-image=ubuntu", "j.sh"}, "#!/bin/sh\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "--container and --container-image options are mutually exclusive");
  EXPECT_EQ(SbatchExitCode(s.status()), 1);
  // At one level only: in the script too.
  s = Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --container=/b --container-image=ubuntu\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(SbatchExitCode(s.status()), 1);
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--container-image=u", "--container-mounts=/a,,/b"},
       "--container-mounts: empty entry in /a,,/b"},
      {{"--container-image=u", "--container-mounts=/a:/b:ro+fast"},
       "--container-mounts: unknown mount flag \"fast\" in /a:/b:ro+fast (flags are separated "
       "by \"+\")"},
      {{"--container-image=u", "--container-name=n:keep"},
       "--container-name: flag must be \"auto\", \"create\", \"exec\" or \"no_exec\""},
      {{"--container-image="}, "--container-image: argument required"},
      {{"--container="},
       "Invalid --container specification: the path of an OCI bundle is required"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> with_script = args;
    with_script.push_back("j.sh");
    s = Submit(with_script, "#!/bin/sh\n");
    ASSERT_FALSE(s.ok()) << message;
    EXPECT_EQ(s.status().message(), message);
    EXPECT_EQ(SbatchExitCode(s.status()), 255) << message;
  }
}

TEST(BuildSubmission, NiceAloneIsAHundredAndOutOfRangeIsRefused) {
  EXPECT_EQ(Submit({"--nice", "j.sh"}, "#!/bin/sh\n")->spec.nice(), 100);
  EXPECT_EQ(Submit({"--nice=-5", "j.sh"}, "#!/bin/sh\n")->spec.nice(), -5);
  EXPECT_EQ(Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --nice=7\n")->spec.nice(), 7);
  absl::StatusOr<SbatchSubmission> huge = Submit({"--nice=9999999999", "j.sh"}, "#!/bin/sh\n");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().message(), "Invalid --nice value, out of range (+/- 2147483645)");
}

TEST(BuildSubmission, SignalOpenModeAndTasksPerNode) {
  absl::StatusOr<SbatchSubmission> s = Submit(
      {"--signal=B:USR1@90", "--open-mode=append", "--ntasks-per-node=4", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.warn_signal(), 10);
  EXPECT_EQ(s->spec.warn_time(), 90);
  EXPECT_TRUE(s->spec.warn_batch_only());
  EXPECT_EQ(s->spec.open_mode(), "append");
  EXPECT_EQ(s->spec.ntasks_per_node(), 4);
  s = Submit({"--signal=2", "j.sh"}, "#!/bin/sh\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.warn_signal(), 2);
  EXPECT_EQ(s->spec.warn_time(), 60);  // Slurm's default
  EXPECT_FALSE(s->spec.warn_batch_only());
  for (const char* bad : {"--signal=NOPE", "--signal=USR1@x", "--signal=B:", "--signal=99"}) {
    absl::StatusOr<SbatchSubmission> refused = Submit({bad, "j.sh"}, "#!/bin/sh\n");
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message(), "Invalid --signal specification") << bad;
  }
  EXPECT_EQ(Submit({"--open-mode=sometimes", "j.sh"}, "#!/bin/sh\n").status().message(),
            "Invalid --open-mode specification");
}

TEST(BuildSubmission, ExportFileAddsNulOrNewlineSeparatedVariables) {
  SubmitContext context = Context();
  context.read_file = Files({
      {"/home/alice/work/env.lines", "A=1\nB=two words\nbroken\n"},
      {"/home/alice/work/env.nul", std::string("C=multi\nline\0D=4\0", 18)},
  });
  absl::StatusOr<SbatchSubmission> s =
      Submit({"--export=NONE", "--export-file=env.lines", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.environment().at("A"), "1");
  EXPECT_EQ(s->spec.environment().at("B"), "two words");
  EXPECT_EQ(s->spec.environment().count("broken"), 0u);
  EXPECT_EQ(s->spec.environment().count("HOME"), 0u);  // --export=NONE still holds
  s = Submit({"--export-file", "env.nul", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.environment().at("C"), "multi\nline");
  EXPECT_EQ(s->spec.environment().at("D"), "4");
  EXPECT_EQ(s->spec.environment().at("HOME"), "/home/alice");
  s = Submit({"--export-file=/nope", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "Could not read environment file /nope: No such file or directory");
}

TEST(BuildSubmission, TasksPerNodeIsAnAliasAndPriorityTakesANumberOrTop) {
  EXPECT_EQ(Submit({"--tasks-per-node=3", "j.sh"}, "#!/bin/sh\n")->spec.ntasks_per_node(), 3);
  EXPECT_EQ(Submit({"--priority=77", "j.sh"}, "#!/bin/sh\n")->spec.priority(), 77);
  EXPECT_EQ(Submit({"--priority=top", "j.sh"}, "#!/bin/sh\n")->spec.priority(), 4294967294);
  EXPECT_EQ(Submit({"--priority=x", "j.sh"}, "#!/bin/sh\n").status().message(),
            "Invalid --priority specification");
}

TEST(BuildSubmission, NodeListFromAFile) {
  SubmitContext context = Context();
  context.read_file = Files({
      {"/home/alice/work/nodes.txt", "# our nodes\nn[1-2],n5\n\n  n2 # again\nn9*2\n"},
      {"/etc/skiff/bad", "n1\nn[4-\n"},
      {"/tmp/empty", "# nothing\n"},
  });
  absl::StatusOr<SbatchSubmission> s =
      Submit({"-w", "./nodes.txt", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(std::vector<std::string>(s->spec.nodelist().begin(), s->spec.nodelist().end()),
            (std::vector<std::string>{"n1", "n2", "n5", "n9"}));

  // A name without '/' is a hostlist, never a file.
  s = Submit({"-x", "nodes.txt", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.exclude(0), "nodes.txt");

  s = Submit({"-x", "/no/such", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "Unable to read the node file of --exclude, /no/such: No such file or directory");
  EXPECT_EQ(SbatchExitCode(s.status()), 1);
  s = Submit({"-w", "/etc/skiff/bad", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "Invalid hostfile /etc/skiff/bad contents on line 2: n[4-");
  s = Submit({"-w", "/tmp/empty", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "The node file of --nodelist, /tmp/empty, names no nodes");
}

TEST(BuildSubmission, BurstBufferFileIsAppendedToBb) {
  SubmitContext context = Context();
  context.read_file = Files({
      {"/home/alice/work/bb.txt", "#BB_LUA stage_in=/data/in\n#BB_LUA stage_out=/data/out\n"},
  });
  absl::StatusOr<SbatchSubmission> s = Submit(
      {"--bb", "#BB_LUA pool=fast capacity=1G", "--bbf=bb.txt", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.burst_buffer(),
            "#BB_LUA pool=fast capacity=1G\n"
            "#BB_LUA stage_in=/data/in\n#BB_LUA stage_out=/data/out\n");
  s = Submit({"j.sh"}, "#!/bin/sh\n#SBATCH --bbf=/home/alice/work/bb.txt\n", context);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->spec.burst_buffer(), "#BB_LUA stage_in=/data/in\n#BB_LUA stage_out=/data/out\n");

  s = Submit({"--bbf=missing.bb", "j.sh"}, "#!/bin/sh\n", context);
  ASSERT_FALSE(s.ok());
  // Slurm: "sbatch: fatal: Could not open burst buffer specification file ...", exit 1.
  EXPECT_EQ(s.status().message(),
            "Could not open burst buffer specification file missing.bb: No such file or "
            "directory");
  EXPECT_EQ(SbatchExitCode(s.status()), 1);
}

v1::JobInfo JobIn(v1::JobState state, int exit_code, int exit_signal = 0) {
  v1::JobInfo job;
  job.set_state(state);
  job.set_exit_code(exit_code);
  job.set_exit_signal(exit_signal);
  return job;
}

TEST(WaitExitCode, WaitsWhileAnyTaskIsQueuedRunningOrCompleting) {
  EXPECT_FALSE(WaitExitCode({JobIn(v1::COMPLETED, 0), JobIn(v1::PENDING, 0)}).has_value());
  EXPECT_FALSE(WaitExitCode({JobIn(v1::RUNNING, 0)}).has_value());
  EXPECT_FALSE(WaitExitCode({JobIn(v1::COMPLETING, 3)}).has_value());
  EXPECT_FALSE(WaitExitCode({JobIn(v1::REQUEUED, 0)}).has_value());
}

TEST(WaitExitCode, EndsWithTheHighestExitCodeAndOneForASignal) {
  EXPECT_EQ(WaitExitCode({JobIn(v1::COMPLETED, 0)}), 0);
  EXPECT_EQ(WaitExitCode({JobIn(v1::FAILED, 3), JobIn(v1::FAILED, 7), JobIn(v1::COMPLETED, 0)}), 7);
  EXPECT_EQ(WaitExitCode({JobIn(v1::CANCELLED, 0, 9)}), 1);
  EXPECT_EQ(WaitExitCode({JobIn(v1::CANCELLED, 0, 9), JobIn(v1::FAILED, 4)}), 4);
}

TEST(FormatWillRun, MatchesSlurmsTestOnlyLine) {
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(FormatWillRun(5, 1795638000, 2, "n[1-2]", "debug"),
            "Job 5 to start at 2026-11-25T20:20:00 using 2 processors on nodes n[1-2] in "
            "partition debug");
}

TEST(FormatSubmitted, MatchesSlurm) {
  // shared/reference/sbatch_success.txt and sbatch_parsable.txt
  EXPECT_EQ(FormatSubmitted(15382, false), "Submitted batch job 15382\n");
  EXPECT_EQ(FormatSubmitted(15383, true), "15383\n");
}

class ParseBeginTimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    saved_ = tz ? tz : "";
    had_ = tz != nullptr;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_) {
      setenv("TZ", saved_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  std::string saved_;
  bool had_ = false;
};

TEST_F(ParseBeginTimeTest, Forms) {
  const int64_t now = 1795324490;  // 2026-11-22T05:14:50Z
  EXPECT_EQ(*ParseBeginTime("now", now), now);
  EXPECT_EQ(*ParseBeginTime("now+60", now), now + 60);
  EXPECT_EQ(*ParseBeginTime("now+2hours", now), now + 7200);
  EXPECT_EQ(*ParseBeginTime("NOW+1day", now), now + 86400);
  EXPECT_EQ(*ParseBeginTime("06:00", now), 1795327200);             // later today
  EXPECT_EQ(*ParseBeginTime("05:00:30", now), 1795323630 + 86400);  // passed: tomorrow
  EXPECT_EQ(*ParseBeginTime("2026-12-01", now), 1796083200);
  EXPECT_EQ(*ParseBeginTime("2026-12-01T10:30", now), 1796083200 + 37800);
  EXPECT_EQ(*ParseBeginTime("2026-12-01T10:30:05", now), 1796083200 + 37805);
  EXPECT_EQ(*ParseBeginTime("tomorrow", now), 1795392000);
  EXPECT_EQ(*ParseBeginTime("noon", now), 1795392000 - 43200);
  for (const char* bad :
       {"", "now+", "now+5parsecs", "25:00", "2026-13-01", "2026-02-30", "2026-12-01T", "soon"}) {
    EXPECT_FALSE(ParseBeginTime(bad, now).ok()) << bad;
  }
}

}  // namespace
}  // namespace skiff::cli
