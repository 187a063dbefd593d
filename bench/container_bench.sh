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
dir=$(mktemp -d /tmp/skiff-container-bench-XXXXXX)
trap '"$root/skiff" down --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT

mkdir -p "$dir/etc" "$dir/bundle/rootfs/bin" "$dir/bundle/rootfs"/{proc,dev,sys,tmp}
cat >"$dir/etc/oci.conf" <<'CONF'
RunTimeQuery="runc --rootless=true --root=/run/user/%U/ state %n.%u.%j.%s.%t"
RunTimeKill="runc --rootless=true --root=/run/user/%U/ kill -a %n.%u.%j.%s.%t"
RunTimeDelete="runc --rootless=true --root=/run/user/%U/ delete --force %n.%u.%j.%s.%t"
RunTimeRun="runc --rootless=true --root=/run/user/%U/ run %n.%u.%j.%s.%t -b %b"
CONF
mkdir -p "/run/user/$(id -u)"
cp /bin/busybox "$dir/bundle/rootfs/bin/"
ln -s busybox "$dir/bundle/rootfs/bin/true"
(cd "$dir/bundle" && runc spec --rootless)
"$root/skiff" up --dir "$dir" --nodes 1 >/dev/null
# shellcheck disable=SC1091
source "$dir/env.sh"

loop=$dir/loop.sh
cat >"$loop" <<LOOP
#!/usr/bin/env bash
median() { sort -n | awk '{ a[NR] = \$1 } END { print a[int((NR + 1) / 2)] }'; }
time_runs() {
  for i in \$(seq $runs); do
    t0=\$(date +%s%N); srun -n1 "\$@" true || exit 1; echo \$(( (\$(date +%s%N) - t0) / 1000000 ))
  done | median
}
host=\$(time_runs)
container=\$(time_runs --container=$dir/bundle)
echo "container_bench: $runs sequential steps in one allocation: srun -n1 true median \${host} ms;" \\
  "srun -n1 --container=BUNDLE true (runc, busybox bundle) median \${container} ms;" \\
  "the container adds \$(( container - host )) ms"
LOOP
chmod 755 "$loop"
salloc -Q -N1 "$loop"
