// How abseil's mutexes behave in Skiff's programs.
//
// Debian's abseil is built without NDEBUG, so by default every absl::Mutex
// acquisition, gRPC's own included, goes through the deadlock detector's
// global graph: a debugging aid that cost ctld ~1% of its time under a flood
// of submissions and each command ~1 ms of its run (issue 48). Every daemon
// and command turns it off before it starts a thread; the unit tests keep it.
#ifndef SKIFF_COMMON_MUTEX_MODE_H_
#define SKIFF_COMMON_MUTEX_MODE_H_

namespace skiff {

void TurnOffMutexDeadlockDetection();

}  // namespace skiff

#endif  // SKIFF_COMMON_MUTEX_MODE_H_
