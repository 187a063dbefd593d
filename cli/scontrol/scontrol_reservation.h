// scontrol's reservation commands: `create reservation`, `update
// ReservationName=`, `delete ReservationName=` (their arguments, parsed as
// Slurm 22.05's scontrol parses them: keys matched by prefix, times in the
// client's clock) and `show reservation` (Slurm's layout).
// Pure functions; thread-safe.
#ifndef SKIFF_CLI_SCONTROL_SCONTROL_RESERVATION_H_
#define SKIFF_CLI_SCONTROL_SCONTROL_RESERVATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/ctld.pb.h"

namespace skiff::cli {

// Whether `words` (after "create" or "update") name a reservation: a
// "res..." word, or a ReservationName= key.
bool NamesReservation(const std::vector<std::string>& words);

// The request of `scontrol create|update reservation WORDS...`. `now` is
// the client's clock for StartTime=now+... The error is scontrol's own line,
// whole ("A start time must be given.  No reservation created.").
absl::StatusOr<v1::UpdateReservationRequest> ParseReservationArgs(
    const std::vector<std::string>& words, bool create, int64_t now);

// `scontrol show reservation`: one record as slurm_sprint_reservation_info
// prints it, a blank line after it (one line with one_liner).
std::string FormatReservation(const v1::ReservationInfo& resv, bool one_liner);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_SCONTROL_SCONTROL_RESERVATION_H_
