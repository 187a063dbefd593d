#include "cli/sacctmgr/sacctmgr_qos.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

v1::QosInfo Qos(const std::string& name, int64_t priority) {
  v1::QosInfo qos;
  qos.set_name(name);
  qos.set_description(name);
  qos.set_priority(priority);
  qos.set_max_jobs_per_user(-1);
  qos.set_max_submit_jobs_per_user(-1);
  qos.set_max_wall(-1);
  qos.set_preempt_mode("cluster");
  qos.set_usage_factor(1.0);
  return qos;
}

// The QOS of shared/reference/sacctmgr_show_qos.txt.
v1::GetQosReply ReferenceQos() {
  v1::GetQosReply reply;
  *reply.add_qos() = Qos("normal", 0);
  v1::QosInfo high = Qos("high", 1000);
  high.mutable_max_tres_per_user()->set_cpu(4);
  *reply.add_qos() = high;
  v1::QosInfo low = Qos("low", 10);
  low.set_max_jobs_per_user(2);
  *reply.add_qos() = low;
  return reply;
}

SacctmgrCommand Parse(std::vector<std::string> args) {
  absl::StatusOr<SacctmgrCommand> command = ParseSacctmgrCommandLine(args);
  EXPECT_TRUE(command.ok()) << command.status();
  return command.ok() ? *command : SacctmgrCommand();
}

std::string ParseError(std::vector<std::string> args) {
  absl::StatusOr<SacctmgrCommand> command = ParseSacctmgrCommandLine(args);
  EXPECT_FALSE(command.ok());
  return std::string(command.status().message());
}

TEST(FormatQosTable, MatchesSlurmReference) {
  // shared/reference/sacctmgr_show_qos.txt
  SacctmgrCommand command = Parse({"show", "qos", "format=Name,Priority,MaxTRESPU,MaxJobsPU"});
  EXPECT_EQ(*FormatQosTable(ReferenceQos(), command.format, command.options),
            "      Name   Priority     MaxTRESPU MaxJobsPU \n"
            "---------- ---------- ------------- --------- \n"
            "    normal          0                         \n"
            "      high       1000         cpu=4           \n"
            "       low         10                       2 \n");
}

TEST(FormatQosTable, DefaultFormatIsSlurmsQosColumns) {
  std::string out = *FormatQosTable(ReferenceQos(), {}, SacctmgrOptions());
  std::string header = out.substr(0, out.find('\n'));
  EXPECT_EQ(header,
            "      Name   Priority  GraceTime    Preempt   PreemptExemptTime PreemptMode          "
            "                          Flags UsageThres UsageFactor       GrpTRES   GrpTRESMins "
            "GrpTRESRunMin GrpJobs GrpSubmit     GrpWall       MaxTRES MaxTRESPerNode   "
            "MaxTRESMins     MaxWall     MaxTRESPU MaxJobsPU MaxSubmitPU     MaxTRESPA MaxJobsPA "
            "MaxSubmitPA       MinTRES ");
  size_t second = out.find('\n') + 1;
  size_t third = out.find('\n', second) + 1;
  std::string normal = out.substr(third, out.find('\n', third) - third);
  EXPECT_EQ(normal.size(), header.size());
  // Name, Priority, GraceTime, Preempt, PreemptExemptTime (blank), PreemptMode,
  // Flags%40 and UsageThres (blank), UsageFactor.
  EXPECT_EQ(normal.substr(0, 140), "    normal          0   00:00:00 " + std::string(11, ' ') +
                                       std::string(20, ' ') + "    cluster " +
                                       std::string(41 + 11, ' ') + "   1.000000 ");
}

TEST(FormatQosTable, ParsableForms) {
  SacctmgrOptions options;
  options.parsable2 = true;
  std::vector<std::string> format = {"Name", "Priority", "MaxTRESPU", "MaxJobsPU"};
  EXPECT_EQ(*FormatQosTable(ReferenceQos(), format, options),
            "Name|Priority|MaxTRESPU|MaxJobsPU\n"
            "normal|0||\n"
            "high|1000|cpu=4|\n"
            "low|10||2\n");
  options = SacctmgrOptions();
  options.parsable = true;
  options.no_header = true;
  EXPECT_EQ(*FormatQosTable(ReferenceQos(), {"Name", "UsageFactor"}, options),
            "normal|1.000000|\nhigh|1.000000|\nlow|1.000000|\n");
}

TEST(FormatQosTable, WidthsTruncationAndOtherFields) {
  v1::GetQosReply reply;
  v1::QosInfo qos = Qos("verylongname", 5);
  qos.mutable_max_tres_per_job()->set_cpu(64);
  qos.mutable_max_tres_per_job()->set_mem_mb(10240);
  qos.mutable_max_tres_per_job()->set_node(2);
  qos.mutable_max_tres_per_job()->set_gpu(4);
  qos.set_max_wall(90 * 60);
  qos.set_grace_time(120);
  qos.add_preempt("low");
  qos.add_preempt("normal");
  qos.set_preempt_mode("REQUEUE");
  qos.set_max_submit_jobs_per_user(10);
  *reply.add_qos() = qos;
  std::vector<std::string> format = {"Name",    "MaxTRES%32",  "MaxW",      "GraceTime",
                                     "Preempt", "PreemptMode", "MaxSubmit", "Name%-14"};
  EXPECT_EQ(*FormatQosTable(reply, format, SacctmgrOptions()),
            "      Name                          MaxTRES     MaxWall  GraceTime    Preempt "
            "PreemptMode MaxSubmit Name           \n"
            "---------- -------------------------------- ----------- ---------- ---------- "
            "----------- --------- -------------- \n"
            "verylongn+ cpu=64,mem=10G,node=2,gres/gpu=4    01:30:00   00:02:00 low,normal "
            "    requeue        10 verylongname   \n");
  // Too long for its column: cut, ending in '+'.
  std::string narrow = *FormatQosTable(reply, {"MaxTRES"}, SacctmgrOptions());
  EXPECT_EQ(narrow.substr(narrow.rfind('\n', narrow.size() - 2) + 1), "cpu=64,mem=1+ \n");
  EXPECT_EQ(FormatQosTable(reply, {"Bogus"}, SacctmgrOptions()).status().message(),
            "Unknown field 'Bogus'");
}

TEST(ParseSacctmgrCommandLine, AddWithSettings) {
  SacctmgrCommand c = Parse(
      {"-i", "add", "qos", "High,urgent", "Priority=1000", "MaxTRESPU=cpu=4,gres/gpu=2",
       "MaxTRES=mem=10G", "MaxJobsPU=5", "MaxSubmitPU=20", "MaxWall=2:00:00", "Preempt=low,normal",
       "PreemptMode=requeue", "UsageFactor=2", "GraceTime=60", "Description=Urgent work"});
  EXPECT_TRUE(c.options.immediate);
  EXPECT_EQ(c.verb, SacctmgrVerb::kAdd);
  EXPECT_EQ(c.names, (std::vector<std::string>{"high", "urgent"}));
  const v1::QosChanges& ch = c.changes;
  EXPECT_EQ(ch.priority(), 1000);
  EXPECT_EQ(ch.max_tres_per_user().cpu(), 4);
  EXPECT_EQ(ch.max_tres_per_user().gpu(), 2);
  EXPECT_FALSE(ch.max_tres_per_user().has_mem_mb());
  EXPECT_EQ(ch.max_tres_per_job().mem_mb(), 10240);
  EXPECT_EQ(ch.max_jobs_per_user(), 5);
  EXPECT_EQ(ch.max_submit_jobs_per_user(), 20);
  EXPECT_EQ(ch.max_wall(), 7200);
  EXPECT_EQ(ch.preempt(), "low,normal");
  EXPECT_EQ(ch.preempt_op(), "=");
  EXPECT_EQ(ch.preempt_mode(), "REQUEUE");
  EXPECT_DOUBLE_EQ(ch.usage_factor(), 2.0);
  EXPECT_EQ(ch.grace_time(), 60);
  EXPECT_EQ(ch.description(), "Urgent work");
  // The TRES-minutes limits.
  SacctmgrCommand minutes = Parse({"add", "qos", "gpu", "GrpTRESRunMins=gres/gpu=600",
                                   "MaxTRESRunMinsPU=gres/gpu=240", "MaxTRESMins=gres/gpu=120"});
  EXPECT_EQ(minutes.changes.grp_tres_run_mins().gpu(), 600);
  EXPECT_EQ(minutes.changes.max_tres_run_mins_per_user().gpu(), 240);
  EXPECT_EQ(minutes.changes.max_tres_mins_per_job().gpu(), 120);
  EXPECT_EQ(Parse({"add", "qos", "g", "MaxTRESRunMinsPerUser=cpu=10"})
                .changes.max_tres_run_mins_per_user()
                .cpu(),
            10);
  v1::UpdateQosRequest request = BuildUpdateQosRequest(c, {"urgent"});
  EXPECT_EQ(request.op(), v1::UpdateQosRequest::ADD);
  ASSERT_EQ(request.names_size(), 1);
  EXPECT_EQ(request.changes().priority(), 1000);
}

TEST(ParseSacctmgrCommandLine, ModifyFormsAndAbbreviations) {
  SacctmgrCommand c = Parse({"modify", "qos", "where", "name=high", "set", "MaxJobsPerUser=-1",
                             "Preempt+=low", "maxtrespu=cpu=-1"});
  EXPECT_EQ(c.verb, SacctmgrVerb::kModify);
  EXPECT_EQ(c.names, (std::vector<std::string>{"high"}));
  EXPECT_EQ(c.changes.max_jobs_per_user(), -1);
  EXPECT_EQ(c.changes.preempt(), "low");
  EXPECT_EQ(c.changes.preempt_op(), "+=");
  EXPECT_EQ(c.changes.max_tres_per_user().cpu(), -1);

  c = Parse({"UPDATE", "QOS", "high", "set", "Prio=5", "MaxW=-1", "Preempt-=normal"});
  EXPECT_EQ(c.names, (std::vector<std::string>{"high"}));
  EXPECT_EQ(c.changes.priority(), 5);
  EXPECT_EQ(c.changes.max_wall(), -1);
  EXPECT_EQ(c.changes.preempt_op(), "-=");

  // Skiff takes a setting before "set" too.
  c = Parse({"modify", "qos", "high", "Priority=7", "MaxWall=UNLIMITED", "PreemptMode=cluster"});
  EXPECT_EQ(c.names, (std::vector<std::string>{"high"}));
  EXPECT_EQ(c.changes.priority(), 7);
  EXPECT_EQ(c.changes.max_wall(), -1);
  EXPECT_EQ(c.changes.preempt_mode(), "cluster");
  EXPECT_EQ(BuildUpdateQosRequest(c, {"high"}).op(), v1::UpdateQosRequest::MODIFY);

  // Slurm's other spellings.
  c = Parse({"modify", "qos", "high", "set", "MaxTRESPerUser=node=2", "MaxTRESPerJob=cpu=8",
             "MaxSubmitJobsPerUser=3", "MaxSubmitJobsPU=4", "MaxJobs=9", "MaxCPUsPerUser=6",
             "MaxNodes=1"});
  EXPECT_EQ(c.changes.max_tres_per_user().node(), 2);
  EXPECT_EQ(c.changes.max_tres_per_user().cpu(), 6);
  EXPECT_EQ(c.changes.max_tres_per_job().cpu(), 8);
  EXPECT_EQ(c.changes.max_tres_per_job().node(), 1);
  EXPECT_EQ(c.changes.max_submit_jobs_per_user(), 4);
  EXPECT_EQ(c.changes.max_jobs_per_user(), 9);
}

TEST(ParseSacctmgrCommandLine, DeleteAndShow) {
  SacctmgrCommand c = Parse({"delete", "qos", "where", "Name=Low"});
  EXPECT_EQ(c.verb, SacctmgrVerb::kDelete);
  EXPECT_EQ(c.names, (std::vector<std::string>{"low"}));
  EXPECT_EQ(BuildUpdateQosRequest(c, c.names).op(), v1::UpdateQosRequest::DELETE);
  c = Parse({"remove", "qos", "low"});
  EXPECT_EQ(c.names, (std::vector<std::string>{"low"}));

  c = Parse({"-n", "-P", "list", "qos", "normal", "high", "format=Name,Prio"});
  EXPECT_EQ(c.verb, SacctmgrVerb::kShow);
  EXPECT_TRUE(c.options.no_header);
  EXPECT_TRUE(c.options.parsable2);
  EXPECT_EQ(c.names, (std::vector<std::string>{"normal", "high"}));
  EXPECT_EQ(c.format, (std::vector<std::string>{"Name", "Prio"}));
  EXPECT_TRUE(Parse({"show", "qos"}).names.empty());
  EXPECT_TRUE(Parse({"--help"}).help);
  EXPECT_TRUE(Parse({"-V"}).version);
}

// As getopt_long (permuting): options may follow the command's words.
TEST(ParseSacctmgrCommandLine, OptionsMayComeAnywhere) {
  SacctmgrCommand c = Parse({"show", "-n", "qos", "--parsable2", "normal", "-rQ"});
  EXPECT_EQ(c.verb, SacctmgrVerb::kShow);
  EXPECT_TRUE(c.options.no_header);
  EXPECT_TRUE(c.options.parsable2);
  EXPECT_TRUE(c.options.readonly);
  EXPECT_TRUE(c.options.quiet);
  EXPECT_EQ(c.names, std::vector<std::string>{"normal"});
  EXPECT_TRUE(Parse({"--usage"}).help);
  EXPECT_TRUE(Parse({"--imm", "-vv", "-h"}).help);
}

TEST(ParseSacctmgrCommandLine, ErrorsNameWhatIsWrong) {
  EXPECT_EQ(ParseError({"add", "qos", "x", "Bogus=1"}),
            "Unknown option: Bogus=1\nUse keyword 'where' to modify condition");
  EXPECT_EQ(ParseError({"modify", "qos", "x", "set", "Frobnicate=2"}),
            "Unknown option: Frobnicate=2\nUse keyword 'where' to modify condition");
  EXPECT_EQ(ParseError({"delete", "qos", "Priority=3"}),
            "Unknown condition: Priority=3\nUse keyword 'set' to modify values");
  EXPECT_NE(ParseError({"add", "qos", "x", "GrpTRES=cpu=2"}).find("GrpTRES is not supported"),
            std::string::npos);
  EXPECT_NE(ParseError({"add", "qos", "x", "MaxTRESPU=cpu=2,fpga=1"}).find("'fpga'"),
            std::string::npos);
  EXPECT_EQ(ParseError({"add", "qos", "x", "Priority=high"}),
            "Invalid value for Priority: 'high' (a whole number, or -1 for none)");
  EXPECT_EQ(ParseError({"add", "qos", "x", "MaxWall=soon"}),
            "Bad MaxWall time format: MaxWall=soon");
  EXPECT_EQ(ParseError({"add", "qos", "x", "PreemptMode=suspend"}),
            "Bad Preempt Mode given: PreemptMode=suspend (Skiff knows cluster, off, cancel and "
            "requeue)");
  EXPECT_EQ(ParseError({"add", "qos", "x", "Priority+=3"}), "Only Preempt takes +=: Priority+=3");
  EXPECT_EQ(ParseError({"add", "qos"}), "Need name of qos to add.");
  EXPECT_EQ(ParseError({"modify", "qos", "x"}), "You didn't give me anything to set");
  EXPECT_EQ(ParseError({"delete", "qos"}), "No conditions given to remove, not executing.");
  EXPECT_EQ(ParseError({"show", "user"}), "Skiff's sacctmgr manages QOS only, not \"user\"");
  EXPECT_EQ(ParseError({"frob", "qos"}), "Invalid keyword: frob");
  EXPECT_EQ(ParseError({"show", "qos", "format=Name,Nope"}), "Unknown field 'Nope'");
  EXPECT_EQ(ParseError({"-x", "show", "qos"}), "invalid option -- 'x'");
  EXPECT_EQ(ParseError({"show", "qos", "--pars"}),
            "option '--pars' is ambiguous; possibilities: '--parsable' '--parsable2'");
  EXPECT_FALSE(ParseSacctmgrCommandLine({}).ok());
}

TEST(Messages, AddShowsTheSettingsLikeSlurm) {
  SacctmgrCommand c = Parse({"add", "qos", "high", "Priority=1000", "MaxTRESPU=cpu=4",
                             "MaxJobsPU=2", "MaxWall=1-00:00:00", "PreemptMode=cancel"});
  EXPECT_EQ(AddQosMessage({"high"}, c.changes),
            " Adding QOS(s)\n"
            "  high\n"
            " Settings\n"
            "  Description    = high\n"
            "  MaxJobsPerUser = 2\n"
            "  MaxTRESPerUser           = cpu=4\n"
            "  MaxWall                  = 1-00:00:00\n"
            "  PreemptMode              = CANCEL\n"
            "  Priority                 = 1000\n");
  c = Parse({"add", "qos", "a,b", "Description='two of them'", "UsageFactor=0.5"});
  EXPECT_EQ(AddQosMessage({"a", "b"}, c.changes),
            " Adding QOS(s)\n  a\n  b\n Settings\n  Description    = two of them\n"
            "  UsageFactor              = 0.5000\n");
}

TEST(Messages, ModifyDeleteAndNothing) {
  EXPECT_EQ(ChangedQosMessage(SacctmgrVerb::kModify, {"high", "low"}),
            " Modified qos...\n  high\n  low\n");
  EXPECT_EQ(ChangedQosMessage(SacctmgrVerb::kDelete, {"low"}), " Deleting QOS(s)...\n  low\n");
  EXPECT_EQ(NothingChangedMessage(SacctmgrVerb::kAdd), " Nothing new added.\n");
  EXPECT_EQ(NothingChangedMessage(SacctmgrVerb::kModify), " Nothing modified\n");
  EXPECT_EQ(NothingChangedMessage(SacctmgrVerb::kDelete), " Nothing deleted\n");
}

TEST(Messages, PermissionDeniedAsSlurmTellsAnUnprivilegedUser) {
  absl::Status denied = absl::PermissionDeniedError("only operators may change QOS");
  EXPECT_EQ(UpdateQosErrorText(denied, SacctmgrVerb::kAdd),
            "sacctmgr: error: Your user doesn't have privilege to perform this action\n"
            " Problem adding QOS: Access/permission denied\n");
  EXPECT_EQ(UpdateQosErrorText(denied, SacctmgrVerb::kModify),
            "sacctmgr: error: Your user doesn't have privilege to perform this action\n"
            " Error with request: Access/permission denied\n");
  EXPECT_EQ(UpdateQosErrorText(absl::InvalidArgumentError("Unknown QOS 'x' in Preempt"),
                               SacctmgrVerb::kModify),
            " Error with request: Unknown QOS 'x' in Preempt\n");
}

TEST(Confirmation, AnswersAndTargets) {
  EXPECT_EQ(CommitAnswer("y\n"), true);
  EXPECT_EQ(CommitAnswer("Y"), true);
  EXPECT_EQ(CommitAnswer("n"), false);
  EXPECT_EQ(CommitAnswer(""), false);
  EXPECT_EQ(CommitAnswer("maybe"), std::nullopt);
  v1::GetQosReply all = ReferenceQos();
  EXPECT_EQ(ExistingQos(all, {"low", "gone", "high"}), (std::vector<std::string>{"low", "high"}));
  EXPECT_EQ(ExistingQos(all, {}), (std::vector<std::string>{"normal", "high", "low"}));
  EXPECT_EQ(MissingQos(all, {"high", "urgent"}), (std::vector<std::string>{"urgent"}));
}

TEST(Tres, ProtoRoundTrip) {
  TresLimits limits = *ParseTres("cpu=4,mem=1G,gres/gpu=-1");
  v1::Tres tres = ToProto(limits);
  EXPECT_EQ(tres.cpu(), 4);
  EXPECT_EQ(tres.mem_mb(), 1024);
  EXPECT_FALSE(tres.has_node());
  EXPECT_EQ(tres.gpu(), -1);
  EXPECT_EQ(FromProto(tres), limits);
}

}  // namespace
}  // namespace skiff::cli
