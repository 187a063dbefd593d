// ctld's commits through etcd (issue 53's target: at least 2,000 commits/s
// through one connection, each stored before it is acknowledged): a local
// etcd member (Debian's etcd-server, its data on this machine's disk), one
// leader, and N commits of 1 KB each written as leader_txn's commit
// transactions, one commit a transaction and then G a transaction (the group
// commit ctld is to use), one transaction at a time. Prints commits/s and the
// transactions' median and 99th-percentile latency for each G.
//
// Usage: etcd_commit_bench [--commits N] [--dir DIR]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ctld/replication/etcd_client.h"
#include "ctld/replication/etcd_member.h"
#include "ctld/replication/leader_txn.h"

using skiff::ctld::replication::CampaignTxn;
using skiff::ctld::replication::Candidate;
using skiff::ctld::replication::CommitGroupTxn;
using skiff::ctld::replication::CommitOutcome;
using skiff::ctld::replication::EtcdClient;
using skiff::ctld::replication::LocalEtcd;
using skiff::ctld::replication::ReadCommitOutcome;

int main(int argc, char** argv) {
  int commits = 2000;
  std::string dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--commits") == 0) commits = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--dir") == 0) dir = argv[i + 1];
  }
  std::string scratch = dir + "/etcd_commit_bench-XXXXXX";
  if (mkdtemp(scratch.data()) == nullptr) return 1;
  int status = 0;
  {
    LocalEtcd etcd(scratch);
    if (!etcd.started()) {
      printf("etcd commits: no %s (Debian's etcd-server); skipped\n",
             skiff::ctld::replication::kEtcdBinary);
    } else {
      EtcdClient client(etcd.target());
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      while (!client.Get("/skiff/ready").ok() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      absl::StatusOr<int64_t> lease = client.GrantLease(60);
      Candidate me{"/skiff/bench", "head", lease.value_or(0)};
      absl::StatusOr<etcdserverpb::TxnResponse> won =
          lease.ok() ? client.Txn(CampaignTxn(me)) : lease.status();
      if (!won.ok() || !won->succeeded()) {
        printf("etcd commits: could not lead (%s)\n%s", std::string(won.status().message()).c_str(),
               etcd.Log().c_str());
        status = 1;
      }
      uint64_t seq = 1;
      const std::string record(1024, 'r');
      for (int group : {1, 8, 64}) {
        if (status != 0) break;
        std::vector<double> latencies;
        const auto start = std::chrono::steady_clock::now();
        for (int done = 0; done < commits; done += group) {
          const std::vector<std::string> records(static_cast<size_t>(group), record);
          const auto t0 = std::chrono::steady_clock::now();
          absl::StatusOr<etcdserverpb::TxnResponse> answer =
              client.Txn(CommitGroupTxn(me, seq, records));
          latencies.push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count());
          if (!answer.ok() || ReadCommitOutcome(*answer, record) != CommitOutcome::kCommitted) {
            printf("etcd commits: commit %llu not written\n", static_cast<unsigned long long>(seq));
            status = 1;
            break;
          }
          seq += static_cast<uint64_t>(group);
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::sort(latencies.begin(), latencies.end());
        printf(
            "etcd commits, %2d a transaction: %d commits of 1 KB in %.2f s, %.0f commits/s; "
            "a transaction %.2f ms median, %.2f ms p99\n",
            group, commits, seconds, commits / seconds, latencies[latencies.size() / 2],
            latencies[std::min(latencies.size() - 1, latencies.size() * 99 / 100)]);
      }
    }
  }
  std::system(("rm -rf " + scratch).c_str());
  return status;
}
