#include "cli/sinfo/sinfo_options.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/common/help_text.h"
#include "common/hostlist.h"
#include "common/version.h"

namespace skiff::cli {
namespace {

// Slurm's _next_tok over ",": names without empty ones.
std::vector<std::string> PartList(const std::string& text) {
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    out.emplace_back(part);
  }
  return out;
}

const char* Bool(bool b) { return b ? "true" : "false"; }

struct Params {
  bool all_flag = false, dead = false, exact = false, no_header = false, long_output = false,
       node_flag = false, responding = false, list_reasons = false, summarize = false,
       reservation = false, json = false, noconvert = false, filtering = false;
  int iterate = 0, verbose = 0;
  std::optional<std::string> format, nodes, partition, sort, states;
  bool long_form = false, node_field_flag = false, part_field_flag = false;
  std::vector<std::string> part_list;
  std::optional<std::vector<std::string>> node_names;
  std::optional<client::StateFilter> state_filter;
};

// Slurm's _print_options (-v).
std::string PrintOptions(const Params& p, const std::vector<SinfoFormatItem>& items) {
  auto has = [&](SinfoField field) {
    for (const SinfoFormatItem& i : items) {
      if (i.field == field) return true;
    }
    return false;
  };
  auto opt = [](const std::optional<std::string>& s, const char* none) {
    return s.has_value() ? *s : std::string(none);
  };
  std::string o = "-----------------------------\n";
  absl::StrAppend(&o, "dead        = ", Bool(p.dead), "\n");
  absl::StrAppend(&o, "exact       = ", p.exact ? 1 : 0, "\n");
  absl::StrAppend(&o, "filtering   = ", Bool(p.filtering), "\n");
  absl::StrAppend(&o, "format      = ", opt(p.format, "(null)"), "\n");
  absl::StrAppend(&o, "iterate     = ", p.iterate, "\n");
  absl::StrAppend(&o, "long        = ", Bool(p.long_output), "\n");
  absl::StrAppend(&o, "no_header   = ", Bool(p.no_header), "\n");
  absl::StrAppend(&o, "node_field  = ", Bool(p.node_field_flag), "\n");
  absl::StrAppend(&o, "node_format = ", Bool(p.node_flag), "\n");
  absl::StrAppend(&o, "nodes       = ", opt(p.nodes, "n/a"), "\n");
  absl::StrAppend(&o, "part_field  = ", Bool(p.part_field_flag), "\n");
  absl::StrAppend(&o, "partition   = ", opt(p.partition, "n/a"), "\n");
  absl::StrAppend(&o, "responding  = ", Bool(p.responding), "\n");
  absl::StrAppend(&o, "states      = ", opt(p.states, "(null)"), "\n");
  absl::StrAppend(&o, "sort        = ", opt(p.sort, "(null)"), "\n");
  absl::StrAppend(&o, "summarize   = ", Bool(p.summarize), "\n");
  absl::StrAppend(&o, "verbose     = ", p.verbose, "\n");
  o += "-----------------------------\n";
  absl::StrAppend(&o, "all_flag        = ", Bool(p.all_flag), "\n");
  absl::StrAppend(&o, "alloc_mem_flag  = ", Bool(has(SinfoField::kAllocMem)), "\n");
  absl::StrAppend(&o, "avail_flag      = ", Bool(has(SinfoField::kAvail)), "\n");
  absl::StrAppend(&o, "comment_flag    = ", Bool(has(SinfoField::kComment)), "\n");
  absl::StrAppend(
      &o, "cpus_flag       = ", Bool(has(SinfoField::kCpus) || has(SinfoField::kCpusState)), "\n");
  absl::StrAppend(&o, "default_time_flag =", Bool(has(SinfoField::kDefaultTime)), "\n");
  absl::StrAppend(&o, "disk_flag       = ", Bool(has(SinfoField::kDisk)), "\n");
  absl::StrAppend(&o, "extra_flag      = ", Bool(has(SinfoField::kExtra)), "\n");
  absl::StrAppend(&o, "features_flag   = ", Bool(has(SinfoField::kFeatures)), "\n");
  absl::StrAppend(&o, "features_flag_act = ", Bool(has(SinfoField::kFeaturesAct)), "\n");
  absl::StrAppend(&o, "groups_flag     = ", Bool(has(SinfoField::kGroups)), "\n");
  absl::StrAppend(&o, "gres_flag       = ", Bool(has(SinfoField::kGres)), "\n");
  absl::StrAppend(&o, "gres_used_flag  = ", Bool(has(SinfoField::kGresUsed)), "\n");
  absl::StrAppend(&o, "job_size_flag   = ", Bool(has(SinfoField::kSize)), "\n");
  absl::StrAppend(&o, "max_time_flag   = ", Bool(has(SinfoField::kTime)), "\n");
  absl::StrAppend(&o, "memory_flag     = ", Bool(has(SinfoField::kMemory)), "\n");
  absl::StrAppend(&o, "partition_flag  = ",
                  Bool(has(SinfoField::kPartition) || has(SinfoField::kPartitionName)), "\n");
  absl::StrAppend(&o, "port_flag       = ", Bool(has(SinfoField::kPort)), "\n");
  absl::StrAppend(&o, "priority_job_factor_flag   = ", Bool(has(SinfoField::kPriorityJobFactor)),
                  "\n");
  absl::StrAppend(&o, "priority_tier_flag   = ", Bool(has(SinfoField::kPriorityTier)), "\n");
  absl::StrAppend(&o, "reason_flag     = ", Bool(has(SinfoField::kReason)), "\n");
  absl::StrAppend(&o, "reason_timestamp_flag = ", Bool(has(SinfoField::kTimestamp)), "\n");
  absl::StrAppend(
      &o, "reason_user_flag = ", Bool(has(SinfoField::kUser) || has(SinfoField::kUserLong)), "\n");
  absl::StrAppend(&o, "reservation_flag = ", Bool(p.reservation), "\n");
  absl::StrAppend(&o, "root_flag       = ", Bool(has(SinfoField::kRoot)), "\n");
  absl::StrAppend(&o, "oversubscribe_flag      = ", Bool(has(SinfoField::kOversubscribe)), "\n");
  absl::StrAppend(&o, "state_flag      = ",
                  Bool(has(SinfoField::kStateCompact) || has(SinfoField::kStateLong)), "\n");
  absl::StrAppend(&o, "statecomplete_flag = ", Bool(has(SinfoField::kStateComplete)), "\n");
  absl::StrAppend(&o, "weight_flag     = ", Bool(has(SinfoField::kWeight)), "\n");
  o += "-----------------------------\n\n";
  return o;
}

SinfoCommand Fail(SinfoCommand cmd, const std::string& line) {
  cmd.err += line + "\n";
  cmd.exit_code = 1;
  return cmd;
}

}  // namespace

const std::vector<SinfoOptionSpec>& SinfoOptionSpecs() {
  static const std::vector<SinfoOptionSpec> specs = {
      {"all", 'a', false},        {"dead", 'd', false},         {"exact", 'e', false},
      {"federation", 0, false},   {"help", 0, false},           {"hide", 0, false},
      {"iterate", 'i', true},     {"local", 0, false},          {"long", 'l', false},
      {"cluster", 'M', true},     {"clusters", 0, true},        {"nodes", 'n', true},
      {"noconvert", 0, false},    {"noheader", 'h', false},     {"Node", 'N', false},
      {"format", 'o', true},      {"Format", 'O', true},        {"partition", 'p', true},
      {"responding", 'r', false}, {"list-reasons", 'R', false}, {"summarize", 's', false},
      {"sort", 'S', true},        {"states", 't', true},        {"reservation", 'T', false},
      {"usage", 0, false},        {"verbose", 'v', false},      {"version", 'V', false},
      {"json", 0, false},         {"yaml", 0, false},
  };
  return specs;
}

SinfoCommand ResolveSinfoCommand(const std::vector<SinfoArg>& args,
                                 const std::map<std::string, std::string>& env) {
  SinfoCommand cmd;
  Params p;
  bool opt_a_set = false, opt_p_set = false, env_a_set = false, env_p_set = false;
  if (env.count("SINFO_ALL")) {
    env_a_set = true;
    p.all_flag = true;
  }
  if (auto it = env.find("SINFO_PARTITION"); it != env.end()) {
    env_p_set = true;
    p.partition = it->second;
    p.part_list = PartList(it->second);
    p.all_flag = true;
  }
  if (env_a_set && env_p_set) {
    return Fail(std::move(cmd),
                "sinfo: error: Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. "
                "Please choose one or the other.");
  }
  if (auto it = env.find("SINFO_SORT"); it != env.end()) p.sort = it->second;

  for (const auto& [name, value] : args) {
    if (name == "all") {
      opt_a_set = true;
      p.partition.reset();
      p.part_list.clear();
      p.all_flag = true;
    } else if (name == "dead") {
      p.dead = true;
    } else if (name == "exact") {
      p.exact = true;
    } else if (name == "noheader") {
      p.no_header = true;
    } else if (name == "iterate") {
      p.iterate = atoi(value.c_str());
      if (p.iterate <= 0) {
        return Fail(std::move(cmd),
                    absl::StrCat("sinfo: error: Error: invalid entry for --iterate=", value));
      }
    } else if (name == "long") {
      p.long_output = true;
    } else if (name == "cluster" || name == "clusters") {
      // Skiff has no slurmdbd to name other clusters: Slurm's answer when it
      // cannot reach one.
      if (value == "all" || value == "ALL") {
        return Fail(std::move(cmd),
                    "sinfo: error: No clusters can be reached now. Contact your admin to "
                    "resolve the problem.");
      }
      return Fail(std::move(cmd),
                  absl::StrCat("sinfo: error: '", value,
                               "' can't be reached now, or it is an invalid entry for "
                               "--cluster.  Use 'sacctmgr list clusters' to see available "
                               "clusters."));
    } else if (name == "noconvert") {
      p.noconvert = true;
    } else if (name == "nodes") {
      absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(value);
      if (!hosts.ok()) {
        return Fail(std::move(cmd),
                    absl::StrCat("sinfo: error: '", value, "' invalid entry for --nodes"));
      }
      p.nodes = value;
      p.node_names = *hosts;
      if (hosts->size() == 1) {
        cmd.single_node = hosts->front();
      } else {
        cmd.single_node.reset();
      }
    } else if (name == "Node") {
      p.node_flag = true;
    } else if (name == "format") {
      p.format = value;
    } else if (name == "Format") {
      p.long_form = true;
      p.format = value;
    } else if (name == "partition") {
      opt_p_set = true;
      p.partition = value;
      p.part_list = PartList(value);
      p.all_flag = true;
    } else if (name == "responding") {
      p.responding = true;
    } else if (name == "list-reasons") {
      p.list_reasons = true;
    } else if (name == "summarize") {
      p.summarize = true;
    } else if (name == "sort") {
      p.sort = value;
    } else if (name == "states") {
      p.states = value;
      absl::StatusOr<client::StateFilter> filter = client::ParseStateFilter(value);
      if (!filter.ok()) {
        cmd.err += absl::StrCat("sinfo: error: ", filter.status().message(), "\n");
        return Fail(std::move(cmd),
                    absl::StrCat("sinfo: error: valid states: ", client::ValidStatesList()));
      }
      p.state_filter = *filter;
    } else if (name == "reservation") {
      p.reservation = true;
    } else if (name == "verbose") {
      ++p.verbose;
    } else if (name == "version") {
      cmd.out += absl::StrCat("skiff ", kSkiffVersion, "\n");
      cmd.exit_code = 0;
      return cmd;
    } else if (name == "federation" || name == "local") {
      // Skiff's cluster is never in a federation: the local view either way.
    } else if (name == "help") {
      cmd.out += SinfoHelpText();
      cmd.exit_code = 0;
      return cmd;
    } else if (name == "usage") {
      cmd.out += SinfoUsageText();
      cmd.exit_code = 0;
      return cmd;
    } else if (name == "hide") {
      p.all_flag = false;
    } else if (name == "json") {
      p.json = true;
    } else if (name == "yaml") {
      return Fail(std::move(cmd), "sinfo: fatal: --yaml is not supported by Skiff; use --json");
    }
  }

  if (p.long_output && p.format.has_value()) {
    return Fail(std::move(cmd),
                "sinfo: fatal: Options -o(--format) and -l(--long) are mutually exclusive. "
                "Please remove one and retry.");
  }
  if (opt_a_set && opt_p_set) {
    return Fail(std::move(cmd),
                "sinfo: error: Conflicting options, -a and -p, specified. Please choose one or "
                "the other.");
  }

  if (!p.format.has_value()) {
    if (p.summarize) {
      p.long_form = true;
      p.part_field_flag = true;
      p.format = "partition:9 ,available:.5 ,time:.10 ,nodeaiot:.16 ,nodelist:0";
    } else if (p.node_flag) {
      p.long_form = true;
      p.node_field_flag = true;
      p.part_field_flag = true;
      p.format = p.long_output ? "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,"
                                 "socketcorethread:.8 ,memory:.6 ,disk:.8 ,weight:.6 ,features:.8 ,"
                                 "reason:20"
                               : "nodelist:0 ,nodes:.6 ,partition:.9 ,statecompact:6";
    } else if (p.list_reasons) {
      p.long_form = true;
      p.format = p.long_output ? "reason:20 ,userlong:12 ,timestamp:19 ,statecompact:6 ,nodelist:0"
                               : "reason:20 ,user:9 ,timestamp:19 ,nodelist:0";
    } else if (auto it = env.find("SINFO_FORMAT"); it != env.end()) {
      p.format = it->second;
    } else {
      p.long_form = true;
      p.part_field_flag = true;
      p.format = p.long_output ? "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,"
                                 "oversubscribe:.8 ,groups:.10 ,nodes:.6 ,statelong:.11 ,nodelist:0"
                               : "partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,"
                                 "nodelist:0";
    }
  }
  ParsedFormat parsed = p.long_form ? ParseLongFormat(*p.format) : ParseShortFormat(*p.format);
  for (const std::string& warning : parsed.warnings) cmd.err += warning + "\n";

  if (p.list_reasons && !p.state_filter.has_value()) {
    p.states = "down,fail,drain";
    p.state_filter = *client::ParseStateFilter(*p.states);
  }
  p.filtering = p.dead || p.nodes.has_value() || p.partition.has_value() || p.responding ||
                p.state_filter.has_value();
  if (p.verbose > 0) cmd.out += PrintOptions(p, parsed.items);

  SinfoView& v = cmd.view;
  v.items = std::move(parsed.items);
  v.node_flag = p.node_flag;
  v.list_reasons = p.list_reasons;
  v.exact = p.exact;
  v.no_header = p.no_header;
  v.node_field_flag = p.node_field_flag;
  v.part_field_flag = p.part_field_flag;
  v.noconvert = p.noconvert;
  v.sort = p.sort.value_or("");
  v.show_all = p.all_flag;
  v.partitions = p.part_list;
  v.nodes = p.node_names;
  v.dead = p.dead;
  v.responding = p.responding;
  v.states = p.state_filter;
  cmd.json = p.json;
  cmd.reservations = p.reservation;
  cmd.iterate = p.iterate;
  cmd.print_date = !p.no_header && (p.iterate > 0 || p.verbose > 0 || p.long_output);
  return cmd;
}

std::string SinfoUsageText() {
  return "Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n"
         "             [-S fields] [-o format] [-O Format] [--federation] [--local]\n";
}

// The lines of Slurm's sinfo --help that Skiff does not support (its own
// --help marks them, cli/common/help_text.h).
constexpr std::string_view kUnsupportedOptions[] = {"--yaml"};

std::string SinfoHelpText() {
  return MarkUnsupported(
      "Usage: sinfo [OPTIONS]\n"
      "  -a, --all                  show all partitions (including hidden and those\n"
      "\t\t\t     not accessible)\n"
      "  -d, --dead                 show only non-responding nodes\n"
      "  -e, --exact                group nodes only on exact match of configuration\n"
      "      --federation           Report federated information if a member of one\n"
      "  -h, --noheader             no headers on output\n"
      "  --hide                     do not show hidden or non-accessible partitions\n"
      "  -i, --iterate=seconds      specify an iteration period\n"
      "      --json                 Produce JSON output\n"
      "      --local                show only local cluster in a federation.\n"
      "                             Overrides --federation.\n"
      "  -l, --long                 long output - displays more information\n"
      "  -M, --clusters=names       clusters to issue commands to. Implies --local.\n"
      "                             NOTE: SlurmDBD must be up.\n"
      "  -n, --nodes=NODES          report on specific node(s)\n"
      "  --noconvert                don't convert units from their original type\n"
      "\t\t\t     (e.g. 2048M won't be converted to 2G).\n"
      "  -N, --Node                 Node-centric format\n"
      "  -o, --format=format        format specification\n"
      "  -O, --Format=format        long format specification\n"
      "  -p, --partition=PARTITION  report on specific partition\n"
      "  -r, --responding           report only responding nodes\n"
      "  -R, --list-reasons         list reason nodes are down or drained\n"
      "  -s, --summarize            report state summary only\n"
      "  -S, --sort=fields          comma separated list of fields to sort on\n"
      "  -t, --states=node_state    specify the what states of nodes to view\n"
      "  -T, --reservation          show only reservation information\n"
      "  -v, --verbose              verbosity level\n"
      "  -V, --version              output version information and exit\n"
      "      --yaml                 Produce YAML output\n"
      "\nHelp options:\n"
      "  --help                     show this help message\n"
      "  --usage                    display brief usage message\n",
      kUnsupportedOptions);
}

}  // namespace skiff::cli
