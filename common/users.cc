#include "common/users.h"

#include <grp.h>
#include <pwd.h>

#include <chrono>
#include <cstdlib>
#include <utility>
#include <vector>

namespace skiff {

std::optional<std::string> LookUpUserName(uid_t uid) {
  std::vector<char> buffer(16384);
  struct passwd pw;
  struct passwd* result = nullptr;
  if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &result) == 0 && result != nullptr) {
    return std::string(result->pw_name);
  }
  return std::nullopt;
}

std::optional<std::string> LookUpGroupName(gid_t gid) {
  std::vector<char> buffer(16384);
  struct group gr;
  struct group* result = nullptr;
  if (getgrgid_r(gid, &gr, buffer.data(), buffer.size(), &result) == 0 && result != nullptr) {
    return std::string(result->gr_name);
  }
  return std::nullopt;
}

std::string UserName(uid_t uid) { return LookUpUserName(uid).value_or(std::to_string(uid)); }

std::string GroupName(gid_t gid) { return LookUpGroupName(gid).value_or(std::to_string(gid)); }

IdNameCache::IdNameCache(LookUp look_up, NowMs now_ms, int64_t ttl_ms, int64_t miss_ttl_ms)
    : look_up_(std::move(look_up)),
      now_ms_(std::move(now_ms)),
      ttl_ms_(ttl_ms),
      miss_ttl_ms_(miss_ttl_ms) {}

std::string IdNameCache::Name(uint32_t id) {
  const int64_t now = now_ms_();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(id);
    if (it != entries_.end() && it->second.expires_ms > now) return it->second.name;
  }
  std::optional<std::string> found = look_up_(id);
  Entry entry{found.value_or(std::to_string(id)), now + (found ? ttl_ms_ : miss_ttl_ms_)};
  std::lock_guard<std::mutex> lock(mu_);
  // Ids are few (a lab's users); forget them all rather than grow without end
  // when something walks many.
  if (entries_.size() >= 4096) entries_.clear();
  return entries_.insert_or_assign(id, std::move(entry)).first->second.name;
}

namespace {
int64_t MonotonicMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

IdNameCache& UserNames() {
  static IdNameCache* cache =
      new IdNameCache([](uint32_t id) { return LookUpUserName(id); }, MonotonicMs, 60'000, 5'000);
  return *cache;
}

IdNameCache& GroupNames() {
  static IdNameCache* cache =
      new IdNameCache([](uint32_t id) { return LookUpGroupName(id); }, MonotonicMs, 60'000, 5'000);
  return *cache;
}

std::optional<uid_t> UidOf(const std::string& name) {
  if (name.empty()) return std::nullopt;
  std::vector<char> buffer(16384);
  struct passwd pw;
  struct passwd* result = nullptr;
  if (getpwnam_r(name.c_str(), &pw, buffer.data(), buffer.size(), &result) == 0 &&
      result != nullptr) {
    return result->pw_uid;
  }
  char* end = nullptr;
  unsigned long value = strtoul(name.c_str(), &end, 10);
  if (end != name.c_str() && *end == '\0') return static_cast<uid_t>(value);
  return std::nullopt;
}

std::vector<gid_t> GroupsOfUser(const std::string& user, gid_t gid) {
  std::vector<gid_t> groups(32);
  for (;;) {
    int n = static_cast<int>(groups.size());
    if (getgrouplist(user.c_str(), gid, groups.data(), &n) >= 0) {
      groups.resize(static_cast<size_t>(n));
      return groups;
    }
    // Too small: n now says how many there are (older glibc: grow by half).
    groups.resize(static_cast<size_t>(n) > groups.size() ? static_cast<size_t>(n)
                                                         : groups.size() * 2);
  }
}

}  // namespace skiff
