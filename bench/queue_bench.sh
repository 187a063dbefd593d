#!/usr/bin/env bash
# Large-queue benchmark (issue 15): fills the queue with held jobs (arrays of
# held tasks, so that nothing runs and every task is its own job record), then
# times the commands that read the whole queue, and reports the controller's
# resident memory per job. Run against whichever sbatch/squeue/scontrol come
# first on PATH: Skiff's (a cluster's bin/, with MaxArraySize large enough) or
# Slurm's.
#
# Usage: queue_bench.sh LABEL CONTROLLER_PID JOBS [ARRAY_SIZE]
# Prints one line per figure, prefixed with LABEL.
set -euo pipefail

label=${1:?label (skiff or slurm)}
ctld_pid=${2:?controller pid}
jobs=${3:-10000}
array=${4:-1000}

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
now_ns() { date +%s%N; }
ms_since() { echo $(( ($(now_ns) - $1) / 1000000 )); }

rss_before=$(rss_kib "$ctld_pid")
start=$(now_ns)
submitted=0
while [ "$submitted" -lt "$jobs" ]; do
  n=$(( jobs - submitted < array ? jobs - submitted : array ))
  sbatch -H -o /dev/null --array=0-$((n - 1)) --wrap=true >/dev/null
  submitted=$(( submitted + n ))
done
echo "$label queue: $jobs held jobs submitted in $(ms_since "$start") ms"
rss_after=$(rss_kib "$ctld_pid")
echo "$label queue: controller RSS ${rss_before} -> ${rss_after} KiB, $(( (rss_after - rss_before) * 1024 / jobs )) bytes per queued job"

time_cmd() {
  local what=$1; shift
  local best=""
  for _ in 1 2 3; do
    local t0; t0=$(now_ns)
    "$@" >/dev/null 2>&1 || { echo "$label $what: FAILED"; return; }
    local ms; ms=$(ms_since "$t0")
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$label $what: ${best} ms (best of 3)"
}
time_cmd "squeue (every task on its own line, -r)" squeue -r
time_cmd "squeue (default, arrays folded)" squeue
time_cmd "squeue -h -t PD -o %i -r" squeue -h -t PD -o %i -r
time_cmd "scontrol show job" scontrol show job
time_cmd "squeue -u nobody (filtered on the server)" squeue -u nobody
