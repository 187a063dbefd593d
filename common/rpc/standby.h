// How a standby controller answers (issue 53), shared by ctld's standby
// server and the clients that then try the next SlurmctldHost: every call but
// Ping ends UNAVAILABLE with a message starting with kStandbyAnswer.
#ifndef SKIFF_COMMON_RPC_STANDBY_H_
#define SKIFF_COMMON_RPC_STANDBY_H_

#include <string_view>

namespace skiff {

inline constexpr char kStandbyAnswer[] = "standby controller: ";

// Whether an UNAVAILABLE call's message is a standby's answer.
inline bool IsStandbyAnswer(std::string_view message) {
  return message.substr(0, sizeof(kStandbyAnswer) - 1) == kStandbyAnswer;
}

}  // namespace skiff

#endif  // SKIFF_COMMON_RPC_STANDBY_H_
