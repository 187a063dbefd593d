// sinfo through the real daemons against expected outputs (tests/golden/sinfo),
// in one fixed scenario: the default 4-node cluster (n3, n4 with 2 fake GPUs,
// partitions debug = n[1-4] and gpu = n[3-4]), n1 drained with a reason, and a
// 1-GPU, 1-CPU job held by `sleep` on n3.
//
// Each golden file holds what a person would see:
//   $ sinfo ARGS
//   <stdout><stderr>[exit N]
// with only what truly varies between runs replaced (see Normalize): the date
// line of -l/-i/-v, reason timestamps, and in --json the boot/start/reason
// times, noded's port, the host's kernel and architecture.
//
// To regenerate after an intended change: SKIFF_UPDATE_GOLDEN=/path/to/dir
// (e.g. $PWD/tests/golden/sinfo with --test_env and --sandbox_writable_path)
// writes each actual output there instead of comparing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"
#include "tests/harness/shared_cluster.h"
#include "tests/harness/test_util.h"

namespace skiff::testing {
namespace {

struct Case {
  const char* name;  // the golden file: tests/golden/sinfo/<name>.txt
  const char* args;  // after "sinfo", as a shell would read them
};

// The views a lab uses, every format letter and long name asked for, the filters.
const Case kOutputs[] = {
    {"default", ""},
    {"long", "-l"},
    {"node", "-N"},
    {"node_long", "-N -l"},
    {"summarize", "-s"},
    {"list_reasons", "-R"},
    {"list_reasons_long", "-R -l"},
    {"noheader", "-h"},
    {"exact", "-e -o '%P %c %m %t %N'"},
    {"gpus_free_where", "-O NodeHost,Gres:20,GresUsed:30"},
    {"letters",
     "-o '%P %a %l %L %D %t %T %N %n %C %c %m %e %O %G %f %E %H %u %R %z %X %Y %Z %b %w %F "
     "%A'"},
    {"letters_widths", "-o 'x%.10P|%-8t|%5D|%.3c|%N'"},
    {"all_letters", "-o %all"},
    {"long_names_1", "-O 'Partition:12,StateLong:.10,StateCompact,CPUsState,Nodes:.5,NodeList'"},
    {"long_names_2",
     "-O 'PartitionName,Available:6,Time:.12,Features,Weight:4,Timestamp,User:10,CPUsLoad:9,"
     "FreeMem:9,AllocMem:9,Memory:7,CPUs:5,Reason'"},
    {"long_names_suffix", "-O 'NodeList:6|,Gres:8|,GresUsed:.24|'"},
    {"states_idle", "-t idle"},
    {"states_drain_mix", "-t DRAIN,mix"},
    {"states_alloc", "-t alloc -N"},
    {"states_and", "-t 'idle&drain'"},
    {"nodes_range", "-n 'n[1-2]'"},
    {"nodes_single", "-n n3 -N"},
    {"partition", "-p gpu"},
    {"partition_node_long", "-p gpu -N -l"},
    {"responding", "-r -s"},
    {"dead", "-d"},
    {"sort_reverse_partition", "-S -P"},
    {"sort_nodes_reverse", "-N -S -N"},
    {"reasons_format", "-t drain -o '%N %E %T'"},
    {"grouped_flags", "-hNe"},
    {"verbose", "-v -h"},
    {"reservations", "-T"},
    {"usage", "--usage"},
    {"help", "--help"},
    {"version", "-V"},
    {"hide", "--hide"},
    {"all_partitions", "-a"},
    {"json", "--json"},
};

// Malformed options and values: Slurm's one line (and glibc's "Try" line), and
// its exit code. Slurm warns about an unknown -o letter or -O name and goes on.
const Case kErrors[] = {
    {"err_unknown_long", "--foo"},
    {"err_unknown_short", "-z"},
    {"err_unknown_in_group", "-lz"},
    {"err_format_no_value", "-o"},
    {"err_format_long_no_value", "--format"},
    {"err_Format_no_value", "--Format"},
    {"err_partition_no_value", "-p"},
    {"err_states_no_value", "--states"},
    {"err_nodes_no_value", "-n"},
    {"err_sort_no_value", "-S"},
    {"err_iterate_word", "-i abc"},
    {"err_iterate_zero", "-i 0"},
    {"err_iterate_negative", "--iterate=-3"},
    {"err_iterate_prefix", "--iter=x"},
    {"err_state_bogus", "-t BOGUS"},
    {"err_state_in_list", "-t idle,nope"},
    {"err_long_value", "--long=1"},
    {"err_json_value", "--json=1"},
    {"err_help_value", "--help=x"},
    {"err_dead_value", "--dead=yes"},
    {"err_partition_long_no_value", "--partition"},
    {"err_unknown_after_flags", "-Nz"},
    {"err_unknown_long_prefix", "--nodez"},
    {"err_nodes_bad_range", "-n 'n[1-'"},
    {"err_nodes_unknown", "-n n9"},
    {"err_long_with_format", "-l -o %N"},
    {"err_long_with_Format", "-l -O NodeList"},
    {"err_all_with_partition", "-a -p debug"},
    {"err_cluster", "-M other"},
    {"err_cluster_all", "--clusters=all"},
    {"err_yaml", "--yaml"},
    {"warn_bad_letter", "-o '%N %q'"},
    {"warn_bad_long_name", "-O NodeList,Bogus:5"},
};

// Replaces what differs between runs with fixed text of the same width.
std::string Normalize(std::string text) {
  static const std::regex date_line(
      R"((^|\n)[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}\n)");
  static const std::regex timestamp(R"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})");
  static const std::regex json_times(
      R"#("(boot_time|slurmd_start_time|reason_changed_at|port)": [0-9]+)#");
  static const std::regex json_host(R"#("(operating_system|architecture)": "[^"]*")#");
  text = std::regex_replace(text, date_line, "$1Www Mmm DD HH:MM:SS YYYY\n");
  text = std::regex_replace(text, timestamp, "YYYY-MM-DDTHH:MM:SS");
  text = std::regex_replace(text, json_times, "\"$1\": 0");
  text = std::regex_replace(text, json_host, "\"$1\": \"HOST\"");
  return text;
}

class SinfoGoldenTest : public SharedClusterTest<SinfoGoldenTest> {
 protected:
  static void SetUpTestSuite() {
    LocalCluster::Options options;  // 4 nodes, the last 2 with 2 fake GPUs
    // CPU load and free memory change from run to run: N/A, as before a node reports.
    options.environment["SKIFF_NODED_NO_LOAD"] = "1";
    StartCluster(options);
    if (HasFatalFailure()) return;
    CommandResult drain =
        cluster_->Run("scontrol update NodeName=n1 State=DRAIN Reason='disk replacement'");
    ASSERT_EQ(drain.exit_code, 0) << drain.out << drain.err;
    CommandResult submit = cluster_->Run("cd " + cluster_->dir() +
                                         " && sbatch -p gpu -w n3 --gres=gpu:1 -c 1 "
                                         "-o /dev/null --wrap 'sleep 600'");
    ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
    ASSERT_TRUE(Eventually(30, [] {
      return cluster_->Run("squeue -h -t R -o %i").out.find_first_of("0123456789") !=
             std::string::npos;
    })) << cluster_->Run("squeue").out;
  }

  // "$ sinfo ARGS\n" + stdout + stderr + "[exit N]\n", normalized.
  static std::string Transcript(const Case& c) {
    const std::string args = c.args;
    CommandResult r = cluster_->Run("sinfo " + args);
    return Normalize(absl::StrCat("$ sinfo", args.empty() ? "" : " ", args, "\n", r.out, r.err,
                                  "[exit ", r.exit_code, "]\n"));
  }

  static void Check(const Case& c) {
    const std::string actual = Transcript(c);
    const std::string file = absl::StrCat(c.name, ".txt");
    if (const char* update = getenv("SKIFF_UPDATE_GOLDEN")) {
      std::ofstream(absl::StrCat(update, "/", file)) << actual;
      return;
    }
    const std::string expected = ReadFile(RunfilesRoot() + "/tests/golden/sinfo/" + file);
    EXPECT_EQ(actual, expected) << "tests/golden/sinfo/" << file;
  }
};

TEST_F(SinfoGoldenTest, OutputsMatchGoldenFiles) {
  for (const Case& c : kOutputs) Check(c);
}

TEST_F(SinfoGoldenTest, MalformedOptionsGetSlurmsWordsAndExitCode) {
  for (const Case& c : kErrors) Check(c);
}

TEST_F(SinfoGoldenTest, EnvironmentFormatIsUsedWhenNoOptionChoosesOne) {
  CommandResult r = cluster_->Run("SINFO_FORMAT='%N %t' sinfo -p gpu");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "NODELIST STATE\nn3 mix\nn4 idle\n");
}

TEST_F(SinfoGoldenTest, IterateRepeatsWithDateAndBlankLineUntilInterrupted) {
  CommandResult r = cluster_->Run("timeout -s INT 3 sinfo -i 1 -p gpu");
  EXPECT_EQ(r.exit_code, 124) << r.err;  // timeout's code: sinfo ended by SIGINT
  const std::string out = Normalize(r.out);
  const std::string one =
      "Www Mmm DD HH:MM:SS YYYY\n"
      "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
      "gpu          up 1-00:00:00      1    mix n3\n"
      "gpu          up 1-00:00:00      1   idle n4\n"
      "\n";
  ASSERT_GE(out.size(), 2 * one.size()) << out;
  EXPECT_EQ(out.substr(0, 2 * one.size()), one + one);
}

}  // namespace
}  // namespace skiff::testing
