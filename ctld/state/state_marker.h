// The state marker: a file beside ctld.db that says this StateSaveLocation has
// held a controller's state, so that a start which finds the database missing
// or empty knows the state was lost rather than never made.
//
// Without it a deleted or truncated ctld.db (a restore gone wrong, a disk
// replaced, a mistaken rm) started ctld with no jobs and next JobId=1: ids were
// reused and the history was gone, silently. With it ctld refuses to start and
// says what to do; `ctld -c` (Slurm's slurmctld -c, "clear state") is the
// admin's explicit fresh start.
//
// Called from ctld's main before anything else touches the directory. No
// threads; not thread-safe.
#ifndef SKIFF_CTLD_STATE_STATE_MARKER_H_
#define SKIFF_CTLD_STATE_STATE_MARKER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace skiff::ctld {

inline constexpr char kStateDatabaseName[] = "ctld.db";
inline constexpr char kStateMarkerName[] = "ctld.state";

// FailedPrecondition, naming the database, the marker and the two ways on,
// when the marker exists and the database is missing or empty.
absl::Status CheckStateNotLost(const std::string& state_dir);

// ctld -c: moves the database and its -wal/-shm files aside, to
// ctld.db.cleared-<unix seconds> (and -wal/-shm beside it), so the next open
// starts empty. Nothing is deleted. Returns the new name of the database, ""
// when there was none.
absl::StatusOr<std::string> ClearState(const std::string& state_dir, int64_t now);

// Writes the marker (0600) if it is missing: call once the database is open.
absl::Status MarkStateKept(const std::string& state_dir);

}  // namespace skiff::ctld

#endif  // SKIFF_CTLD_STATE_STATE_MARKER_H_
