#include "cli/scontrol/scontrol_reservation.h"

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/hostlist.h"
#include "common/time_format.h"

namespace skiff::cli {
namespace {

// Slurm's xstrncasecmp(tag, key, MAX(taglen, min)) == 0: `tag` is a prefix
// of `key` at least `min` long.
bool Abbreviates(const std::string& tag, const std::string& key, size_t min) {
  if (tag.size() < min || tag.size() > key.size()) return false;
  return absl::EqualsIgnoreCase(tag, key.substr(0, tag.size()));
}

v1::ResvListEdit ListOf(const std::string& value, char plus_minus) {
  v1::ResvListEdit edit;
  edit.set_op(plus_minus == '+'   ? v1::ResvListEdit::ADD
              : plus_minus == '-' ? v1::ResvListEdit::REMOVE
                                  : v1::ResvListEdit::SET);
  for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    edit.add_items(std::string(item));
  }
  return edit;
}

std::string OrNull(const std::string& text) { return text.empty() ? "(null)" : text; }

}  // namespace

bool NamesReservation(const std::vector<std::string>& words) {
  // Slurm's order: an update naming a job (or a step) is the job's, even with
  // a ReservationName= among its keys.
  for (const std::string& word : words) {
    const std::string tag = word.substr(0, word.find('='));
    if (Abbreviates(tag, "JobId", 3) || Abbreviates(tag, "JobNAME", 3) ||
        Abbreviates(tag, "StepId", 4)) {
      return false;
    }
  }
  for (const std::string& word : words) {
    const size_t eq = word.find('=');
    std::string tag = eq == std::string::npos ? word : word.substr(0, eq);
    if (!tag.empty() && (tag.back() == '+' || tag.back() == '-')) tag.pop_back();
    if (eq == std::string::npos && absl::StartsWithIgnoreCase(word, "res")) return true;
    if (eq != std::string::npos && Abbreviates(tag, "ReservationName", 3)) return true;
  }
  return false;
}

absl::StatusOr<v1::UpdateReservationRequest> ParseReservationArgs(
    const std::vector<std::string>& words, bool create, int64_t now) {
  const std::string msg = create ? "No reservation created." : "No reservation update.";
  auto fail = [](std::string text) { return absl::InvalidArgumentError(std::move(text)); };
  v1::UpdateReservationRequest request;
  request.set_op(create ? v1::UpdateReservationRequest::CREATE
                        : v1::UpdateReservationRequest::UPDATE);
  bool named = false;
  for (const std::string& word : words) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos) {
      if (absl::StartsWithIgnoreCase(word, "res")) continue;
      return fail(absl::StrCat("Misformatted parameter '", word,
                               "', most options have a parameter after '='.  ", msg));
    }
    std::string tag = word.substr(0, eq);
    const std::string value = word.substr(eq + 1);
    char plus_minus = '\0';
    if (!tag.empty() && (tag.back() == '+' || tag.back() == '-')) {
      plus_minus = tag.back();
      tag.pop_back();
    }
    bool list = false;  // takes +=/-=
    if (Abbreviates(tag, "Accounts", 1)) {
      if (request.has_accounts()) {
        return fail(absl::StrCat("Parameter ", word, " specified more than once"));
      }
      *request.mutable_accounts() = ListOf(value, plus_minus);
      list = true;
    } else if (Abbreviates(tag, "Flags", 2)) {
      *request.mutable_flags() = ListOf(value, plus_minus);
      list = true;
    } else if (Abbreviates(tag, "Users", 1)) {
      if (request.has_users()) {
        return fail(absl::StrCat("Parameter ", word, " specified more than once"));
      }
      *request.mutable_users() = ListOf(value, plus_minus);
      list = true;
    } else if (Abbreviates(tag, "Groups", 1)) {
      if (request.has_groups()) {
        return fail(absl::StrCat("Parameter ", word, " specified more than once"));
      }
      *request.mutable_groups() = ListOf(value, plus_minus);
      list = true;
    } else if (Abbreviates(tag, "ReservationName", 1)) {
      request.set_name(value);
      named = true;
    } else if (Abbreviates(tag, "StartTime", 2)) {
      absl::StatusOr<int64_t> t = ParseSlurmTime(value, now, /*past=*/false);
      if (!t.ok()) return fail(absl::StrCat("Invalid start time ", word, ".  ", msg));
      request.set_start_time(*t);
    } else if (Abbreviates(tag, "EndTime", 1)) {
      absl::StatusOr<int64_t> t = ParseSlurmTime(value, now, /*past=*/false);
      if (!t.ok()) return fail(absl::StrCat("Invalid end time ", word, ".  ", msg));
      request.set_end_time(*t);
    } else if (Abbreviates(tag, "Duration", 1)) {
      absl::StatusOr<int64_t> d = ParseDuration(value);
      if (!d.ok()) return fail(absl::StrCat("Invalid duration ", word, ".  ", msg));
      request.set_duration(*d == kInfiniteDuration ? -1 : *d);
    } else if (Abbreviates(tag, "NodeCnt", 5) || Abbreviates(tag, "NodeCount", 5)) {
      int32_t count = 0;
      if (!absl::SimpleAtoi(value, &count) || count <= 0) {
        return fail(absl::StrCat("Invalid node count ", word, ".  ", msg));
      }
      request.set_node_cnt(count);
    } else if (Abbreviates(tag, "Nodes", 5)) {
      request.set_nodes(value);
    } else if (Abbreviates(tag, "PartitionName", 1)) {
      request.set_partition(value);
    } else if (Abbreviates(tag, "TRES", 1)) {
      request.set_tres(value);
    } else if (Abbreviates(tag, "res", 3)) {
      continue;
    } else {
      return fail(absl::StrCat("Unknown parameter ", word, ".  ", msg));
    }
    if (plus_minus != '\0' && !list) {
      return fail(
          absl::StrCat("The +=/-= notation is not supported when updating ", tag, ".  ", msg));
    }
  }
  if (!create) {
    if (!named || request.name().empty()) {
      return fail("Reservation must be given.  No reservation update.");
    }
    return request;
  }
  // scontrol_create_res's checks, in its order.
  if (!request.has_start_time()) {
    return fail("A start time must be given.  No reservation created.");
  }
  if (!request.has_end_time() && !request.has_duration()) {
    return fail("An end time or duration must be given.  No reservation created.");
  }
  if (request.has_end_time() && request.has_duration() &&
      request.start_time() + request.duration() != request.end_time()) {
    return fail("StartTime + Duration does not equal EndTime.  No reservation created.");
  }
  if (request.has_end_time() && request.start_time() > request.end_time()) {
    return fail("Start time cannot be after end time.  No reservation created.");
  }
  if (!request.has_nodes() && !request.has_node_cnt() && !request.has_tres() &&
      !request.has_partition()) {
    return fail(
        "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be specified.  No "
        "reservation created.");
  }
  if ((!request.has_users() || request.users().items().empty()) &&
      (!request.has_groups() || request.groups().items().empty()) &&
      (!request.has_accounts() || request.accounts().items().empty())) {
    return fail("Either Users/Groups and/or Accounts must be specified.  No reservation created.");
  }
  return request;
}

std::string FormatReservation(const v1::ReservationInfo& resv, bool one_liner) {
  const std::string end_of_line = one_liner ? " " : "\n   ";
  const int64_t duration = resv.end_time() - resv.start_time();
  std::string out = absl::StrCat(
      "ReservationName=", resv.name(), " StartTime=", FormatTimestamp(resv.start_time()),
      " EndTime=", FormatTimestamp(resv.end_time()),
      " Duration=", duration >= 0 ? FormatTimeLimit(duration) : "N/A", end_of_line);
  const std::vector<std::string> nodes(resv.nodes().begin(), resv.nodes().end());
  absl::StrAppend(&out, "Nodes=", nodes.empty() ? "(null)" : CompressHostlist(nodes),
                  " NodeCnt=", nodes.size(), " CoreCnt=", resv.core_cnt(),
                  " Features=(null) PartitionName=", OrNull(resv.partition()),
                  " Flags=", resv.flags_text(), end_of_line);
  absl::StrAppend(&out, "TRES=", resv.tres(), end_of_line);
  absl::StrAppend(&out, "Users=", OrNull(absl::StrJoin(resv.users(), ",")),
                  " Groups=", OrNull(absl::StrJoin(resv.groups(), ",")),
                  " Accounts=", OrNull(absl::StrJoin(resv.accounts(), ",")),
                  " Licenses=(null) State=", resv.active() ? "ACTIVE" : "INACTIVE",
                  " BurstBuffer=(null) Watts=n/a", end_of_line);
  absl::StrAppend(&out, "MaxStartDelay=(null)", one_liner ? "\n" : "\n\n");
  return out;
}

}  // namespace skiff::cli
