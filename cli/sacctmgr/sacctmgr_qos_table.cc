// sacctmgr's `show qos` table: Slurm's field table for a QOS, each QOS's value
// for a field, and the fixed-width or -p/-P lines.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/sacctmgr/sacctmgr_qos.h"
#include "cli/sacctmgr/sacctmgr_qos_internal.h"
#include "common/time_format.h"
#include "common/tres.h"

namespace skiff::cli {

using sacctmgr_qos_internal::Abbreviates;
using sacctmgr_qos_internal::Field;
using sacctmgr_qos_internal::FieldSpec;
using sacctmgr_qos_internal::Invalid;
using sacctmgr_qos_internal::Lower;
using sacctmgr_qos_internal::ResolveField;
using sacctmgr_qos_internal::SplitList;
using sacctmgr_qos_internal::TresText;

namespace {

enum class Column {
  kName,
  kDescription,
  kPriority,
  kGraceTime,
  kPreempt,
  kPreemptMode,
  kUsageFactor,
  kMaxTresPerJob,
  kMaxTresPerUser,
  kGrpTresRunMins,
  kMaxTresRunMinsPerUser,
  kMaxTresMinsPerJob,
  kGrpTresMins,
  kMaxCpusPerJob,
  kMaxCpusPerUser,
  kMaxNodesPerJob,
  kMaxNodesPerUser,
  kMaxJobsPerUser,
  kMaxSubmitPerUser,
  kMaxWall,
  kBlank,  // a Slurm column with no Skiff counterpart: kept, empty
};

enum class Kind { kString, kNumber, kDouble };

}  // namespace

namespace sacctmgr_qos_internal {

struct FieldSpec {
  const char* name;  // what the user may abbreviate
  size_t min;
  const char* header;
  int width;
  Column column;
  Kind kind;
};

}  // namespace sacctmgr_qos_internal

namespace {

// Slurm's sacctmgr field table (common.c _get_print_field), in its order, for the
// fields a QOS has.
constexpr FieldSpec kFields[] = {
    {"Description", 3, "Descr", 20, Column::kDescription, Kind::kString},
    {"Flags", 2, "Flags", 20, Column::kBlank, Kind::kString},
    {"GraceTime", 3, "GraceTime", 10, Column::kGraceTime, Kind::kNumber},
    {"GrpCPUs", 6, "GrpCPUs", 8, Column::kBlank, Kind::kNumber},
    {"GrpCPUMins", 7, "GrpCPUMins", 11, Column::kBlank, Kind::kNumber},
    {"GrpCPURunMins", 7, "GrpCPURunMins", 13, Column::kBlank, Kind::kNumber},
    {"GrpTRES", 7, "GrpTRES", 13, Column::kBlank, Kind::kString},
    {"GrpTRESMins", 7, "GrpTRESMins", 13, Column::kGrpTresMins, Kind::kString},
    {"GrpTRESRunMins", 7, "GrpTRESRunMins", 13, Column::kGrpTresRunMins, Kind::kString},
    {"GrpJobs", 4, "GrpJobs", 7, Column::kBlank, Kind::kNumber},
    {"GrpJobsAccrue", 8, "GrpJobsAccrue", 13, Column::kBlank, Kind::kNumber},
    {"GrpMemory", 4, "GrpMem", 7, Column::kBlank, Kind::kNumber},
    {"GrpNodes", 4, "GrpNodes", 8, Column::kBlank, Kind::kNumber},
    {"GrpSubmitJobs", 4, "GrpSubmit", 9, Column::kBlank, Kind::kNumber},
    {"GrpWall", 4, "GrpWall", 11, Column::kBlank, Kind::kNumber},
    {"ID", 2, "ID", 6, Column::kBlank, Kind::kNumber},
    {"MaxCPUMinsPerJob", 7, "MaxCPUMins", 11, Column::kBlank, Kind::kNumber},
    {"MaxCPURunMinsPerUser", 7, "MaxCPURunMinsPU", 15, Column::kBlank, Kind::kNumber},
    {"MaxCPURunMinsPU", 7, "MaxCPURunMinsPU", 15, Column::kBlank, Kind::kNumber},
    {"MaxCPUsPerJob", 7, "MaxCPUs", 8, Column::kMaxCpusPerJob, Kind::kNumber},
    {"MaxCPUsPerUser", 11, "MaxCPUsPU", 9, Column::kMaxCpusPerUser, Kind::kNumber},
    {"MaxCPUsPU", 9, "MaxCPUsPU", 9, Column::kMaxCpusPerUser, Kind::kNumber},
    {"MaxTRES", 7, "MaxTRES", 13, Column::kMaxTresPerJob, Kind::kString},
    {"MaxTRESPerJob", 11, "MaxTRES", 13, Column::kMaxTresPerJob, Kind::kString},
    {"MaxTRESPerNode", 11, "MaxTRESPerNode", 14, Column::kBlank, Kind::kString},
    {"MaxTRESMinsPerJob", 8, "MaxTRESMins", 13, Column::kMaxTresMinsPerJob, Kind::kString},
    {"MaxTRESRunMinsPerAccount", 18, "MaxTRESRunMinsPA", 15, Column::kBlank, Kind::kString},
    {"MaxTRESRunMinsPerAcct", 18, "MaxTRESRunMinsPA", 15, Column::kBlank, Kind::kString},
    {"MaxTRESRunMinsPA", 15, "MaxTRESRunMinsPA", 15, Column::kBlank, Kind::kString},
    {"MaxTRESRunMinsPerUser", 8, "MaxTRESRunMinsPU", 15, Column::kMaxTresRunMinsPerUser,
     Kind::kString},
    {"MaxTRESRunMinsPU", 8, "MaxTRESRunMinsPU", 15, Column::kMaxTresRunMinsPerUser, Kind::kString},
    {"MaxTRESPerAccount", 11, "MaxTRESPA", 13, Column::kBlank, Kind::kString},
    {"MaxTRESPerAcct", 11, "MaxTRESPA", 13, Column::kBlank, Kind::kString},
    {"MaxTRESPA", 9, "MaxTRESPA", 13, Column::kBlank, Kind::kString},
    {"MaxTRESPerUser", 11, "MaxTRESPU", 13, Column::kMaxTresPerUser, Kind::kString},
    {"MaxTRESPU", 9, "MaxTRESPU", 13, Column::kMaxTresPerUser, Kind::kString},
    {"MaxJobs", 4, "MaxJobs", 7, Column::kMaxJobsPerUser, Kind::kNumber},
    {"MaxJobsAccrue", 4, "MaxJobsAccrue", 13, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePerAccount", 17, "MaxJobsAccruePA", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePerAcct", 17, "MaxJobsAccruePA", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePA", 15, "MaxJobsAccruePA", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePerUser", 17, "MaxJobsAccruePU", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsAccruePU", 15, "MaxJobsAccruePU", 15, Column::kBlank, Kind::kNumber},
    {"MaxJobsPerAccount", 11, "MaxJobsPA", 9, Column::kBlank, Kind::kNumber},
    {"MaxJobsPerAcct", 11, "MaxJobsPA", 9, Column::kBlank, Kind::kNumber},
    {"MaxJobsPA", 9, "MaxJobsPA", 9, Column::kBlank, Kind::kNumber},
    {"MaxJobsPerUser", 11, "MaxJobsPU", 9, Column::kMaxJobsPerUser, Kind::kNumber},
    {"MaxJobsPU", 9, "MaxJobsPU", 9, Column::kMaxJobsPerUser, Kind::kNumber},
    {"MaxNodesPerJob", 4, "MaxNodes", 8, Column::kMaxNodesPerJob, Kind::kNumber},
    {"MaxNodesPerUser", 12, "MaxNodesPU", 10, Column::kMaxNodesPerUser, Kind::kNumber},
    {"MaxNodesPU", 10, "MaxNodesPU", 10, Column::kMaxNodesPerUser, Kind::kNumber},
    {"MinPrioThreshold", 4, "MinPrioThres", 12, Column::kBlank, Kind::kNumber},
    {"MaxSubmitJobs", 4, "MaxSubmit", 9, Column::kMaxSubmitPerUser, Kind::kNumber},
    {"MaxSubmitJobsPerAccount", 17, "MaxSubmitPA", 11, Column::kBlank, Kind::kNumber},
    {"MaxSubmitJobsPerAcct", 17, "MaxSubmitPA", 11, Column::kBlank, Kind::kNumber},
    {"MaxSubmitJobsPA", 15, "MaxSubmitPA", 11, Column::kBlank, Kind::kNumber},
    {"MaxSubmitPA", 11, "MaxSubmitPA", 11, Column::kBlank, Kind::kNumber},
    {"MaxSubmitJobsPerUser", 10, "MaxSubmitPU", 11, Column::kMaxSubmitPerUser, Kind::kNumber},
    {"MaxSubmitJobsPU", 10, "MaxSubmitPU", 11, Column::kMaxSubmitPerUser, Kind::kNumber},
    {"MaxSubmitPU", 6, "MaxSubmitPU", 11, Column::kMaxSubmitPerUser, Kind::kNumber},
    {"MaxWallDurationPerJob", 4, "MaxWall", 11, Column::kMaxWall, Kind::kNumber},
    {"MinCPUsPerJob", 7, "MinCPUs", 8, Column::kBlank, Kind::kNumber},
    {"MinTRESPerJob", 7, "MinTRES", 13, Column::kBlank, Kind::kString},
    {"Name", 2, "Name", 10, Column::kName, Kind::kString},
    {"PreemptMode", 8, "PreemptMode", 11, Column::kPreemptMode, Kind::kString},
    {"Preempt", 7, "Preempt", 10, Column::kPreempt, Kind::kString},
    {"PreemptExemptTime", 8, "PreemptExemptTime", 19, Column::kBlank, Kind::kNumber},
    {"Priority", 3, "Priority", 10, Column::kPriority, Kind::kNumber},
    {"UsageFactor", 6, "UsageFactor", 11, Column::kUsageFactor, Kind::kDouble},
    {"UsageThreshold", 6, "UsageThres", 10, Column::kBlank, Kind::kDouble},
    {"LimitFactor", 6, "LimitFactor", 11, Column::kBlank, Kind::kDouble},
};

std::optional<std::string> Count(int64_t value) {
  if (value < 0) return std::nullopt;
  return absl::StrCat(value);
}

// A QOS's value for a column; nullopt = blank.
std::optional<std::string> Value(const v1::QosInfo& qos, Column column) {
  auto non_empty = [](std::string text) -> std::optional<std::string> {
    if (text.empty()) return std::nullopt;
    return text;
  };
  switch (column) {
    case Column::kName:
      return non_empty(qos.name());
    case Column::kDescription:
      return non_empty(qos.description());
    case Column::kPriority:
      return Count(qos.priority());
    case Column::kGraceTime:
      if (qos.grace_time() < 0) return std::nullopt;
      return FormatTimeLimit(qos.grace_time());
    case Column::kPreempt:
      return non_empty(absl::StrJoin(qos.preempt(), ","));
    case Column::kPreemptMode: {
      std::string mode = Lower(qos.preempt_mode());
      return mode.empty() ? "cluster" : mode;
    }
    case Column::kUsageFactor: {
      char buf[64];
      snprintf(buf, sizeof(buf), "%f", qos.usage_factor());
      return std::string(buf);
    }
    case Column::kMaxTresPerJob:
      return non_empty(TresText(qos.max_tres_per_job()));
    case Column::kMaxTresPerUser:
      return non_empty(TresText(qos.max_tres_per_user()));
    case Column::kGrpTresRunMins:
      return non_empty(TresText(qos.grp_tres_run_mins()));
    case Column::kMaxTresRunMinsPerUser:
      return non_empty(TresText(qos.max_tres_run_mins_per_user()));
    case Column::kMaxTresMinsPerJob:
      return non_empty(TresText(qos.max_tres_mins_per_job()));
    case Column::kGrpTresMins:
      return non_empty(TresText(qos.grp_tres_mins()));
    case Column::kMaxCpusPerJob:
      return qos.max_tres_per_job().has_cpu() ? Count(qos.max_tres_per_job().cpu()) : std::nullopt;
    case Column::kMaxCpusPerUser:
      return qos.max_tres_per_user().has_cpu() ? Count(qos.max_tres_per_user().cpu())
                                               : std::nullopt;
    case Column::kMaxNodesPerJob:
      return qos.max_tres_per_job().has_node() ? Count(qos.max_tres_per_job().node())
                                               : std::nullopt;
    case Column::kMaxNodesPerUser:
      return qos.max_tres_per_user().has_node() ? Count(qos.max_tres_per_user().node())
                                                : std::nullopt;
    case Column::kMaxJobsPerUser:
      return Count(qos.max_jobs_per_user());
    case Column::kMaxSubmitPerUser:
      return Count(qos.max_submit_jobs_per_user());
    case Column::kMaxWall:
      if (qos.max_wall() < 0) return std::nullopt;
      return FormatTimeLimit(qos.max_wall());
    case Column::kBlank:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string Pad(const std::string& text, int len) {
  size_t width = static_cast<size_t>(std::abs(len));
  if (text.size() >= width) return text;
  std::string fill(width - text.size(), ' ');
  return len >= 0 ? fill + text : text + fill;
}

// One fixed-width cell, as Slurm's print_fields_* print it (with the trailing
// space).
std::string Cell(const Field& field, const std::optional<std::string>& value, double number) {
  const int len = field.len;
  const size_t width = static_cast<size_t>(std::abs(len));
  if (!value) return Pad(" ", len) + " ";
  switch (field.spec->kind) {
    case Kind::kString: {
      std::string text = *value;
      if (text.size() > width && width > 0) {
        text.resize(width);
        text[width - 1] = '+';
      }
      return Pad(text, len) + " ";
    }
    case Kind::kNumber:
      return Pad(*value, len) + " ";
    case Kind::kDouble: {
      // print_fields_double: "%*f", or "%*.*e" when that does not fit.
      char buf[128];
      snprintf(buf, sizeof(buf), len >= 0 ? "%*f" : "%-*f", static_cast<int>(width), number);
      if (strlen(buf) <= width) return std::string(buf) + " ";
      int w = static_cast<int>(width);
      snprintf(buf, sizeof(buf), "%*.*e", w, w, number);
      int extra = static_cast<int>(strlen(buf)) - w;
      if (extra > 0) w -= extra;
      snprintf(buf, sizeof(buf), len >= 0 ? "%*.*e" : "%-*.*e", w, std::max(w, 0), number);
      return std::string(buf) + " ";
    }
  }
  return "";
}

}  // namespace

namespace sacctmgr_qos_internal {

absl::StatusOr<Field> ResolveField(const std::string& text) {
  std::string name = text;
  int len = 0;
  bool has_len = false;
  if (size_t pct = text.find('%'); pct != std::string::npos) {
    name = text.substr(0, pct);
    len = std::atoi(text.c_str() + pct + 1);
    has_len = len != 0;
  }
  for (const FieldSpec& spec : kFields) {
    if (Abbreviates(name, spec.name, spec.min)) {
      return Field{&spec, has_len ? len : spec.width};
    }
  }
  return Invalid(absl::StrCat("Unknown field '", name, "'"));
}

std::string TresText(const v1::Tres& tres) { return FormatTres(FromProto(tres)); }
}  // namespace sacctmgr_qos_internal

std::vector<std::string> DefaultQosFormat() {
  return SplitList(
      "Name,Prio,GraceT,Preempt,PreemptE,PreemptM,Flags%40,UsageThres,UsageFactor,GrpTRES,"
      "GrpTRESMins,GrpTRESRunMins,GrpJ,GrpS,GrpW,MaxTRES,MaxTRESPerN,MaxTRESMins,MaxW,"
      "MaxTRESPerUser,MaxJobsPerUser,MaxSubmitJobsPerUser,MaxTRESPerAcct,MaxJobsPerAcct,"
      "MaxSubmitJobsPerAcct,MinTRES");
}

absl::StatusOr<std::string> FormatQosTable(const v1::GetQosReply& reply,
                                           const std::vector<std::string>& format,
                                           const SacctmgrOptions& options) {
  std::vector<Field> fields;
  for (const std::string& f : format.empty() ? DefaultQosFormat() : format) {
    absl::StatusOr<Field> field = ResolveField(f);
    if (!field.ok()) return field.status();
    fields.push_back(*field);
  }
  const bool parsable = options.parsable || options.parsable2;
  // -P ends the last field without '|'; -p ends every field with one.
  auto join = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t k = 0; k < cells.size(); ++k) {
      line += cells[k];
      if (parsable && !(options.parsable2 && !options.parsable && k + 1 == cells.size())) {
        line += '|';
      }
    }
    return line + "\n";
  };

  std::string out;
  if (!options.no_header) {
    std::vector<std::string> header, dashes;
    for (const Field& f : fields) {
      if (parsable) {
        header.push_back(f.spec->header);
        continue;
      }
      std::string name = f.spec->header;
      size_t width = static_cast<size_t>(std::abs(f.len));
      if (name.size() > width) name.resize(width);
      header.push_back(Pad(name, f.len) + " ");
      dashes.push_back(std::string(width, '-') + " ");
    }
    out += join(header);
    if (!parsable) out += join(dashes);
  }
  for (const v1::QosInfo& qos : reply.qos()) {
    std::vector<std::string> cells;
    for (const Field& f : fields) {
      std::optional<std::string> value = Value(qos, f.spec->column);
      if (parsable) {
        cells.push_back(value.value_or(""));
      } else {
        cells.push_back(Cell(f, value, qos.usage_factor()));
      }
    }
    out += join(cells);
  }
  return out;
}

}  // namespace skiff::cli
