#!/usr/bin/env bash
# Command start-up benchmark (issue 50): how long each command takes to start
# and answer `--version`, and how long sequential `sbatch` submissions take,
# for one or more builds of the commands, measured in the same sitting.
#
#   startup  each command in each DIR, run --version N times (perf stat, in
#            rounds of 10 per build in turns): CPU and wall milliseconds per run.
#   submit   with SUBMIT=M (and a cluster's env.sh sourced, so that sbatch
#            reaches a ctld), M sequential `sbatch --wrap=true` per DIR in
#            blocks of 20 in turns: milliseconds per submission.
#
# Usage: [SUBMIT=M] command_startup.sh [-n N] DIR [DIR...]
#   DIR holds the commands by name (a cluster's bin/, or a copy of an older build).
# Prints one line per command and DIR, then the submit figures.
set -euo pipefail

runs=50
if [ "${1:-}" = "-n" ]; then runs=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: [SUBMIT=M] $0 [-n N] DIR [DIR...]" >&2; exit 2; }
dirs=("$@")
commands=(sbatch srun salloc squeue sinfo scancel scontrol sacct sacctmgr sprio sshare
          sreport sstat sdiag sattach strigger sbcast sstatus)

command -v perf >/dev/null || { echo "$0: needs perf (linux-perf)" >&2; exit 2; }
now_ns() { date +%s%N; }

# "CPU_MS WALL_MS": means over ROUNDS runs of BIN --version, from perf stat.
measure() {  # measure BIN ROUNDS
  perf stat -r "$2" -e task-clock "$1" --version 2>&1 >/dev/null | awk '
    /task-clock/ { cpu = $1 }
    /seconds time elapsed/ { wall = $1 * 1000 }
    END { printf "%s %s\n", cpu, wall }'
}

# Rounds of 10 runs per build in turns (A B A B ...), so that the machine's
# drift falls on every build alike.
rounds=$(( (runs + 9) / 10 ))
for cmd in "${commands[@]}"; do
  declare -A cpu_sum=() wall_sum=()
  for dir in "${dirs[@]}"; do cpu_sum[$dir]=0; wall_sum[$dir]=0; done
  for _ in $(seq "$rounds"); do
    for dir in "${dirs[@]}"; do
      [ -x "$dir/$cmd" ] || continue
      read -r cpu wall < <(measure "$dir/$cmd" 10)
      cpu_sum[$dir]=$(awk -v a="${cpu_sum[$dir]}" -v b="$cpu" 'BEGIN { print a + b }')
      wall_sum[$dir]=$(awk -v a="${wall_sum[$dir]}" -v b="$wall" 'BEGIN { print a + b }')
    done
  done
  for dir in "${dirs[@]}"; do
    [ -x "$dir/$cmd" ] || continue
    awk -v c="$cmd" -v d="$dir" -v r="$rounds" -v cpu="${cpu_sum[$dir]}" -v wall="${wall_sum[$dir]}" \
      'BEGIN { printf "startup %-9s %-40s cpu %6.2f ms  wall %6.2f ms  (%d runs of --version)\n",
                      c, d, cpu / r, wall / r, r * 10 }'
  done
done

submissions=${SUBMIT:-0}
[ "$submissions" -gt 0 ] || exit 0
declare -A submit_ns submitted
for dir in "${dirs[@]}"; do submit_ns[$dir]=0; submitted[$dir]=0; done
while :; do
  left=0
  for dir in "${dirs[@]}"; do
    [ "${submitted[$dir]}" -lt "$submissions" ] || continue
    left=1
    block=$((submissions - submitted[$dir]))
    [ "$block" -le 20 ] || block=20
    t0=$(now_ns)
    for _ in $(seq "$block"); do
      "$dir/sbatch" --wrap=true -o /dev/null >/dev/null || { echo "sbatch failed ($dir)" >&2; exit 1; }
    done
    submit_ns[$dir]=$((submit_ns[$dir] + $(now_ns) - t0))
    submitted[$dir]=$((submitted[$dir] + block))
  done
  [ "$left" -eq 1 ] || break
done
for dir in "${dirs[@]}"; do
  awk -v d="$dir" -v n="$submissions" -v ns="${submit_ns[$dir]}" 'BEGIN {
    printf "submit  %-50s %d sequential sbatch --wrap=true: %.2f s, %.1f ms each\n", d, n, ns / 1e9, ns / n / 1e6 }'
done
