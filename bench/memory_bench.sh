#!/usr/bin/env bash
# Controller memory per finished job (issue 15), and whether it goes back after
# purging. Run against a Skiff cluster whose MinJobAge is short (the figure
# needs the jobs to end and then be purged) and MaxArraySize above N:
#
#   1. the controller's idle RSS, when started and again after a warm-up
#      (an array of 20 that runs and is purged): the code a job's path runs is
#      paged in once, the first time (~3 MB of the binary and its libraries),
#      which is not memory held for jobs; the figures below are against the
#      warm idle size;
#   2. an array of N x `true` runs to its end: wall time and jobs per second
#      (the same workload as sidebyside.sh's array, at another size);
#   3. RSS while every finished task is still held (MinJobAge not yet over):
#      bytes per finished job held;
#   4. RSS once MinJobAge has passed and the jobs were purged.
#
# Usage: memory_bench.sh CONTROLLER_PID MIN_JOB_AGE [N]
set -euo pipefail

ctld_pid=${1:?controller pid}
min_job_age=${2:?MinJobAge of the cluster, seconds}
n=${3:-10000}

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
now_ns() { date +%s%N; }

wait_empty() { while [ -n "$(squeue -h -t PD,R,CG,CF -o %i | head -1)" ]; do sleep 0.1; done; }
cold=$(rss_kib "$ctld_pid")
sbatch --parsable --array=0-19 -o /dev/null -J membench-warmup --wrap=true >/dev/null
wait_empty
sleep $(( min_job_age + 3 ))
idle=$(rss_kib "$ctld_pid")
echo "memory: controller idle RSS ${cold} KiB when started, ${idle} KiB after a warm-up array of 20 (run and purged)"
start=$(now_ns)
sbatch --parsable --array=0-$((n - 1)) -o /dev/null -J membench --wrap=true >/dev/null
wait_empty
ms=$(( ($(now_ns) - start) / 1000000 ))
echo "memory: array of $n x true, submit to queue empty: ${ms} ms, $(( n * 1000 / (ms > 0 ? ms : 1) )) jobs/s"
held=$(rss_kib "$ctld_pid")
# Counted, not assumed: tasks that ended more than MinJobAge before the last
# one are purged already.
held_jobs=$(squeue -h -r -t all -o %i | wc -l)
if [ "$held_jobs" -lt "$n" ]; then
  echo "memory: note: only $held_jobs of $n finished tasks still held (the run took longer than MinJobAge)"
fi
echo "memory: RSS with $held_jobs finished jobs held: ${held} KiB, $(( (held - idle) * 1024 / (held_jobs > 0 ? held_jobs : 1) )) bytes per finished job"
sleep $(( min_job_age + 3 ))
after=$(rss_kib "$ctld_pid")
echo "memory: RSS after MinJobAge (purged): ${after} KiB ($(( after - idle )) KiB above idle)"
