// strigger's command line, checks and --get table, as Slurm 22.05's
// src/strigger/opts.c and strigger.c: pure (no I/O; the program's stat and
// user names come through callbacks), so tests read what strigger would print.
#ifndef SKIFF_CLI_STRIGGER_STRIGGER_OPTIONS_H_
#define SKIFF_CLI_STRIGGER_STRIGGER_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "proto/ctld.pb.h"

namespace skiff::cli {

// Slurm's struct strigger_parameters.
struct StriggerParams {
  bool mode_set = false, mode_get = false, mode_clear = false;
  bool burst_buffer = false, front_end = false;
  bool pri_ctld_fail = false, pri_ctld_res_op = false, pri_ctld_res_ctrl = false;
  bool pri_ctld_acct_buffer_full = false;
  bool bu_ctld_fail = false, bu_ctld_res_op = false, bu_ctld_as_ctrl = false;
  bool pri_dbd_fail = false, pri_dbd_res_op = false, pri_db_fail = false, pri_db_res_op = false;
  bool node_down = false, node_drained = false, node_fail = false, node_idle = false;
  bool node_up = false, reconfig = false, job_fini = false, time_limit = false;
  bool no_header = false, quiet = false;
  uint16_t flags = 0;  // 1 = PERM
  uint32_t trigger_id = 0;
  uint32_t job_id = 0;
  std::optional<std::string> node_id;  // -n alone: "*"
  int32_t offset = 0;
  std::optional<std::string> program;
  std::optional<uint32_t> user_id;
  int verbose = 0;
  std::optional<std::string> cluster;  // -M
};

// What main does after parsing: go on with `params`, or print and exit.
struct StriggerParse {
  std::optional<StriggerParams> params;  // set: go on
  int exit_code = 0;
  std::string out;  // for stdout (--help, --usage, -V)
  std::string err;  // for stderr
};

// Looks up a user name or id for --user (Slurm's uid_from_string).
using UidLookup = std::function<std::optional<uint32_t>(const std::string&)>;
// Slurm's stat of the --program's first word: "" when it is a regular file,
// else its error ("Invalid --program value, file not found", "..., not
// regular file").
using ProgramCheck = std::function<std::string(const std::string& path)>;

// Parses `args` (without argv[0]) and runs _validate_options. `version` is
// what -V prints.
StriggerParse ParseStrigger(const std::vector<std::string>& args, const UidLookup& uid_of,
                            const ProgramCheck& check_program, const std::string& version);

// The events --set names that Skiff has no source for (a backup controller,
// slurmdbd, the database, front end nodes, burst buffer errors): the option
// names, empty when none.
std::vector<std::string> UnsupportedEvents(const StriggerParams& params);

// _set_trigger's request.
v1::TriggerInfo TriggerToSet(const StriggerParams& params);

// _get_trigger's filters and table (header unless -N); `user_name` is
// _trig_user (getpwuid, "unknown" when none).
std::string FormatTriggers(const std::vector<v1::TriggerInfo>& triggers,
                           const StriggerParams& params,
                           const std::function<std::string(uint32_t)>& user_name);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_STRIGGER_STRIGGER_OPTIONS_H_
