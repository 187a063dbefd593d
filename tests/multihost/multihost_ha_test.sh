#!/usr/bin/env bash
# multihost_ha_test: a controller that survives its machine (issue 53), set up
# on three machines as docs/install.md's "A standby controller" says, word for
# word, and failed as it will fail.
#
# The machines (hosts.sh): head (ctld, an etcd member), standby (ctld standing
# by, an etcd member) and node1 (an etcd vote and the cluster's node), each a
# fresh Debian 12 tree booted with its own systemd, reaching the others only
# over a bridge. The head's `skiff init --standby standby --vote node1` makes
# the bundles; the test copies each to its machine's /root as an admin's scp
# would, and runs the blocks marked for each machine. Then, each during a flood
# of sbatch (one after another, as ada, each job appending its id to a file on
# node1):
#   1. kill -9 of the serving ctld (the head's; systemd restarts it, and it
#      stands by, or leads again when it campaigns before the standby);
#   2. the serving controller's machine powered off (its PID 1 killed: no
#      clean stop), which also takes one etcd member away; then booted again;
#   3. the serving controller cut from the network (its link down): it must
#      stop serving before the other one starts;
#   4. etcd losing one member (node1's, stopped).
# In each: every acknowledged job is found by sacct after the takeover and ran
# exactly once, and the longest gap between two acknowledgements (the
# takeover, as a submitter sees it) is printed.
set -euo pipefail

SRC="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}"
WORK="${TEST_TMPDIR:?}/multihost-ha"
# shellcheck source=tests/multihost/hosts.sh
source "$SRC/tests/multihost/hosts.sh"
# shellcheck source=tests/multihost/steps.sh
source "$SRC/tests/multihost/steps.sh"
mh_preflight

for block in ha-head ha-standby ha-vote ha-ping node token; do
  [ -n "$(readme_block "$block")" ] || fail "docs/install.md has no block marked multihost_test: $block"
done

mkdir -p "$WORK"
if [ "${MH_KEEP:-0}" = 1 ]; then trap 'echo "machines kept: $(pgrep -a -f "systemd-nspawn.*$MH_BRIDGE")"' EXIT; else trap mh_cleanup EXIT; fi

step "packages from this build's binaries"
build_debs "$WORK/debs"

step "three machines, etcd-server among their packages"
mh_init "$WORK/hosts"
MH_EXTRA_PACKAGES=etcd-server
tree=$(mh_deps_tar "$WORK/debs"/*.deb) || fail "the cached Debian tree"
mh_create head "$MH_PREFIX.10" "$tree"
mh_create standby "$MH_PREFIX.11" "$tree"
mh_create node1 "$MH_PREFIX.12" "$tree"
mh_hosts_file
for name in head standby node1; do cp "$WORK/debs"/*.deb "$WORK/hosts/$name/root/"; done
mh_boot head standby node1 || fail "booting the machines"
for name in head standby node1; do mh_run "$name" 'useradd -m -u 2001 -s /bin/bash ada'; done

step "head: docs/install.md's ha-head block"
readme_block ha-head
started=$(now)
mh_run head "$(readme_block ha-head)" >"$WORK/head.out" 2>&1 || { cat "$WORK/head.out" >&2; fail "the head's block"; }
grep -v -e '^Reading database' -e '^(Reading database' -e '^Get:' -e '^Selecting' -e '^Preparing' \
  -e '^Unpacking' -e '^debconf' "$WORK/head.out"
for name in standby node1; do
  # As `scp /root/skiff-NAME.bundle root@NAME:/root/` would: root's, 0600.
  cp -p "$WORK/hosts/head/root/skiff-$name.bundle" "$WORK/hosts/$name/root/" ||
    fail "skiff init wrote no /root/skiff-$name.bundle"
done
mh_run head 'rm /root/skiff-standby.bundle /root/skiff-node1.bundle'

step "standby: the ha-standby block; node1: the ha-vote block"
readme_block ha-standby
mh_run standby "$(readme_block ha-standby)" >"$WORK/standby.out" 2>&1 ||
  { cat "$WORK/standby.out" >&2; fail "the standby's block"; }
tail -n 3 "$WORK/standby.out"
vote_block=$(readme_block ha-vote)
mh_run node1 "$vote_block" >"$WORK/node1.out" 2>&1 || { cat "$WORK/node1.out" >&2; fail "node1's block"; }
tail -n 3 "$WORK/node1.out"
waitfor 120 "sinfo answers on the head (etcd with a quorum, ctld serving)" mh_run head sinfo
echo "install + init on three machines to sinfo answering: $(since "$started") s"

step "node1 joins as a node (docs/install.md's token and node blocks)"
mh_run head "$(readme_block token)" >"$WORK/token.out" 2>&1 || { cat "$WORK/token.out" >&2; fail "skiff token create"; }
join=$(grep -E '^ *skiff join ' "$WORK/token.out" | tail -n 1 | sed 's/^ *//')
token=$(token_in <"$WORK/token.out")
[ -n "$join" ] && [ -n "$token" ] || { cat "$WORK/token.out" >&2; fail "no join command or token"; }
node_block=$(readme_block node)
mh_run node1 "${node_block%%skiff join*}" >>"$WORK/node1.out" 2>&1 || { cat "$WORK/node1.out" >&2; fail "node1: installing"; }
printf '%s\n' "$token" | mh_run node1 "$join" >>"$WORK/node1.out" 2>&1 ||
  { cat "$WORK/node1.out" >&2; fail "node1: $join"; }
idle() { [ "$(mh_run head 'sinfo -h -N -n node1 -o %t' 2>/dev/null)" = idle ]; }
waitfor 60 "node1 idle in sinfo" idle

# serving HOST NAME: `scontrol ping` on HOST says NAME serves.
serving() { mh_run "$1" 'scontrol ping' 2>/dev/null | grep -qx "Serving: $2"; }
# up HOST NAME: `scontrol ping` on HOST shows NAME's controller answering.
up() { mh_run "$1" 'scontrol ping' 2>/dev/null | grep -Eq "^Slurmctld\(.*\) at $2 is UP$"; }
mh_run head "$(readme_block ha-ping)" | tee "$WORK/ping"
grep -qx 'Serving: head' "$WORK/ping" || fail "scontrol ping does not say the head serves"
grep -qx 'Slurmctld(backup) at standby is UP' "$WORK/ping" || fail "the standby does not answer scontrol ping"

# The flood: sbatch one after another, each acknowledged id and when in
# ~ada/acked-TAG on the submitting machine; each job appends its id to
# ~ada/ran on node1.
cat >"$WORK/flood.sh" <<'FLOOD'
#!/bin/bash
# flood.sh N TAG
for i in $(seq 1 "$1"); do
  if id=$(sbatch --parsable -o /dev/null --wrap 'echo $SLURM_JOB_ID >> ~/ran'); then
    echo "$id $(date +%s.%N)" >> ~/acked-$2
  fi
done
touch ~/flood-$2.done
FLOOD
for name in head standby; do install -m 0755 "$WORK/flood.sh" "$WORK/hosts/$name/home/ada/flood.sh"; done
flood_start() {  # flood_start HOST N TAG
  as_ada "$1" "setsid ./flood.sh $2 $3 >/dev/null 2>flood-$3.err </dev/null &"
}
acked_count() {  # acked_count HOST TAG
  local f="$WORK/hosts/$1/home/ada/acked-$2"
  [ -e "$f" ] && wc -l <"$f" || echo 0
}
at_least_acked() { [ "$(acked_count "$1" "$2")" -ge "$3" ]; }
queue_empty() { [ -z "$(mh_run "$1" 'squeue -h -o %i' 2>/dev/null)" ] && mh_run "$1" 'squeue -h' >/dev/null; }
SUMMARY=""
# led_after HOST NAME EVENT: seconds from EVENT to NAME's last "leads" line in
# HOST's ctld log (the machines share the host's clock).
led_after() {
  local at
  at=$(grep -h "etcd: $2 leads" "$WORK/hosts/$1/var/log/skiff/ctld.log" | tail -n 1 | cut -c2-24)
  [ -n "$at" ] || { echo "?"; return; }
  awk -v a="$3" -v b="$(date -d "$at" +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}
# takeover HOST NAME EVENT WHAT: prints and keeps how long NAME took to lead.
takeover() {
  local line="$4: $2 led $(led_after "$1" "$2" "$3") s after it"
  echo "$line"
  SUMMARY+="$line"$'\n'
}
# check_flood HOST TAG EVENT_TIME WHAT: after the flood from HOST, every
# acknowledged job is in sacct and ran exactly once.
check_flood() {
  local host=$1 tag=$2 event=$3 what=$4 dir="$WORK/hosts/$1/home/ada"
  waitfor 300 "the $tag flood finished" test -e "$dir/flood-$tag.done"
  waitfor 300 "the queue empty after the $tag flood" queue_empty "$host"
  mh_run "$host" 'sacct -X -n -P -a -S 2020-01-01 -o JobID' >"$WORK/sacct-$tag"
  local acked lost twice not_run gap
  acked=$(wc -l <"$dir/acked-$tag")
  lost=$(awk 'NR == FNR { found[$1] = 1; next } !($1 in found)' "$WORK/sacct-$tag" "$dir/acked-$tag" | wc -l)
  # ran: on node1, all floods so far; each acknowledged id of this one.
  twice=$(awk 'NR == FNR { n[$1]++; next } n[$1] > 1' "$WORK/hosts/node1/home/ada/ran" "$dir/acked-$tag" | wc -l)
  not_run=$(awk 'NR == FNR { n[$1]++; next } !($1 in n)' "$WORK/hosts/node1/home/ada/ran" "$dir/acked-$tag" | wc -l)
  gap=$(sort -k2 -n "$dir/acked-$tag" | awk -v e="$event" 'prev != "" && $2 > e - 1 && $2 - prev > g { g = $2 - prev } { prev = $2 } END { printf "%.2f", g }')
  local line="$what: $acked acknowledged, $((acked - lost)) found after, $lost lost, $twice run twice, $not_run not run; longest gap between acknowledgements ${gap} s"
  echo "$line"
  SUMMARY+="$line"$'\n'
  [ "$lost" = 0 ] && [ "$twice" = 0 ] && [ "$not_run" = 0 ] ||
    { cat "$dir/flood-$tag.err" >&2; fail "$what: $lost lost, $twice run twice, $not_run not run"; }
  # The flood must span the event, or it tested nothing.
  [ "$(awk -v e="$event" '$2 > e' "$dir/acked-$tag" | wc -l)" -ge 1 ] ||
    { cat "$dir/flood-$tag.err" >&2; fail "$what: no submission was acknowledged after it (the flood ended first)"; }
}

step "1. kill -9 of the serving ctld (head) during 80 submissions from the standby's machine"
flood_start standby 80 kill
waitfor 60 "15 submissions acknowledged" at_least_acked standby kill 15
event=$(now)
mh_run head 'pkill -9 -x ctld'
check_flood standby kill "$event" "kill -9 of the serving ctld"
# The standby, or the head's ctld restarted by systemd 5 s later, whichever
# campaigned first once the lease lapsed (on a loaded machine either may).
if serving standby standby; then
  takeover standby standby "$event" "kill -9 of the serving ctld"
  waitfor 90 "the head's ctld, restarted by systemd, standing by" up standby head
  step "   scontrol takeover hands the cluster back to the head"
  mh_run head 'scontrol takeover'
  waitfor 30 "the head serving after scontrol takeover" serving standby head
else
  serving standby head || fail "no controller serves after the kill"
  takeover head head "$event" "kill -9 of the serving ctld (restarted by systemd, it led again)"
  up standby standby || fail "the standby does not answer after the kill"
fi

step "2. the head's machine powered off (its PID 1 killed) during 80 submissions"
flood_start standby 80 poweroff
waitfor 60 "10 submissions acknowledged" at_least_acked standby poweroff 10
event=$(now)
mh_poweroff head
check_flood standby poweroff "$event" "the serving controller's machine powered off"
takeover standby standby "$event" "the serving controller's machine powered off"
serving standby standby || fail "the standby does not serve after the head's power-off"
mh_boot head || fail "booting the head again"
waitfor 120 "the head's ctld standing by after its boot" up standby head

step "3. the serving controller (standby) cut from the network during 80 submissions from the head"
flood_start head 80 cut
waitfor 60 "10 submissions acknowledged" at_least_acked head cut 10
event=$(now)
mh_unplug standby
check_flood head cut "$event" "the serving controller cut from the network"
takeover head head "$event" "the serving controller cut from the network"
serving head head || fail "the head does not serve after the standby was cut off"
# The cut controller stopped serving before the head began: the log lines
# (one clock: the machines share the host's).
stopped_at=$(grep -h 'standby no longer leads' "$WORK/hosts/standby/var/log/skiff/ctld.log" | tail -n 1 | cut -c2-24)
leads_at=$(grep -h 'etcd: head leads' "$WORK/hosts/head/var/log/skiff/ctld.log" | tail -n 1 | cut -c2-24)
echo "the cut standby stopped serving at $stopped_at; the head led at $leads_at"
[ -n "$stopped_at" ] && [ -n "$leads_at" ] || fail "no 'no longer leads' or 'leads' line"
[[ "$stopped_at" < "$leads_at" ]] || fail "the head led ($leads_at) before the cut standby stopped ($stopped_at)"
mh_plug standby
waitfor 120 "the standby's ctld standing by again" up head standby

step "4. etcd loses a member (node1's stopped) during 20 submissions"
mh_run node1 'systemctl stop etcd'
event=$(now)
flood_start head 20 member
check_flood head member "$event" "one etcd member stopped"
mh_run node1 'systemctl start etcd'

step "summary"
printf '%s' "$SUMMARY"
echo PASS
