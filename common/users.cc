#include "common/users.h"

#include <grp.h>
#include <pwd.h>

#include <cstdlib>
#include <vector>

namespace skiff {

std::string UserName(uid_t uid) {
  std::vector<char> buffer(16384);
  struct passwd pw;
  struct passwd* result = nullptr;
  if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &result) == 0 && result != nullptr) {
    return result->pw_name;
  }
  return std::to_string(uid);
}

std::string GroupName(gid_t gid) {
  std::vector<char> buffer(16384);
  struct group gr;
  struct group* result = nullptr;
  if (getgrgid_r(gid, &gr, buffer.data(), buffer.size(), &result) == 0 && result != nullptr) {
    return result->gr_name;
  }
  return std::to_string(gid);
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

}  // namespace skiff
