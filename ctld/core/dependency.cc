#include "ctld/core/dependency.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

absl::Status Problem(const std::string& detail) {
  return absl::InvalidArgumentError(absl::StrCat(kDependencyError, ": ", detail));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads decimal digits at text[*pos] (at most `max_digits`). False when none.
bool ReadNumber(const std::string& text, size_t* pos, size_t max_digits, uint64_t* out) {
  const size_t begin = *pos;
  uint64_t value = 0;
  while (*pos < text.size() && IsDigit(text[*pos])) {
    if (*pos - begin == max_digits) return false;
    value = value * 10 + static_cast<uint64_t>(text[*pos] - '0');
    ++*pos;
  }
  if (*pos == begin) return false;
  *out = value;
  return true;
}

// Splits `text` at `separators` outside brackets; `seen` gets the separators found.
std::vector<std::string> SplitOutsideBrackets(const std::string& text,
                                              const std::string& separators, std::string* seen) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth == 0 && separators.find(c) != std::string::npos) {
      if (seen != nullptr && seen->find(c) == std::string::npos) seen->push_back(c);
      parts.emplace_back();
      continue;
    }
    parts.back().push_back(c);
  }
  return parts;
}

struct TypeName {
  const char* name;
  DependencyType type;
};
constexpr TypeName kTypes[] = {
    {"after", DependencyType::kAfter},
    {"afterany", DependencyType::kAfterAny},
    {"afterok", DependencyType::kAfterOk},
    {"afternotok", DependencyType::kAfterNotOk},
    {"aftercorr", DependencyType::kAfterCorr},
    {"afterburstbuffer", DependencyType::kAfterBurstBuffer},
};

// "(failed)" / "(unfulfilled)" / "(fulfilled)" at text[*pos], as scontrol prints
// it. Like Slurm, only "failed" is kept; the others read as not yet decided.
absl::Status ReadState(const std::string& item, const std::string& text, size_t* pos,
                       bool* failed) {
  *failed = false;
  if (*pos >= text.size() || text[*pos] != '(') return absl::OkStatus();
  const size_t close = text.find(')', *pos);
  if (close == std::string::npos) return Problem(absl::StrCat("'", item, "': missing ')'"));
  const std::string state = absl::AsciiStrToLower(text.substr(*pos + 1, close - *pos - 1));
  if (state != "failed" && state != "unfulfilled" && state != "fulfilled") {
    return Problem(absl::StrCat("'", item, "': unknown state '", state, "'"));
  }
  *failed = state == "failed";
  *pos = close + 1;
  return absl::OkStatus();
}

// One job reference of a typed item: ID[_TASK|_*|_[LIST]][+MIN][(state)].
absl::Status ParseJobRef(const std::string& item, const std::string& ref, DependencyType type,
                         int64_t max_array_size, std::vector<DependencyTerm>* out) {
  if (ref.empty()) return Problem(absl::StrCat("'", item, "': missing job id"));
  size_t pos = 0;
  uint64_t job_id = 0;
  if (!ReadNumber(ref, &pos, 18, &job_id) || job_id == 0) {
    return Problem(absl::StrCat("'", item, "': '", ref, "' is not a job id"));
  }
  std::vector<uint32_t> tasks = {kNoTask};
  if (pos < ref.size() && ref[pos] == '_') {
    ++pos;
    if (pos < ref.size() && ref[pos] == '*') {
      tasks = {kAllTasks};
      ++pos;
    } else if (pos < ref.size() && ref[pos] == '[') {
      const size_t close = ref.find(']', pos);
      if (close == std::string::npos) return Problem(absl::StrCat("'", item, "': missing ']'"));
      absl::StatusOr<ArraySpec> spec =
          ParseArraySpec(ref.substr(pos + 1, close - pos - 1), max_array_size);
      if (!spec.ok()) {
        return Problem(absl::StrCat("'", item, "': ", spec.status().message()));
      }
      if (spec->max_running != 0) {
        return Problem(absl::StrCat("'", item, "': a task list takes no %"));
      }
      tasks = spec->task_ids;
      pos = close + 1;
    } else {
      uint64_t task = 0;
      if (!ReadNumber(ref, &pos, 10, &task) || task >= static_cast<uint64_t>(max_array_size)) {
        return Problem(absl::StrCat("'", item, "': '", ref, "' has no valid array task id"));
      }
      tasks = {static_cast<uint32_t>(task)};
    }
  }
  int64_t delay = 0;
  if (pos < ref.size() && ref[pos] == '+') {
    if (type != DependencyType::kAfter) {
      return Problem(absl::StrCat("'", item, "': only after takes +minutes"));
    }
    ++pos;
    uint64_t minutes = 0;
    if (!ReadNumber(ref, &pos, 9, &minutes) || minutes == 0) {
      return Problem(absl::StrCat("'", item, "': +minutes must be a number above 0"));
    }
    delay = static_cast<int64_t>(minutes) * 60;
  }
  bool failed = false;
  absl::Status status = ReadState(item, ref, &pos, &failed);
  if (!status.ok()) return status;
  if (pos != ref.size()) {
    return Problem(absl::StrCat("'", item, "': unexpected '", ref.substr(pos), "'"));
  }
  for (uint32_t task : tasks) out->push_back({type, job_id, task, delay, failed});
  return absl::OkStatus();
}

absl::Status ParseItem(const std::string& item, int64_t max_array_size,
                       std::vector<DependencyTerm>* out) {
  if (item.empty()) return Problem("empty item (a separator with nothing after or before it)");
  const std::string lower = absl::AsciiStrToLower(item);
  if (lower.rfind("singleton", 0) == 0) {
    size_t pos = 9;
    bool failed = false;
    absl::Status status = ReadState(item, item, &pos, &failed);
    if (!status.ok()) return status;
    if (pos != item.size()) {
      return Problem(absl::StrCat("'", item, "': singleton takes no job ids"));
    }
    DependencyTerm term;
    term.type = DependencyType::kSingleton;
    term.failed = failed;
    out->push_back(term);
    return absl::OkStatus();
  }
  const size_t colon = item.find(':');
  if (colon == std::string::npos) {
    // Slurm's old form: a bare job id means afterany.
    if (IsDigit(item[0])) {
      return ParseJobRef(item, item, DependencyType::kAfterAny, max_array_size, out);
    }
    return Problem(absl::StrCat("'", item,
                                "': expected type:jobid (after, afterany, afterok, "
                                "afternotok, aftercorr, afterburstbuffer) or singleton"));
  }
  const std::string name = lower.substr(0, colon);
  if (name == "expand") return Problem("expand is not supported");
  const TypeName* found = nullptr;
  for (const TypeName& type : kTypes) {
    if (name == type.name) found = &type;
  }
  if (found == nullptr) {
    return Problem(absl::StrCat("'", item, "': unknown type '", item.substr(0, colon),
                                "' (after, afterany, afterok, afternotok, aftercorr, "
                                "afterburstbuffer, singleton)"));
  }
  for (const std::string& ref : SplitOutsideBrackets(item.substr(colon + 1), ":", nullptr)) {
    absl::Status status = ParseJobRef(item, ref, found->type, max_array_size, out);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

bool SameTarget(const DependencyTerm& a, const DependencyTerm& b) {
  return a.type == b.type && a.job_id == b.job_id && a.task_id == b.task_id;
}

void Deduplicate(std::vector<DependencyTerm>* terms) {
  std::vector<DependencyTerm> kept;
  for (const DependencyTerm& term : *terms) {
    bool seen = false;
    for (const DependencyTerm& k : kept) seen = seen || SameTarget(k, term);
    if (!seen) kept.push_back(term);
  }
  *terms = std::move(kept);
}

std::string TermText(const DependencyTerm& term) {
  if (term.type == DependencyType::kSingleton) return "singleton";
  std::string out = absl::StrCat(DependencyTypeName(term.type), ":", term.job_id);
  if (term.task_id == kAllTasks) {
    out += "_*";
  } else if (term.task_id != kNoTask) {
    absl::StrAppend(&out, "_", term.task_id);
  }
  if (term.delay > 0) absl::StrAppend(&out, "+", term.delay / 60);
  return out;
}

// The job (or tasks) a term is about, as one aggregate.
struct Aggregate {
  bool pending = false;        // any PENDING
  bool ended = true;           // all final
  bool ok = true;              // all COMPLETED
  bool stage_out_done = true;  // all stage-outs done
  bool burst_buffer = false;   // any used a burst buffer
  int64_t reference = 0;       // latest start (or end, if never started); 0 = unknown
};

void Add(const DependencyJobStatus& status, Aggregate* agg) {
  agg->pending = agg->pending || status.state == JobState::kPending;
  agg->ended = agg->ended && IsFinal(status.state);
  agg->ok = agg->ok && status.state == JobState::kCompleted;
  agg->stage_out_done = agg->stage_out_done && status.stage_out_done;
  agg->burst_buffer = agg->burst_buffer || status.burst_buffer;
  const int64_t reference = status.start_time != 0 ? status.start_time : status.end_time;
  if (reference == 0) {
    agg->reference = -1;  // one without a time: unknown for the whole
  } else if (agg->reference >= 0) {
    agg->reference = std::max(agg->reference, reference);
  }
}

// Collects the statuses `term` selects from `target`. False when the selected
// job or task does not exist (gone: satisfied).
bool Select(const DependencyTerm& term, const DependencyTarget& target, uint32_t corr_task,
            Aggregate* agg) {
  if (!target.exists) return false;
  uint32_t task = term.task_id;
  if (corr_task != kNoTask && !target.tasks.empty()) {
    for (const DependencyArrayTask& t : target.tasks) {
      if (t.task_id == corr_task) task = corr_task;
    }
  }
  if (task == kNoTask || task == kAllTasks) {
    if (target.tasks.empty()) {
      Add(target.job, agg);
    } else {
      for (const DependencyArrayTask& t : target.tasks) Add(t.status, agg);
    }
    return true;
  }
  for (const DependencyArrayTask& t : target.tasks) {
    if (t.task_id == task) {
      Add(t.status, agg);
      return true;
    }
  }
  return false;
}

DependencyResult EvaluateTerm(const DependencyTerm& term, const DependentJob& self,
                              const DependencyLookup& lookup, int64_t now) {
  using R = DependencyResult;
  if (term.failed) return R::kNeverSatisfied;
  if (term.type == DependencyType::kSingleton) {
    return lookup.SingletonBlocked(self.uid, self.name, self.id) ? R::kWaiting : R::kSatisfied;
  }
  Aggregate agg;
  const uint32_t corr = term.type == DependencyType::kAfterCorr ? self.task_id : kNoTask;
  if (!Select(term, lookup.Find(term.job_id), corr, &agg)) return R::kSatisfied;
  switch (term.type) {
    case DependencyType::kAfter:
      if (agg.pending) return R::kWaiting;
      if (term.delay == 0) return R::kSatisfied;
      if (agg.reference <= 0) return R::kWaiting;
      return now - agg.reference >= term.delay ? R::kSatisfied : R::kWaiting;
    case DependencyType::kAfterAny:
      return agg.ended ? R::kSatisfied : R::kWaiting;
    case DependencyType::kAfterOk:
      if (!agg.ended) return R::kWaiting;
      if (!agg.ok) return R::kNeverSatisfied;
      if (self.burst_buffer && agg.burst_buffer && !agg.stage_out_done) return R::kWaiting;
      return R::kSatisfied;
    case DependencyType::kAfterNotOk:
      if (!agg.ended) return R::kWaiting;
      return agg.ok ? R::kNeverSatisfied : R::kSatisfied;
    case DependencyType::kAfterCorr:
      if (!agg.ended) return R::kWaiting;
      return agg.ok ? R::kSatisfied : R::kNeverSatisfied;
    case DependencyType::kAfterBurstBuffer:
      return agg.ended && agg.stage_out_done ? R::kSatisfied : R::kWaiting;
    case DependencyType::kSingleton:
      break;
  }
  return R::kWaiting;
}

}  // namespace

const char* DependencyTypeName(DependencyType type) {
  switch (type) {
    case DependencyType::kAfter:
      return "after";
    case DependencyType::kAfterAny:
      return "afterany";
    case DependencyType::kAfterOk:
      return "afterok";
    case DependencyType::kAfterNotOk:
      return "afternotok";
    case DependencyType::kAfterCorr:
      return "aftercorr";
    case DependencyType::kAfterBurstBuffer:
      return "afterburstbuffer";
    case DependencyType::kSingleton:
      return "singleton";
  }
  return "unknown";
}

const char* DependencyResultName(DependencyResult result) {
  switch (result) {
    case DependencyResult::kWaiting:
      return "unfulfilled";
    case DependencyResult::kSatisfied:
      return "fulfilled";
    case DependencyResult::kNeverSatisfied:
      return "failed";
  }
  return "unknown";
}

absl::StatusOr<Dependency> ParseDependency(const std::string& text, int64_t max_array_size) {
  Dependency dependency;
  if (text.empty() || text == "0") return dependency;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      return Problem(absl::StrCat("'", text, "': no spaces allowed"));
    }
  }
  std::string separators;
  const std::vector<std::string> items = SplitOutsideBrackets(text, ",?", &separators);
  if (separators.size() > 1) {
    return Problem("use either ',' (all must hold) or '?' (any one), not both");
  }
  dependency.any = separators == "?";
  for (const std::string& item : items) {
    absl::Status status = ParseItem(item, max_array_size, &dependency.terms);
    if (!status.ok()) return status;
  }
  Deduplicate(&dependency.terms);
  return dependency;
}

std::string FormatDependency(const Dependency& dependency) {
  std::string out;
  for (const DependencyTerm& term : dependency.terms) {
    if (!out.empty()) out += dependency.any ? "?" : ",";
    out += TermText(term);
    if (term.failed) out += "(failed)";
  }
  return out;
}

absl::StatusOr<Dependency> ValidateDependency(const Dependency& dependency,
                                              const DependentJob& self,
                                              const DependencyLookup& lookup) {
  Dependency out = dependency;
  for (DependencyTerm& term : out.terms) {
    if (term.type == DependencyType::kSingleton) continue;
    const bool whole = term.task_id == kNoTask || term.task_id == kAllTasks;
    if ((self.id != 0 && term.job_id == self.id && whole) ||
        (self.array_job_id != 0 && term.job_id == self.array_job_id &&
         (whole || term.task_id == self.task_id))) {
      return Problem(absl::StrCat(TermText(term), ": a job cannot depend on itself"));
    }
    const DependencyTarget target = lookup.Find(term.job_id);
    bool known = target.exists;
    if (known && !whole) {
      known = std::any_of(target.tasks.begin(), target.tasks.end(),
                          [&](const DependencyArrayTask& t) { return t.task_id == term.task_id; });
    }
    if (!known &&
        (term.type == DependencyType::kAfterOk || term.type == DependencyType::kAfterNotOk)) {
      return Problem(absl::StrCat(TermText(term), ": no such job"));
    }
    if (known && term.task_id == kNoTask && !target.tasks.empty()) term.task_id = kAllTasks;
  }
  Deduplicate(&out.terms);
  return out;
}

DependencyEvaluation EvaluateDependency(const Dependency& dependency, const DependentJob& self,
                                        const DependencyLookup& lookup, int64_t now,
                                        const std::vector<DependencyResult>* previous) {
  using R = DependencyResult;
  DependencyEvaluation evaluation;
  evaluation.terms.reserve(dependency.terms.size());
  bool any_satisfied = false, any_waiting = false, any_failed = false;
  for (size_t i = 0; i < dependency.terms.size(); ++i) {
    R result;
    if (previous != nullptr && i < previous->size() && (*previous)[i] != R::kWaiting) {
      result = (*previous)[i];
    } else {
      result = EvaluateTerm(dependency.terms[i], self, lookup, now);
    }
    evaluation.terms.push_back(result);
    any_satisfied = any_satisfied || result == R::kSatisfied;
    any_waiting = any_waiting || result == R::kWaiting;
    any_failed = any_failed || result == R::kNeverSatisfied;
  }
  if (dependency.terms.empty()) {
    evaluation.overall = R::kSatisfied;
  } else if (dependency.any) {
    evaluation.overall = any_satisfied ? R::kSatisfied
                         : any_waiting ? R::kWaiting
                                       : R::kNeverSatisfied;
  } else {
    evaluation.overall = any_failed    ? R::kNeverSatisfied
                         : any_waiting ? R::kWaiting
                                       : R::kSatisfied;
  }
  return evaluation;
}

std::string FormatRemaining(const Dependency& dependency, const DependencyEvaluation& evaluation) {
  std::string out;
  if (evaluation.overall == DependencyResult::kSatisfied) return out;
  for (size_t i = 0; i < dependency.terms.size(); ++i) {
    const DependencyResult result =
        i < evaluation.terms.size() ? evaluation.terms[i] : DependencyResult::kWaiting;
    if (result == DependencyResult::kSatisfied) continue;
    if (!out.empty()) out += dependency.any ? "?" : ",";
    absl::StrAppend(&out, TermText(dependency.terms[i]), "(", DependencyResultName(result), ")");
  }
  return out;
}

}  // namespace skiff::ctld
