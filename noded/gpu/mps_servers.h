// gres/mps on this node: NVIDIA's MPS control daemon, one per GPU in MPS
// use, run as the user of the jobs on it. noded starts it for the GPU's first
// MPS job (before the job's script) and tells it to quit once the GPU's last
// MPS job has ended, as Slurm's example prolog does by hand (etc/prolog.example
// in Slurm's source). ctld never puts two users' MPS jobs on one GPU at once:
// one MPS server serves one uid.
//
// The job finds its GPU's server through CUDA_MPS_PIPE_DIRECTORY (and logs to
// CUDA_MPS_LOG_DIRECTORY): <run_dir>/gpu<N>.<uid>/pipe and .../log, made by
// root in root's run_dir and given to the user, never a path the user chose.
// The server sees only its GPU, so through it CUDA numbers that GPU 0 (what
// Slurm's guide says an MPS job's CUDA_VISIBLE_DEVICES is).
//
// Fenced shares (gres.conf Flags=fence, Skiff's): a shard job also runs
// under the GPU's server, and its share of the GPU's memory becomes
// CUDA_MPS_PINNED_DEVICE_MEM_LIMIT, which the server enforces.
//
// MpsBook is the pure part (which GPU serves whom, when to start and stop);
// MpsServers runs the daemon. Without nvidia-cuda-mps-control on this node
// MPS jobs run without a server (as on a Slurm node without the prolog), and
// noded says so once. $SKIFF_MPS_CONTROL names another control program (the
// tests' stand-in).
//
// Threads: MpsServers' methods may be called from any thread; one mutex
// guards the book, and no program runs under it. Quitting a daemon runs on
// MpsServers' own thread (Start() to Stop()), never on the caller's.
#ifndef SKIFF_NODED_GPU_MPS_SERVERS_H_
#define SKIFF_NODED_GPU_MPS_SERVERS_H_

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "spdlog/spdlog.h"

namespace skiff::noded {

// Who a GPU's MPS server serves, and its jobs.
class MpsBook {
 public:
  struct Server {
    int gpu = 0;
    uid_t uid = 0;
    gid_t gid = 0;
  };

  // Job `job_id` uses GPU `gpu`'s server as `uid`. True: the GPU had none
  // (start it). FailedPrecondition: it serves another uid. Joining twice is
  // one join.
  absl::StatusOr<bool> Join(uint64_t job_id, const Server& server);
  // The servers whose jobs are all gone from `running`: they are forgotten
  // here and returned to be told to quit.
  std::vector<Server> EndAllBut(const std::set<uint64_t>& running);
  // GPU `gpu` has no server after all (it could not be started).
  void Forget(int gpu) { gpus_.erase(gpu); }

 private:
  struct Gpu {
    Server server;
    std::set<uint64_t> jobs;
  };
  std::map<int, Gpu> gpus_;
};

struct MpsServerOptions {
  std::string run_dir;                      // root's; the pipe and log directories go under it
  std::string control;                      // nvidia-cuda-mps-control's path; "" = none here
  std::vector<std::string> gpu_cuda_names;  // by GPU index: CUDA_VISIBLE_DEVICES' name; "" = index
  // A GPU's memory in bytes, by GPU index (NVML's figure); nullopt when
  // unknown. Asked once a GPU, outside the lock; unset = never known.
  std::function<std::optional<uint64_t>(int gpu)> gpu_memory_bytes;
};

// CUDA_MPS_PINNED_DEVICE_MEM_LIMIT for `fraction` of a GPU of `total_bytes`,
// the GPU being the job's device 0 through its server: "0=10240M" (MiB,
// rounded down, at least 1).
std::string PinnedMemoryLimit(uint64_t total_bytes, double fraction);

class MpsServers {
 public:
  MpsServers(MpsServerOptions options, spdlog::logger& logger);
  ~MpsServers();  // Stop()

  void Start();
  void Stop();

  // What job `job_id`, on GPU `gpu` as uid/gid, adds to its environment
  // (CUDA_MPS_PIPE_DIRECTORY, CUDA_MPS_LOG_DIRECTORY; with a
  // `memory_fraction`, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT where the GPU's
  // memory is known), after starting the GPU's daemon if it has none; empty
  // without a control program or when the daemon could not be started (said
  // in the log: the job runs without MPS).
  std::map<std::string, std::string> ForJob(uint64_t job_id, int gpu, uid_t uid, gid_t gid,
                                            double memory_fraction = 0);
  // A job re-adopted after a noded restart: its GPU's daemon is running.
  void Adopt(uint64_t job_id, int gpu, uid_t uid, gid_t gid);
  // Tells the daemons whose jobs all ended to quit (on the own thread).
  void JobsRunning(const std::vector<uint64_t>& running);

  // nvidia-cuda-mps-control in the usual places, or $SKIFF_MPS_CONTROL; "" if none.
  static std::string FindControl();

 private:
  std::string Dir(const MpsBook::Server& server) const;
  std::vector<std::string> Environment(const MpsBook::Server& server) const;
  bool StartDaemon(const MpsBook::Server& server);
  std::optional<uint64_t> GpuMemory(int gpu);
  void QuitDaemon(const MpsBook::Server& server);
  void Loop();

  const MpsServerOptions options_;
  spdlog::logger& logger_;
  std::mutex mu_;
  std::condition_variable wake_;
  MpsBook book_;                         // guarded by mu_
  std::deque<MpsBook::Server> to_quit_;  // guarded by mu_
  std::set<int> quitting_;               // guarded by mu_: GPUs whose daemon Loop is quitting
  std::set<int> starting_;               // guarded by mu_: GPUs whose daemon ForJob is starting
  bool stopping_ = false;                // guarded by mu_
  bool said_no_control_ = false;         // guarded by mu_
  // By GPU index: its memory as gpu_memory_bytes said (nullopt: unknown).
  std::map<int, std::optional<uint64_t>> gpu_memory_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace skiff::noded

#endif  // SKIFF_NODED_GPU_MPS_SERVERS_H_
