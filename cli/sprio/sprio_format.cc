#include "cli/sprio/sprio_format.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/job_text.h"

namespace skiff::cli {
namespace {

// Job priorities are 32-bit in Slurm; -n shows them as a fraction of the maximum.
constexpr double kMaxPriority = 4294967295.0;

std::optional<int64_t> ParseWeight(const std::string& text) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// A column is in the default format when its weight is not known to be zero.
bool Shown(const std::optional<int64_t>& weight) { return !weight || *weight != 0; }

std::string Fit(const std::string& value, const SprioFormatItem& item) {
  if (item.width <= 0) return value;
  size_t width = static_cast<size_t>(item.width);
  if (value.size() >= width) return value.substr(0, width);
  std::string fill(width - value.size(), ' ');
  return item.right ? fill + value : value + fill;
}

std::string Fixed(double value, int decimals) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  return buf;
}

// A weighted factor as a fraction of its weight (sprio -n): "%.7f".
std::string Normalized(int64_t weighted, const std::optional<int64_t>& weight) {
  double value = weight && *weight > 0 ? static_cast<double>(weighted) / *weight : 0.0;
  return Fixed(value, 7);
}

std::string WeightText(const std::optional<int64_t>& weight) {
  return absl::StrCat(weight.value_or(0));
}

// PriorityWeightTRES's factors as Slurm's sprio prints them: the TRES with a
// weighted factor, "cpu=250,gres/gpu=1500" (T), or divided by their weights,
// "cpu=0.25,gres/gpu=0.50" (t).
std::string TresFactors(const v1::PriorityFactors& f, const PublishedWeights& w, bool normalized) {
  std::map<std::string, double> weights;
  for (absl::string_view item : absl::StrSplit(w.tres, ',', absl::SkipEmpty())) {
    const size_t eq = item.find('=');
    double weight = 0;
    if (eq == absl::string_view::npos || !absl::SimpleAtod(item.substr(eq + 1), &weight)) continue;
    weights[absl::AsciiStrToLower(item.substr(0, eq))] = weight;
  }
  const std::pair<const char*, int64_t> factors[] = {{"cpu", f.tres_cpu()},
                                                     {"mem", f.tres_mem()},
                                                     {"node", f.tres_node()},
                                                     {"gres/gpu", f.tres_gpu()}};
  std::string out;
  for (const auto& [name, weighted] : factors) {
    if (weighted == 0) continue;
    const double weight = weights.count(name) > 0 ? weights[name] : 0;
    absl::StrAppend(
        &out, out.empty() ? "" : ",", name, "=",
        normalized
            ? absl::StrFormat("%.2f", weight > 0 ? static_cast<double>(weighted) / weight : 0.0)
            : absl::StrCat(weighted));
  }
  return out;
}

int64_t JobPriority(const v1::JobInfo& job) {
  const v1::PriorityFactors& f = job.priority_factors();
  if (f.priority() > 0) return f.priority();
  // Slurm's get_priority_from_factors: the sum, at least 1 (0 means held).
  return std::max<int64_t>(1, f.age() + f.fairshare() + f.job_size() + f.partition() + f.qos());
}

std::string Header(char field) {
  switch (field) {
    case 'a':
    case 'A':
      return "AGE";
    case 'b':
    case 'B':
      return "ASSOC";
    case 'f':
    case 'F':
      return "FAIRSHARE";
    case 'i':
      return "JOBID";
    case 'j':
    case 'J':
      return "JOBSIZE";
    case 'n':
      return "QOSNAME";
    case 'N':
      return "NICE";
    case 'o':
      return "ACCOUNT";
    case 'p':
    case 'P':
    case 'r':
      return "PARTITION";
    case 'q':
    case 'Q':
      return "QOS";
    case 'S':
      return "SITE";
    case 't':
    case 'T':
      return "TRES";
    case 'u':
      return "USER";
    case 'y':
    case 'Y':
      return "PRIORITY";
    default:
      return "";
  }
}

// The "Weights" line of sprio -w.
std::string WeightValue(char field, const PublishedWeights& w) {
  switch (field) {
    case 'i':
      return "Weights";
    case 'a':
    case 'A':
      return WeightText(w.age);
    case 'b':
    case 'B':
      return "0";  // Skiff has no association factor
    case 'f':
    case 'F':
      return WeightText(w.fairshare);
    case 'j':
    case 'J':
      return WeightText(w.job_size);
    case 'p':
    case 'P':
      return WeightText(w.partition);
    case 'q':
    case 'Q':
      return WeightText(w.qos);
    case 'S':
      return "1";
    case 'T':
      return w.tres;
    default:
      return "";
  }
}

std::string JobValue(const v1::JobInfo& job, char field, const PublishedWeights& w) {
  const v1::PriorityFactors& f = job.priority_factors();
  switch (field) {
    case 'a':
      return Normalized(f.age(), w.age);
    case 'A':
      return absl::StrCat(f.age());
    case 'b':
      return Fixed(0, 7);
    case 'B':
      return "0";
    case 'f':
      return Normalized(f.fairshare(), w.fairshare);
    case 'F':
      return absl::StrCat(f.fairshare());
    case 'i':
      return absl::StrCat(job.job_id());
    case 'j':
      return Normalized(f.job_size(), w.job_size);
    case 'J':
      return absl::StrCat(f.job_size());
    case 'n':
      return job.qos().empty() ? job.spec().qos() : job.qos();
    case 'N':
      return absl::StrCat(job.nice());
    case 'o':
      return job.account().empty() ? job.spec().account() : job.account();
    case 'p':
      return Normalized(f.partition(), w.partition);
    case 'P':
      return absl::StrCat(f.partition());
    case 'q':
      return Normalized(f.qos(), w.qos);
    case 'Q':
      return absl::StrCat(f.qos());
    case 'r':
      return job.partition().empty() ? job.spec().partition() : job.partition();
    case 'S':
      return "0";  // no site factor
    case 't':
    case 'T':
      return TresFactors(f, w, field == 't');
    case 'u':
      return job.user_name().empty() ? client::UserNameOf(job.user_id()) : job.user_name();
    case 'y':
      return Fixed(static_cast<double>(JobPriority(job)) / kMaxPriority, 14);
    case 'Y':
      return absl::StrCat(JobPriority(job));
    default:
      return "";
  }
}

}  // namespace

PublishedWeights WeightsFromConfig(const v1::GetConfigReply& config) {
  PublishedWeights w;
  for (const v1::ConfigEntry& e : config.entries()) {
    if (e.key() == "PriorityWeightAge") w.age = ParseWeight(e.value());
    if (e.key() == "PriorityWeightFairshare") w.fairshare = ParseWeight(e.value());
    if (e.key() == "PriorityWeightJobSize") w.job_size = ParseWeight(e.value());
    if (e.key() == "PriorityWeightPartition") w.partition = ParseWeight(e.value());
    if (e.key() == "PriorityWeightQOS") w.qos = ParseWeight(e.value());
    if (e.key() == "PriorityWeightTRES" && e.value() != "(null)") w.tres = e.value();
    if (e.key() == "PriorityType") w.priority_type = e.value();
  }
  return w;
}

absl::Status CheckPriorityType(const PublishedWeights& weights) {
  if (absl::AsciiStrToLower(weights.priority_type) != "priority/basic") return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("You are not running a supported priority plugin\n(", weights.priority_type,
                   ").\nOnly 'priority/multifactor' is supported."));
}

std::string SprioDefaultFormat(const SprioOptions& options, const PublishedWeights& w) {
  if (options.long_format) {
    return options.normalized
               ? "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
               : "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T";
  }
  const bool n = options.normalized;
  std::string format = "%.15i %9r";
  if (options.show_user) format += " %.8u";
  format += n ? " %10y" : " %.10Y %.10S";
  if (Shown(w.age)) format += n ? " %10a" : " %.10A";
  if (Shown(w.fairshare)) format += n ? " %10f" : " %.10F";
  if (Shown(w.job_size)) format += n ? " %10j" : " %.10J";
  if (Shown(w.partition)) format += n ? " %10p" : " %.10P";
  if (Shown(w.qos)) format += n ? " %10q" : " %.10Q";
  if (!w.tres.empty()) format += n ? " %20t" : " %.20T";
  return format;
}

absl::StatusOr<std::vector<SprioFormatItem>> ParseSprioFormat(std::string_view format) {
  return ParsePercentFormat(format, [](char field) { return !Header(field).empty(); });
}

absl::StatusOr<std::string> FormatSprio(const v1::GetJobsReply& reply,
                                        const PublishedWeights& weights,
                                        const SprioOptions& options) {
  std::string format =
      options.format.empty() ? SprioDefaultFormat(options, weights) : options.format;
  absl::StatusOr<std::vector<SprioFormatItem>> items = ParseSprioFormat(format);
  if (!items.ok()) return items.status();

  std::vector<const v1::JobInfo*> jobs;
  for (const v1::JobInfo& job : reply.jobs()) {
    // Held jobs have priority 0 and no factors; Slurm leaves them out too.
    if (job.state() == v1::PENDING && !job.held()) jobs.push_back(&job);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const v1::JobInfo* a, const v1::JobInfo* b) {
    return a->job_id() < b->job_id();
  });
  if (options.jobs_named && jobs.empty() && !options.weights) {
    return std::string("Unable to find jobs matching user/id(s) specified\n");
  }

  std::string out;
  auto line = [&](auto value_of) {
    for (const SprioFormatItem& item : *items) {
      out += item.field == 0 ? item.literal : Fit(value_of(item.field), item);
    }
    out += '\n';
  };
  if (!options.no_header) line([](char field) { return Header(field); });
  if (options.weights) {
    line([&](char field) { return WeightValue(field, weights); });
    return out;
  }
  for (const v1::JobInfo* job : jobs) {
    line([&](char field) { return JobValue(*job, field, weights); });
  }
  return out;
}

}  // namespace skiff::cli
