// Slurm's duration and timestamp formats, as used by --time, MaxTime, squeue's TIME
// column and scontrol's TimeLimit=.
//
// Durations are whole seconds (int64_t); kInfiniteDuration stands for UNLIMITED.
// Pure functions, thread-safe.
#ifndef SKIFF_COMMON_TIME_FORMAT_H_
#define SKIFF_COMMON_TIME_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace skiff {

inline constexpr int64_t kInfiniteDuration = -1;

// Parses a Slurm time limit: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM",
// "D-HH:MM:SS", or "UNLIMITED"/"INFINITE" (any case) -> kInfiniteDuration.
// A bare number is minutes, as in Slurm. Like Slurm's time_str2secs, no field is
// range checked, so "0:90" is 90 seconds and "1-30" is 54 hours; rejecting them
// would break job scripts that Slurm accepts. "-1" (Slurm's spelling of
// INFINITE) is rejected as negative.
// Errors: InvalidArgument for empty text, signs, letters, empty fields, too many
// fields, or overflow. The message quotes the text.
absl::StatusOr<int64_t> ParseDuration(std::string_view text);

// Slurm's elapsed-time form used by squeue TIME and sacct Elapsed:
// "0:00", "5:07", "1:02:03", "2-03:04:05". kInfiniteDuration prints "UNLIMITED";
// other negative values print "INVALID", as Slurm does.
std::string FormatElapsed(int64_t seconds);

// Slurm's time-limit form used by sinfo TIMELIMIT and scontrol TimeLimit=:
// "00:05:00", "1-00:00:00", and "UNLIMITED" for kInfiniteDuration.
// (sinfo prints "infinite" for an unlimited partition: callers choose the word.)
// Other negative values print "INVALID". The output parses back with ParseDuration.
std::string FormatTimeLimit(int64_t seconds);

// Slurm's timestamp form used by scontrol and sacct: "2026-11-22T05:14:09" in local
// time (the TZ environment); 0, and times whose year does not fit struct tm,
// print "Unknown".
std::string FormatTimestamp(int64_t unix_seconds);

// Slurm's parse_time for sacct's -S/-E (and sreport's start=/end=), local time:
//   "now[{+|-}N[seconds|minutes|hours|days|weeks]]" (units may be abbreviated,
//   default seconds), "today", "tomorrow", "midnight", "noon", "teatime",
//   "HH:MM[:SS][AM|PM]", "YYYY-MM-DD[THH:MM[:SS]]", "MMDD[YY]", "MM/DD[/YY]",
//   "MM.DD[.YY]" (each date optionally followed by "-HH:MM[:SS]" or
//   "THH:MM[:SS]"). A time of day without a date is today's; with `past`,
//   one still to come today is yesterday's (and midnight is today's start),
//   without it one already gone is tomorrow's.
// Error: InvalidArgument quoting the text.
absl::StatusOr<int64_t> ParseSlurmTime(std::string_view text, int64_t now, bool past);

}  // namespace skiff

#endif  // SKIFF_COMMON_TIME_FORMAT_H_
