#include "lua/user_access.h"

#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace skiff {
namespace {

std::vector<gid_t> GroupsOf(uid_t uid, gid_t gid) {
  std::vector<gid_t> groups = {gid};
  struct passwd pw;
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return groups;
  }
  int count = 64;
  std::vector<gid_t> list(count);
  if (getgrouplist(pw.pw_name, gid, list.data(), &count) < 0) {
    list.resize(count);
    if (getgrouplist(pw.pw_name, gid, list.data(), &count) < 0) return groups;
  }
  list.resize(count);
  return list;
}

// The owner's, group's or others' bits of `mode`, as the kernel picks them.
bool Permits(const struct stat& st, uid_t uid, const std::vector<gid_t>& groups, mode_t owner_bit,
             mode_t group_bit, mode_t other_bit) {
  if (st.st_uid == uid) return (st.st_mode & owner_bit) != 0;
  if (std::find(groups.begin(), groups.end(), st.st_gid) != groups.end()) {
    return (st.st_mode & group_bit) != 0;
  }
  return (st.st_mode & other_bit) != 0;
}

// Every directory above the file in `path` (following links, as a lookup
// does) must let the user search it.
bool CanSearchDirectoriesOf(const std::string& path, uid_t uid, const std::vector<gid_t>& groups) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    struct stat st;
    if (stat(path.substr(0, slash).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    if (uid != 0 && !Permits(st, uid, groups, S_IXUSR, S_IXGRP, S_IXOTH)) return false;
  }
  return true;
}

}  // namespace

bool UserCanReadFile(const std::string& path, uid_t uid, gid_t gid) {
  if (path.empty() || path[0] != '/') return false;
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return false;
  struct stat st;
  if (stat(resolved, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (uid == 0) return true;
  const std::vector<gid_t> groups = GroupsOf(uid, gid);
  return CanSearchDirectoriesOf(path, uid, groups) &&
         CanSearchDirectoriesOf(resolved, uid, groups) &&
         Permits(st, uid, groups, S_IRUSR, S_IRGRP, S_IROTH);
}

}  // namespace skiff
