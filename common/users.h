// User and group names <-> ids through the system's databases (NSS). These read
// /etc/passwd or a directory service: call them outside any lock that matters.
#ifndef SKIFF_COMMON_USERS_H_
#define SKIFF_COMMON_USERS_H_

#include <sys/types.h>

#include <optional>
#include <string>

namespace skiff {

// Name of `uid`, or its number as text when it has none.
std::string UserName(uid_t uid);
// Name of `gid`, or its number as text when it has none.
std::string GroupName(gid_t gid);
// The uid of a user name (also accepts a number); nullopt when unknown.
std::optional<uid_t> UidOf(const std::string& name);

}  // namespace skiff

#endif  // SKIFF_COMMON_USERS_H_
