#include "ctld/local_calendar.h"

#include <time.h>

namespace skiff::ctld {

int64_t LocalResvCalendar::AddDays(int64_t t, int64_t days) const {
  const time_t from = static_cast<time_t>(t);
  struct tm local {};
  if (localtime_r(&from, &local) == nullptr) return t + days * kDaySeconds;
  local.tm_mday += static_cast<int>(days);
  local.tm_isdst = -1;  // whatever holds on the new day
  const time_t moved = mktime(&local);
  // Slurm falls back to whole days of seconds when mktime fails.
  if (moved == static_cast<time_t>(-1)) return t + days * kDaySeconds;
  return static_cast<int64_t>(moved);
}

int LocalResvCalendar::WeekDay(int64_t t) const {
  const time_t at = static_cast<time_t>(t);
  struct tm local {};
  if (localtime_r(&at, &local) == nullptr) return UtcResvCalendar().WeekDay(t);
  return local.tm_wday;
}

const ResvCalendar& LocalCalendar() {
  static const LocalResvCalendar* const calendar = new LocalResvCalendar();
  return *calendar;
}

}  // namespace skiff::ctld
