#!/usr/bin/env bash
# real_gpu_check: Skiff on a machine with a real NVIDIA GPU and driver (issue
# 51, item 7). Starts a one-node cluster whose node finds its GPUs through
# NVML (gres.conf AutoDetect=nvml) and confines jobs to theirs (cgroups,
# ConstrainDevices=yes), then checks, printing PASS, FAIL or SKIP (with the
# reason) for each:
#   1. AutoDetect=nvml registers every GPU, by its real name and the type
#      Slurm gives that name (nvidia_h200 for "NVIDIA H200");
#   2. a 1-GPU job can open exactly one GPU device (and nvidia-smi, where
#      installed, lists one GPU); a job without GPUs can open none;
#   3. utilisation sampled from a busy GPU (gpu_busy, through the CUDA driver)
#      is high, from an idle one near zero, with the job's GPU memory and
#      energy, in sacct's TRESUsageInAve/Max and seff;
#   4. a --container-image job with one GPU sees only that GPU's device
#      (where runc, umoci, skopeo, busybox and user namespaces are there);
#   5. MIG (issue 52): each GPU's MIG mode is listed; where one is on, noded
#      registered its MIG devices, each by the MIG UUID nvidia-smi -L shows;
#   6. gres/shard (issue 52): two 1-shard jobs, each busy on the GPU, run at
#      once on the same GPU (four shards a GPU), both complete, and the
#      monitor sampled each one's use of it;
#   7. fenced shards (gres.conf Flags=fence, where nvidia-cuda-mps-control is
#      installed): noded starts the GPU's MPS server, a 1-shard job holding
#      1 GiB completes, and one asking for 3/8 of the GPU's memory (more than
#      its quarter) is refused it by MPS;
#   8. gres/mps (likewise): two mps:50 jobs of one user run at once through
#      the one MPS server noded started, each with 50% of the GPU's threads.
# A GPU in MIG mode counts as its MIG devices (what the node registers).
#
# Usage, as root, from the source tree, once the daemons, the commands and
# tests/gpu:gpu_busy are built (bazel build //tests/gpu:gpu_busy and what
# `./skiff up` builds; SKIFF_BUILD=opt builds go under bazel-out/k8-opt/bin):
#   tests/gpu/real_gpu_check.sh [--bin-from DIR] [--dir DIR] [--keep]
# --bin-from: where ctld/ctld, noded/noded, ... and tests/gpu/gpu_busy are
# (default: ./bazel-bin); --dir: the cluster's directory (default
# /tmp/skiff-real-gpu, emptied first); --keep: leave the cluster running.
# Exit status: 0 all checks passed or were skipped, 1 a check failed, 2 the
# machine has no NVIDIA GPU or cannot run the cluster.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN_FROM="$ROOT/bazel-bin"
DIR=/tmp/skiff-real-gpu
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-from) BIN_FROM=${2:?--bin-from needs a directory}; shift 2 ;;
    --dir) DIR=${2:?--dir needs a directory}; shift 2 ;;
    --keep) KEEP=1; shift ;;
    *) echo "usage: $0 [--bin-from DIR] [--dir DIR] [--keep]" >&2; exit 2 ;;
  esac
done

FAILED=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; FAILED=1; }
skip() { echo "SKIP: $*"; }
unusable() { echo "real_gpu_check: $*" >&2; exit 2; }

# ---------------------------------------------------------------- the machine
[ "$(id -u)" = 0 ] || unusable "needs root (cgroups, device confinement)"
shopt -s nullglob
GPU_FILES=(/dev/nvidia[0-9]*)
shopt -u nullglob
[ -e /dev/nvidiactl ] && [ "${#GPU_FILES[@]}" -gt 0 ] ||
  unusable "no NVIDIA GPU here (/dev/nvidiactl, /dev/nvidia0)"
ldconfig -p | grep -q 'libnvidia-ml.so.1' || unusable "no NVML (libnvidia-ml.so.1) in the loader's cache"
GPU_BUSY="$BIN_FROM/tests/gpu/gpu_busy"
[ -x "$GPU_BUSY" ] || unusable "missing $GPU_BUSY (bazel build //tests/gpu:gpu_busy)"
[ -x "$BIN_FROM/ctld/ctld" ] || unusable "missing $BIN_FROM/ctld/ctld (build first, or --bin-from)"
COUNT=${#GPU_FILES[@]}
echo "real_gpu_check: $COUNT GPU device file(s): ${GPU_FILES[*]}"
NAMES=""
MIG_UUIDS=""  # the MIG devices nvidia-smi lists: the node registers them in their GPU's place
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=index,name,minor_number,memory.total,driver_version,mig.mode.current \
    --format=csv,noheader
  NAMES=$(nvidia-smi --query-gpu=name --format=csv,noheader | sort -u)
  MIG_UUIDS=$(nvidia-smi -L | sed -n 's/.*(UUID: \(MIG-[^)]*\)).*/\1/p')
  if [ -n "$MIG_UUIDS" ]; then
    mig_gpus=$(nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader | grep -c '^Enabled')
    COUNT=$((COUNT - mig_gpus + $(grep -c . <<<"$MIG_UUIDS")))
    echo "real_gpu_check: $mig_gpus GPU(s) in MIG mode; $COUNT GPU(s) to register"
  fi
fi
uname -r

# ---------------------------------------------------------------- the cluster
SKIFF="$ROOT/skiff"
"$SKIFF" down --dir "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR"
mkdir -p "$DIR/etc" "$DIR/work"
chmod 755 "$DIR"
chmod 1777 "$DIR/work"
# No fake GPUs; GPUs sampled every second; jobs in cgroups.
export SKIFF_GPU_NODES=0 SKIFF_BURST_BUFFERS=0 SKIFF_RESTD=0 SKIFF_FAKE_NVML=0
export SKIFF_CONF_EXTRA="GresTypes=gpu,shard
ProctrackType=proctrack/cgroup
TaskPlugin=task/affinity,task/cgroup
JobAcctGatherFrequency=task=1
HeartbeatInterval=1"
# The first `up` writes the configuration; the node is given its GPUs, found
# through NVML, before the second.
"$SKIFF" up --dir "$DIR" --nodes 1 --cpus 2 --bin-from "$BIN_FROM" >"$DIR/up.log" 2>&1 ||
  { cat "$DIR/up.log"; unusable "the cluster did not start"; }
"$SKIFF" down --dir "$DIR" >/dev/null 2>&1
sed -i "s/^\(NodeName=n1 .*\)$/\1 Gres=gpu:$COUNT,shard:$((COUNT * 4))/" "$DIR/etc/skiff.conf"
echo "AutoDetect=nvml" >"$DIR/etc/gres.conf"
printf 'ConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainDevices=yes\n' >"$DIR/etc/cgroup.conf"
"$SKIFF" up --dir "$DIR" --nodes 1 --bin-from "$BIN_FROM" >>"$DIR/up.log" 2>&1 || {
  cat "$DIR/up.log"
  tail -n 20 "$DIR"/log/noded-n1.log
  unusable "the cluster did not start with its GPUs"
}
# shellcheck disable=SC1091
source "$DIR/env.sh"
cleanup() {
  if [ "$KEEP" = 1 ]; then
    echo "real_gpu_check: the cluster stays up in $DIR (./skiff down --dir $DIR)"
  else
    "$SKIFF" down --dir "$DIR" >/dev/null 2>&1
  fi
}
trap cleanup EXIT

# waits for job $1 to end (up to $2 seconds); its state.
wait_job() {
  local id=$1 deadline=$((SECONDS + ${2:-120})) state=""
  while [ "$SECONDS" -lt "$deadline" ]; do
    state=$(sacct -n -X -P -o State -j "$id" 2>/dev/null | head -n 1)
    case "$state" in
      COMPLETED | FAILED | CANCELLED* | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;;
    esac
    sleep 0.5
  done
  echo "$state"
}
submit() { sbatch --parsable -D "$DIR/work" "$@"; }
# The value of KEY in a TRES list ("cpu=1,gres/gpumem=2G,...").
tres() { tr ',' '\n' <<<"$2" | sed -n "s|^$1=||p"; }
# "2.50G" -> bytes, as sacct prints memory.
bytes() { numfmt --from=iec "${1%B}" 2>/dev/null || echo 0; }

# ---------------------------------------------------------------- 1. AutoDetect
node=$(scontrol show node n1)
gres=$(sed -n 's/.*\bGres=\([^ ]*\).*/\1/p' <<<"$node" | head -n 1)
found=$(grep -h "AutoDetect=nvml" "$DIR"/log/noded-n1.log | tail -n 1 | sed 's/.*\(AutoDetect=\)/\1/')
echo "scontrol show node n1: Gres=$gres"
echo "noded: $found"
gpu_gres=${gres%%,shard*}  # the GPUs' entry ("gpu:1"; shards follow it)
count=$(awk -F: '{print $NF}' <<<"${gpu_gres%%(*}")
# "/dev/nvidia0 NVIDIA H200 (type nvidia_h200)" for each GPU found.
detected=$(sed -n 's/.*GPU(s) found: //p' <<<"$found" | sed 's/, \/dev\//\n\/dev\//g')
names=$(sed -n 's|^/dev/nvidia[0-9]* \(.*\) (type .*)$|\1|p' <<<"$detected" | sort -u)
types_ok=1
while read -r line; do
  [ -n "$line" ] || continue
  case "$line" in *" in MIG mode: "*) continue ;; esac  # checked in 5
  name=$(sed 's|^/dev/nvidia[0-9]* \(.*\) (type .*)$|\1|' <<<"$line")
  [ "$(sed 's|.*(type \(.*\))$|\1|' <<<"$line")" = "$(tr 'A-Z ' 'a-z_' <<<"$name")" ] || types_ok=0
done <<<"$detected"
if [ "$count" != "$COUNT" ] || [ "$(grep -c . <<<"$detected")" != "${#GPU_FILES[@]}" ]; then
  fail "AutoDetect=nvml: Gres=$gres and $found, not $COUNT GPUs"
elif [ -n "$NAMES" ] && [ "$names" != "$NAMES" ]; then
  fail "AutoDetect=nvml: names '$names', nvidia-smi says '$NAMES'"
elif [ "$types_ok" != 1 ] || [ -z "$names" ]; then
  fail "AutoDetect=nvml: the types are not the names as Slurm types them: $detected"
else
  pass "AutoDetect=nvml: $COUNT GPU(s), Gres=$gres, named $names"
fi

# ---------------------------------------------------------------- 2. confinement
probe='for d in /dev/nvidia[0-9]*; do if (exec 3<"$d") 2>/dev/null; then echo "open $d"; else echo "denied $d"; fi; done
echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}"
if command -v nvidia-smi >/dev/null; then echo "nvidia-smi: $(nvidia-smi -L 2>/dev/null | grep -c "^GPU ")"; fi'
one=$(submit --gres=gpu:1 -o "$DIR/work/one.out" --wrap "$probe")
none=$(submit -o "$DIR/work/none.out" --wrap "$probe")
wait_job "$one" >/dev/null
wait_job "$none" >/dev/null
echo "--- a 1-GPU job:"
cat "$DIR/work/one.out"
echo "--- a job without GPUs:"
cat "$DIR/work/none.out"
opened=$(grep -c '^open ' "$DIR/work/one.out")
if [ "$opened" = 1 ] && [ "$(grep -c '^denied ' "$DIR/work/one.out")" = $((COUNT - 1)) ]; then
  pass "a 1-GPU job opens exactly one of the $COUNT GPU device(s)"
else
  fail "a 1-GPU job opens $opened of $COUNT GPU devices"
fi
if grep -q '^nvidia-smi: ' "$DIR/work/one.out"; then
  if grep -q '^nvidia-smi: 1$' "$DIR/work/one.out"; then
    pass "nvidia-smi -L in a 1-GPU job lists one GPU"
  else
    fail "nvidia-smi -L in a 1-GPU job: $(grep '^nvidia-smi: ' "$DIR/work/one.out")"
  fi
else
  skip "nvidia-smi is not installed: the job's view of NVML is not listed"
fi
if [ "$COUNT" -lt 2 ]; then
  skip "one GPU here: no other GPU for the device cgroup to refuse a 1-GPU job (the job without GPUs below is refused it)"
fi
if [ "$(grep -c '^open ' "$DIR/work/none.out")" = 0 ] && [ -s "$DIR/work/none.out" ]; then
  pass "a job without GPUs opens none of them (the device cgroup refuses it)"
else
  fail "a job without GPUs opened a GPU device (ConstrainDevices=yes)"
fi

# ---------------------------------------------------------------- 3. utilisation
busy=$(submit --gres=gpu:1 -o "$DIR/work/busy.out" --wrap "$GPU_BUSY 15 2048")
echo "busy job $busy: $(wait_job "$busy" 180)"
cat "$DIR/work/busy.out"
idle=$(submit --gres=gpu:1 -o "$DIR/work/idle.out" --wrap "sleep 10")
echo "idle job $idle: $(wait_job "$idle" 180)"
for id in "$busy" "$idle"; do
  sacct -P -o JobID,State,TRESUsageInAve,TRESUsageInMax,ConsumedEnergyRaw -j "$id"
  seff "$id"
done
line=$(sacct -n -P -o TRESUsageInAve,TRESUsageInMax,ConsumedEnergyRaw -j "$busy.batch")
busy_util=$(tres gres/gpuutil "$(cut -d'|' -f1 <<<"$line")")
busy_mem=$(tres gres/gpumem "$(cut -d'|' -f2 <<<"$line")")
energy=$(cut -d'|' -f3 <<<"$line")
idle_util=$(tres gres/gpuutil "$(sacct -n -P -o TRESUsageInAve -j "$idle.batch")")
echo "busy: gres/gpuutil=$busy_util (average), gres/gpumem=$busy_mem (peak), $energy J; idle: gres/gpuutil=$idle_util"
if [ -n "$busy_util" ] && [ "$busy_util" -ge 50 ]; then
  pass "a busy GPU's utilisation is sampled high ($busy_util%)"
else
  fail "a busy GPU's utilisation: '$busy_util' (expected 50% or more)"
fi
if [ -n "$idle_util" ] && [ "$idle_util" -le 5 ]; then
  pass "an idle GPU's utilisation is sampled near zero ($idle_util%)"
else
  fail "an idle GPU's utilisation: '$idle_util' (expected 5% or less)"
fi
if [ "$(bytes "$busy_mem")" -ge $((2048 * 1024 * 1024)) ]; then
  pass "the busy job's GPU memory peak counts its 2 GiB ($busy_mem)"
else
  fail "the busy job's GPU memory peak: '$busy_mem' (expected 2 GiB or more)"
fi
if [ -n "$energy" ] && [ "$energy" -gt 0 ] 2>/dev/null; then
  pass "the busy job's GPU energy: $energy J"
else
  skip "no GPU energy for the busy job ('$energy': this GPU may have no energy counter)"
fi

# ---------------------------------------------------------------- 4. a container
missing=""
for tool in runc umoci skopeo busybox unshare; do command -v "$tool" >/dev/null || missing+=" $tool"; done
if [ -n "$missing" ]; then
  skip "--container-image: missing$missing"
else
  user=skiffgpu
  id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/bash "$user"
  uid=$(id -u "$user")
  if ! runuser -u "$user" -- unshare --user --map-root-user true 2>/dev/null; then
    skip "--container-image: $user cannot make a user namespace here"
  else
    images="$DIR/images"
    mkdir -p "$images/root/bin" "$images/root/tmp" "/run/user/$uid/images"
    chown "$user" "/run/user/$uid" "/run/user/$uid/images"
    (
      set -e
      cd "$images"
      cp "$(command -v busybox)" root/bin/
      for c in sh ls grep echo; do ln -sf busybox "root/bin/$c"; done
      umoci init --layout busybox >/dev/null
      umoci new --image busybox:latest >/dev/null
      umoci insert --image busybox:latest root / >/dev/null
      umoci config --image busybox:latest --config.env PATH=/bin >/dev/null
      chmod -R a+rX "$images"
    ) || fail "--container-image: could not make the test image"
    {
      echo 'RunTimeQuery="runc --rootless=true --root=/run/user/%U/images/ state %n.%u.%j.%s.%t"'
      echo 'RunTimeKill="runc --rootless=true --root=/run/user/%U/images/ kill -a %n.%u.%j.%s.%t"'
      echo 'RunTimeDelete="runc --rootless=true --root=/run/user/%U/images/ delete --force %n.%u.%j.%s.%t"'
      echo 'RunTimeRun="runc --rootless=true --root=/run/user/%U/images/ run %n.%u.%j.%s.%t -b %b"'
    } >"$DIR/etc/oci.conf"
    out="$DIR/work/container.out"
    cid=$(runuser -u "$user" -- env SKIFF_CONF="$SKIFF_CONF" "$DIR/bin/sbatch" --parsable \
      -D "$DIR/work" --gres=gpu:1 --container-image="$images/busybox" -o "$out" \
      --wrap 'ls /dev | grep "^nvidia[0-9]"; echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"')
    echo "container job $cid: $(wait_job "$cid" 300)"
    cat "$out" 2>/dev/null
    if [ "$(grep -c '^nvidia[0-9]' "$out" 2>/dev/null)" = 1 ]; then
      pass "a --container-image job with one GPU sees one GPU device"
    else
      fail "a --container-image job with one GPU: $(scontrol show job "$cid" | grep -o 'Reason=[^ ]*')"
    fi
  fi
fi

# ---------------------------------------------------------------- 5. MIG
if ! command -v nvidia-smi >/dev/null; then
  skip "MIG: nvidia-smi is not installed to list MIG modes"
elif [ -z "$MIG_UUIDS" ]; then
  skip "MIG: no GPU here is in MIG mode with MIG devices (modes: $(nvidia-smi \
    --query-gpu=mig.mode.current --format=csv,noheader | sort | uniq -c | xargs))"
else
  missing=""
  for uuid in $MIG_UUIDS; do
    grep -qF " $uuid" <<<"$found" || missing="$missing $uuid"
  done
  if [ -z "$missing" ]; then
    pass "MIG: noded registered $(grep -c . <<<"$MIG_UUIDS") MIG device(s) by their UUIDs"
  else
    fail "MIG: nvidia-smi lists$missing, noded's AutoDetect line does not"
  fi
fi

# ---------------------------------------------------------------- 6. shards
# Two 1-shard jobs busy on the GPU for 20 s each: first fit puts both on one
# GPU, and they overlap in time.
shards=()
for i in 1 2; do
  shards+=("$(submit --gres=shard:1 -o "$DIR/work/shard$i.out" \
    --wrap "echo gpus=\$SLURM_JOB_GPUS shards=\$SLURM_SHARDS_ON_NODE; $GPU_BUSY 20 512")")
done
for id in "${shards[@]}"; do echo "shard job $id: $(wait_job "$id" 240)"; done
cat "$DIR/work/shard1.out" "$DIR/work/shard2.out"
sacct -P -o JobID,State,Start,End,AllocTRES,TRESUsageInAve -j "${shards[0]},${shards[1]}"
states=$(sacct -n -X -P -o State -j "${shards[0]},${shards[1]}" | sort -u | xargs)
gpus=$(sed -n 's/^gpus=\([0-9]*\) shards=1$/\1/p' "$DIR/work/shard1.out" "$DIR/work/shard2.out" | sort -u)
# Seconds since the epoch of each job's start and end.
epoch() { date -d "$1" +%s 2>/dev/null || echo 0; }
read -r start1 end1 < <(sacct -n -X -P -o Start,End -j "${shards[0]}" | tr '|' ' ')
read -r start2 end2 < <(sacct -n -X -P -o Start,End -j "${shards[1]}" | tr '|' ' ')
if [ "$states" != COMPLETED ]; then
  fail "shards: the two 1-shard jobs ended '$states' (expected COMPLETED)"
elif [ "$(grep -c . <<<"$gpus")" != 1 ]; then
  fail "shards: the two 1-shard jobs were not on one GPU (SLURM_JOB_GPUS: $(xargs <<<"$gpus"))"
elif [ "$(epoch "$start2")" -ge "$(epoch "$end1")" ] || [ "$(epoch "$start1")" -ge "$(epoch "$end2")" ]; then
  fail "shards: the two 1-shard jobs did not run at once ($start1-$end1, $start2-$end2)"
else
  pass "shards: two 1-shard jobs ran at once on GPU $gpus"
fi
for id in "${shards[@]}"; do
  util=$(tres gres/gpuutil "$(sacct -n -P -o TRESUsageInAve -j "$id.batch")")
  if [ -n "$util" ] && [ "$util" -gt 0 ] 2>/dev/null; then
    pass "shards: job $id's use of its shared GPU was sampled ($util%)"
  else
    fail "shards: job $id's GPU use: '$util' (expected above 0%)"
  fi
done

# ---------------------------------------------------------------- 7. fenced shards
MPS_CONTROL=$(command -v nvidia-cuda-mps-control || true)
for candidate in /usr/local/nvidia/bin/nvidia-cuda-mps-control /usr/local/cuda/bin/nvidia-cuda-mps-control; do
  [ -z "$MPS_CONTROL" ] && [ -x "$candidate" ] && MPS_CONTROL=$candidate
done
if [ -z "$MPS_CONTROL" ]; then
  skip "fenced shards: nvidia-cuda-mps-control is not installed"
else
  "$SKIFF" down --dir "$DIR" >/dev/null 2>&1
  echo "Name=shard Count=$((COUNT * 4)) Flags=fence" >>"$DIR/etc/gres.conf"
  SKIFF_NODED_PREFIX_n1="env SKIFF_MPS_CONTROL=$MPS_CONTROL" \
    "$SKIFF" up --dir "$DIR" --nodes 1 --bin-from "$BIN_FROM" >>"$DIR/up.log" 2>&1 ||
    fail "fenced shards: the cluster did not start with Flags=fence"
  for _ in $(seq 60); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done
  total_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -n 1)
  within=$(submit --gres=shard:1 -o "$DIR/work/within.out" \
    --wrap "env | grep ^CUDA_ | sort; $GPU_BUSY 5 1024")
  beyond=$(submit --gres=shard:1 -o "$DIR/work/beyond.out" \
    --wrap "env | grep ^CUDA_MPS_PINNED; $GPU_BUSY 5 $((total_mib * 3 / 8))")
  within_state=$(wait_job "$within" 180)
  beyond_state=$(wait_job "$beyond" 180)
  echo "fenced within-share job $within: $within_state"
  cat "$DIR/work/within.out"
  echo "fenced beyond-share job $beyond: $beyond_state"
  cat "$DIR/work/beyond.out"
  grep -i "mps" "$DIR/log/noded-n1.log" | tail -n 5
  if ! grep -q "^CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=" "$DIR/work/within.out"; then
    fail "fenced shards: no CUDA_MPS_PINNED_DEVICE_MEM_LIMIT in the job ($within_state)"
  elif [ "$within_state" != COMPLETED ]; then
    fail "fenced shards: the job within its share ended $within_state"
  elif [ "$beyond_state" = COMPLETED ]; then
    fail "fenced shards: a 1-shard job held 3/8 of the GPU's memory (MPS did not fence it)"
  elif grep -q "cuMemAlloc failed" "$DIR/work/beyond.out"; then
    pass "fenced shards: MPS ran the job within its share and refused one beyond it"
  else
    fail "fenced shards: the job beyond its share ended $beyond_state, not for its memory"
  fi

  # ---------------------------------------------------------------- 8. gres/mps
  "$SKIFF" down --dir "$DIR" >/dev/null 2>&1
  sed -i -e "s/,shard:[0-9]*/,mps:$((COUNT * 100))/" -e 's/^GresTypes=gpu,shard$/GresTypes=gpu,mps/' \
    "$DIR/etc/skiff.conf"
  sed -i '/^Name=shard/d' "$DIR/etc/gres.conf"
  log_before=$(wc -l <"$DIR/log/noded-n1.log")
  SKIFF_NODED_PREFIX_n1="env SKIFF_MPS_CONTROL=$MPS_CONTROL" \
    "$SKIFF" up --dir "$DIR" --nodes 1 --bin-from "$BIN_FROM" >>"$DIR/up.log" 2>&1 ||
    fail "gres/mps: the cluster did not start with Gres=gpu:$COUNT,mps:$((COUNT * 100))"
  for _ in $(seq 60); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done
  mps_jobs=()
  for i in 1 2; do
    mps_jobs+=("$(submit --gres=mps:50 -o "$DIR/work/mps$i.out" \
      --wrap "echo threads=\$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE; $GPU_BUSY 10 1024")")
  done
  for id in "${mps_jobs[@]}"; do echo "mps job $id: $(wait_job "$id" 180)"; done
  cat "$DIR/work/mps1.out" "$DIR/work/mps2.out"
  sacct -P -o JobID,State,Start,End,AllocTRES -j "${mps_jobs[0]},${mps_jobs[1]}"
  grep -i "mps" "$DIR/log/noded-n1.log" | tail -n 4
  states=$(sacct -n -X -P -o State -j "${mps_jobs[0]},${mps_jobs[1]}" | sort -u | xargs)
  read -r start1 end1 < <(sacct -n -X -P -o Start,End -j "${mps_jobs[0]}" | tr '|' ' ')
  read -r start2 end2 < <(sacct -n -X -P -o Start,End -j "${mps_jobs[1]}" | tr '|' ' ')
  if [ "$states" != COMPLETED ]; then
    fail "gres/mps: the two mps:50 jobs ended '$states'"
  elif [ "$(grep -c '^threads=50$' "$DIR/work/mps1.out" "$DIR/work/mps2.out" | grep -c ':1$')" != 2 ]; then
    fail "gres/mps: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE is not 50 in both jobs"
  elif [ "$(epoch "$start2")" -ge "$(epoch "$end1")" ] || [ "$(epoch "$start1")" -ge "$(epoch "$end2")" ]; then
    fail "gres/mps: the two mps:50 jobs did not run at once ($start1-$end1, $start2-$end2)"
  elif ! tail -n "+$((log_before + 1))" "$DIR/log/noded-n1.log" |
    grep -q 'MPS control daemon of GPU 0 started'; then
    fail "gres/mps: noded started no MPS server for them"
  else
    pass "gres/mps: two mps:50 jobs ran at once through the GPU's MPS server"
  fi
fi

echo
if [ "$FAILED" = 0 ]; then
  echo "real_gpu_check: every check passed or was skipped"
else
  echo "real_gpu_check: some checks FAILED (logs: $DIR/log)"
fi
exit "$FAILED"
