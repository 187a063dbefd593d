// What noded's main assembles before it serves, as named pieces: the node it
// is (configuration, configless fetch, hardware, GPUs, spool directory), the
// job manager's options, and the registration it sends ctld. Run on the main
// thread at start, before any other thread exists.
#ifndef SKIFF_NODED_NODE_SETUP_H_
#define SKIFF_NODED_NODE_SETUP_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/config_loader.h"
#include "noded/cgroup/confinement.h"
#include "noded/container/container_support.h"
#include "noded/hardware.h"
#include "noded/job_manager.h"
#include "proto/ctld.grpc.pb.h"

namespace skiff::noded {

// noded's command line.
struct NodedFlags {
  std::string conf;         // -f; "": $SKIFF_CONF, /etc/skiff/skiff.conf
  std::string node_name;    // -N; "": the short host name
  std::string shepherd;     // --shepherd; "": $SKIFF_SHEPHERD, or next to noded
  int verbose = 0;          // -v, repeated
  std::string conf_server;  // --conf-server HOST[:PORT][,HOST[:PORT]...]: configless
  std::string conf_cache;   // --conf-cache, %n = node name
  bool dynamic = false;     // -Z: a joined node, registering what it found
  int dynamic_port = 0;     // --port with -Z and no NodeName line; 0: SlurmdPort
  std::string node_key;     // --node-key: `skiff join`'s node key file (munge_key_renewal.h)
};

// The node noded serves, from its flags, its configuration and the machine.
struct NodeSetup {
  std::string node_name;
  LoadedConfig loaded;
  std::string conf_path;  // skiff.conf as read (the cache's copy when configless)
  // configless: --conf-server's HOST:PORTs, in order; empty otherwise
  std::vector<std::string> conf_servers;
  std::string conf_served_by;   // configless: the HOST:PORT that served; "" from the cache
  std::string conf_cache;       // configless: the cache directory, node name substituted
  std::string conf_hash;        // configless: the hash of the files fetched
  std::string configless_note;  // configless: fetched, or started from the cache and why
  Hardware hw;
  NodeConfig node;               // its NodeName line, or for -Z what this machine has
  bool listen_anywhere = false;  // -Z without a NodeName line: every address
  std::vector<NodeGres> gres;
  std::string detect_note;  // AutoDetect=nvml: what NVML found, or why gres.conf is used
  int log_level = 0;        // spdlog's, SlurmdDebug lowered by -v
  std::string spool;        // SlurmdSpoolDir, node name substituted, checked to be noded's
  uid_t slurm_user_uid = 0;
  int port = 0;
  std::string listen_host;  // "" = every address
};

// Fetches (configless) or reads the configuration, finds the node, its
// hardware and GPUs, and makes and checks the spool directory. An error is the
// one line noded dies with after "noded: fatal: ". Sets SKIFF_CONF to the
// cached copy when configless, for the node's helpers and its jobs.
absl::StatusOr<NodeSetup> SetUpNode(NodedFlags flags);

// The job manager's options: the node's scripts and limits, its cgroups and
// container support. `shepherd` is the shepherd binary.
JobManagerOptions JobManagerOptionsFrom(const NodeSetup& setup, const std::string& shepherd,
                                        const Confinement& confinement,
                                        const ContainerSupport& containers);

// What noded registers with: its hardware and gres (the agent adds its jobs),
// and why ctld should drain it, if anything here cannot work.
v1::RegisterRequest RegistrationFrom(const NodeSetup& setup, int64_t start_time,
                                     const std::string& drain_reason);

}  // namespace skiff::noded

#endif  // SKIFF_NODED_NODE_SETUP_H_
