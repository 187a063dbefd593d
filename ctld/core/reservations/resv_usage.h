// sreport's reservation time, as Slurm's rollup counts it
// (as_mysql_rollup.c): every advance reservation in force adds what it holds
// times its seconds in the window to the cluster's Allocated time (a MAINT
// one to PLND Down instead; an IGNORE_JOBS one to neither), and the jobs that
// ran in it are not added again: the reservation's time already holds them.
//
// ctld stores one ResvEvent per create, update and delete (records.h's
// "resv_event"); ResvPeriods turns them back into what each reservation was
// from when to when, so a reservation deleted or changed half way through a
// report's window counts for the part it was in force.
//
// Pure: no I/O, no clock, no locks. Thread-safety: none needed.
#ifndef SKIFF_CTLD_CORE_RESERVATIONS_RESV_USAGE_H_
#define SKIFF_CTLD_CORE_RESERVATIONS_RESV_USAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/tres_usage.h"
#include "ctld/core/reservations/reservation.h"

namespace skiff::ctld {

// One change to reservation `name` at `time`.
struct ResvEvent {
  std::string name;
  int64_t time = 0;
  // scontrol create: the reservation counts from its own start, even when
  // that was set up to 10 minutes in the past (Slurm's MAX_RESV_DELAY).
  bool created = false;
  std::optional<AdvanceReservation> resv;  // as the change left it; nullopt: deleted
  TresCounts tres;                         // what it held then (ResvTres)
};

// A reservation as it was over [from, until).
struct ResvPeriod {
  AdvanceReservation resv;
  TresCounts tres;
  int64_t from = 0;
  int64_t until = INT64_MAX;  // INT64_MAX: still as it is
};

// Each reservation's events in time order become periods, each lasting until
// the next change of the same name (a delete ends one and starts none).
// `events` may come in any order; two at the same time keep the order given.
std::vector<ResvPeriod> ResvPeriods(std::vector<ResvEvent> events);

// A node as a whole-node reservation counts it.
struct ResvNodeTres {
  std::string name;
  double cpus = 0;
  double mem_mb = 0;
  double gpus = 0;
  std::string gpu_type;  // "" = untyped
};

// What `resv` holds, in TRES: its nodes' cpu, mem, node and GPUs (gres/gpu and
// gres/gpu:TYPE) when it holds them whole; only its GPUs for a TRES=gres/gpu
// reservation. Nodes not in `nodes` count nothing.
TresCounts ResvTres(const AdvanceReservation& resv, const std::vector<ResvNodeTres>& nodes);

// A job's run that named a reservation (sacct's Reservation).
struct ResvJobRun {
  std::string reservation;
  int64_t start = 0;
  int64_t end = 0;  // 0: still running
  TresCounts tres;  // what it held (Job::alloc_tres)
};

// TRES-seconds per TRES name.
struct ResvUsage {
  TresCounts allocated;     // reservations' time, to Allocated
  TresCounts planned_down;  // MAINT reservations' time, to PLND Down
  TresCounts bundled;       // the runs' time inside those: not to be added again
};

// The reservation time inside [start, end), counted no later than `now`:
// each period's occurrences (repeats by `calendar`) clipped to the period and
// the window. TIME_FLOAT reservations are never in force and count nothing.
ResvUsage SumResvUsage(const std::vector<ResvPeriod>& periods, const std::vector<ResvJobRun>& runs,
                       int64_t start, int64_t end, int64_t now, const ResvCalendar& calendar);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_CORE_RESERVATIONS_RESV_USAGE_H_
