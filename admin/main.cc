// skiff: the admin's tool for installing a cluster (docs/decisions.md, "Init
// and join"). Thin main: subcommands and flags; the work is in *_command.cc.
//   skiff init [--cluster-name N] [--partition P]... [--no-start] [--force]
//     [--standby NAME --vote NAME]   (a standby controller over etcd)
//   skiff init --bundle FILE         (on that standby and vote)
//   skiff token create [--ttl 1h] | skiff token list
//   skiff join HOST[:PORT] [--token-file F | --token -] [-N NAME] [--no-start]
//     (the token on standard input, in a file or in SKIFF_JOIN_TOKEN: never
//     on the command line, where every user of the node can read it)
//   skiff node remove NAME... [--keep-key]   (then a new munge key)
//   skiff key rotate | skiff key fetch
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "admin/ha/ha_init.h"
#include "admin/init_command.h"
#include "admin/join_command.h"
#include "admin/key_commands.h"
#include "admin/node_commands.h"
#include "admin/node_key.h"
#include "admin/token_commands.h"
#include "common/join/join_token.h"
#include "common/version.h"

namespace skiff::cli {
namespace {

int Report(const absl::Status& status) {
  fprintf(stderr, "skiff: error: %s\n", std::string(status.message()).c_str());
  return 1;
}

int Print(const absl::StatusOr<std::string>& text) {
  if (!text.ok()) return Report(text.status());
  fputs(text->c_str(), stdout);
  return 0;
}

// `skiff init`'s flags, as parsed.
struct InitFlags {
  CLI::App* command = nullptr;
  InitOptions options;
  std::string ttl;
  bool no_start = false;
};

void AddInit(CLI::App& app, InitFlags& init, std::string& root) {
  init.command = app.add_subcommand(
      "init",
      "on the head node: write /etc/skiff/skiff.conf, make the munge key, start munge "
      "and skiff-ctld, and print the command to run on each node");
  CLI::App* cmd = init.command;
  InitOptions& o = init.options;
  cmd->add_option("--cluster-name", o.cluster_name, "ClusterName (default: host name)");
  cmd->add_option("--partition", o.partitions,
                  "a partition of every node (Nodes=ALL); repeat for more, the first is "
                  "the default (default: batch)");
  cmd->add_option("--host", o.host, "SlurmctldHost (default: this host's short name)");
  cmd->add_option("--addr", o.addr, "the address nodes reach ctld at (SlurmctldHost=HOST(ADDR))");
  cmd->add_option("--ctld-port", o.ctld_port, "SlurmctldPort")->capture_default_str();
  cmd->add_option("--join-port", o.join_port, "the port nodes join at")->capture_default_str();
  cmd->add_option("--slurm-user", o.slurm_user, "SlurmUser, ctld's user")->capture_default_str();
  cmd->add_option("--ttl", init.ttl, "lifetime of the printed join token (default 1h)");
  cmd->add_option("--standby", o.standbys,
                  "NAME or NAME(ADDRESS): a standby controller, also an etcd member (a "
                  "controller that survives this machine: with --vote)");
  cmd->add_option("--vote", o.votes,
                  "NAME or NAME(ADDRESS): a third (fifth...) etcd member, to keep a majority");
  cmd->add_option("--bundle", o.bundle,
                  "on a standby or vote machine: install the bundle the head's init wrote for it");
  cmd->add_flag("--force", o.force, "write a new skiff.conf over an existing one");
  cmd->add_flag("--no-start", init.no_start, "write the files only; start nothing");
  cmd->add_option("--root", root, "write every file under this directory (tests)");
}

int RunInitCommand(InitFlags& init, const std::string& root) {
  init.options.root = root;
  init.options.start = !init.no_start;
  if (!init.ttl.empty()) {
    absl::StatusOr<int64_t> seconds = ParseJoinTtl(init.ttl);
    if (!seconds.ok()) return Report(seconds.status());
    init.options.ttl_seconds = *seconds;
  }
  if (!init.options.bundle.empty()) {
    if (!init.options.standbys.empty() || !init.options.votes.empty()) {
      return Report(absl::InvalidArgumentError(
          "--bundle is for the other machines, --standby and --vote for the head"));
    }
    return Print(ha::InstallBundle(
        {init.options.bundle, root, init.options.host, init.options.force, init.options.start},
        SystemCommandRunner()));
  }
  return Print(RunInit(init.options, SystemCommandRunner()));
}

// `skiff token create|list`'s flags, as parsed.
struct TokenFlags {
  CLI::App* create = nullptr;
  CLI::App* list = nullptr;
  std::string conf;
  std::string ttl;
};

void AddToken(CLI::App& app, TokenFlags& token) {
  CLI::App* token_cmd = app.add_subcommand("token", "join tokens (root and SlurmUser only)");
  token_cmd->require_subcommand(1);
  token.create = token_cmd->add_subcommand("create", "a one-time token for one node to join");
  token.create->add_option("--ttl", token.ttl,
                           "how long it stays valid: seconds or 30m, 1h, 2d (default 1h)");
  token.create->add_option("-f,--conf", token.conf,
                           "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
  token.list = token_cmd->add_subcommand("list", "the tokens ctld knows and their state");
  token.list->add_option("-f,--conf", token.conf,
                         "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
}

int RunTokenCommand(const TokenFlags& token) {
  if (token.list->parsed()) {
    absl::StatusOr<v1::ListJoinTokensReply> listed = ListTokens(token.conf);
    if (!listed.ok()) return Report(listed.status());
    return Print(FormatTokenList(*listed));
  }
  int64_t seconds = kDefaultJoinTokenTtl;
  if (!token.ttl.empty()) {
    absl::StatusOr<int64_t> parsed = ParseJoinTtl(token.ttl);
    if (!parsed.ok()) return Report(parsed.status());
    seconds = *parsed;
  }
  absl::StatusOr<v1::CreateJoinTokenReply> created = CreateToken(token.conf, seconds);
  if (!created.ok()) return Report(created.status());
  return Print(FormatCreatedToken(*created, time(nullptr)));
}

// `skiff node remove`'s flags, as parsed.
struct NodeFlags {
  CLI::App* remove = nullptr;
  std::vector<std::string> names;
  KeyRotateOptions rotate;
  bool keep_key = false;
  bool no_start = false;
};

// The flags of a new munge key, for `skiff key rotate` and `skiff node remove`.
void AddRotateFlags(CLI::App* cmd, KeyRotateOptions& rotate, bool& no_start, std::string& root) {
  cmd->add_option("-f,--conf", rotate.conf_path,
                  "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
  cmd->add_option("--munge-key", rotate.munge_key,
                  "munged's key on this host (default /etc/munge/munge.key)");
  cmd->add_flag("--no-start", no_start, "write the new key only; restart nothing");
  cmd->add_option("--root", root, "this host's paths under this directory (tests)");
}

void AddNode(CLI::App& app, NodeFlags& node, std::string& root) {
  CLI::App* node_cmd = app.add_subcommand("node", "the cluster's joined nodes (operators)");
  node_cmd->require_subcommand(1);
  node.remove = node_cmd->add_subcommand(
      "remove",
      "take joined nodes out of the cluster, as scontrol delete NodeName= (stop skiff-noded on "
      "them first; refused while one holds a job), then give the cluster a new munge key the "
      "removed nodes cannot fetch (on the head node, as root)");
  node.remove->add_option("names", node.names, "node names or lists (n[7-8])")->required();
  node.remove->add_flag("--keep-key", node.keep_key,
                        "keep the munge key: the removed machines can still make credentials");
  AddRotateFlags(node.remove, node.rotate, node.no_start, root);
}

int RunNodeCommand(NodeFlags& node, const std::string& root) {
  if (absl::Status s = RemoveNodes(node.rotate.conf_path, node.names); !s.ok()) return Report(s);
  printf("Removed %s from the cluster.\n", absl::StrJoin(node.names, " ").c_str());
  if (node.keep_key) {
    puts(
        "Kept the munge key (--keep-key): the removed machines can still make credentials "
        "every daemon accepts.");
    return 0;
  }
  node.rotate.root = root;
  node.rotate.start = !node.no_start;
  return Print(RotateMungeKey(node.rotate, SystemCommandRunner()));
}

// `skiff key rotate|fetch`'s flags, as parsed.
struct KeyFlags {
  CLI::App* rotate = nullptr;
  CLI::App* fetch = nullptr;
  KeyRotateOptions rotate_options;
  bool no_start = false;
  std::string node_key;
  int timeout_seconds = 10;
};

void AddKey(CLI::App& app, KeyFlags& key, std::string& root) {
  CLI::App* key_cmd = app.add_subcommand("key", "the cluster's munge key (root)");
  key_cmd->require_subcommand(1);
  key.rotate = key_cmd->add_subcommand(
      "rotate",
      "on the head node: a new munge key, which joined nodes fetch with their node keys "
      "(skiff node remove does this after removing)");
  AddRotateFlags(key.rotate, key.rotate_options, key.no_start, root);
  key.fetch = key_cmd->add_subcommand(
      "fetch",
      "on a joined node: fetch the cluster's munge key with this node's key and restart munge "
      "when it changed (noded does this by itself when ctld refuses its credential)");
  key.fetch->add_option("--node-key", key.node_key,
                        "the node key file skiff join wrote (default /etc/skiff/node.key)");
  key.fetch->add_option("--timeout", key.timeout_seconds, "seconds to wait for the controller")
      ->capture_default_str();
}

int RunKeyCommand(KeyFlags& key, const std::string& root) {
  if (key.fetch->parsed()) {
    return Print(FetchMungeKeyCommand(key.node_key.empty() ? kNodeKeyPath : key.node_key,
                                      key.timeout_seconds, SystemCommandRunner()));
  }
  key.rotate_options.root = root;
  key.rotate_options.start = !key.no_start;
  return Print(RotateMungeKey(key.rotate_options, SystemCommandRunner()));
}

// `skiff join`'s flags, as parsed.
struct JoinFlags {
  CLI::App* command = nullptr;
  JoinOptions options;
  JoinTokenSource token_source;
  std::string token_arg;
  CLI::Option* token_option = nullptr;
  bool no_start = false;
};

void AddJoin(CLI::App& app, JoinFlags& join, std::string& root) {
  join.command = app.add_subcommand(
      "join",
      "on a node: join the cluster whose controller is at HOST[:PORT] (the join port, "
      "default 6820), install the munge key and start skiff-noded");
  CLI::App* cmd = join.command;
  JoinOptions& o = join.options;
  cmd->add_option("target", o.target, "HOST[:PORT] of the controller's join port")->required();
  cmd->add_option("--token-file", join.token_source.file,
                  "a file holding the token `skiff token create` printed (yours, mode "
                  "0600); - for standard input. Without it the token is read from "
                  "SKIFF_JOIN_TOKEN, else from standard input (asked for on a terminal)");
  join.token_option = cmd->add_option(
      "--token", join.token_arg,
      "only `--token -`: the token on standard input. A token here is refused: every user "
      "of the machine can read a command line");
  cmd->add_option("-N,--node-name", o.node_name, "NodeName (default: short host name)");
  cmd->add_option("--slurm-user", o.slurm_user,
                  "the controller's SlurmUser, whose uid must be the same here")
      ->capture_default_str();
  cmd->add_option("--port", o.port, "noded's port (default: SlurmdPort)");
  cmd->add_option("--addr", o.addr,
                  "the address ctld reaches noded at (default: the one this join comes from)");
  cmd->add_option("--munge-key", o.munge_key,
                  "where to install the key (default /etc/munge/munge.key)");
  cmd->add_option("--defaults-file", o.defaults_file,
                  "noded's settings (default /etc/default/skiff-noded)");
  cmd->add_option("--conf-cache", o.conf_cache, "noded's --conf-cache");
  cmd->add_option("--timeout", o.timeout_seconds, "seconds to wait for the controller")
      ->capture_default_str();
  cmd->add_flag("--no-start", join.no_start, "write the files only; start nothing");
  cmd->add_option("--root", root, "write every file under this directory (tests)");
}

int RunJoinCommand(JoinFlags& join, const std::string& root) {
  join.options.root = root;
  join.options.start = !join.no_start;
  if (join.token_option->count() > 0) join.token_source.arg = join.token_arg;
  if (const char* env = getenv("SKIFF_JOIN_TOKEN")) join.token_source.env = std::string(env);
  // Nothing this command starts (systemctl) needs it.
  unsetenv("SKIFF_JOIN_TOKEN");
  absl::StatusOr<std::string> token = ReadJoinToken(join.token_source, STDIN_FILENO);
  if (!token.ok()) return Report(token.status());
  join.options.token = *std::move(token);
  return Print(RunJoin(join.options, SystemCommandRunner()));
}

int Run(int argc, char** argv) {
  CLI::App app{"skiff: set up a Skiff cluster (init on the head node, join on each node)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("skiff ") + kSkiffVersion);
  std::string root;
  InitFlags init;
  TokenFlags token;
  JoinFlags join;
  NodeFlags node;
  KeyFlags key;
  AddInit(app, init, root);
  AddToken(app, token);
  AddJoin(app, join, root);
  AddNode(app, node, root);
  AddKey(app, key, root);
  CLI11_PARSE(app, argc, argv);
  if (init.command->parsed()) return RunInitCommand(init, root);
  if (token.create->parsed() || token.list->parsed()) return RunTokenCommand(token);
  if (join.command->parsed()) return RunJoinCommand(join, root);
  if (node.remove->parsed()) return RunNodeCommand(node, root);
  if (key.rotate->parsed() || key.fetch->parsed()) return RunKeyCommand(key, root);
  return 1;
}

}  // namespace
}  // namespace skiff::cli

int main(int argc, char** argv) {
  // A peer that closes a TLS connection first must not kill the tool.
  signal(SIGPIPE, SIG_IGN);
  return skiff::cli::Run(argc, argv);
}
