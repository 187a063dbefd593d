// Init and join (docs/decisions.md, "Init and join"): join tokens and nodes
// that join. A join is decided under join_mu_ and commit_mu_, stored (token
// marked used + node, one transaction), then swapped into the configuration in
// force as UpdatePartition does (InstallConfig).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/join/join_token.h"
#include "ctld/controller.h"
#include "ctld/core/dynamic_nodes.h"

namespace skiff::ctld {
namespace {

constexpr int64_t kForgetExpiredTokensAfter = 24 * 3600;

// A GRES name or type a joining node reports: a plain word, as in gres.conf.
absl::Status CheckJoinGresWord(const char* what, const std::string& word, bool may_be_empty) {
  bool plain = word.size() <= 64 && (may_be_empty || !word.empty());
  for (char c : word) {
    plain =
        plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
  }
  if (plain) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("gres ", what, " '", QuotedForLog(word),
                   "' is not valid: use at most 64 letters, digits, '-', '_' and '.'"));
}

// Everything a join request carries that ctld keeps or logs, checked before
// either: anyone who reaches the join port can send anything (a 60 KB name
// with newlines wrote lines of its own into ctld's log).
absl::Status CheckJoinRequest(const std::string& token_id, const NodeConfig& node) {
  if (absl::Status s = CheckJoinTokenId(token_id); !s.ok()) return s;
  if (absl::Status s = CheckJoinNodeName(node.name); !s.ok()) return s;
  if (absl::Status s = CheckJoinAddress(node.addr); !s.ok()) return s;
  for (const auto& g : node.gres) {
    if (absl::Status s = CheckJoinGresWord("name", g.name, false); !s.ok()) return s;
    if (absl::Status s = CheckJoinGresWord("type", g.type, true); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Controller::RecoverJoin() {
  absl::StatusOr<std::map<std::string, std::string>> node_rows =
      store_.LoadRecords(kDynamicNodeKind);
  if (!node_rows.ok()) return node_rows.status();
  std::vector<NodeConfig> joined;
  for (const auto& [name, blob] : *node_rows) {
    absl::StatusOr<NodeConfig> node = DecodeDynamicNode(name, blob);
    if (!node.ok()) return node.status();
    joined.push_back(*std::move(node));
  }
  absl::StatusOr<std::map<std::string, std::string>> token_rows =
      store_.LoadRecords(kJoinTokenKind);
  if (!token_rows.ok()) return token_rows.status();
  std::map<std::string, StoredJoinToken> tokens;
  for (const auto& [id, blob] : *token_rows) {
    absl::StatusOr<StoredJoinToken> token = DecodeStoredJoinToken(id, blob);
    if (!token.ok()) return token.status();
    tokens.emplace(id, *std::move(token));
  }
  absl::StatusOr<std::map<std::string, std::string>> node_keys = store_.LoadRecords(kNodeKeyKind);
  if (!node_keys.ok()) return node_keys.status();
  {
    absl::MutexLock join(&join_mu_);
    join_tokens_ = std::move(tokens);
    node_key_hashes_ = *std::move(node_keys);
  }
  if (joined.empty()) return absl::OkStatus();
  std::vector<std::string> notes;
  {
    absl::MutexLock serial(&commit_mu_);
    file_config_ =
        std::make_shared<const SkiffConfig>(WithDynamicNodes(*file_config_, joined, &notes));
    joined_nodes_ = joined;
    InstallConfig(file_config_, nullptr);
  }
  for (const std::string& note : notes) logger_.warn("{}", note);
  for (const NodeConfig& node : joined) {
    logger_.info("NodeName={} joined earlier: {}", node.name, EncodeDynamicNode(node));
  }
  return absl::OkStatus();
}

void Controller::EnableJoin(JoinSettings settings) {
  settings.token_admins.insert(0);
  {
    absl::MutexLock join(&join_mu_);
    munge_key_ = settings.munge_key;
  }
  join_ = std::move(settings);
}

absl::StatusOr<Controller::JoinTokenCreated> Controller::CreateJoinToken(const Caller& caller,
                                                                         int64_t ttl_seconds) {
  if (!join_) {
    return absl::FailedPreconditionError(
        "this controller does not take joining nodes: set SlurmctldParameters=join_port=PORT "
        "(and enable_configless) in skiff.conf, then restart ctld");
  }
  if (join_->token_admins.count(caller.uid) == 0) {
    return absl::PermissionDeniedError(
        "Access/permission denied: only root and SlurmUser may create join tokens (a token "
        "hands out the munge key)");
  }
  if (ttl_seconds <= 0) ttl_seconds = kDefaultJoinTokenTtl;
  absl::StatusOr<JoinToken> token = NewJoinToken(join_->pin, SystemRandomBytes());
  if (!token.ok()) return token.status();
  const int64_t now = clock_.Now();
  StoredJoinToken stored;
  stored.id = token->id;
  stored.secret_hash = Sha256Hex(token->secret);
  stored.created = now;
  stored.expires = now + ttl_seconds;
  stored.created_by_uid = caller.uid;
  {
    absl::MutexLock join(&join_mu_);
    // Tokens a day past their expiry (used or not) are dropped: `skiff token
    // list` stays short, and an old token is then "not valid" like any other.
    std::vector<RecordRow> forgotten;
    for (const auto& [id, token] : join_tokens_) {
      if (token.expires + kForgetExpiredTokensAfter < now) {
        forgotten.push_back({kJoinTokenKind, id, ""});
      }
    }
    if (!forgotten.empty() && store_.Save({}, forgotten).ok()) {
      for (const RecordRow& row : forgotten) join_tokens_.erase(row.key);
    }
    if (join_tokens_.count(stored.id) != 0) {
      // 30 bits of id: a clash is rare; the caller asks again.
      return absl::UnavailableError("join token id clash: create the token again");
    }
    if (absl::Status s =
            store_.Save({}, {{kJoinTokenKind, stored.id, EncodeStoredJoinToken(stored)}});
        !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("ctld could not store the join token: ", s.message()));
    }
    join_tokens_[stored.id] = stored;
  }
  logger_.info("join token {} created by uid {}, expires in {} s", stored.id, caller.uid,
               ttl_seconds);
  return JoinTokenCreated{FormatJoinToken(*token), stored.expires, join_->join_target,
                          join_->slurm_user};
}

absl::StatusOr<std::vector<StoredJoinToken>> Controller::ListJoinTokens(const Caller& caller) {
  if (join_.has_value() ? join_->token_admins.count(caller.uid) == 0 : caller.uid != 0) {
    return absl::PermissionDeniedError(
        "Access/permission denied: only root and SlurmUser may list join tokens");
  }
  std::vector<StoredJoinToken> out;
  {
    absl::MutexLock join(&join_mu_);
    for (const auto& [id, token] : join_tokens_) out.push_back(token);
  }
  std::stable_sort(out.begin(), out.end(), [](const StoredJoinToken& a, const StoredJoinToken& b) {
    return a.created < b.created;
  });
  return out;
}

absl::StatusOr<Controller::JoinedNode> Controller::JoinNode(
    const std::string& token_id, const std::string& secret, NodeConfig node,
    std::optional<uint32_t> node_slurm_user_uid) {
  if (!join_) return absl::FailedPreconditionError("this controller does not take joining nodes");
  if (absl::Status s = CheckJoinRequest(token_id, node); !s.ok()) {
    // The message quotes what was sent escaped and cut short (QuotedForLog).
    logger_.warn("join refused: {}", std::string(s.message()));
    return s;
  }
  absl::MutexLock join(&join_mu_);
  const int64_t now = clock_.Now();
  auto token = join_tokens_.find(token_id);
  if (absl::Status s =
          CheckJoinToken(token == join_tokens_.end() ? nullptr : &token->second, secret, now);
      !s.ok()) {
    logger_.warn("join refused for NodeName={}: {} (token id '{}')", node.name,
                 std::string(s.message()), token_id);
    return s;
  }
  // noded takes ctld's calls by the uid in their credentials, compared with
  // its own SlurmUser's: a node whose user has another uid would join and then
  // refuse every launch. Checked after the token, so that only its holder
  // learns the uid, and before the token is spent.
  if (node_slurm_user_uid.has_value() && *node_slurm_user_uid != join_->slurm_user_uid) {
    const std::string message = absl::StrCat(
        "SlurmUser ", join_->slurm_user, " has uid ", *node_slurm_user_uid, " on ", node.name,
        " but ", join_->slurm_user_uid,
        " on the controller (credentials carry uids): give it that uid there (usermod -u ",
        join_->slurm_user_uid, " ", join_->slurm_user, ") and join again; the token is unused");
    logger_.warn("join refused: {}", message);
    return absl::FailedPreconditionError(message);
  }
  if (node.cpus <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("node ", node.name, " reported no CPUs"));
  }
  absl::StatusOr<std::string> node_key = NewNodeKey(SystemRandomBytes());
  if (!node_key.ok()) return node_key.status();
  const std::string node_key_hash = Sha256Hex(*node_key);
  node.hostname = node.name;
  node.sockets = 1;
  node.cores_per_socket = node.cpus;
  node.threads_per_core = 1;
  std::vector<std::string> notes;
  {
    absl::MutexLock serial(&commit_mu_);
    if (file_config_->FindNode(node.name) != nullptr || config()->FindNode(node.name) != nullptr) {
      logger_.warn("join refused: node name {} is already taken (token {} stays unused)", node.name,
                   token_id);
      return absl::AlreadyExistsError(absl::StrCat("node name ", node.name, " is already taken"));
    }
    StoredJoinToken used = token->second;
    used.used = true;
    used.used_by = node.name;
    used.used_at = now;
    // An acknowledgement means stored: the token's use, the node and its key
    // together.
    if (absl::Status s = store_.Save({}, {{kJoinTokenKind, used.id, EncodeStoredJoinToken(used)},
                                          {kDynamicNodeKind, node.name, EncodeDynamicNode(node)},
                                          {kNodeKeyKind, node.name, node_key_hash}});
        !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("ctld could not store the joining node: ", s.message()));
    }
    token->second = used;
    node_key_hashes_[node.name] = node_key_hash;
    joined_nodes_.push_back(node);
    file_config_ =
        std::make_shared<const SkiffConfig>(WithDynamicNodes(*file_config_, {node}, &notes));
    InstallConfig(std::make_shared<const SkiffConfig>(WithDynamicNodes(*config(), {node}, &notes)),
                  nullptr);
  }
  logger_.info("NodeName={} joined with token {}: {}", node.name, token_id,
               EncodeDynamicNode(node));
  RequestSchedule();
  return JoinedNode{munge_key_, *std::move(node_key)};
}

absl::StatusOr<std::string> Controller::FetchMungeKey(const std::string& node_name,
                                                      const std::string& node_key) {
  if (!join_) return absl::FailedPreconditionError("this controller does not take joining nodes");
  if (absl::Status s = CheckJoinNodeName(node_name); !s.ok()) return s;
  absl::MutexLock join(&join_mu_);
  auto hash = node_key_hashes_.find(node_name);
  if (hash == node_key_hashes_.end() || !ConstantTimeEquals(Sha256Hex(node_key), hash->second)) {
    logger_.warn("munge key refused to NodeName={}: its node key is not valid (a removed node?)",
                 node_name);
    return absl::PermissionDeniedError(absl::StrCat(
        "node key is not valid for ", node_name,
        ": the node was removed from the cluster (skiff node remove), or joined before node keys; "
        "join it again with a new token"));
  }
  logger_.info("NodeName={} fetched the munge key", node_name);
  return munge_key_;
}

absl::StatusOr<std::string> Controller::ReloadMungeKey(const Caller& caller) {
  if (!join_) {
    return absl::FailedPreconditionError(
        "this controller takes no joining nodes (no SlurmctldParameters=join_port): nothing "
        "hands them a key");
  }
  if (join_->token_admins.count(caller.uid) == 0) {
    return absl::PermissionDeniedError(
        "Access/permission denied: only root and SlurmUser may replace the munge key");
  }
  // Read outside every lock: a file read is I/O.
  std::ifstream file(join_->munge_key_path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  if (!file || text.str().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "ctld cannot read the munge key at ", join_->munge_key_path, ": ", strerror(errno)));
  }
  const std::string hash = Sha256Hex(text.str());
  {
    absl::MutexLock join(&join_mu_);
    munge_key_ = text.str();
  }
  logger_.info("munge key replaced by uid {} (read again from {}): joined nodes fetch it",
               caller.uid, join_->munge_key_path);
  return hash;
}

absl::Status Controller::DeleteNodes(const Caller& caller, const std::vector<std::string>& names) {
  if (!IsPrivileged(caller.uid)) return absl::PermissionDeniedError("Access/permission denied");
  if (names.empty()) return absl::InvalidArgumentError("Invalid node name specified");
  // Held throughout: no job may start between the check and the removal,
  // since every start is an event decided under commit_mu_ (join_mu_ comes
  // first: the node keys go too).
  absl::MutexLock join(&join_mu_);
  absl::MutexLock serial(&commit_mu_);
  for (const std::string& name : names) {
    if (config()->FindNode(name) == nullptr) {
      return absl::InvalidArgumentError("Invalid node name specified");
    }
    if (std::none_of(joined_nodes_.begin(), joined_nodes_.end(),
                     [&](const NodeConfig& node) { return node.name == name; })) {
      return absl::FailedPreconditionError(
          absl::StrCat("Node ", name,
                       " is defined in skiff.conf, not joined: remove its NodeName line and "
                       "restart ctld"));
    }
  }
  {
    absl::MutexLock lock(&mu_);
    for (const std::string& name : names) {
      const Node* node = core_.state().nodes().Find(name);
      bool busy = node != nullptr && node->alloc_cpus > 0;
      for (const auto& [id, job] : core_.state().jobs()) {
        busy = busy || (HoldsResources(job.state) &&
                        std::find(job.nodes.begin(), job.nodes.end(), name) != job.nodes.end());
      }
      for (const auto& [resv_name, resv] : core_.state().advance_reservations()) {
        busy = busy || std::find(resv.nodes.begin(), resv.nodes.end(), name) != resv.nodes.end();
      }
      if (busy) {
        logger_.info("NodeName={} not deleted: it holds or finishes a job, or is reserved", name);
        return absl::FailedPreconditionError("Requested nodes are busy");
      }
    }
  }
  std::vector<RecordRow> gone;
  for (const std::string& name : names) {
    gone.push_back({kDynamicNodeKind, name, ""});
    gone.push_back({kNodeAdminKind, name, ""});
    gone.push_back({kNodeKeyKind, name, ""});
  }
  if (absl::Status s = store_.Save({}, gone); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("ctld could not store the deletion: ", s.message()));
  }
  for (const std::string& name : names) node_key_hashes_.erase(name);
  joined_nodes_.erase(std::remove_if(joined_nodes_.begin(), joined_nodes_.end(),
                                     [&](const NodeConfig& node) {
                                       return std::find(names.begin(), names.end(), node.name) !=
                                              names.end();
                                     }),
                      joined_nodes_.end());
  file_config_ = std::make_shared<const SkiffConfig>(WithoutNodes(*file_config_, names));
  InstallConfig(std::make_shared<const SkiffConfig>(WithoutNodes(*config(), names)), nullptr);
  for (const std::string& name : names) {
    logger_.info("NodeName={} deleted by uid {}", name, caller.uid);
  }
  return absl::OkStatus();
}

}  // namespace skiff::ctld
