#include "admin/key_commands.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "admin/node_key.h"
#include "admin/token_commands.h"
#include "client/ctld_client.h"
#include "common/sha256.h"

namespace skiff::cli {
namespace {

// The file's owner now, else `fallback`: a replaced key keeps who may read it.
std::optional<std::pair<uid_t, gid_t>> OwnerOf(const std::string& path,
                                               std::optional<std::pair<uid_t, gid_t>> fallback) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) return std::make_pair(st.st_uid, st.st_gid);
  return fallback;
}

}  // namespace

absl::StatusOr<std::string> RotateMungeKey(const KeyRotateOptions& options,
                                           const CommandRunner& run) {
  absl::StatusOr<LoadedConfig> loaded = client::LoadClientConfig(options.conf_path);
  if (!loaded.ok()) return loaded.status();
  const SkiffConfig& config = loaded->skiff;
  const SlurmctldParameters& parameters = config.slurmctld_parameters;
  if (parameters.join_port == 0) {
    return absl::FailedPreconditionError(
        "this controller takes no joining nodes (no SlurmctldParameters=join_port), so no node "
        "would fetch a new key: replace /etc/munge/munge.key on every machine by hand and "
        "restart munge there");
  }
  // ctld's copy: SlurmUser's, which ctld reads (it cannot read munged's).
  const std::string ctld_copy = parameters.join_munge_key.empty()
                                    ? config.state_save_location + "/munge.key"
                                    : parameters.join_munge_key;
  if (!PathExists(ctld_copy)) {
    return absl::FailedPreconditionError(absl::StrCat("ctld's copy of the munge key, ", ctld_copy,
                                                      ", is not there: is this the head node?"));
  }
  const std::string munged_key =
      options.munge_key.empty() ? Under(options.root, "/etc/munge/munge.key") : options.munge_key;
  absl::StatusOr<std::string> key = NewMungeKey();
  if (!key.ok()) return key.status();
  if (absl::Status s = WriteFileAtomic(ctld_copy, *key, 0400, OwnerOf(ctld_copy, std::nullopt));
      !s.ok()) {
    return s;
  }
  if (munged_key != ctld_copy) {
    if (absl::Status s =
            WriteFileAtomic(munged_key, *key, 0400, OwnerOf(munged_key, UserIds("munge")));
        !s.ok()) {
      return s;
    }
  }
  std::string out = absl::StrCat(
      "Made a new munge key: ", munged_key,
      munged_key == ctld_copy ? "" : absl::StrCat(" and ctld's copy ", ctld_copy), ".\n");
  // Asked while this host's munged still has the old key, which ctld accepts.
  absl::StatusOr<v1::ReloadMungeKeyReply> reloaded = ReloadCtldMungeKey(options.conf_path);
  if (!reloaded.ok()) {
    return absl::Status(reloaded.status().code(),
                        absl::StrCat(out, "ctld did not take it: ", reloaded.status().message(),
                                     ". Restart skiff-ctld, then munge"));
  }
  if (reloaded->key_sha256() != Sha256Hex(*key)) {
    return absl::InternalError(absl::StrCat(out, "ctld read another key from ", ctld_copy,
                                            ": run `skiff key rotate` again"));
  }
  absl::StrAppend(&out,
                  "ctld hands it to joined nodes from now on: each fetches it when ctld refuses "
                  "its old one (noded does so by itself; `skiff key fetch` by hand). A node "
                  "removed from the cluster cannot.\n");
  if (options.start) {
    if (absl::Status s = run({"systemctl", "restart", "munge"}); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(out, s.message(), ": restart munge by hand"));
    }
    absl::StrAppend(&out, "Restarted munge: credentials made with the old key are refused.\n");
  } else {
    absl::StrAppend(&out,
                    "Not restarted (--no-start): run `systemctl restart munge`; until then the "
                    "old key is still accepted here.\n");
  }
  std::vector<std::string> listed;
  for (const NodeConfig& node : config.nodes) listed.push_back(node.name);
  if (!listed.empty()) {
    absl::StrAppend(&out, "Nodes skiff.conf defines (", absl::StrJoin(listed, ","),
                    ") did not join: copy ", munged_key,
                    " to each (same path, owner munge, mode 0400) and restart munge there.\n");
  }
  return out;
}

absl::StatusOr<std::string> FetchMungeKeyCommand(const std::string& node_key_path,
                                                 int timeout_seconds, const CommandRunner& run) {
  absl::StatusOr<NodeKeyFile> file = ReadNodeKeyFile(node_key_path);
  if (!file.ok()) return file.status();
  absl::StatusOr<MungeKeyRenewal> renewed = RenewMungeKey(*file, run, timeout_seconds);
  if (!renewed.ok()) return renewed.status();
  if (*renewed == MungeKeyRenewal::kUnchanged) {
    return absl::StrCat("The munge key in ", file->munge_key, " is the cluster's.\n");
  }
  return absl::StrCat(
      "Installed the cluster's new munge key in ", file->munge_key,
      file->munge_restart.empty() ? "; restart munged to use it.\n" : " and restarted munge.\n");
}

}  // namespace skiff::cli
