#include "admin/init_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>

#include "absl/strings/str_cat.h"
#include "admin/ha/ha_init.h"
#include "admin/join_command.h"
#include "admin/token_commands.h"
#include "common/daemon.h"
#include "common/join/join_token.h"

namespace skiff::cli {
namespace {

// How long init waits for the ctld it started to answer.
constexpr int kCtldStartSeconds = 60;

absl::Status CheckWord(const std::string& what, const std::string& value) {
  absl::Status s = CheckJoinNodeName(value);  // the same rule: one plain word
  if (s.ok()) return s;
  return absl::InvalidArgumentError(
      absl::StrCat(what, " '", value, "' is not valid: use letters, digits, '-', '_' and '.'"));
}

}  // namespace

absl::StatusOr<std::string> InitConfigText(const InitOptions& o, const std::string& date,
                                           const ha::Plan* ha) {
  const std::string host = o.host.empty() ? ShortHostname() : o.host;
  const std::string cluster = o.cluster_name.empty() ? host : o.cluster_name;
  if (absl::Status s = CheckWord("--cluster-name", cluster); !s.ok()) return s;
  if (absl::Status s = CheckWord("the host name", host); !s.ok()) return s;
  std::vector<std::string> partitions = o.partitions;
  if (partitions.empty()) partitions.push_back("batch");
  for (const std::string& p : partitions) {
    if (absl::Status s = CheckWord("--partition", p); !s.ok()) return s;
  }
  for (int port : {o.ctld_port, o.join_port}) {
    if (port < 1 || port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("port ", port, " is not from 1 to 65535"));
    }
  }
  if (o.ctld_port == o.join_port) {
    return absl::InvalidArgumentError("--ctld-port and --join-port must differ");
  }
  const std::string addr = ha != nullptr ? ha->members.front().addr : o.addr;
  std::string text = absl::StrCat(
      "# Written by `skiff init` on ", date, " for ", host,
      ".\n"
      "# Nodes join with the command `skiff token create` prints (skiff join): they\n"
      "# need no NodeName line here and go into every partition with Nodes=ALL.\n"
      "ClusterName=",
      cluster, "\n", "SlurmctldHost=", host, addr.empty() ? "" : absl::StrCat("(", addr, ")"), "\n",
      ha != nullptr ? ha::SkiffConfLines(*ha, o.root) : "", "SlurmctldPort=", o.ctld_port, "\n",
      "SlurmUser=", o.slurm_user, "\n", "AuthType=auth/munge\n",
      "StateSaveLocation=", Under(o.root, "/var/lib/skiff"), "\n",
      "SlurmdSpoolDir=", Under(o.root, "/var/spool/skiff"), "\n",
      "SlurmctldLogFile=", Under(o.root, "/var/log/skiff/ctld.log"), "\n",
      "SlurmdLogFile=", Under(o.root, "/var/log/skiff/noded.log"), "\n",
      "# Nodes fetch this file from ctld (configless) and join on join_port.\n",
      "SlurmctldParameters=enable_configless,join_port=", o.join_port, "\n", "GresTypes=gpu\n");
  absl::StrAppend(&text,
                  "# Fair share and GrpTRESMins=billing budgets count GPU time: a GPU bills as\n"
                  "# 8 CPUs, the CPUs per GPU of a typical 8-GPU server. Set GRES/gpu to your GPU\n"
                  "# nodes' CPUs per GPU (without weights billing is the CPU count alone).\n");
  for (size_t i = 0; i < partitions.size(); ++i) {
    absl::StrAppend(&text, "PartitionName=", partitions[i], " Nodes=ALL",
                    i == 0 ? " Default=YES" : "",
                    " MaxTime=UNLIMITED State=UP TRESBillingWeights=CPU=1.0,GRES/gpu=8.0\n");
  }
  return text;
}

absl::StatusOr<std::string> RunInit(const InitOptions& o, const CommandRunner& run) {
  const std::string conf_path = Under(o.root, "/etc/skiff/skiff.conf");
  if (PathExists(conf_path) && !o.force) {
    return absl::AlreadyExistsError(
        absl::StrCat(conf_path,
                     " exists: this host is already initialized (skiff token create prints "
                     "the join command; skiff init --force writes a new skiff.conf, keeping the "
                     "old one as skiff.conf.old)"));
  }
  std::optional<std::pair<uid_t, gid_t>> slurm_user = UserIds(o.slurm_user);
  if (!slurm_user) {
    return absl::FailedPreconditionError(absl::StrCat(
        "SlurmUser '", o.slurm_user,
        "' does not exist (the skiff-common package creates 'skiff'; or use --slurm-user)"));
  }
  char date[64];
  const time_t now = time(nullptr);
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M", localtime(&now));
  std::optional<ha::Plan> plan;
  if (!o.standbys.empty() || !o.votes.empty()) {
    const std::string host = o.host.empty() ? ShortHostname() : o.host;
    absl::StatusOr<ha::Plan> made = ha::MakePlan(o.cluster_name.empty() ? host : o.cluster_name,
                                                 {host, o.addr}, o.standbys, o.votes);
    if (!made.ok()) return made.status();
    plan = *std::move(made);
  }
  absl::StatusOr<std::string> text = InitConfigText(o, date, plan ? &*plan : nullptr);
  if (!text.ok()) return text.status();

  std::string out;
  if (PathExists(conf_path)) {
    absl::StatusOr<std::string> old = ReadWholeFile(conf_path);
    if (!old.ok()) return old.status();
    if (absl::Status s = WriteFileAtomic(conf_path + ".old", *old, 0644); !s.ok()) return s;
    absl::StrAppend(&out, "Kept the previous ", conf_path, " as ", conf_path, ".old.\n");
  }
  if (absl::Status s = WriteFileAtomic(conf_path, *text, 0644); !s.ok()) return s;
  absl::StrAppend(&out, "Wrote ", conf_path, ".\n");

  // munged's key: made once, kept as it is when there is one.
  const std::string key_path = Under(o.root, "/etc/munge/munge.key");
  absl::StatusOr<std::string> key = ReadWholeFile(key_path);
  if (!key.ok() && key.status().code() != absl::StatusCode::kNotFound) return key.status();
  if (!key.ok()) {
    absl::StatusOr<std::string> bytes = NewMungeKey();
    if (!bytes.ok()) return bytes.status();
    if (absl::Status s = WriteFileAtomic(key_path, *bytes, 0400, UserIds("munge")); !s.ok()) {
      return s;
    }
    key = *bytes;
    absl::StrAppend(&out, "Made a new munge key, ", key_path, ".\n");
  }
  // ctld runs as SlurmUser and cannot read munge's file: its own copy, to hand
  // to nodes that join.
  const std::string state_dir = Under(o.root, "/var/lib/skiff");
  if (!PathExists(state_dir)) {  // the package makes it; a bare tree may not have it
    if (absl::Status s = MakeDirs(state_dir, 0700); !s.ok()) return s;
    if (chown(state_dir.c_str(), slurm_user->first, slurm_user->second) != 0) {
      return absl::FailedPreconditionError(absl::StrCat(state_dir, ": ", strerror(errno)));
    }
  }
  if (absl::Status s = WriteFileAtomic(state_dir + "/munge.key", *key, 0400, slurm_user); !s.ok()) {
    return s;
  }
  if (plan) {
    absl::StatusOr<std::string> written =
        ha::WriteHeadFiles(*plan, o.root, o.slurm_user, *text, *key);
    if (!written.ok()) return written.status();
    absl::StrAppend(&out, *written);
    if (o.start) {
      if (absl::Status s = ha::StartHead(run); !s.ok()) return s;
      absl::StrAppend(&out, "Started munge, etcd and skiff-ctld.\n");
    }
    absl::StrAppend(&out, ha::NextSteps(*plan, o.root));
    return out;
  }
  if (!o.start) {
    absl::StrAppend(&out,
                    "Not started (--no-start). Start the services:\n"
                    "  systemctl restart munge && systemctl enable --now skiff-ctld\n"
                    "then `skiff token create` prints the command to run on each node.\n");
    return out;
  }
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"systemctl", "restart", "munge"},
                                             {"systemctl", "enable", "skiff-ctld"},
                                             {"systemctl", "restart", "skiff-ctld"}}) {
    if (absl::Status s = run(command); !s.ok()) return s;
  }
  absl::StrAppend(&out, "Started munge and skiff-ctld.\n");
  absl::StatusOr<v1::CreateJoinTokenReply> token =
      CreateToken(conf_path, o.ttl_seconds, kCtldStartSeconds);
  if (!token.ok()) {
    return absl::Status(token.status().code(),
                        absl::StrCat(token.status().message(),
                                     " (ctld was started; see journalctl -u skiff-ctld, then "
                                     "`skiff token create`)"));
  }
  absl::StrAppend(&out, "\n", FormatCreatedToken(*token, time(nullptr)));
  return out;
}

}  // namespace skiff::cli
