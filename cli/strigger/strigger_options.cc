#include "cli/strigger/strigger_options.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/common/getopt_args.h"
#include "cli/common/help_text.h"

namespace skiff::cli {
namespace {

constexpr char kProgram[] = "strigger";

// Slurm's TRIGGER_* numbers (slurm.h).
constexpr uint32_t kResJob = 1, kResNode = 2, kResSlurmctld = 3, kResSlurmdbd = 4, kResDatabase = 5,
                   kResFrontEnd = 6, kResOther = 7;
constexpr uint32_t kUp = 1u << 0, kDown = 1u << 1, kFail = 1u << 2, kTime = 1u << 3,
                   kFini = 1u << 4, kReconfig = 1u << 5, kIdle = 1u << 7, kDrained = 1u << 8,
                   kPriCtldFail = 1u << 9, kPriCtldResOp = 1u << 10, kPriCtldResCtrl = 1u << 11,
                   kPriCtldAcctFull = 1u << 12, kBuCtldFail = 1u << 13, kBuCtldResOp = 1u << 14,
                   kBuCtldAsCtrl = 1u << 15, kPriDbdFail = 1u << 16, kPriDbdResOp = 1u << 17,
                   kPriDbFail = 1u << 18, kPriDbResOp = 1u << 19, kBurstBuffer = 1u << 20;

// Slurm's _usage and _help (src/strigger/opts.c).
constexpr char kUsage[] =
    "Usage: strigger [--set | --get | --clear | --version] [-aAbBcCdDefFgGhHiIjnNopQrtuv]\n";

constexpr char kHelp[] =
    "Usage: strigger [--set | --get | --clear] [OPTIONS]\n"
    "      --set           create a trigger\n"
    "      --get           get trigger information\n"
    "      --clear         delete a trigger\n\n"
    "      --burst_buffer  trigger event on burst buffer error\n"
    "      --front_end     trigger event on FrontEnd node state changes\n"
    "  -a, --primary_slurmctld_failure\n"
    "                      trigger event when primary slurmctld fails\n"
    "  -A, --primary_slurmctld_resumed_operation\n"
    "                      trigger event on primary slurmctld resumed operation\n"
    "                      after failure\n"
    "  -b, --primary_slurmctld_resumed_control\n"
    "                      trigger event on primary slurmctld resumed control\n"
    "  -B, --backup_slurmctld_failure\n"
    "                      trigger event when backup slurmctld fails\n"
    "  -c, --backup_slurmctld_resumed_operation\n"
    "                      trigger event when backup slurmctld resumed operation\n"
    "                      after failure\n"
    "  -C, --backup_slurmctld_assumed_control\n"
    "                      trigger event when backup slurmctld assumed control\n"
    "  -d, --down          trigger event when node goes DOWN\n"
    "  -D, --drained       trigger event when node becomes DRAINED\n"
    "  -e, --primary_slurmctld_acct_buffer_full\n"
    "                      trigger event when primary slurmctld acct buffer full\n"
    "  -F, --fail          trigger event when node is expected to FAIL\n"
    "  -f, --fini          trigger event when job finishes\n"
    "      --flags=perm    trigger event flag (perm = permanent)\n\n"
    "  -g, --primary_slurmdbd_failure\n"
    "                      trigger when primary slurmdbd fails\n"
    "  -G, --primary_slurmdbd_resumed_operation\n"
    "                      trigger when primary slurmdbd resumed operation after\n"
    "                      failure\n"
    "  -h, --primary_database_failure\n"
    "                      trigger when primary database fails\n"
    "  -H, --primary_database_resumed_operation\n"
    "                      trigger when primary database resumed operation after\n"
    "                      failure\n"
    "  -i, --id=#          a trigger's ID number\n"
    "  -I, --idle          trigger event when node remains IDLE\n"
    "  -j, --jobid=#       trigger related to specific jobid\n"
    "  -M, --cluster=name  cluster to issue commands to.  Default is\n"
    "                      current cluster.  cluster with no name will\n"
    "                      reset to default.\n"
    "                      NOTE: SlurmDBD must up.\n"
    "  -n, --node[=host]   trigger related to specific node, all nodes by default\n"
    "  -N, --noheader      Do not print the message header\n"
    "  -o, --offset=#      trigger's offset time from event, negative to precede\n"
    "  -p, --program=path  pathname of program to execute when triggered\n"
    "  -Q, --quiet         quiet mode (suppress informational messages)\n"
    "  -r, --reconfig      trigger event on configuration changes\n"
    "  -t, --time          trigger event on job's time limit\n"
    "  -u, --up            trigger event when node returned to service from DOWN \n"
    "                      state\n"
    "      --user          a user name or ID to filter triggers by\n"
    "  -v, --verbose       print detailed event logging\n"
    "  -V, --version       print version information and exit\n"
    "\nHelp options:\n"
    "  --help              show this help message\n"
    "  --usage             display brief usage message\n";

// Skiff has no source for these events (docs/compatibility.md).
constexpr std::string_view kUnsupportedHelp[] = {"--burst_buffer",
                                                 "--front_end",
                                                 "-a, --primary_slurmctld_failure",
                                                 "-A, --primary_slurmctld_resumed_operation",
                                                 "-b, --primary_slurmctld_resumed_control",
                                                 "-B, --backup_slurmctld_failure",
                                                 "-c, --backup_slurmctld_resumed_operation",
                                                 "-C, --backup_slurmctld_assumed_control",
                                                 "-e, --primary_slurmctld_acct_buffer_full",
                                                 "-g, --primary_slurmdbd_failure",
                                                 "-G, --primary_slurmdbd_resumed_operation",
                                                 "-h, --primary_database_failure",
                                                 "-H, --primary_database_resumed_operation"};

// getopt_long's table, in Slurm's order.
enum Opt {
  kA,
  kAA,
  kB,
  kBB,
  kC,
  kCC,
  kD,
  kDD,
  kE,
  kF,
  kFF,
  kG,
  kGG,
  kH,
  kHH,
  kI,
  kII,
  kJ,
  kCluster,
  kClusters,
  kN,
  kNN,
  kO,
  kP,
  kQ,
  kR,
  kT,
  kU,
  kV,
  kVV,
  kBurst,
  kClear,
  kFlags,
  kFrontEnd,
  kGet,
  kHelp_,
  kSet,
  kUsage_,
  kUser
};

const std::vector<GetoptOption>& Table() {
  using A = GetoptArgument;
  static const std::vector<GetoptOption> table = {
      {"-a,--primary_slurmctld_failure", A::kNone},
      {"-A,--primary_slurmctld_resumed_operation", A::kNone},
      {"-b,--primary_slurmctld_resumed_control", A::kNone},
      {"-B,--backup_slurmctld_failure", A::kNone},
      {"-c,--backup_slurmctld_resumed_operation", A::kNone},
      {"-C,--backup_slurmctld_assumed_control", A::kNone},
      {"-d,--down", A::kNone},
      {"-D,--drained", A::kNone},
      {"-e,--primary_slurmctld_acct_buffer_full", A::kNone},
      {"-f,--fini", A::kNone},
      {"-F,--fail", A::kNone},
      {"-g,--primary_slurmdbd_failure", A::kNone},
      {"-G,--primary_slurmdbd_resumed_operation", A::kNone},
      {"-h,--primary_database_failure", A::kNone},
      {"-H,--primary_database_resumed_operation", A::kNone},
      {"-i,--id", A::kRequired},
      {"-I,--idle", A::kNone},
      {"-j,--jobid", A::kRequired},
      {"-M,--cluster", A::kRequired},
      {"--clusters", A::kRequired},
      {"-n,--node", A::kOptional},
      {"-N,--noheader", A::kNone},
      {"-o,--offset", A::kRequired},
      {"-p,--program", A::kRequired},
      {"-Q,--quiet", A::kNone},
      {"-r,--reconfig", A::kNone},
      {"-t,--time", A::kNone},
      {"-u,--up", A::kNone},
      {"-v,--verbose", A::kNone},
      {"-V,--version", A::kNone},
      {"--burst_buffer", A::kNone},
      {"--clear", A::kNone},
      {"--flags", A::kRequired},
      {"--front_end", A::kNone},
      {"--get", A::kNone},
      {"--help", A::kNone},
      {"--set", A::kNone},
      {"--usage", A::kNone},
      {"--user", A::kRequired},
  };
  return table;
}

std::string ErrorLine(const std::string& message) {
  return absl::StrCat(kProgram, ": error: ", message, "\n");
}

StriggerParse Fail(const std::string& message) {
  StriggerParse out;
  out.exit_code = 1;
  out.err = ErrorLine(message);
  return out;
}

// C's atoi/atol: leading blanks, a sign, digits; 0 when none.
long AtoL(const std::string& text) { return std::strtol(text.c_str(), nullptr, 10); }

}  // namespace

StriggerParse ParseStrigger(const std::vector<std::string>& args, const UidLookup& uid_of,
                            const ProgramCheck& check_program, const std::string& version) {
  absl::StatusOr<GetoptParsed> read = ParseGetopt(args, Table(), GetoptOrder::kPermute);
  if (!read.ok()) {
    StriggerParse out;
    out.exit_code = 1;
    // opts.c: case '?': its own line after getopt's.
    out.err = absl::StrCat(kProgram, ": ", read.status().message(),
                           "\nTry \"strigger --help\" for ", "more information\n");
    return out;
  }
  StriggerParams p;
  for (const GetoptFound& found : read->found) {
    const std::string value = found.value.value_or("");
    switch (static_cast<Opt>(found.option)) {
      case kA:
        p.pri_ctld_fail = true;
        break;
      case kAA:
        p.pri_ctld_res_op = true;
        break;
      case kB:
        p.pri_ctld_res_ctrl = true;
        break;
      case kBB:
        p.bu_ctld_fail = true;
        break;
      case kC:
        p.bu_ctld_res_op = true;
        break;
      case kCC:
        p.bu_ctld_as_ctrl = true;
        break;
      case kD:
        p.node_down = true;
        break;
      case kDD:
        p.node_drained = true;
        break;
      case kE:
        p.pri_ctld_acct_buffer_full = true;
        break;
      case kF:
        p.job_fini = true;
        break;
      case kFF:
        p.node_fail = true;
        break;
      case kG:
        p.pri_dbd_fail = true;
        break;
      case kGG:
        p.pri_dbd_res_op = true;
        break;
      case kH:
        p.pri_db_fail = true;
        break;
      case kHH:
        p.pri_db_res_op = true;
        break;
      case kI:
        p.trigger_id = static_cast<uint32_t>(AtoL(value));
        break;
      case kII:
        p.node_idle = true;
        break;
      case kJ: {
        const long id = AtoL(value);
        if (id <= 0) return Fail("Invalid jobid " + value);
        p.job_id = static_cast<uint32_t>(id);
        break;
      }
      case kCluster:
      case kClusters:
        p.cluster = value;
        break;
      case kN:
        p.node_id = found.value ? value : std::string("*");
        break;
      case kNN:
        p.no_header = true;
        break;
      case kO:
        p.offset = static_cast<int32_t>(AtoL(value));
        break;
      case kP:
        p.program = value;
        break;
      case kQ:
        p.quiet = true;
        break;
      case kR:
        p.reconfig = true;
        break;
      case kT:
        p.time_limit = true;
        break;
      case kU:
        p.node_up = true;
        break;
      case kV:
        p.verbose++;
        break;
      case kVV: {
        StriggerParse out;
        out.out = version;
        return out;
      }
      case kBurst:
        p.burst_buffer = true;
        break;
      case kClear:
        p.mode_clear = true;
        break;
      case kFlags:
        if (!absl::StartsWithIgnoreCase(value, "perm")) return Fail("Invalid flags " + value);
        p.flags = 1;
        break;
      case kFrontEnd:
        p.front_end = true;
        break;
      case kGet:
        p.mode_get = true;
        break;
      case kHelp_: {
        StriggerParse out;
        out.out = MarkUnsupported(kHelp, kUnsupportedHelp);
        return out;
      }
      case kSet:
        p.mode_set = true;
        break;
      case kUsage_: {
        StriggerParse out;
        out.out = kUsage;
        return out;
      }
      case kUser: {
        std::optional<uint32_t> uid = uid_of(value);
        if (!uid) return Fail("Invalid user " + value);
        p.user_id = *uid;
        break;
      }
    }
  }

  // (Slurm's -v would print the options here, but its log level is raised
  // only after parse_command_line, so the lines never show.)
  StriggerParse out;
  auto fail = [&](const std::string& message) {
    out.exit_code = 1;
    out.err += ErrorLine(message);
    return out;
  };
  // _validate_options, in its order.
  if (p.mode_set + p.mode_get + p.mode_clear != 1) {
    return fail("You must use exactly one of the following options: --set, --get or --clear");
  }
  if (p.mode_clear && !p.user_id && p.trigger_id == 0 && p.job_id == 0) {
    return fail("You must specify a --id, --jobid, or --user to clear");
  }
  if (p.mode_set && p.node_down + p.node_drained + p.node_fail + p.node_idle + p.node_up +
                            p.reconfig + p.job_fini + p.time_limit + p.burst_buffer +
                            p.pri_ctld_fail + p.pri_ctld_res_op + p.pri_ctld_res_ctrl +
                            p.pri_ctld_acct_buffer_full + p.bu_ctld_fail + p.bu_ctld_res_op +
                            p.bu_ctld_as_ctrl + p.pri_dbd_fail + p.pri_dbd_res_op + p.pri_db_fail +
                            p.pri_db_res_op ==
                        0) {
    return fail(
        "You must specify a trigger (--down, --up, --reconfig, --time, --fini, --burst_buffer,\n"
        "--primary_slurmctld_failure,\n"
        "--primary_slurmctld_resumed_operation,\n"
        "--primary_slurmctld_resumed_control,\n"
        "--primary_slurmctld_acct_buffer_full,\n"
        "--backup_slurmctld_failure,\n"
        "--backup_slurmctld_resumed_operation,\n"
        "--backup_slurmctld_as_ctrl,\n"
        "--primary_slurmdbd_failure,\n"
        "--primary_slurmdbd_resumed_operation,\n"
        "--primary_database_failure, or \n"
        "--primary_database_resumed_operation)\n");
  }
  if (p.mode_set && !p.program) return fail("You must specify a --program value");
  if (p.job_fini + p.time_limit != 0 && p.job_id == 0)
    return fail("You must specify a --jobid value");
  if (p.program && (p.program->empty() || (*p.program)[0] != '/')) {
    return fail("The --program value must start with \"/\"");
  }
  if (p.program) {
    const size_t blank = p.program->find_first_of(" \t\n\v\f\r");
    const std::string error = check_program(p.program->substr(0, blank));
    if (!error.empty()) return fail(error);
  }
  if (p.offset < -32000 || p.offset > 32000) {
    return fail("The --offset parameter must be between +/-32000");
  }
  out.params = std::move(p);
  return out;
}

std::vector<std::string> UnsupportedEvents(const StriggerParams& p) {
  std::vector<std::string> out;
  auto add = [&](bool on, const char* name) {
    if (on) out.push_back(name);
  };
  add(p.burst_buffer, "--burst_buffer");
  add(p.front_end, "--front_end");
  add(p.pri_ctld_fail, "--primary_slurmctld_failure");
  add(p.pri_ctld_res_op, "--primary_slurmctld_resumed_operation");
  add(p.pri_ctld_res_ctrl, "--primary_slurmctld_resumed_control");
  add(p.pri_ctld_acct_buffer_full, "--primary_slurmctld_acct_buffer_full");
  add(p.bu_ctld_fail, "--backup_slurmctld_failure");
  add(p.bu_ctld_res_op, "--backup_slurmctld_resumed_operation");
  add(p.bu_ctld_as_ctrl, "--backup_slurmctld_assumed_control");
  add(p.pri_dbd_fail, "--primary_slurmdbd_failure");
  add(p.pri_dbd_res_op, "--primary_slurmdbd_resumed_operation");
  add(p.pri_db_fail, "--primary_database_failure");
  add(p.pri_db_res_op, "--primary_database_resumed_operation");
  return out;
}

v1::TriggerInfo TriggerToSet(const StriggerParams& p) {
  v1::TriggerInfo t;
  uint32_t type = 0;
  if (p.job_id != 0) {
    t.set_res_type(kResJob);
    t.set_res_id(absl::StrCat(p.job_id));
    if (p.job_fini) type |= kFini;
    if (p.time_limit) type |= kTime;
  } else if (p.front_end) {
    t.set_res_type(kResFrontEnd);
  } else if (p.burst_buffer) {
    t.set_res_type(kResOther);
  } else {
    t.set_res_type(kResNode);
    t.set_res_id(p.node_id.value_or("*"));
  }
  if (p.burst_buffer) type |= kBurstBuffer;
  if (p.node_down) type |= kDown;
  if (p.node_drained) type |= kDrained;
  if (p.node_fail) type |= kFail;
  if (p.node_idle) type |= kIdle;
  if (p.node_up) type |= kUp;
  if (p.reconfig) type |= kReconfig;
  struct Daemon {
    bool on;
    uint32_t bit;
    uint32_t res;
  };
  for (const Daemon& d : {Daemon{p.pri_ctld_fail, kPriCtldFail, kResSlurmctld},
                          Daemon{p.pri_ctld_res_op, kPriCtldResOp, kResSlurmctld},
                          Daemon{p.pri_ctld_res_ctrl, kPriCtldResCtrl, kResSlurmctld},
                          Daemon{p.pri_ctld_acct_buffer_full, kPriCtldAcctFull, kResSlurmctld},
                          Daemon{p.bu_ctld_fail, kBuCtldFail, kResSlurmctld},
                          Daemon{p.bu_ctld_res_op, kBuCtldResOp, kResSlurmctld},
                          Daemon{p.bu_ctld_as_ctrl, kBuCtldAsCtrl, kResSlurmctld},
                          Daemon{p.pri_dbd_fail, kPriDbdFail, kResSlurmdbd},
                          Daemon{p.pri_dbd_res_op, kPriDbdResOp, kResSlurmdbd},
                          Daemon{p.pri_db_fail, kPriDbFail, kResDatabase},
                          Daemon{p.pri_db_res_op, kPriDbResOp, kResDatabase}}) {
    if (!d.on) continue;
    type |= d.bit;
    t.set_res_type(d.res);
  }
  t.set_trig_type(type);
  t.set_flags(p.flags);
  t.set_offset(p.offset);
  t.set_program(p.program.value_or(""));
  return t;
}

namespace {

const char* ResTypeName(uint32_t res_type) {
  switch (res_type) {
    case kResJob:
      return "job";
    case kResNode:
      return "node";
    case kResSlurmctld:
      return "slurmctld";
    case kResSlurmdbd:
      return "slurmdbd";
    case kResDatabase:
      return "database";
    case kResFrontEnd:
      return "front_end";
    case kResOther:
      return "other";
    default:
      return "unknown";
  }
}

const char* TypeName(uint32_t type) {
  switch (type) {
    case kUp:
      return "up";
    case kDown:
      return "down";
    case kDrained:
      return "drained";
    case kFail:
      return "fail";
    case kIdle:
      return "idle";
    case kTime:
      return "time";
    case kFini:
      return "fini";
    case kReconfig:
      return "reconfig";
    case kPriCtldFail:
      return "primary_slurmctld_failure";
    case kPriCtldResOp:
      return "primary_slurmctld_resumed_operation";
    case kPriCtldResCtrl:
      return "primary_slurmctld_resumed_control";
    case kPriCtldAcctFull:
      return "primary_slurmctld_acct_buffer_full";
    case kBuCtldFail:
      return "backup_slurmctld_failure";
    case kBuCtldResOp:
      return "backup_slurmctld_resumed_operation";
    case kBuCtldAsCtrl:
      return "backup_slurmctld_assumed_control";
    case kPriDbdFail:
      return "primary_slurmdbd_failure";
    case kPriDbdResOp:
      return "primary_slurmdbd_resumed_operation";
    case kPriDbFail:
      return "primary_database_failure";
    case kPriDbResOp:
      return "primary_database_resumed_operation";
    case kBurstBuffer:
      return "burst_buffer";
    default:
      return "unknown";
  }
}

// _get_trigger's filters: each option given keeps only the triggers of its
// exact type (and resource).
bool Wanted(const v1::TriggerInfo& t, const StriggerParams& p) {
  const uint32_t res = t.res_type(), type = t.trig_type();
  auto is = [&](uint32_t r, uint32_t ty) { return res == r && type == ty; };
  if (p.burst_buffer && type != kBurstBuffer) return false;
  if (p.job_fini && type != kFini) return false;
  if (p.job_id != 0 &&
      (res != kResJob || std::strtol(t.res_id().c_str(), nullptr, 10) != p.job_id)) {
    return false;
  }
  if (p.node_down && ((res != kResNode && res != kResFrontEnd) || type != kDown)) return false;
  if (p.node_drained && !is(kResNode, kDrained)) return false;
  if (p.node_fail && !is(kResNode, kFail)) return false;
  if (p.node_id && res != kResNode) return false;
  if (p.node_idle && !is(kResNode, kIdle)) return false;
  if (p.node_up && ((res != kResNode && res != kResFrontEnd) || type != kUp)) return false;
  if (p.time_limit && !is(kResJob, kTime)) return false;
  if (p.trigger_id != 0 && p.trigger_id != t.trig_id()) return false;
  if (p.user_id && *p.user_id != t.user_id()) return false;
  if (p.pri_ctld_fail && !is(kResSlurmctld, kPriCtldFail)) return false;
  if (p.pri_ctld_res_op && !is(kResSlurmctld, kPriCtldResOp)) return false;
  if (p.pri_ctld_res_ctrl && !is(kResSlurmctld, kPriCtldResCtrl)) return false;
  if (p.pri_ctld_acct_buffer_full && !is(kResSlurmctld, kPriCtldAcctFull)) return false;
  if (p.bu_ctld_fail && !is(kResSlurmctld, kBuCtldFail)) return false;
  if (p.bu_ctld_res_op && !is(kResSlurmctld, kBuCtldResOp)) return false;
  if (p.bu_ctld_as_ctrl && !is(kResSlurmctld, kBuCtldAsCtrl)) return false;
  if (p.pri_dbd_fail && !is(kResSlurmdbd, kPriDbdFail)) return false;
  if (p.pri_dbd_res_op && !is(kResSlurmdbd, kPriDbdResOp)) return false;
  if (p.pri_db_fail && !is(kResDatabase, kPriDbFail)) return false;
  if (p.pri_db_res_op && !is(kResDatabase, kPriDbResOp)) return false;
  return true;
}

}  // namespace

std::string FormatTriggers(const std::vector<v1::TriggerInfo>& triggers,
                           const StriggerParams& params,
                           const std::function<std::string(uint32_t)>& user_name) {
  std::string out;
  int lines = 0;
  for (const v1::TriggerInfo& t : triggers) {
    if (!Wanted(t, params)) continue;
    if (lines++ == 0 && !params.no_header) {
      out +=
          "TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     FLAGS "
          "PROGRAM\n";
    }
    absl::StrAppendFormat(&out, "%7u %-9s %7s %-35s %6d %-8s %-5s %s\n", t.trig_id(),
                          ResTypeName(t.res_type()), t.res_id(), TypeName(t.trig_type()),
                          t.offset(), user_name(t.user_id()), (t.flags() & 1) ? "PERM" : "",
                          t.program());
  }
  return out;
}

}  // namespace skiff::cli
