// Benchmarks of the configuration layer: how long ctld, every noded and every CLI
// call spend reading skiff.conf on a large lab cluster, and hostlist speed.
//
// Prints one line per figure. Run with `./skiff bench` (built with -c opt).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/config/config.h"
#include "common/hostlist.h"

namespace skiff {
namespace {

using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// A config with `racks` NodeName lines of 50 nodes each, plus per-node lines.
std::string LargeConfig(int nodes) {
  std::string text =
      "ClusterName=bench\nSlurmctldHost=ctl(10.0.0.1)\nGresTypes=gpu\n"
      "NodeName=DEFAULT CPUs=64 RealMemory=512000\n";
  for (int i = 0; i < nodes; ++i) {
    char line[160];
    snprintf(line, sizeof(line),
             "NodeName=node%04d NodeAddr=10.1.%d.%d Gres=gpu:a100:8 Features=rack%d\n", i, i / 250,
             i % 250, i / 50);
    text += line;
  }
  char partition[128];
  snprintf(partition, sizeof(partition), "PartitionName=all Nodes=node[0000-%04d] Default=YES\n",
           nodes - 1);
  text += partition;
  text += "PartitionName=gpu Nodes=ALL MaxTime=2-00:00:00\n";
  return text;
}

void BenchConfig(int nodes) {
  const std::string text = LargeConfig(nodes);
  const IncludeReader no_includes = [](const std::string& path) -> absl::StatusOr<std::string> {
    return absl::NotFoundError(path);
  };
  constexpr int kRounds = 20;
  auto start = Clock::now();
  size_t parsed_nodes = 0;
  for (int i = 0; i < kRounds; ++i) {
    absl::StatusOr<SkiffConfig> config = ParseSkiffConfig(text, "skiff.conf", no_includes);
    if (!config.ok()) {
      fprintf(stderr, "parse failed: %s\n", std::string(config.status().message()).c_str());
      return;
    }
    parsed_nodes = config->nodes.size();
  }
  printf("parse skiff.conf, %5zu nodes (%7zu bytes): %9.1f us per parse\n", parsed_nodes,
         text.size(), MicrosSince(start) / kRounds);
}

void BenchHostlist(int names) {
  char expression[64];
  snprintf(expression, sizeof(expression), "gpu[000001-%06d]", names);
  constexpr int kRounds = 20;
  auto start = Clock::now();
  std::vector<std::string> expanded;
  for (int i = 0; i < kRounds; ++i) expanded = *ExpandHostlist(expression);
  const double expand_us = MicrosSince(start) / kRounds;
  start = Clock::now();
  std::string compressed;
  for (int i = 0; i < kRounds; ++i) compressed = CompressHostlist(expanded);
  const double compress_us = MicrosSince(start) / kRounds;
  printf("hostlist %7d names: expand %9.1f us, compress %9.1f us (-> %s)\n", names, expand_us,
         compress_us, compressed.c_str());
}

}  // namespace
}  // namespace skiff

int main() {
  for (int nodes : {100, 1000, 5000}) skiff::BenchConfig(nodes);
  for (int names : {1000, 10000, 100000}) skiff::BenchHostlist(names);
  return 0;
}
