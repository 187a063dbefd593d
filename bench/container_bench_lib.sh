# shellcheck shell=bash
# What bench/container_bench.sh and bench/container_image_bench.sh share,
# sourced by both (and by the loop each runs inside its allocation): a 1-node
# cluster of their own, Slurm's oci.conf example for runc, and the timing of
# sequential steps. The functions use the caller's $root (the checkout) and
# $dir (the cluster's directory).

# A fresh directory /tmp/NAME-XXXXXX in $dir; when the script exits, the
# cluster there is stopped (./skiff down) and the directory removed.
# Usage: make_bench_dir NAME
# shellcheck disable=SC2154  # $root is the caller's
make_bench_dir() {
  dir=$(mktemp -d "/tmp/$1-XXXXXX")
  trap '"$root/skiff" down --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
}

# Starts a 1-node cluster in $dir (./skiff up) and takes its environment.
start_one_node_cluster() {
  SKIFF_BUILD=opt "$root/skiff" up --dir "$dir" --nodes 1 >/dev/null
  # shellcheck disable=SC1091
  source "$dir/env.sh"
}

# Runs the bash lines on stdin, with these functions, inside a 1-node
# allocation (salloc -Q -N1).
run_in_allocation() {
  {
    echo '#!/usr/bin/env bash'
    echo "source \"$root/bench/container_bench_lib.sh\""
    cat
  } >"$dir/loop.sh"
  chmod 755 "$dir/loop.sh"
  salloc -Q -N1 "$dir/loop.sh"
}

# Writes Slurm's oci.conf example for runc (rootless, its state under
# /run/user/UID) into DIR/etc, and makes the caller's /run/user/UID.
# Usage: write_runc_oci_conf DIR
write_runc_oci_conf() {
  mkdir -p "$1/etc"
  cat >"$1/etc/oci.conf" <<'CONF'
RunTimeQuery="runc --rootless=true --root=/run/user/%U/ state %n.%u.%j.%s.%t"
RunTimeKill="runc --rootless=true --root=/run/user/%U/ kill -a %n.%u.%j.%s.%t"
RunTimeDelete="runc --rootless=true --root=/run/user/%U/ delete --force %n.%u.%j.%s.%t"
RunTimeRun="runc --rootless=true --root=/run/user/%U/ run %n.%u.%j.%s.%t -b %b"
CONF
  mkdir -p "/run/user/$(id -u)"
}

# The median of the numbers on stdin, one a line.
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# The median milliseconds of RUNS sequential `srun -n1 [ARGS] true`, up to
# the first that fails.
# Usage: time_runs RUNS [ARGS...]
time_runs() {
  local runs=$1
  shift
  for _ in $(seq "$runs"); do
    t0=$(date +%s%N); srun -n1 "$@" true || exit 1; echo $(( ($(date +%s%N) - t0) / 1000000 ))
  done | median
}
