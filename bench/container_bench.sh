#!/usr/bin/env bash
# What --container costs a step (issue 35's target: under 300 ms over a bare
# `srun true`). Starts its own 1-node cluster (./skiff up) with Slurm's
# oci.conf example for runc, builds a busybox bundle, and inside one
# allocation times R sequential `srun -n1 true` on the host and R
# `srun -n1 --container=BUNDLE true`: median milliseconds of each and the
# difference. As root (it runs the jobs as root; runc is rootless anyway).
#
# Usage: bench/container_bench.sh [R]
set -euo pipefail

runs=${1:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/container_bench_lib.sh
source "$root/bench/container_bench_lib.sh"
make_bench_dir skiff-container-bench

mkdir -p "$dir/bundle/rootfs/bin" "$dir/bundle/rootfs"/{proc,dev,sys,tmp}
write_runc_oci_conf "$dir"
cp /bin/busybox "$dir/bundle/rootfs/bin/"
ln -s busybox "$dir/bundle/rootfs/bin/true"
(cd "$dir/bundle" && runc spec --rootless)
start_one_node_cluster

run_in_allocation <<LOOP
host=\$(time_runs $runs)
container=\$(time_runs $runs --container=$dir/bundle)
echo "container_bench: $runs sequential steps in one allocation: srun -n1 true median \${host} ms;" \\
  "srun -n1 --container=BUNDLE true (runc, busybox bundle) median \${container} ms;" \\
  "the container adds \$(( container - host )) ms"
LOOP
