#!/usr/bin/env bash
# restd benchmark (issue 36): how long restd takes to answer the paths a
# dashboard or exporter polls, with whatever queue the cluster holds (run it
# after queue_bench.sh has filled it), and restd's memory after. restd is the
# one `./skiff up` started (DIR/etc/restd.env); requests go over its Unix
# socket as the caller.
#
# Usage: [DASHBOARD_BENCH=bazel-bin/bench/dashboard_bench] restd_bench.sh LABEL DIR [PATH...]
#   PATH defaults to the paths the dashboard and a Prometheus exporter poll.
#   DASHBOARD_BENCH: also time the dashboard's first paint in headless Chromium.
# Prints one line per figure, prefixed with LABEL.
set -euo pipefail

label=${1:?label}
dir=${2:?cluster directory}
shift 2
paths=("$@")
now=$(date +%s)
[ "${#paths[@]}" -gt 0 ] || paths=(/slurm/v0.0.42/jobs /slurm/v0.0.42/nodes /metrics
  /skiff/v1/status "/slurmdb/v0.0.42/jobs?start_time=$((now - 86400))&end_time=$now")

listen=$(. "$dir/etc/restd.env" && echo "$RESTD_LISTEN")
socket=${listen#* unix:}
pid=$(cat "$dir/run/restd.pid")
queued=$(SKIFF_CONF="$dir/etc/skiff.conf" "$dir/bin/squeue" -h -r -o %i | wc -l)
echo "$label restd: $queued jobs in the queue"

for path in "${paths[@]}"; do
  times=()
  status=""
  bytes=0
  for _ in 1 2 3 4 5; do
    read -r status seconds bytes < <(curl -s -o /dev/null --unix-socket "$socket" \
      -w '%{http_code} %{time_total} %{size_download}\n' "http://localhost$path")
    times+=("$(awk -v s="$seconds" 'BEGIN {printf "%d", s * 1000}')")
  done
  if [ "$status" != 200 ]; then
    echo "$label restd GET $path: HTTP $status"
    continue
  fi
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  echo "$label restd GET $path: best $(head -1 <<<"$sorted") ms, median $(sed -n 3p <<<"$sorted") ms, $((bytes / 1024)) KiB"
done
echo "$label restd: RSS $(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status") KiB after these requests"

# The dashboard in headless Chromium (bench/dashboard_bench), where there is one.
if [ -n "${DASHBOARD_BENCH:-}" ] && [ -x /usr/bin/chromium ]; then
  tcp=${listen%% *}
  token=$(SKIFF_CONF="$dir/etc/skiff.conf" "$dir/bin/scontrol" token | cut -d= -f2)
  "$DASHBOARD_BENCH" "http://$tcp/" "$token" | sed "s/^/$label /"
fi
