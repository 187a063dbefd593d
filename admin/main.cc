// skiff: the admin's tool for installing a cluster (docs/decisions.md, "Init
// and join"). Thin main: subcommands and flags; the work is in *_command.cc.
//   skiff init [--cluster-name N] [--partition P]... [--no-start] [--force]
//   skiff token create [--ttl 1h] | skiff token list
//   skiff join HOST[:PORT] [--token-file F | --token -] [-N NAME] [--no-start]
//     (the token on standard input, in a file or in SKIFF_JOIN_TOKEN: never
//     on the command line, where every user of the node can read it)
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "absl/status/status.h"
#include "admin/init_command.h"
#include "admin/join_command.h"
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

int Run(int argc, char** argv) {
  CLI::App app{"skiff: set up a Skiff cluster (init on the head node, join on each node)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("skiff ") + kSkiffVersion);
  std::string root;

  InitOptions init;
  CLI::App* init_cmd = app.add_subcommand(
      "init",
      "on the head node: write /etc/skiff/skiff.conf, make the munge key, start munge "
      "and skiff-ctld, and print the command to run on each node");
  init_cmd->add_option("--cluster-name", init.cluster_name, "ClusterName (default: host name)");
  init_cmd->add_option("--partition", init.partitions,
                       "a partition of every node (Nodes=ALL); repeat for more, the first is "
                       "the default (default: batch)");
  init_cmd->add_option("--host", init.host, "SlurmctldHost (default: this host's short name)");
  init_cmd->add_option("--addr", init.addr,
                       "the address nodes reach ctld at (SlurmctldHost=HOST(ADDR))");
  init_cmd->add_option("--ctld-port", init.ctld_port, "SlurmctldPort")->capture_default_str();
  init_cmd->add_option("--join-port", init.join_port, "the port nodes join at")
      ->capture_default_str();
  init_cmd->add_option("--slurm-user", init.slurm_user, "SlurmUser, ctld's user")
      ->capture_default_str();
  std::string init_ttl;
  init_cmd->add_option("--ttl", init_ttl, "lifetime of the printed join token (default 1h)");
  init_cmd->add_flag("--force", init.force, "write a new skiff.conf over an existing one");
  bool init_no_start = false;
  init_cmd->add_flag("--no-start", init_no_start, "write the files only; start nothing");
  init_cmd->add_option("--root", root, "write every file under this directory (tests)");

  CLI::App* token_cmd = app.add_subcommand("token", "join tokens (root and SlurmUser only)");
  token_cmd->require_subcommand(1);
  std::string conf;
  std::string ttl;
  CLI::App* create_cmd =
      token_cmd->add_subcommand("create", "a one-time token for one node to join");
  create_cmd->add_option("--ttl", ttl,
                         "how long it stays valid: seconds or 30m, 1h, 2d (default 1h)");
  create_cmd->add_option("-f,--conf", conf,
                         "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");
  CLI::App* list_cmd = token_cmd->add_subcommand("list", "the tokens ctld knows and their state");
  list_cmd->add_option("-f,--conf", conf,
                       "skiff.conf (default: $SKIFF_CONF, /etc/skiff/skiff.conf)");

  JoinOptions join;
  CLI::App* join_cmd = app.add_subcommand(
      "join",
      "on a node: join the cluster whose controller is at HOST[:PORT] (the join port, "
      "default 6820), install the munge key and start skiff-noded");
  join_cmd->add_option("target", join.target, "HOST[:PORT] of the controller's join port")
      ->required();
  JoinTokenSource token_source;
  std::string token_arg;
  join_cmd->add_option("--token-file", token_source.file,
                       "a file holding the token `skiff token create` printed (yours, mode "
                       "0600); - for standard input. Without it the token is read from "
                       "SKIFF_JOIN_TOKEN, else from standard input (asked for on a terminal)");
  CLI::Option* token_opt = join_cmd->add_option(
      "--token", token_arg,
      "only `--token -`: the token on standard input. A token here is refused: every user "
      "of the machine can read a command line");
  join_cmd->add_option("-N,--node-name", join.node_name, "NodeName (default: short host name)");
  join_cmd
      ->add_option("--slurm-user", join.slurm_user,
                   "the controller's SlurmUser, whose uid must be the same here")
      ->capture_default_str();
  join_cmd->add_option("--port", join.port, "noded's port (default: SlurmdPort)");
  join_cmd->add_option("--addr", join.addr,
                       "the address ctld reaches noded at (default: the one this join comes from)");
  join_cmd->add_option("--munge-key", join.munge_key,
                       "where to install the key (default /etc/munge/munge.key)");
  join_cmd->add_option("--defaults-file", join.defaults_file,
                       "noded's settings (default /etc/default/skiff-noded)");
  join_cmd->add_option("--conf-cache", join.conf_cache, "noded's --conf-cache");
  join_cmd->add_option("--timeout", join.timeout_seconds, "seconds to wait for the controller")
      ->capture_default_str();
  bool join_no_start = false;
  join_cmd->add_flag("--no-start", join_no_start, "write the files only; start nothing");
  join_cmd->add_option("--root", root, "write every file under this directory (tests)");

  CLI11_PARSE(app, argc, argv);

  if (init_cmd->parsed()) {
    init.root = root;
    init.start = !init_no_start;
    if (!init_ttl.empty()) {
      absl::StatusOr<int64_t> seconds = ParseJoinTtl(init_ttl);
      if (!seconds.ok()) return Report(seconds.status());
      init.ttl_seconds = *seconds;
    }
    return Print(RunInit(init, SystemCommandRunner()));
  }
  if (create_cmd->parsed()) {
    int64_t seconds = kDefaultJoinTokenTtl;
    if (!ttl.empty()) {
      absl::StatusOr<int64_t> parsed = ParseJoinTtl(ttl);
      if (!parsed.ok()) return Report(parsed.status());
      seconds = *parsed;
    }
    absl::StatusOr<v1::CreateJoinTokenReply> created = CreateToken(conf, seconds);
    if (!created.ok()) return Report(created.status());
    return Print(FormatCreatedToken(*created, time(nullptr)));
  }
  if (list_cmd->parsed()) {
    absl::StatusOr<v1::ListJoinTokensReply> listed = ListTokens(conf);
    if (!listed.ok()) return Report(listed.status());
    return Print(FormatTokenList(*listed));
  }
  if (join_cmd->parsed()) {
    join.root = root;
    join.start = !join_no_start;
    if (token_opt->count() > 0) token_source.arg = token_arg;
    if (const char* env = getenv("SKIFF_JOIN_TOKEN")) token_source.env = std::string(env);
    // Nothing this command starts (systemctl) needs it.
    unsetenv("SKIFF_JOIN_TOKEN");
    absl::StatusOr<std::string> token = ReadJoinToken(token_source, STDIN_FILENO);
    if (!token.ok()) return Report(token.status());
    join.token = *std::move(token);
    return Print(RunJoin(join, SystemCommandRunner()));
  }
  return 1;
}

}  // namespace
}  // namespace skiff::cli

int main(int argc, char** argv) {
  // A peer that closes a TLS connection first must not kill the tool.
  signal(SIGPIPE, SIG_IGN);
  return skiff::cli::Run(argc, argv);
}
