// How noded starts a shepherd and learns that it is running. Shared by the
// shepherd (shepherd.cc) and noded's launcher (shepherd_launcher.cc).
//
//   argv: <shepherd binary> <job dir> --ready-fd=N
//
// fd N is the write end of a pipe noded reads. The shepherd writes
// kShepherdReadyByte once <jobdir>/pids names the job's process (and the job has
// exec'd its script or failed to), then closes it. If exec of the shepherd
// binary itself fails, noded's forked child writes kShepherdExecFailedByte and
// errno (an int, native byte order) instead. End of file without a byte means
// the shepherd died before it was ready.
#ifndef SKIFF_NODED_SHEPHERD_PROTOCOL_H_
#define SKIFF_NODED_SHEPHERD_PROTOCOL_H_

namespace skiff::noded {

inline constexpr char kShepherdReadyByte = 'R';
inline constexpr char kShepherdExecFailedByte = 'E';
inline constexpr char kShepherdReadyFdFlag[] = "--ready-fd=";

}  // namespace skiff::noded

#endif  // SKIFF_NODED_SHEPHERD_PROTOCOL_H_
