#include "cli/strigger/strigger_options.h"

#include <gtest/gtest.h>

namespace skiff::cli {
namespace {

std::optional<uint32_t> Uids(const std::string& name) {
  if (name == "alice") return 1001;
  if (name == "7") return 7;
  return std::nullopt;
}

std::string ProgramExists(const std::string& path) {
  if (path == "/bin/prog") return "";
  if (path == "/tmp") return "Invalid --program value, not regular file";
  return "Invalid --program value, file not found";
}

StriggerParse Parse(const std::vector<std::string>& args) {
  return ParseStrigger(args, Uids, ProgramExists, "skiff 1\n");
}

std::string ErrorOf(const std::vector<std::string>& args) {
  StriggerParse parsed = Parse(args);
  EXPECT_FALSE(parsed.params.has_value());
  EXPECT_EQ(parsed.exit_code, 1);
  return parsed.err;
}

TEST(StriggerParse, RefusesWithSlurmsMessagesInItsOrder) {
  EXPECT_EQ(ErrorOf({"--down"}),
            "strigger: error: You must use exactly one of the following options: --set, --get "
            "or --clear\n");
  EXPECT_EQ(ErrorOf({"--clear"}),
            "strigger: error: You must specify a --id, --jobid, or --user to clear\n");
  EXPECT_EQ(ErrorOf({"--set", "-p", "/bin/prog"}).substr(0, 62),
            "strigger: error: You must specify a trigger (--down, --up, --r");
  EXPECT_EQ(ErrorOf({"--set", "--down"}), "strigger: error: You must specify a --program value\n");
  EXPECT_EQ(ErrorOf({"--set", "--fini", "-p", "/bin/prog"}),
            "strigger: error: You must specify a --jobid value\n");
  EXPECT_EQ(ErrorOf({"--set", "-d", "-p", "bin/prog"}),
            "strigger: error: The --program value must start with \"/\"\n");
  EXPECT_EQ(ErrorOf({"--set", "-d", "-p", "/nope arg"}),
            "strigger: error: Invalid --program value, file not found\n");
  EXPECT_EQ(ErrorOf({"--set", "-d", "-p", "/tmp"}),
            "strigger: error: Invalid --program value, not regular file\n");
  EXPECT_EQ(ErrorOf({"--set", "-d", "-p", "/bin/prog", "-o", "40000"}),
            "strigger: error: The --offset parameter must be between +/-32000\n");
  EXPECT_EQ(ErrorOf({"--get", "-j", "0"}), "strigger: error: Invalid jobid 0\n");
  EXPECT_EQ(ErrorOf({"--get", "--flags=sometimes"}), "strigger: error: Invalid flags sometimes\n");
  EXPECT_EQ(ErrorOf({"--get", "--user=nobody_here"}),
            "strigger: error: Invalid user nobody_here\n");
  EXPECT_EQ(ErrorOf({"--get", "-z"}),
            "strigger: invalid option -- 'z'\nTry \"strigger --help\" for more information\n");
}

TEST(StriggerParse, ReadsEveryOptionAsSlurmDoes) {
  StriggerParse parsed = Parse({"--set", "-dD", "-ntux[1-2]", "-o", "-30", "--flags=PERMANENT",
                                "--program=/bin/prog a b", "--user", "alice", "-Q", "-N"});
  ASSERT_TRUE(parsed.params) << parsed.err;
  const StriggerParams& p = *parsed.params;
  EXPECT_TRUE(p.node_down && p.node_drained && p.quiet && p.no_header);
  EXPECT_EQ(p.node_id, "tux[1-2]");
  EXPECT_EQ(p.offset, -30);
  EXPECT_EQ(p.flags, 1);
  EXPECT_EQ(p.program, "/bin/prog a b");
  EXPECT_EQ(p.user_id, 1001u);
  // -n without a value: every node.
  parsed = Parse({"--set", "-u", "-n", "-p", "/bin/prog"});
  ASSERT_TRUE(parsed.params);
  EXPECT_EQ(parsed.params->node_id, "*");
  // -h is --primary_database_failure, as in Slurm; --help is the help.
  parsed = Parse({"--get", "-h"});
  ASSERT_TRUE(parsed.params);
  EXPECT_TRUE(parsed.params->pri_db_fail);
  parsed = Parse({"--help"});
  EXPECT_FALSE(parsed.params);
  EXPECT_EQ(parsed.exit_code, 0);
  EXPECT_NE(parsed.out.find("Usage: strigger [--set | --get | --clear] [OPTIONS]"),
            std::string::npos);
  EXPECT_NE(parsed.out.find("*     --burst_buffer"), std::string::npos);
  EXPECT_NE(parsed.out.find("  -d, --down"), std::string::npos);
  EXPECT_EQ(Parse({"-V"}).out, "skiff 1\n");
}

TEST(StriggerParse, VerboseCountsButPrintsNoOptionDump) {
  // Slurm's _print_options runs before its log level is raised: nothing shows.
  StriggerParse parsed = Parse({"--get", "-vv"});
  ASSERT_TRUE(parsed.params);
  EXPECT_EQ(parsed.params->verbose, 2);
  EXPECT_EQ(parsed.err, "");
}

TEST(StriggerSet, BuildsSlurmsRequest) {
  StriggerParse parsed =
      Parse({"--set", "-j", "42", "--fini", "-t", "-o", "-60", "-p", "/bin/prog"});
  ASSERT_TRUE(parsed.params);
  v1::TriggerInfo t = TriggerToSet(*parsed.params);
  EXPECT_EQ(t.res_type(), 1u);
  EXPECT_EQ(t.res_id(), "42");
  EXPECT_EQ(t.trig_type(), (1u << 4) | (1u << 3));
  EXPECT_EQ(t.offset(), -60);
  parsed = Parse({"--set", "-I", "-o", "600", "-p", "/bin/prog"});
  t = TriggerToSet(*parsed.params);
  EXPECT_EQ(t.res_type(), 2u);
  EXPECT_EQ(t.res_id(), "*");
  EXPECT_EQ(t.trig_type(), 1u << 7);
  EXPECT_TRUE(UnsupportedEvents(*parsed.params).empty());
  parsed = Parse({"--set", "-a", "-p", "/bin/prog"});
  EXPECT_EQ(UnsupportedEvents(*parsed.params),
            std::vector<std::string>{"--primary_slurmctld_failure"});
  EXPECT_EQ(TriggerToSet(*parsed.params).res_type(), 3u);
}

v1::TriggerInfo Info(uint32_t id, uint32_t res, const std::string& res_id, uint32_t type,
                     int offset, uint32_t uid, uint32_t flags, const std::string& program) {
  v1::TriggerInfo t;
  t.set_trig_id(id);
  t.set_res_type(res);
  t.set_res_id(res_id);
  t.set_trig_type(type);
  t.set_offset(offset);
  t.set_user_id(uid);
  t.set_flags(flags);
  t.set_program(program);
  return t;
}

std::string Name(uint32_t uid) { return uid == 0 ? "root" : uid == 1001 ? "joe" : "unknown"; }

TEST(StriggerGet, PrintsSlurmsColumnsAndFilters) {
  const std::vector<v1::TriggerInfo> triggers = {
      Info(123, 1, "1235", 1u << 3, -600, 1001, 0, "/home/bob/clean_up"),
      Info(125, 1, "1235", 1u << 1, 0, 1001, 0, "/home/bob/node_died"),
      Info(126, 2, "*", 1u << 1, 0, 0, 1, "/sbin/notify"),
  };
  StriggerParse parsed = Parse({"--get"});
  ASSERT_TRUE(parsed.params);
  EXPECT_EQ(FormatTriggers(triggers, *parsed.params, Name),
            "TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     FLAGS "
            "PROGRAM\n"
            "    123 job          1235 time                                  -600 joe            "
            "/home/bob/clean_up\n"
            "    125 job          1235 down                                     0 joe            "
            "/home/bob/node_died\n"
            "    126 node            * down                                     0 root     PERM  "
            "/sbin/notify\n");
  parsed = Parse({"--get", "-N", "--down"});
  // --down keeps node (and front end) down triggers only.
  EXPECT_EQ(FormatTriggers(triggers, *parsed.params, Name),
            "    126 node            * down                                     0 root     PERM  "
            "/sbin/notify\n");
  parsed = Parse({"--get", "-j", "1235", "--user=7"});
  EXPECT_EQ(FormatTriggers(triggers, *parsed.params, Name), "");
  parsed = Parse({"--get", "-i", "125", "-N"});
  EXPECT_NE(FormatTriggers(triggers, *parsed.params, Name).find("node_died"), std::string::npos);
}

}  // namespace
}  // namespace skiff::cli
