#include "ctld/core/array_spec.h"

#include <algorithm>
#include <cassert>

#include "absl/strings/str_cat.h"

namespace skiff::ctld {
namespace {

absl::Status Invalid(const std::string& detail) {
  return absl::InvalidArgumentError(absl::StrCat(kInvalidArraySpec, ": ", detail));
}

// A non-negative decimal number of at most 10 digits, the whole of `text`.
bool ParseNumber(const std::string& text, int64_t* out) {
  if (text.empty() || text.size() > 10) return false;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

// One comma-separated element: "N", "N-M" or "N-M:S". Appends its ids to `ids`.
absl::Status ParseElement(const std::string& element, int64_t max_array_size,
                          std::vector<uint32_t>* ids) {
  if (element.empty()) return Invalid("empty element in the index list");
  std::string range = element;
  int64_t step = 1;
  const size_t colon = element.find(':');
  if (colon != std::string::npos) {
    range = element.substr(0, colon);
    if (!ParseNumber(element.substr(colon + 1), &step) || step == 0) {
      return Invalid(absl::StrCat("'", element, "': the step must be a number above 0"));
    }
  }
  int64_t first = 0, last = 0;
  const size_t dash = range.find('-');
  if (dash == std::string::npos) {
    if (colon != std::string::npos) {
      return Invalid(absl::StrCat("'", element, "': a step needs a range (N-M:S)"));
    }
    if (!ParseNumber(range, &first)) {
      return Invalid(absl::StrCat("'", element, "' is not an index (0 or more)"));
    }
    last = first;
  } else {
    if (!ParseNumber(range.substr(0, dash), &first) ||
        !ParseNumber(range.substr(dash + 1), &last)) {
      return Invalid(absl::StrCat("'", element, "' is not a range N-M of indices (0 or more)"));
    }
    if (last < first) {
      return Invalid(absl::StrCat("'", element, "': the range ends before it starts"));
    }
  }
  if (last >= max_array_size) {
    return Invalid(absl::StrCat("index ", last, " is not below MaxArraySize=", max_array_size));
  }
  for (int64_t id = first; id <= last; id += step) ids->push_back(static_cast<uint32_t>(id));
  return absl::OkStatus();
}

void AppendRange(std::string* out, uint32_t first, uint32_t last) {
  if (!out->empty()) out->push_back(',');
  absl::StrAppend(out, first);
  if (last != first) absl::StrAppend(out, "-", last);
}

}  // namespace

absl::StatusOr<ArraySpec> ParseArraySpec(const std::string& text, int64_t max_array_size) {
  assert(max_array_size >= 1 && max_array_size <= kMaxMaxArraySize);
  std::string body = text;
  if (!body.empty() && body[0] == '[') {
    const size_t close = body.find(']');
    if (close == std::string::npos) return Invalid(absl::StrCat("'", text, "': missing ']'"));
    if (close + 1 != body.size() && body[close + 1] != '%') {
      return Invalid(absl::StrCat("'", text, "': unexpected text after ']'"));
    }
    body = body.substr(1, close - 1) + body.substr(close + 1);
  }
  ArraySpec spec;
  const size_t percent = body.find('%');
  if (percent != std::string::npos) {
    int64_t throttle = 0;
    const std::string limit = body.substr(percent + 1);
    const bool digits =
        !limit.empty() && limit.find_first_not_of("0123456789") == std::string::npos;
    // Kept as an int32 with every task (ArrayTaskThrottle): a larger one would
    // come back negative.
    if (digits && (!ParseNumber(limit, &throttle) || throttle > INT32_MAX)) {
      return Invalid(
          absl::StrCat("'%", limit, "': the running-task limit must be at most ", INT32_MAX));
    }
    if (!digits || throttle == 0) {
      return Invalid(
          absl::StrCat("'%", limit, "': the running-task limit must be a number above 0"));
    }
    spec.max_running = static_cast<uint32_t>(throttle);
    body.resize(percent);
  }
  if (body.empty()) return Invalid("no array indices given");
  if (body.find_first_of("[]") != std::string::npos) {
    return Invalid(absl::StrCat("'", text, "': unbalanced brackets"));
  }
  // The ids themselves, not a bitmap of MaxArraySize: ctld parses every array
  // task's spec at launch (its SLURM_ARRAY_TASK_* variables), and a bitmap of
  // kMaxMaxArraySize bits cost milliseconds per launch.
  std::vector<uint32_t>& ids = spec.task_ids;
  size_t begin = 0;
  while (true) {
    const size_t comma = body.find(',', begin);
    const std::string element =
        body.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    absl::Status status = ParseElement(element, max_array_size, &ids);
    if (!status.ok()) return status;
    // Overlapping elements ("0-999,0-999,...") never hold more than twice the
    // distinct ids, which are below MaxArraySize.
    if (ids.size() > static_cast<size_t>(max_array_size)) {
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    }
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (!std::is_sorted(ids.begin(), ids.end())) std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return spec;
}

std::string FormatTaskIds(const std::vector<uint32_t>& ids, uint32_t max_running) {
  std::string out;
  if (!ids.empty()) {
    const uint32_t first = ids.front(), last = ids.back();
    bool stepped = false;
    // Slurm's test (_xlate_task_str): more than 10 apart, the second id not
    // adjacent to the first, and every gap the same.
    if (last - first > 10 && ids.size() >= 2 && ids[1] != first + 1) {
      const uint32_t step = ids[1] - ids[0];
      stepped = true;
      for (size_t i = 2; i < ids.size() && stepped; ++i) stepped = ids[i] - ids[i - 1] == step;
      if (stepped) out = absl::StrCat(first, "-", last, ":", step);
    }
    if (!stepped) {
      uint32_t run_first = ids[0], run_last = ids[0];
      for (size_t i = 1; i < ids.size(); ++i) {
        if (ids[i] == run_last + 1) {
          run_last = ids[i];
          continue;
        }
        AppendRange(&out, run_first, run_last);
        run_first = run_last = ids[i];
      }
      AppendRange(&out, run_first, run_last);
    }
  }
  if (max_running > 0) absl::StrAppend(&out, "%", max_running);
  return out;
}

std::string FormatArrayJobId(uint64_t array_job_id, const std::vector<uint32_t>& ids,
                             uint32_t max_running) {
  return absl::StrCat(array_job_id, "_[", FormatTaskIds(ids, max_running), "]");
}

std::string FormatArrayTaskId(uint64_t array_job_id, uint32_t task_id) {
  return absl::StrCat(array_job_id, "_", task_id);
}

}  // namespace skiff::ctld
