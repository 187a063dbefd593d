// User and group names <-> ids through the system's databases (NSS). These read
// /etc/passwd or a directory service: call them outside any lock that matters.
#ifndef SKIFF_COMMON_USERS_H_
#define SKIFF_COMMON_USERS_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace skiff {

// Name of `uid`, or its number as text when it has none.
std::string UserName(uid_t uid);
// Name of `gid`, or its number as text when it has none.
std::string GroupName(gid_t gid);
// The uid of a user name (also accepts a number); nullopt when unknown.
std::optional<uid_t> UidOf(const std::string& name);
// The names the databases hold, nullopt when they hold none.
std::optional<std::string> LookUpUserName(uid_t uid);
std::optional<std::string> LookUpGroupName(gid_t gid);
// `user`'s groups, with `gid` (getgrouplist): what a process of the user runs
// with. Resolve before fork in a threaded program (NSS is not fork-safe).
std::vector<gid_t> GroupsOfUser(const std::string& user, gid_t gid);

// Names of ids, remembered for a while (as nscd would): ctld names the user
// and group of every submission, and asking NSS each time (opening and reading
// /etc/passwd and /etc/group, or a directory service's round trip) was a
// visible part of a submission's cost. A name found is kept `ttl_ms`; an id
// without one (named by its number) only `miss_ttl_ms`, so a user just added
// to the directory is named soon after. Thread-safe; the lookup runs outside
// the cache's lock.
class IdNameCache {
 public:
  using LookUp = std::function<std::optional<std::string>(uint32_t id)>;
  using NowMs = std::function<int64_t()>;  // a monotonic clock
  IdNameCache(LookUp look_up, NowMs now_ms, int64_t ttl_ms, int64_t miss_ttl_ms);

  // The name of `id`, or its number as text when it has none.
  std::string Name(uint32_t id);

 private:
  struct Entry {
    std::string name;
    int64_t expires_ms = 0;
  };
  const LookUp look_up_;
  const NowMs now_ms_;
  const int64_t ttl_ms_;
  const int64_t miss_ttl_ms_;
  std::mutex mu_;
  std::unordered_map<uint32_t, Entry> entries_;  // under mu_
};

// ctld's caches of user and group names (a minute; an unnamed id 5 s).
IdNameCache& UserNames();
IdNameCache& GroupNames();

}  // namespace skiff

#endif  // SKIFF_COMMON_USERS_H_
