#!/usr/bin/env bash
# restd next to Slurm 22.05's slurmrestd on this machine (issue 36): the same
# queue of N held jobs (single jobs: Slurm keeps a pending array as one record)
# in each, then the REST call a dashboard or portal polls, GET jobs, timed on
# both, alternating. Slurm's slurmrestd 22.05 speaks data_parser v0.0.38 (its
# newest), restd v0.0.42: the same work, a list of every job in the queue as
# JSON, in each one's newest shape.
#
#   bench/restd_sidebyside.sh [N]     default 10000
#
# Needs (as root) the anchor's Slurm up (../shared/slurm-anchor/setup.sh:
# /tmp/slurm-anchor) and Debian's slurmrestd (installed here when missing).
# slurmrestd refuses to run as root or SlurmUser: it runs as anchoruser with
# rest_auth/local on a Unix socket, and restd is asked over its own socket as
# root, each as a local peer.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N=${1:-10000}
SA=/tmp/slurm-anchor
SK=${SKIFF_SBS_DIR:-/tmp/skiff-restd-sbs}
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 2; }
[ -f "$SA/env.sh" ] || { echo "start the anchor's Slurm first (slurm-anchor/setup.sh)" >&2; exit 2; }
command -v slurmrestd >/dev/null || apt-get install -y -q slurmrestd >/dev/null

# Skiff: a 4-node cluster of its own with restd.
if [ ! -f "$SK/env.sh" ]; then
  mkdir -p "$SK" && chmod 755 "$SK"
  SKIFF_CONF_EXTRA=$'PrologSlurmctld=/bin/true\nEpilogSlurmctld=/bin/true\nMaxJobCount=200000\nSlurmctldDebug=error\nSlurmdDebug=error' \
    SKIFF_BUILD=opt "$ROOT/skiff" up --dir "$SK" --nodes 4 --cpus 2 >/dev/null
fi
sk_socket=$(. "$SK/etc/restd.env" && echo "${RESTD_LISTEN#* unix:}")

# Slurm: slurmrestd as anchoruser on a socket only anchoruser may use.
sl_socket=/tmp/slurm-anchor-restd/restd.sock
mkdir -p "$(dirname "$sl_socket")" && chown anchoruser: "$(dirname "$sl_socket")"
rm -f "$sl_socket"
runuser -u anchoruser -- env SLURM_CONF="$SA/etc/slurm.conf" \
  slurmrestd -a rest_auth/local "unix:$sl_socket" >"$SA/slurmrestd.log" 2>&1 &
restd_pid=$!
trap 'kill $restd_pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$sl_socket" ] && break; sleep 0.1; done
[ -S "$sl_socket" ] || { echo "slurmrestd did not start:"; cat "$SA/slurmrestd.log"; exit 1; }

fill() {  # fill SYSTEM: N single held jobs, 4 submitters at a time
  local env=$1
  seq 1 "$N" | xargs -P 4 -I{} bash -c "$env; sbatch -H -o /dev/null -J sbs{} --wrap=true >/dev/null"
}
echo "filling both queues with $N held jobs"
fill "source $SK/env.sh"
fill "cd /tmp && source $SA/env.sh && export PATH=/usr/bin:\$PATH"

time_get() {  # time_get USER SOCKET PATH: milliseconds, and the size in KiB
  runuser -u "$1" -- curl -s -o /dev/null --unix-socket "$2" \
    -w '%{http_code} %{time_total} %{size_download}\n' "http://localhost$3"
}
declare -a sk_ms sl_ms
for _ in 1 2 3 4 5; do
  read -r code t size < <(time_get anchoruser "$sl_socket" /slurm/v0.0.38/jobs)
  [ "$code" = 200 ] || { echo "slurmrestd answered $code"; exit 1; }
  sl_ms+=("$(awk -v s="$t" 'BEGIN {printf "%d", s * 1000}')"); sl_kib=$((size / 1024))
  read -r code t size < <(time_get root "$sk_socket" /slurm/v0.0.42/jobs)
  [ "$code" = 200 ] || { echo "restd answered $code"; exit 1; }
  sk_ms+=("$(awk -v s="$t" 'BEGIN {printf "%d", s * 1000}')"); sk_kib=$((size / 1024))
done
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
sl=$(median "${sl_ms[@]}"); sk=$(median "${sk_ms[@]}")
echo "slurm slurmrestd 22.05 GET /slurm/v0.0.38/jobs, $N jobs: median $sl ms (runs: ${sl_ms[*]}), $sl_kib KiB"
echo "skiff restd GET /slurm/v0.0.42/jobs, $N jobs: median $sk ms (runs: ${sk_ms[*]}), $sk_kib KiB"
awk -v a="$sl" -v b="$sk" 'BEGIN {if (b > 0) printf "Slurm/Skiff: %.1f (above 1: Skiff is faster)\n", a / b}'

echo "emptying both queues"
(source "$SK/env.sh" && scancel -u root) || true
(source "$SA/env.sh" && PATH=/usr/bin:$PATH scancel -u root) || true
