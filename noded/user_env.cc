#include "noded/user_env.h"

#include <unistd.h>

#include <set>

#include "absl/strings/str_cat.h"

namespace skiff::noded {
namespace {

constexpr char kMarker[] = "SKIFF_LOGIN_ENV_FOLLOWS";

}  // namespace

bool WantsLoginEnvironment(const std::map<std::string, std::string>& environment) {
  auto it = environment.find("SLURM_GET_USER_ENV");
  return it != environment.end() && it->second == "1";
}

std::vector<std::string> LoginEnvironmentCommand(const std::string& runuser,
                                                 const std::string& user) {
  return {runuser, "-l", user, "-c", absl::StrCat("printf '\\n%s\\0' ", kMarker, "; env -0")};
}

absl::StatusOr<std::map<std::string, std::string>> ParseLoginEnvironment(
    const std::string& output) {
  const std::string marker = absl::StrCat("\n", kMarker, std::string(1, '\0'));
  const size_t at = output.find(marker);
  if (at == std::string::npos) {
    return absl::NotFoundError("the login shell printed no environment");
  }
  std::map<std::string, std::string> out;
  size_t start = at + marker.size();
  while (start < output.size()) {
    size_t end = output.find('\0', start);
    if (end == std::string::npos) end = output.size();
    const std::string entry = output.substr(start, end - start);
    const size_t equals = entry.find('=');
    if (equals != std::string::npos && equals > 0) {
      out[entry.substr(0, equals)] = entry.substr(equals + 1);
    }
    start = end + 1;
  }
  return out;
}

std::map<std::string, std::string> MergeLoginEnvironment(
    std::map<std::string, std::string> login, const std::map<std::string, std::string>& job) {
  for (const auto& [name, value] : job) login[name] = value;
  return login;
}

void AddLoginEnvironment(const std::map<std::string, std::string>& login,
                         std::vector<std::string>* environment) {
  std::set<std::string> have;
  for (const std::string& entry : *environment) have.insert(entry.substr(0, entry.find('=')));
  for (const auto& [name, value] : login) {
    if (have.count(name) == 0) environment->push_back(absl::StrCat(name, "=", value));
  }
}

std::string FindRunuser() {
  for (const char* path : {"/usr/sbin/runuser", "/sbin/runuser"}) {
    if (access(path, X_OK) == 0) return path;
  }
  return "";
}

}  // namespace skiff::noded
