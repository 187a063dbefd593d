// The local-time arithmetic repeating advance reservations follow
// (reservation.h's ResvCalendar), over the process's time zone (TZ, or
// /etc/localtime) with localtime_r and mktime, as Slurm's _advance_time does.
//
// Edge code: it reads the time zone database. Stateless; safe from any
// thread (localtime_r and mktime are reentrant).
#ifndef SKIFF_CTLD_LOCAL_CALENDAR_H_
#define SKIFF_CTLD_LOCAL_CALENDAR_H_

#include <cstdint>

#include "ctld/core/reservations/reservation.h"

namespace skiff::ctld {

class LocalResvCalendar final : public ResvCalendar {
 public:
  int64_t AddDays(int64_t t, int64_t days) const override;
  int WeekDay(int64_t t) const override;
};

// A static object; lives for the whole program.
const ResvCalendar& LocalCalendar();

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_LOCAL_CALENDAR_H_
