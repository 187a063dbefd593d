#!/usr/bin/env bash
# Job-step benchmark (issue 13), run against whichever srun/salloc come first on
# PATH: Skiff's (a cluster's bin/) or Slurm's (/usr/bin, with SLURM_CONF set).
#
#   steps    inside one 4-node allocation, N sequential `srun -N1 -n1 true`:
#            steps per second, and the controller's CPU share meanwhile (its
#            utime+stime from /proc over the wall time).
#   outside  R runs of `srun -N4 -n8 hostname` with no allocation (allocate,
#            run 8 tasks on 4 nodes, release): milliseconds each, median.
#
# Usage: steps_bench.sh LABEL CONTROLLER_PID [N] [R]
# Prints one line per figure, prefixed with LABEL.
set -euo pipefail

label=${1:?label (skiff or slurm)}
ctld_pid=${2:?controller pid}
steps=${3:-1000}
runs=${4:-20}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
now_ns() { date +%s%N; }

# The loop runs inside the allocation; it prints its own wall time in ns.
loop=$(mktemp /tmp/steps-bench-XXXXXX.sh)
cat >"$loop" <<EOF
#!/usr/bin/env bash
start=\$(date +%s%N)
for i in \$(seq $steps); do srun -N1 -n1 true || exit 1; done
echo \$(( \$(date +%s%N) - start ))
EOF
chmod 755 "$loop"
before=$(cpu_ticks "$ctld_pid")
wall_ns=$(salloc -Q -N4 "$loop" 2>/dev/null | tail -n 1)
after=$(cpu_ticks "$ctld_pid")
rm -f "$loop"
hz=$(getconf CLK_TCK)
awk -v l="$label" -v n="$steps" -v ns="$wall_ns" -v t=$((after - before)) -v hz="$hz" 'BEGIN {
  s = ns / 1e9
  printf "%s steps: %d sequential srun -N1 -n1 true in one 4-node allocation: %.2f s, %.0f steps/s, controller CPU %.1f%%\n", l, n, s, n / s, 100 * t / hz / s
}'

times=()
for _ in $(seq "$runs"); do
  t0=$(now_ns)
  srun -Q -N4 -n8 hostname >/dev/null
  times+=($(( ($(now_ns) - t0) / 1000000 )))
done
printf '%s\n' "${times[@]}" | sort -n | awk -v l="$label" -v r="$runs" '{ a[NR] = $1 }
  END { printf "%s outside: srun -N4 -n8 hostname with no allocation, %d runs: median %d ms (min %d, max %d)\n", l, r, a[int((NR + 1) / 2)], a[1], a[NR] }'
