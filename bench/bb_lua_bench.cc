// Benchmarks of burst_buffer/lua's synchronous calls, the ones ctld makes
// itself (issue 5: "measured to be fast"): slurm_bb_job_process at every
// submission, slurm_bb_paths at every job start and slurm_bb_pools every 30 s,
// each through one loaded BbLua running Skiff's example lua/burst_buffer.lua
// with ctld's limits (BbLuaOptions::InCtld: time budget hook, memory-limited
// allocator, restricted libraries), plus the cost of loading a fresh Lua state
// (what BbRuntime pays when its pool grows). The asynchronous hooks run in
// scriptd's helper processes; their cost is a process start each and shows in
// tests/integration/burst_buffer_test.
//
// Prints one line per figure. Run with `./skiff bench` (built with -c opt).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "lua/bb_lua.h"

namespace skiff {
namespace {

using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

std::string FindScript(const char* argv0) {
  for (const std::string& candidate :
       {std::string("lua/burst_buffer.lua"),
        std::string(argv0) + ".runfiles/skiff/lua/burst_buffer.lua"}) {
    if (access(candidate.c_str(), R_OK) == 0) return candidate;
  }
  return "";
}

int Run(const char* argv0) {
  const std::string script = FindScript(argv0);
  if (script.empty()) {
    fprintf(stderr, "bb_lua_bench: cannot find lua/burst_buffer.lua (run from the repository)\n");
    return 1;
  }
  BbLuaLogger quiet = [](BbLuaLogLevel, std::string_view) {};
  const BbLuaOptions ctld = BbLuaOptions::InCtld();
  constexpr int kLoads = 200;
  Clock::time_point start = Clock::now();
  for (int i = 0; i < kLoads; ++i) {
    if (!BbLua::Load(script, quiet, ctld).ok()) return 1;
  }
  printf("bb_lua load (open libs, run burst_buffer.lua, check 11 hooks): %.1f us\n",
         MicrosSince(start) / kLoads);

  absl::StatusOr<std::unique_ptr<BbLua>> lua = BbLua::Load(script, quiet, ctld);
  if (!lua.ok()) return 1;
  const std::string job_script = "/tmp/skiff-bb-bench-script";
  std::ofstream(job_script) << "#!/bin/bash\n#BB_LUA pool=fast capacity=1G\n"
                               "#BB_LUA stage_in source=/etc/hostname destination=/tmp/x\n"
                               "#BB_LUA stage_out source=/tmp/y destination=/tmp/z\nsrun app\n";
  BbJobInfo info;
  info.job_id = 42;
  info.user_id = 1001;
  info.group_id = 1001;
  info.user_name = "alice";
  info.partition = "debug";
  info.burst_buffer = "#BB_LUA pool=fast capacity=1G";

  constexpr int kCalls = 20000;
  start = Clock::now();
  for (int i = 0; i < kCalls; ++i) {
    if (!(*lua)->JobProcess(job_script, 1001, 1001, info).ok()) return 1;
  }
  const double process_us = MicrosSince(start) / kCalls;
  printf(
      "slurm_bb_job_process (example: parse directives, check stage_in source): %.1f us "
      "(%.0f calls/s per thread)\n",
      process_us, 1e6 / process_us);

  start = Clock::now();
  for (int i = 0; i < kCalls; ++i) {
    if (!(*lua)->Pools().ok()) return 1;
  }
  printf("slurm_bb_pools (example: two pools, JSON text): %.1f us\n", MicrosSince(start) / kCalls);

  const std::string path_file = "/tmp/skiff-bb-bench-paths";
  start = Clock::now();
  for (int i = 0; i < kCalls; ++i) {
    if (!(*lua)->Paths(42, job_script, path_file, 1001, 1001, info).ok()) return 1;
  }
  printf("slurm_bb_paths (example: writes BB_JOB_DIR to path_file): %.1f us\n",
         MicrosSince(start) / kCalls);
  unlink(job_script.c_str());
  unlink(path_file.c_str());
  return 0;
}

}  // namespace
}  // namespace skiff

int main(int, char** argv) { return skiff::Run(argv[0]); }
