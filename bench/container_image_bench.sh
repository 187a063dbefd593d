#!/usr/bin/env bash
# What --container-image costs (issue 35's targets): a step in an image
# already in the node's cache, over a bare `srun true` (target: under 300 ms),
# and the first use of a 100 MB image on a node (unpack time printed).
# Starts its own 1-node cluster (./skiff up) with Slurm's oci.conf example for
# runc, builds the images offline with umoci (a static busybox; busybox plus
# 100 MB of random bytes), and inside one allocation times R sequential
# `srun -n1 true` on the host and R `srun -n1 --container-image=IMAGE true`:
# medians and the difference; then one step in the 100 MB image, the first
# on the node, with noded's own figure for the unpack. As root.
#
# Usage: bench/container_image_bench.sh [R]
set -euo pipefail

runs=${1:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/container_bench_lib.sh
source "$root/bench/container_bench_lib.sh"
make_bench_dir skiff-image-bench

mkdir -p "$dir/root/bin" "$dir/root/tmp"
write_runc_oci_conf "$dir"
cp /bin/busybox "$dir/root/bin/"
for c in sh true; do ln -s busybox "$dir/root/bin/$c"; done
(
  cd "$dir"
  umoci init --layout busybox
  umoci new --image busybox:latest
  umoci insert --image busybox:latest root /
  cp -r busybox big
  head -c 104857600 /dev/urandom >payload
  umoci insert --image big:latest payload /payload
) >/dev/null
start_one_node_cluster

run_in_allocation <<LOOP
host=\$(time_runs $runs)
srun -n1 --container-image=$dir/busybox true  # into the cache
cached=\$(time_runs $runs --container-image=$dir/busybox)
t0=\$(date +%s%N); srun -n1 --container-image=$dir/big true; first=\$(( (\$(date +%s%N) - t0) / 1000000 ))
echo "container_image_bench: $runs sequential steps in one allocation: srun -n1 true median \${host} ms;" \\
  "srun -n1 --container-image=IMAGE true (cached busybox image, runc) median \${cached} ms;" \\
  "the image container adds \$(( cached - host )) ms"
echo "container_image_bench: first use of a 100 MB image on the node: the step took \${first} ms"
LOOP
grep -ho "image $dir/big unpacked into the node's cache in [0-9.]* s" "$dir"/log/noded-*.log |
  sed 's/^/container_image_bench: /'
