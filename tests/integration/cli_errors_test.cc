// Every CLI against malformed command lines: unknown options, abbreviations
// that are ambiguous, missing values, values given to flags, values a command
// refuses before it asks ctld. Each must answer as Slurm 22.05's command does:
// the same stderr text (glibc's getopt_long message and the command's
// "Try "<cmd> --help" for more information" line, or the command's own error),
// nothing else, and the same exit code (1; sbatch exits 255 from its '?' case
// and for bad values, src/common/slurm_opt.c).
//
// None of these needs a cluster: option errors come before any RPC. SKIFF_CONF
// names a file that does not exist, so a command that wrongly went on to read
// its configuration says so ("cannot read ...") and the case fails.
//
// Known differences from Slurm left out of the table: scancel -t lists
// "PENDING and RUNNING" as the valid states (Slurm: "PENDING, RUNNING, and
// SUSPENDED"); sbatch's value errors for --begin, --array, --gres, --export and
// -w/-x add the value; scontrol prints "invalid keyword: x" after
// "scontrol: error: " (Slurm: bare) and "Invalid TimeLimit value" with ": x".
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/harness/local_cluster.h"

namespace skiff::testing {
namespace {

struct Case {
  const char* program;  // cli/<program>/<program>
  const char* args;     // as a shell reads them; @DIR@ is a scratch directory
  std::string err;      // the whole of stderr
  int exit_code;
  std::string out = "";  // the whole of stdout
};

std::string Try(const std::string& program) {
  return absl::StrCat("Try \"", program, " --help\" for more information\n");
}

// "<program>: <message>" and the Try line, as getopt_long's caller prints them.
std::string Getopt(const std::string& program, const std::string& message) {
  return absl::StrCat(program, ": ", message, "\n", Try(program));
}

const std::string kSprioUsage =
    "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
    "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n";

std::vector<Case> Cases() {
  return {
      // sinfo (src/sinfo/opts.c: '?' prints the Try line, exit 1).
      {"sinfo", "--foo", Getopt("sinfo", "unrecognized option '--foo'"), 1},
      {"sinfo", "--nodez=n1", Getopt("sinfo", "unrecognized option '--nodez=n1'"), 1},
      {"sinfo", "-z", Getopt("sinfo", "invalid option -- 'z'"), 1},
      {"sinfo", "-lz", Getopt("sinfo", "invalid option -- 'z'"), 1},
      {"sinfo", "--no",
       Getopt("sinfo",
              "option '--no' is ambiguous; possibilities: '--nodes' '--noconvert' "
              "'--noheader'"),
       1},
      {"sinfo", "--states", Getopt("sinfo", "option '--states' requires an argument"), 1},
      {"sinfo", "-o", Getopt("sinfo", "option requires an argument -- 'o'"), 1},
      {"sinfo", "--long=1", Getopt("sinfo", "option '--long' doesn't allow an argument"), 1},
      {"sinfo", "--help=x", Getopt("sinfo", "option '--help' doesn't allow an argument"), 1},
      {"sinfo", "-i 0", "sinfo: error: Error: invalid entry for --iterate=0\n", 1},
      {"sinfo", "-n 'n[1-'", "sinfo: error: 'n[1-' invalid entry for --nodes\n", 1},

      // squeue (src/squeue/opts.c).
      {"squeue", "--foo", Getopt("squeue", "unrecognized option '--foo'"), 1},
      {"squeue", "--jobz=5", Getopt("squeue", "unrecognized option '--jobz=5'"), 1},
      {"squeue", "-lz", Getopt("squeue", "invalid option -- 'z'"), 1},
      {"squeue", "--st",
       Getopt("squeue",
              "option '--st' is ambiguous; possibilities: '--start' '--steps' "
              "'--states'"),
       1},
      {"squeue", "--user", Getopt("squeue", "option '--user' requires an argument"), 1},
      {"squeue", "-o", Getopt("squeue", "option requires an argument -- 'o'"), 1},
      {"squeue", "--long=x", Getopt("squeue", "option '--long' doesn't allow an argument"), 1},
      {"squeue", "--json=x", Getopt("squeue", "option '--json' doesn't allow an argument"), 1},
      {"squeue", "-j abc", "squeue: error: Invalid job id: abc\n", 1},
      {"squeue", "-i abc", "squeue: error: --iterate=abc\n\n", 1},
      {"squeue", "-S P,q", "squeue: error: Invalid sort specification: q\n", 1},

      // scontrol (src/scontrol/scontrol.c).
      {"scontrol", "--foo", Getopt("scontrol", "unrecognized option '--foo'"), 1},
      {"scontrol", "--bogus=1 show job", Getopt("scontrol", "unrecognized option '--bogus=1'"), 1},
      {"scontrol", "-z", Getopt("scontrol", "invalid option -- 'z'"), 1},
      {"scontrol", "-dz show job", Getopt("scontrol", "invalid option -- 'z'"), 1},
      {"scontrol", "--h",
       Getopt("scontrol", "option '--h' is ambiguous; possibilities: '--help' '--hide'"), 1},
      {"scontrol", "--ver show job",
       Getopt("scontrol", "option '--ver' is ambiguous; possibilities: '--verbose' '--version'"),
       1},
      {"scontrol", "-M", Getopt("scontrol", "option requires an argument -- 'M'"), 1},
      {"scontrol", "show job --cluster",
       Getopt("scontrol", "option '--cluster' requires an argument"), 1},
      {"scontrol", "--oneliner=1 show job",
       Getopt("scontrol", "option '--oneliner' doesn't allow an argument"), 1},
      {"scontrol", "show job 5 --details=2",
       Getopt("scontrol", "option '--details' doesn't allow an argument"), 1},

      // scancel (src/scancel/opt.c).
      {"scancel", "--foo", Getopt("scancel", "unrecognized option '--foo'"), 1},
      {"scancel", "--nodez=n1 5", Getopt("scancel", "unrecognized option '--nodez=n1'"), 1},
      {"scancel", "-h", Getopt("scancel", "invalid option -- 'h'"), 1},
      {"scancel", "--h",
       Getopt("scancel", "option '--h' is ambiguous; possibilities: '--help' '--hurry'"), 1},
      {"scancel", "5 -s", Getopt("scancel", "option requires an argument -- 's'"), 1},
      {"scancel", "--user", Getopt("scancel", "option '--user' requires an argument"), 1},
      {"scancel", "--batch=1 5", Getopt("scancel", "option '--batch' doesn't allow an argument"),
       1},
      {"scancel", "-s FOO 5", "Unknown job signal: FOO\n", 1},
      {"scancel", "abc", "scancel: error: Invalid job id abc\n", 1},
      {"scancel", "", "scancel: error: No job identification provided\n", 1},
      {"scancel", "-u no_such_user_xyz", "scancel: error: Invalid user name: no_such_user_xyz\n",
       1},

      // sprio (src/sprio/opts.c).
      {"sprio", "--foo", Getopt("sprio", "unrecognized option '--foo'"), 1},
      {"sprio", "-x", Getopt("sprio", "invalid option -- 'x'"), 1},
      {"sprio", "-lx", Getopt("sprio", "invalid option -- 'x'"), 1},
      {"sprio", "--no",
       Getopt("sprio", "option '--no' is ambiguous; possibilities: '--noheader' '--norm'"), 1},
      {"sprio", "-o", Getopt("sprio", "option requires an argument -- 'o'"), 1},
      {"sprio", "--user", Getopt("sprio", "option '--user' requires an argument"), 1},
      {"sprio", "--w=1", Getopt("sprio", "option '--weights' doesn't allow an argument"), 1},
      {"sprio", "foo", "sprio: error: Unrecognized option: foo\n", 1, kSprioUsage},
      {"sprio", "-j 1 2", "sprio: error: Unrecognized option: 2\n", 1, kSprioUsage},
      {"sprio", "--jobs=abc", "sprio: error: Invalid job id: abc\n", 1},
      {"sprio", "-l -o %i",
       "sprio: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove "
       "one and retry.\n",
       1},

      // sbatch (src/sbatch/opt.c, src/common/slurm_opt.c: exit -1 = 255).
      {"sbatch", "--foo", Getopt("sbatch", "unrecognized option '--foo'"), 255},
      {"sbatch", "--nodez=n1 x.sh", Getopt("sbatch", "unrecognized option '--nodez=n1'"), 255},
      {"sbatch", "-z", Getopt("sbatch", "invalid option -- 'z'"), 255},
      {"sbatch", "--mem-per 1 x.sh",
       Getopt("sbatch",
              "option '--mem-per' is ambiguous; possibilities: '--mem-per-cpu' '--mem-per-gpu'"),
       255},
      {"sbatch", "-t", Getopt("sbatch", "option requires an argument -- 't'"), 255},
      {"sbatch", "--partition", Getopt("sbatch", "option '--partition' requires an argument"), 255},
      {"sbatch", "--hold=1 x.sh", Getopt("sbatch", "option '--hold' doesn't allow an argument"),
       255},
      {"sbatch", "@DIR@/unknown.sh", Getopt("sbatch", "unrecognized option '--bogus'"), 255},
      {"sbatch", "@DIR@/stray.sh",
       "sbatch: error: Invalid directive found in batch script: stray\n", 255},
      {"sbatch", "-t abc --wrap=true", "sbatch: error: Invalid --time specification\n", 255},
      // A directory as the script: a message, not an uncaught exception (rc 134).
      {"sbatch", "/", "sbatch: error: Unable to read file /: Is a directory\n", 1},
      // Slurm's parse_int exits 1.
      {"sbatch", "-n 0 --wrap=true", "sbatch: error: Invalid numeric value \"0\" for --ntasks.\n",
       1},
      {"sbatch", "-c abc --wrap=true",
       "sbatch: error: Invalid numeric value \"abc\" for --cpus-per-task.\n", 1},
      {"sbatch", "-B 2:x --wrap=true",
       "sbatch: error: Invalid numeric value \"x\" for second arg of -B.\n", 1},
      {"sbatch", "--signal=FOO --wrap=true", "sbatch: error: Invalid --signal specification\n",
       255},
      {"sbatch", "-m round --wrap=true", "sbatch: error: Invalid --distribution specification\n",
       255},
      {"sbatch", "--gres-flags=loose --wrap=true",
       "sbatch: error: Invalid --gres-flags specification\n", 255},
      {"sbatch", "--wait-all-nodes=2 --wrap=true",
       "sbatch: error: Invalid --wait-all-nodes specification\n", 255},
      {"sbatch", "--wait-all-nodes=x --wrap=true",
       "sbatch: error: Invalid numeric value \"x\" for --wait-all-nodes.\n", 1},
      {"sbatch", "--nice=9999999999 --wrap=true",
       "sbatch: error: Invalid --nice value, out of range (+/- 2147483645)\n", 255},
      {"sbatch", "-N x --wrap=true", "sbatch: error: \"x\" is not a valid node count\n", 255},
      {"sbatch", "-N 3-2 --wrap=true",
       "sbatch: error: Maximum node count 2 is less than minimum node count 3\n", 255},
      {"sbatch", "--mem=lots --wrap=true", "sbatch: error: Invalid --mem specification\n", 255},
      // --tmp's value is checked as Slurm's (COMMON_MBYTES_OPTION), in all three
      // commands (Slurm 22.05 on the anchor: the same line, exit 255).
      {"sbatch", "--tmp=abc --wrap=true", "sbatch: error: Invalid --tmp specification\n", 255},
      {"salloc", "--tmp=abc true", "salloc: error: Invalid --tmp specification\n", 255},
      {"srun", "--tmp=1x true", "srun: error: Invalid --tmp specification\n", 255},
      {"sbatch", "--mail-type=ENDS --wrap=true",
       "sbatch: error: Invalid --mail-type specification\n", 255},
      {"sbatch", "--exclusive=bogus --wrap=true",
       "sbatch: error: Invalid --exclusive specification\n", 255},
      {"sbatch", "--open-mode=x --wrap=true", "sbatch: error: Invalid --open-mode specification\n",
       255},
      {"sbatch", "--wrap=true x.sh",
       "sbatch: error: Script arguments not permitted with --wrap option\n", 1},

      // sacctmgr (src/sacctmgr/sacctmgr.c).
      {"sacctmgr", "--foo", Getopt("sacctmgr", "unrecognized option '--foo'"), 1},
      {"sacctmgr", "--nohead=1 show qos",
       Getopt("sacctmgr", "option '--noheader' doesn't allow an argument"), 1},
      {"sacctmgr", "-x show qos", Getopt("sacctmgr", "invalid option -- 'x'"), 1},
      {"sacctmgr", "show qos -z", Getopt("sacctmgr", "invalid option -- 'z'"), 1},
      {"sacctmgr", "show qos --pars",
       Getopt("sacctmgr",
              "option '--pars' is ambiguous; possibilities: '--parsable' '--parsable2'"),
       1},
      {"sacctmgr", "--ver",
       Getopt("sacctmgr", "option '--ver' is ambiguous; possibilities: '--verbose' '--version'"),
       1},
      {"sacctmgr", "--immediate=yes add qos x",
       Getopt("sacctmgr", "option '--immediate' doesn't allow an argument"), 1},
      {"sacctmgr", "--help=1", Getopt("sacctmgr", "option '--help' doesn't allow an argument"), 1},
      {"sacctmgr", "-r add qos x", "Can't run this command in readonly mode.\n", 1},
      {"sacctmgr", "-ir delete qos x", "Can't run this command in readonly mode.\n", 1},
  };
}

class CliErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(std::getenv("TEST_TMPDIR") != nullptr ? std::getenv("TEST_TMPDIR") : "/tmp",
                        "/cli_errors");
    RunShell(absl::StrCat("mkdir -p ", dir_));
    std::ofstream(dir_ + "/unknown.sh") << "#!/bin/sh\n#SBATCH -J ok\n#SBATCH --bogus\ntrue\n";
    std::ofstream(dir_ + "/stray.sh") << "#!/bin/sh\n#SBATCH -J ok stray\ntrue\n";
  }

  CommandResult Run(const std::string& program, std::string args) const {
    for (size_t pos = args.find("@DIR@"); pos != std::string::npos; pos = args.find("@DIR@")) {
      args.replace(pos, 5, dir_);
    }
    // No SBATCH_*/SQUEUE_*/SINFO_* defaults from the environment running the
    // test, and no configuration to fall back on. The command by its name as
    // skiff-client's first argument (a cluster's bin/ has the links).
    return RunShell(absl::StrCat("env -i PATH=/usr/bin:/bin SKIFF_CONF=", dir_,
                                 "/no-such-skiff.conf ", RunfilesRoot(), "/cli/skiff-client ",
                                 program, " ", args));
  }

  std::string dir_;
};

TEST_F(CliErrorsTest, EveryCliRefusesMalformedCommandLinesAsSlurmDoes) {
  const std::vector<Case> cases = Cases();
  EXPECT_GE(cases.size(), 50u);
  std::map<std::string, int> per_program;
  for (const Case& c : cases) {
    ++per_program[c.program];
    CommandResult r = Run(c.program, c.args);
    const std::string line = absl::StrCat(c.program, " ", c.args);
    EXPECT_EQ(r.err, c.err) << line;
    EXPECT_EQ(r.exit_code, c.exit_code) << line;
    EXPECT_EQ(r.out, c.out) << line;
  }
  for (const char* program :
       {"sinfo", "squeue", "scontrol", "scancel", "sprio", "sbatch", "sacctmgr"}) {
    EXPECT_GE(per_program[program], 8) << program;
  }
}

// --help and --usage print Slurm 22.05's texts on stdout and exit 0, before
// any configuration is read: byte for byte, except that the options and
// commands Skiff does not support have a '*' in the first column and the text
// then ends with kMarkNote (cli/common/help_text.h).
TEST_F(CliErrorsTest, HelpAndUsageInSlurmsShape) {
  const std::string kMarkNote =
      "\nEntries marked * are not supported by Skiff (refused, or accepted and ignored).\n";
  struct HelpCase {
    const char* program;
    const char* args;
    const char* starts;    // stdout's first line
    const char* contains;  // a line people and scripts grep Slurm's text for
    bool marked;           // whether it ends with kMarkNote
  };
  const HelpCase cases[] = {
      {"sinfo", "--usage",
       "Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n",
       "             [-S fields] [-o format] [-O Format] [--federation] [--local]\n", false},
      {"sinfo", "--help", "Usage: sinfo [OPTIONS]\n",
       "  -R, --list-reasons         list reason nodes are down or drained\n", true},
      {"squeue", "--usage",
       "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n",
       "              [-n name] [-o format] [-p partitions] [--qos qos]\n", false},
      {"squeue", "--help", "Usage: squeue [OPTIONS]\n",
       "  -S, --sort=fields               comma separated list of fields to sort on\n", true},
      {"scancel", "--usage",
       "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]\n",
       "               [job_id[_array_id][.step_id]]\n", false},
      {"scancel", "--help", "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n",
       "  -s, --signal=name | integer     signal to send to job, default is SIGKILL\n", true},
      {"sprio", "--usage",
       "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n",
       "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n", false},
      {"sprio", "--help", "Usage: sprio [OPTIONS]\n",
       "  -w, --weights                   show the weights for each priority factor\n", true},
      {"sbatch", "--usage", "Usage: sbatch [-N nnodes] [-n ntasks]\n",
       "              executable [args...]\n", false},
      {"sbatch", "--help",
       "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n",
       "      --wrap[=command string] wrap command string in a sh script and submit\n", true},
      {"sbatch", "-h",
       "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n",
       "*     --cpu-freq=min[-max[:gov]] requested cpu frequency (and governor)\n", true},
      {"srun", "--usage", "Usage: srun [-N nnodes] [-n ntasks] [-i in] [-o out] [-e err]\n",
       "            executable [args...]\n", false},
      {"srun", "--help",
       "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : [OPTIONS(N)...]] "
       "executable(N) [args(N)...]\n",
       "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n", true},
      {"salloc", "--usage",
       "Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n",
       "              [command [args...]]\n", false},
      {"salloc", "--help",
       "Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)]] [command(0) [args(0)...]]\n",
       "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n", true},
      {"sacct", "--usage", "Usage: sacct [options]\n", "\tUse --help for help\n", false},
      {"sacct", "--help",
       "sacct [<OPTION>]                                                            \n",
       "     -S, --starttime:                                                       \n", true},
      {"sstat", "--usage", "Usage: sstat [options] -j <job(.stepid)>\n", "\tUse --help for help\n",
       false},
      {"sstat", "--help",
       "sstat [<OPTION>] -j <job(.stepid)>                                          \n",
       "     -j, --jobs:                                                            \n", false},
      {"sshare", "--help",
       "Usage:  sshare [OPTION]                                                    \n",
       "    -l or --long           include normalized usage in output              \n", false},
      {"sshare", "--usage",
       "Usage:  sshare [OPTION]                                                    \n",
       "  Valid OPTIONs are:                                                       \n", false},
      {"sreport", "--help",
       "sreport [<OPTION>] [<COMMAND>]                                             \n",
       "    Valid report types are:                                                \n", true},
      {"sreport", "--usage",
       "sreport [<OPTION>] [<COMMAND>]                                             \n",
       "     user    - TopUsage                                                    \n", true},
      {"sacctmgr", "--help",
       "sacctmgr [<OPTION>] [<COMMAND>]                                            \n",
       "  Valid <COMMAND> values are:                                              \n", true},
      {"sacctmgr", "--usage",
       "sacctmgr [<OPTION>] [<COMMAND>]                                            \n",
       "     list <ENTITY> [<SPECS>]  display info of identified entity, default   \n", true},
      {"sacctmgr", "-h",
       "sacctmgr [<OPTION>] [<COMMAND>]                                            \n",
       "*    dump <CLUSTER> [File=<FILENAME>]                                      \n", true},
      {"sacctmgr", "help",
       "sacctmgr [<OPTION>] [<COMMAND>]                                            \n",
       "     help                     print this description of use.               \n", true},
      {"scontrol", "--help",
       "scontrol [<OPTION>] [<COMMAND>]                                            \n",
       "    Valid <COMMAND> values are:                                            \n", true},
      {"scontrol", "--usage",
       "scontrol [<OPTION>] [<COMMAND>]                                            \n",
       "     show <ENTITY> [<ID>]     display state of identified entity, default  \n", true},
      {"scontrol", "-h",
       "scontrol [<OPTION>] [<COMMAND>]                                            \n",
       "     takeover                 ask slurm backup controller to take over     \n", true},
      {"scontrol", "help",
       "scontrol [<OPTION>] [<COMMAND>]                                            \n",
       "     update <SPECIFICATIONS>  update job, node, partition, reservation, or \n", true},
  };
  for (const HelpCase& c : cases) {
    CommandResult r = Run(c.program, c.args);
    const std::string line = absl::StrCat(c.program, " ", c.args);
    EXPECT_EQ(r.exit_code, 0) << line << "\n" << r.err;
    EXPECT_EQ(r.err, "") << line;
    EXPECT_EQ(r.out.substr(0, std::string(c.starts).size()), c.starts) << line << "\n" << r.out;
    EXPECT_NE(r.out.find(absl::StrCat("\n", c.contains)), std::string::npos) << line << "\n"
                                                                             << r.out;
    const bool ends_with_note =
        r.out.size() >= kMarkNote.size() &&
        r.out.compare(r.out.size() - kMarkNote.size(), kMarkNote.size(), kMarkNote) == 0;
    EXPECT_EQ(ends_with_note, c.marked) << line << "\n" << r.out;
  }
}

}  // namespace
}  // namespace skiff::testing
