#include "common/config/configless.h"

#include <arpa/nameser.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <resolv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace skiff {
namespace {

constexpr char kManifest[] = ".manifest";

absl::Status ErrnoError(const std::string& what, const std::string& path) {
  return absl::FailedPreconditionError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, const std::string& text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot write", path);
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Writes `path` whole or not at all: a temporary beside it, fsynced, renamed.
absl::Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temp = absl::StrCat(path, ".tmp.", getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("cannot create", temp);
  absl::Status status = WriteAll(fd, text, temp);
  if (status.ok() && ::fsync(fd) != 0) status = ErrnoError("cannot fsync", temp);
  ::close(fd);
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status = ErrnoError("cannot rename into", path);
  }
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

bool IsUnder(const std::filesystem::path& path, const std::filesystem::path& dir) {
  auto [dir_end, path_it] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return dir_end == dir.end() && path_it != path.end();
}

}  // namespace

std::string ConfigHash(const std::vector<ConfigFile>& files) {
  std::vector<const ConfigFile*> sorted;
  for (const ConfigFile& file : files) sorted.push_back(&file);
  std::sort(sorted.begin(), sorted.end(),
            [](const ConfigFile* a, const ConfigFile* b) { return a->name < b->name; });
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](const std::string& bytes) {
    // The length first, so that no two (name, text) lists run together alike.
    for (char c : absl::StrCat(bytes.size(), ":"))
      hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    for (char c : bytes) hash = (hash ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  };
  for (const ConfigFile* file : sorted) {
    mix(file->name);
    mix(file->text);
  }
  char out[17];
  snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

ConfigFileSet ServableConfigFiles(const LoadedConfig& loaded, std::vector<std::string>* skipped) {
  ConfigFileSet set;
  const std::filesystem::path dir = std::filesystem::path(loaded.conf_dir).lexically_normal();
  std::set<std::string> seen;
  for (const auto& [path, text] : loaded.files_read) {
    const std::filesystem::path file = std::filesystem::path(path).lexically_normal();
    std::string name = file.lexically_relative(dir).string();
    if (!IsUnder(file, dir) || !CheckConfigFileName(name).ok()) {
      if (skipped != nullptr) skipped->push_back(path);
      continue;
    }
    if (!seen.insert(name).second) continue;  // included twice
    set.files.push_back({name, text});
  }
  std::sort(set.files.begin(), set.files.end(),
            [](const ConfigFile& a, const ConfigFile& b) { return a.name < b.name; });
  set.hash = ConfigHash(set.files);
  return set;
}

absl::Status CheckConfigFileName(const std::string& name) {
  auto bad = [&name](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("config file name '", name, "' ", why));
  };
  if (name.empty()) return bad("is empty");
  if (name[0] == '/') return bad("is absolute");
  if (name.find('\0') != std::string::npos || name.find('\n') != std::string::npos) {
    return bad("holds a NUL or newline");
  }
  std::vector<std::string> parts = absl::StrSplit(name, '/');
  for (const std::string& part : parts) {
    if (part.empty() || part == "." || part == "..") return bad("has an empty, . or .. component");
  }
  if (parts.back()[0] == '.') return bad("starts with a dot");
  return absl::OkStatus();
}

namespace {

// What is wrong with `server` as HOST[:PORT], "" when nothing is; `target`
// gets "host:port" then.
std::string ConfServerProblem(const std::string& server, int default_port, std::string* target) {
  if (server.empty()) return "empty";
  std::string host;
  std::string port_text;
  if (server[0] == '[') {
    size_t close = server.find(']');
    if (close == std::string::npos) return "no closing ]";
    host = server.substr(0, close + 1);
    std::string rest = server.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return "text after ]";
      port_text = rest.substr(1);
      if (port_text.empty()) return "empty port";
    }
    if (host.size() == 2) return "empty host";
  } else {
    size_t colon = server.find(':');
    if (colon != std::string::npos && server.find(':', colon + 1) != std::string::npos) {
      return "an IPv6 address needs brackets";
    }
    host = server.substr(0, colon);
    if (colon != std::string::npos) {
      port_text = server.substr(colon + 1);
      if (port_text.empty()) return "empty port";
    }
    if (host.empty()) return "empty host";
  }
  int port = default_port;
  if (!port_text.empty() && (!absl::SimpleAtoi(port_text, &port) || port < 1 || port > 65535)) {
    return absl::StrCat("port '", port_text, "' is not 1 to 65535");
  }
  *target = absl::StrCat(host, ":", port);
  return "";
}

}  // namespace

absl::StatusOr<std::string> ParseConfServer(const std::string& server, int default_port) {
  std::string target;
  if (std::string why = ConfServerProblem(server, default_port, &target); !why.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--conf-server '", server, "': ", why, " (expected HOST[:PORT])"));
  }
  return target;
}

absl::StatusOr<std::vector<std::string>> ParseConfServers(const std::string& servers,
                                                          int default_port) {
  const std::vector<std::string> entries = absl::StrSplit(servers, ',');
  if (entries.size() == 1) {
    absl::StatusOr<std::string> one =
        ParseConfServer(std::string(absl::StripAsciiWhitespace(servers)), default_port);
    if (!one.ok()) return one.status();
    return std::vector<std::string>{*one};
  }
  std::vector<std::string> targets;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string entry(absl::StripAsciiWhitespace(entries[i]));
    std::string target;
    std::string why = ConfServerProblem(entry, default_port, &target);
    if (!why.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--conf-server '", servers, "': entry ", i + 1,
                       entry.empty() ? "" : absl::StrCat(" '", entry, "'"),
                       entry.empty() ? " is empty" : absl::StrCat(": ", why),
                       " (expected HOST[:PORT][,HOST[:PORT]...])"));
    }
    targets.push_back(target);
  }
  return MergeControllerTargets({}, targets);
}

std::vector<std::string> MergeControllerTargets(const std::vector<std::string>& first,
                                                const std::vector<std::string>& more) {
  std::vector<std::string> merged;
  for (const std::vector<std::string>* list : {&first, &more}) {
    for (const std::string& target : *list) {
      if (!target.empty() && std::find(merged.begin(), merged.end(), target) == merged.end()) {
        merged.push_back(target);
      }
    }
  }
  return merged;
}

absl::StatusOr<std::vector<SrvRecord>> ParseSrvAnswer(const unsigned char* message, int length) {
  ns_msg handle;
  if (length <= 0 || ns_initparse(message, length, &handle) != 0) {
    return absl::InvalidArgumentError("DNS reply does not parse");
  }
  std::vector<SrvRecord> records;
  const int count = ns_msg_count(handle, ns_s_an);
  for (int i = 0; i < count; ++i) {
    ns_rr rr;
    if (ns_parserr(&handle, ns_s_an, i, &rr) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("DNS reply: answer ", i, " does not parse"));
    }
    if (ns_rr_type(rr) != ns_t_srv || ns_rr_class(rr) != ns_c_in) continue;
    const unsigned char* rdata = ns_rr_rdata(rr);
    if (ns_rr_rdlen(rr) < 7) return absl::InvalidArgumentError("DNS reply: short SRV record");
    SrvRecord record;
    record.priority = ns_get16(rdata);
    record.weight = ns_get16(rdata + 2);
    record.port = ns_get16(rdata + 4);
    char target[NS_MAXDNAME];
    if (dn_expand(ns_msg_base(handle), ns_msg_end(handle), rdata + 6, target, sizeof(target)) < 0) {
      return absl::InvalidArgumentError("DNS reply: SRV target does not parse");
    }
    record.target = target;
    while (!record.target.empty() && record.target.back() == '.') record.target.pop_back();
    records.push_back(record);
  }
  return records;
}

absl::StatusOr<std::vector<std::string>> SrvTargetsInOrder(const std::vector<SrvRecord>& records) {
  std::vector<const SrvRecord*> usable;
  for (const SrvRecord& record : records) {
    // "." as the target means the service is decidedly not available (RFC 2782).
    if (!record.target.empty()) usable.push_back(&record);
  }
  if (usable.empty()) {
    return absl::NotFoundError(absl::StrCat("no usable ", kCtldSrvName, " record"));
  }
  std::stable_sort(usable.begin(), usable.end(), [](const SrvRecord* a, const SrvRecord* b) {
    return a->priority != b->priority ? a->priority < b->priority : a->weight > b->weight;
  });
  std::vector<std::string> targets;
  for (const SrvRecord* record : usable) {
    targets.push_back(absl::StrCat(record->target, ":", record->port));
  }
  return MergeControllerTargets({}, targets);
}

absl::StatusOr<std::vector<std::string>> LookupCtldSrv() {
  struct __res_state state;
  std::memset(&state, 0, sizeof(state));
  if (res_ninit(&state) != 0) return absl::UnavailableError("cannot initialise the DNS resolver");
  unsigned char answer[NS_PACKETSZ * 4];
  int length = res_nsearch(&state, kCtldSrvName, ns_c_in, ns_t_srv, answer, sizeof(answer));
  res_nclose(&state);
  if (length < 0) return absl::NotFoundError(absl::StrCat("no DNS SRV record ", kCtldSrvName));
  absl::StatusOr<std::vector<SrvRecord>> records =
      ParseSrvAnswer(answer, std::min<int>(length, sizeof(answer)));
  if (!records.ok()) return records.status();
  return SrvTargetsInOrder(*records);
}

absl::Status WriteConfigCache(const std::string& dir, const ConfigFileSet& set) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", dir, ": ", error.message()));
  }
  std::string manifest = absl::StrCat("hash ", set.hash, "\n");
  for (const ConfigFile& file : set.files) {
    if (absl::Status s = CheckConfigFileName(file.name); !s.ok()) return s;
    const std::filesystem::path path = std::filesystem::path(dir) / file.name;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create ", path.parent_path().string(), ": ", error.message()));
    }
    if (absl::Status s = WriteFileAtomically(path.string(), file.text); !s.ok()) return s;
    absl::StrAppend(&manifest, file.name, "\n");
  }
  absl::StatusOr<ConfigFileSet> previous = ReadConfigCache(dir);
  if (absl::Status s = WriteFileAtomically(absl::StrCat(dir, "/", kManifest), manifest); !s.ok()) {
    return s;
  }
  if (previous.ok()) {
    for (const ConfigFile& old : previous->files) {
      bool kept = std::any_of(set.files.begin(), set.files.end(),
                              [&old](const ConfigFile& f) { return f.name == old.name; });
      if (!kept) ::unlink((std::filesystem::path(dir) / old.name).c_str());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ConfigFileSet> ReadConfigCache(const std::string& dir) {
  const std::string manifest_path = absl::StrCat(dir, "/", kManifest);
  absl::StatusOr<std::string> manifest = ReadFileToString(manifest_path);
  if (absl::IsNotFound(manifest.status())) {
    return absl::NotFoundError(absl::StrCat("no configuration cache in ", dir));
  }
  if (!manifest.ok()) return manifest.status();
  std::vector<std::string> lines = absl::StrSplit(*manifest, '\n', absl::SkipEmpty());
  if (lines.empty() || lines[0].rfind("hash ", 0) != 0) {
    return absl::DataLossError(absl::StrCat(manifest_path, ": not a configuration cache manifest"));
  }
  ConfigFileSet set;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (absl::Status s = CheckConfigFileName(lines[i]); !s.ok()) {
      return absl::DataLossError(absl::StrCat(manifest_path, ": ", s.message()));
    }
    absl::StatusOr<std::string> text = ReadFileToString(absl::StrCat(dir, "/", lines[i]));
    if (!text.ok()) return text.status();
    set.files.push_back({lines[i], *std::move(text)});
  }
  std::sort(set.files.begin(), set.files.end(),
            [](const ConfigFile& a, const ConfigFile& b) { return a.name < b.name; });
  // The hash of what is on disk now: a file edited by hand reads as changed.
  set.hash = ConfigHash(set.files);
  return set;
}

}  // namespace skiff
