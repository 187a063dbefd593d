// Advance reservations (ctld/core/reservations) to and from v1 messages: the
// stored record's blob and what scontrol sends and shows.
// Pure functions; thread-safe.
#ifndef SKIFF_CTLD_RPC_RESV_CONVERT_H_
#define SKIFF_CTLD_RPC_RESV_CONVERT_H_

#include "ctld/core/reservations/reservation.h"
#include "proto/ctld.pb.h"

namespace skiff::ctld {

// The stored fields only (ReservationInfo 1-9).
v1::ReservationInfo ResvToProto(const AdvanceReservation& resv);
AdvanceReservation ResvFromProto(const v1::ReservationInfo& info);
ResvOp ResvOpFromProto(v1::UpdateReservationRequest::Op op);
ResvRequest ResvRequestFromProto(const v1::UpdateReservationRequest& request);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_RPC_RESV_CONVERT_H_
