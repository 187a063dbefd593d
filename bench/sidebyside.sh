#!/usr/bin/env bash
# Skiff next to real Slurm 22.05 on this machine (issue 15): the workloads of
# ../shared/slurm-anchor/sidebyside.sh plus one large array, run on Skiff and,
# when the anchor's Slurm is up (setup.sh there: /tmp/slurm-anchor), on Slurm
# too, alternating so that drift hits both alike. Without Slurm it prints
# Skiff's figures alone. With SKIFF_OLD_ROOT=DIR (a checkout of an older
# commit, built: what `./skiff bench regression COMMIT` makes), that build runs
# the same workloads in the same sitting as "old" (issue 48). SKIFF_SBS_SLURM=0
# leaves Slurm out even when it is up.
#
#   bench/sidebyside.sh [REPS] [ARRAY_N] [SEQ_M] [BB_K] [BIG_N]   defaults: 1 1000 300 200 10000
#
# Skiff runs in /tmp/skiff-sbs-bench (started here with ./skiff up: 4 nodes x 2
# CPUs, PrologSlurmctld/EpilogSlurmctld = `exit 0`, burst_buffer/lua with the
# anchor's burst_buffer.lua when it is there, MaxArraySize as the anchor's);
# the old build the same way in /tmp/skiff-sbs-old, with its own ./skiff.
# Figures, each "system workload seconds":
#   arrayN   an array of N x `true`, submit to queue empty
#   seqM     M sequential sbatch processes: submit time, then to queue empty
#   bbK      K burst-buffer jobs (2G of the 8 GiB pool, stage-in/out copies), as anchoruser
#   bigN     an array of BIG_N x `true`, submit to queue empty (and per job)
# then medians, Slurm/Skiff and old/Skiff (above 1: this Skiff is faster).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPS=${1:-1}; N=${2:-1000}; M=${3:-300}; K=${4:-200}; BIG=${5:-10000}
ANCHOR=${SLURM_ANCHOR_DIR:-$ROOT/../shared/slurm-anchor}
# A checkout in a git worktree elsewhere (./skiff bench regression's old one,
# or a clean copy of HEAD): the anchor beside the main checkout.
if [ ! -d "$ANCHOR" ] && common=$(git -C "$ROOT" rev-parse --path-format=absolute --git-common-dir 2>/dev/null); then
  ANCHOR="$common/../../shared/slurm-anchor"
fi
SA=/tmp/slurm-anchor; SK=${SKIFF_SBS_DIR:-/tmp/skiff-sbs-bench}
OLD_ROOT=${SKIFF_OLD_ROOT:-}; SKO=${SKIFF_SBS_OLD_DIR:-/tmp/skiff-sbs-old}
OUT=$(mktemp -d /tmp/skiff-sbs-results-XXXXXX); TSV="$OUT/runs.tsv"
now() { date +%s.%N; }

systems="skiff"
if [ "${SKIFF_SBS_SLURM:-1}" = 0 ]; then
  echo "# SKIFF_SBS_SLURM=0: Slurm left out"
elif [ -f "$SA/env.sh" ] && bash -c "source $SA/env.sh; PATH=/usr/bin:\$PATH scontrol ping" 2>/dev/null | grep -q UP; then
  systems="slurm skiff"
else
  echo "# Slurm is not running (see $ANCHOR/README.md): Skiff's figures only"
fi

# skiff_cluster CHECKOUT DIR: that checkout's Skiff up in DIR, the anchor's
# shape. A cluster left from an earlier run (or an earlier boot) that does
# not answer is started afresh.
skiff_cluster() {
  local root=$1 dir=$2 extra
  if [ -f "$dir/env.sh" ] && ! (source "$dir/env.sh" && timeout 10 sinfo -h >/dev/null 2>&1); then
    "$root/skiff" down --dir "$dir" >/dev/null 2>&1 || true
    rm -rf "$dir"
  fi
  [ -f "$dir/env.sh" ] && return 0
  mkdir -p "$dir/etc" "$dir/bb/data" "$dir/bb/out"; chmod -R 777 "$dir/bb"; chmod 755 "$dir"
  head -c 4096 /dev/urandom >"$dir/bb/data/input.dat"; chmod 644 "$dir/bb/data/input.dat"
  printf '#!/bin/sh\nexit 0\n' >"$dir/prolog_ctld.sh"; cp "$dir/prolog_ctld.sh" "$dir/epilog_ctld.sh"; chmod 755 "$dir"/*.sh
  extra="PrologSlurmctld=$dir/prolog_ctld.sh
EpilogSlurmctld=$dir/epilog_ctld.sh
MaxArraySize=100001
MaxJobCount=200000"
  if [ -f "$ANCHOR/burst_buffer.lua.in" ]; then
    sed -e "s#@BBROOT@#$dir/bb#g" -e 's/@FAST@/8192/' -e 's/@BULK@/64/' "$ANCHOR/burst_buffer.lua.in" >"$dir/etc/burst_buffer.lua"
    extra="$extra
BurstBufferType=burst_buffer/lua"
  fi
  SKIFF_BUILD=opt SKIFF_CONF_EXTRA="$extra" "$root/skiff" up --dir "$dir" --nodes 4 --cpus 2 >"$OUT/up-$(basename "$dir").log" 2>&1 ||
    { echo "skiff up failed in $dir:"; tail "$OUT/up-$(basename "$dir").log"; exit 1; }
}
skiff_cluster "$ROOT" "$SK"
if [ -n "$OLD_ROOT" ]; then
  skiff_cluster "$OLD_ROOT" "$SKO"
  systems="$systems old"
fi
[ -f "$SK/etc/burst_buffer.lua" ] || K=0

env_of() { case $1 in slurm) echo "source $SA/env.sh; export PATH=/usr/bin:/bin:/usr/sbin:/sbin";; skiff) echo "export PATH=/usr/bin:/bin:/usr/sbin:/sbin; source $SK/env.sh";; old) echo "export PATH=/usr/bin:/bin:/usr/sbin:/sbin; source $SKO/env.sh";; esac; }
root_of() { case $1 in slurm) echo "$SA";; skiff) echo "$SK";; old) echo "$SKO";; esac; }
run() { local sys=$1; shift; bash -c "$(env_of "$sys"); $*"; }
runu() { local sys=$1; shift; runuser -u anchoruser -- bash -c "$(env_of "$sys"); $*"; }
wait_empty() {
  local t0; t0=$(now)
  until [ -z "$(run "$1" 'timeout 30 squeue -h -o %i 2>/dev/null | head -1')" ]; do
    (( $(echo "$(now) - $t0 > 3600" | bc) )) && { echo "TIMEOUT" >&2; return 1; }
    sleep 0.1
  done
}
# Not measured: until the system's burst buffers are all torn down (the jobs
# leave the queue before their teardown ends), so that the next system's
# workload does not share the machine with this one's leftovers.
settle() {
  local t0; t0=$(now)
  while run "$1" 'timeout 30 scontrol show burst 2>/dev/null' | grep -q 'JobID='; do
    (( $(echo "$(now) - $t0 > 600" | bc) )) && { echo "settle: $1 still tearing down" >&2; return 0; }
    sleep 0.5
  done
}
row() { printf '%s\t%s\t%s\t%s\n' "$@" | tee -a "$TSV"; }
array_run() {  # sys tasks label rep
  local t0 t1; t0=$(now)
  run "$1" "cd $(root_of "$1")/sbs-work && sbatch --parsable --array=1-$2 -o /dev/null -J arr --wrap=true" >/dev/null
  wait_empty "$1"; t1=$(now)
  row "$1" "$3" "$4" "$(echo "$t1 - $t0" | bc)"
}

for sys in $systems; do
  run "$sys" 'squeue -h -o %i | head -1' | grep -q . && { echo "$sys: queue not empty" >&2; exit 1; }
done
# A warm-up on each system, not recorded: a cluster just started (or idle
# since the last run) pays for cold caches on its first jobs, and that must
# not fall on whichever system happens to run first.
for sys in $systems; do
  R=$(root_of "$sys"); mkdir -p "$R/sbs-work"; chmod 777 "$R/sbs-work"
  run "$sys" "cd $R/sbs-work && sbatch --parsable --array=1-20 -o /dev/null -J warm --wrap=true >/dev/null && for i in \$(seq 20); do sbatch --parsable -o /dev/null -J warm --wrap=true >/dev/null || exit 1; done"
  wait_empty "$sys"
done
for r in $(seq 1 "$REPS"); do
  # Each rep starts with the next system (rep 1: a b c, rep 2: b c a, ...):
  # what one system's last workload leaves behind (its jobs' ends, the
  # machine's caches) falls on each system alike over as many reps as there
  # are systems. (Reversing the order each rep kept the middle of three
  # systems always right after another's burst-buffer teardowns.)
  read -r -a listed <<<"$systems"
  order=""
  for ((k = 0; k < ${#listed[@]}; k++)); do
    order="$order ${listed[$(((r - 1 + k) % ${#listed[@]}))]}"
  done
  for sys in $order; do
    R=$(root_of "$sys"); mkdir -p "$R/sbs-work"; chmod 777 "$R/sbs-work"
    array_run "$sys" "$N" "array${N}_wall_s" "$r"
    t0=$(now); run "$sys" "cd $R/sbs-work && for i in \$(seq $M); do sbatch --parsable -o /dev/null -J seq --wrap=true >/dev/null || exit 1; done"
    t1=$(now); wait_empty "$sys"; t2=$(now)
    row "$sys" "seq${M}_submit_s" "$r" "$(echo "$t1 - $t0" | bc)"
    row "$sys" "seq${M}_wall_s" "$r" "$(echo "$t2 - $t0" | bc)"
    if [ "$K" -gt 0 ] && id anchoruser >/dev/null 2>&1; then
      rm -f "$R"/bb/out/out_*.dat
      cat >"$R/sbs-work/bb_job.sh" <<EOS
#!/bin/bash
#SBATCH -J bbjob
#SBATCH -o /dev/null
#BB_LUA pool=fast capacity=2G stage_in=$R/bb/data/input.dat stage_out=$R/bb/out/out_%j.dat
cp "\$BB_JOB_DIR/input.dat" "\$BB_JOB_DIR/out"
EOS
      chmod 755 "$R/sbs-work/bb_job.sh"
      t0=$(now); runu "$sys" "cd $R/sbs-work && for i in \$(seq $K); do sbatch --parsable bb_job.sh >/dev/null || exit 1; done"
      wait_empty "$sys"; t1=$(now)
      row "$sys" "bb${K}_wall_s" "$r" "$(echo "$t1 - $t0" | bc)"
      settle "$sys"
    fi
    [ "$BIG" -gt 0 ] && array_run "$sys" "$BIG" "big${BIG}_wall_s" "$r"
  done
done

echo "# medians (seconds), Slurm/Skiff and old/Skiff (above 1: Skiff is faster); per job for the arrays"
awk -F'\t' -v n="$N" -v big="$BIG" '{v[$1,$2]=v[$1,$2] " " $4; keys[$2]=1}
  function med(s,  a,k,i,j,t){k=split(s,a," "); if(k==0) return 0; for(i=1;i<=k;i++)for(j=i+1;j<=k;j++)if(a[j]<a[i]){t=a[i];a[i]=a[j];a[j]=t}; return (k%2)?a[(k+1)/2]:(a[k/2]+a[k/2+1])/2}
  END{for(k in keys){s=med(v["slurm",k]); q=med(v["skiff",k]); o=med(v["old",k]);
        line=sprintf("%-20s", k);
        if(s>0) line=line sprintf(" slurm %8.2f", s);
        if(o>0) line=line sprintf(" old %8.2f", o);
        line=line sprintf(" skiff %8.2f", q);
        if(s>0) line=line sprintf("  slurm/skiff %6.2f", s/q);
        if(o>0) line=line sprintf("  old/skiff %6.2f", o/q);
        if(k ~ /^array/) line=line sprintf("  skiff %.2f ms/job", q*1000/n);
        if(k ~ /^big/) line=line sprintf("  skiff %.2f ms/job", q*1000/big);
        print line}}' "$TSV"
echo "# runs: $TSV (Skiff clusters left running in $SK${OLD_ROOT:+ and $SKO}; ./skiff down --dir DIR)"
