#!/usr/bin/env bash
# multihost_test: Skiff installed on three machines as docs/install.md says,
# word for word, and used across them.
#
# The machines (hosts.sh): head, node1 and node2 (two fake GPUs), each a fresh
# Debian 12 tree booted with its own systemd in its own network, UTS, mount and
# PID namespaces, reaching the others only over a bridge by their own addresses.
# Each gets Skiff's .debs (built here by packaging/debian/build-debs.sh from
# this build's binaries) copied into /root, as an admin would scp them, and runs
# docs/install.md's blocks marked for it; the join command is the one `skiff init`
# printed. Then: a 2-node batch job with a step on each host, srun across hosts
# from the head node, a GPU job on node2, sacct on the head node, all as a user
# that exists on every host; then node1 is powered off, booted again, and takes
# jobs again without anyone touching it; an upgrade; and node2 is retired
# (skiff node remove): node1 fetches the new munge key by itself, node2's old
# key is refused.
set -euo pipefail

SRC="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}"
WORK="${TEST_TMPDIR:?}/multihost"
# shellcheck source=tests/multihost/hosts.sh
source "$SRC/tests/multihost/hosts.sh"

# shellcheck source=tests/multihost/steps.sh
source "$SRC/tests/multihost/steps.sh"
mh_preflight

HEAD_BLOCK=$(readme_block head)
NODE_BLOCK=$(readme_block node)
[ -n "$HEAD_BLOCK" ] || fail "docs/install.md has no block marked multihost_test: head"
[ -n "$NODE_BLOCK" ] || fail "docs/install.md has no block marked multihost_test: node"

mkdir -p "$WORK"
# MH_KEEP=1 leaves the machines running after a failure, to look at by hand
# (nsenter -t PID -a, PID of each machine's systemd; then mh_cleanup).
if [ "${MH_KEEP:-0}" = 1 ]; then trap 'echo "machines kept: $(pgrep -a -f "systemd-nspawn.*$MH_BRIDGE")"' EXIT; else trap mh_cleanup EXIT; fi

step "packages from this build's binaries"
version=$SKIFF_VERSION
build_debs "$WORK/debs"
ls -l "$WORK/debs"/*.deb
# ctld links SQLite: its package must say so, or a host installs it without.
controller_depends=$(dpkg-deb -f "$WORK/debs"/skiff-controller_*.deb Depends)
echo "skiff-controller Depends: $controller_depends"
case "$controller_depends" in
  *libsqlite3-0*) ;;
  *) fail "skiff-controller does not depend on libsqlite3-0: $controller_depends" ;;
esac

step "three machines"
mh_init "$WORK/hosts"
tree=$(mh_deps_tar "$WORK/debs"/*.deb) || fail "the cached Debian tree"
mh_create head "$MH_PREFIX.10" "$tree"
mh_create node1 "$MH_PREFIX.11" "$tree"
# node2's GPUs: NVIDIA's device files (stand-ins with numbers of their own) and
# a fake libnvidia-ml.so.1 that reports minors 0 and 3.
mh_create node2 "$MH_PREFIX.12" "$tree" --bind=/dev/full:/dev/nvidia0 --bind=/dev/zero:/dev/nvidia3
cp "$SRC/tests/fake_nvml/libnvidia-ml.so.1" "$WORK/hosts/node2/usr/lib/x86_64-linux-gnu/"
mh_hosts_file
for name in head node1 node2; do cp "$WORK/debs"/*.deb "$WORK/hosts/$name/root/"; done
mh_boot head node1 node2 || fail "booting the machines"
# A lab's user, the same uid everywhere (as LDAP or the admin's useradd gives).
for name in head node1 node2; do mh_run "$name" 'useradd -m -u 2001 -s /bin/bash ada'; done

step "head: docs/install.md's commands"
printf '%s\n' "$HEAD_BLOCK"
started=$(now)
mh_run head "$HEAD_BLOCK" >"$WORK/head.out" 2>&1 || { cat "$WORK/head.out" >&2; fail "the head's block"; }
grep -v -e '^Reading database' -e '^(Reading database' -e '^Get:' -e '^Selecting' -e '^Preparing' \
  -e '^Unpacking' -e '^debconf' "$WORK/head.out"
waitfor 60 "sinfo answers on the head" mh_run head sinfo
echo "install + init to sinfo answering: $(since "$started") s"
join=$(grep -E '^ *skiff join ' "$WORK/head.out" | tail -n 1 | sed 's/^ *//')
[ -n "$join" ] || fail "skiff init printed no 'skiff join' command"
# The token, on a line of its own: the command never carries it (on the node's
# command line every user there could read it); it is pasted when asked.
token=$(token_in <"$WORK/head.out")
[ -n "$token" ] || fail "skiff init printed no join token"
case "$join" in *"$token"* | *"${token#*.}"*) fail "the join command carries the token: $join" ;; esac

idle() {  # idle NODE: NODE is in sinfo, idle
  [ "$(mh_run head "sinfo -h -N -n $1 -o %t" 2>/dev/null)" = idle ]
}
TOKEN_BLOCK=$(readme_block token)
[ -n "$TOKEN_BLOCK" ] || fail "docs/install.md has no block marked multihost_test: token"
for name in node1 node2; do
  if [ "$name" != node1 ]; then
    step "head: a token for $name"
    mh_run head "$TOKEN_BLOCK" >"$WORK/token-$name.out"
    join=$(grep -E '^ *skiff join ' "$WORK/token-$name.out" | tail -n 1 | sed 's/^ *//')
    [ -n "$join" ] || fail "'$TOKEN_BLOCK' printed no 'skiff join' command"
    token=$(token_in <"$WORK/token-$name.out")
    [ -n "$token" ] || fail "'$TOKEN_BLOCK' printed no join token"
  fi
  step "$name: docs/install.md's commands, then the join command the head printed, the token pasted"
  block=${NODE_BLOCK//'skiff join HEAD'/$join}
  [ "$block" != "$NODE_BLOCK" ] || fail "docs/install.md's node block has no 'skiff join HEAD' line"
  mh_run "$name" "${block%%skiff join*}" >"$WORK/$name.out" 2>&1 ||
    { cat "$WORK/$name.out" >&2; fail "$name: installing"; }
  started=$(now)
  printf '%s\n' "$token" | mh_run "$name" "$join" >>"$WORK/$name.out" 2>&1 ||
    { cat "$WORK/$name.out" >&2; fail "$name: $join"; }
  waitfor 60 "$name idle in sinfo after joining" idle "$name"
  echo "skiff join to idle in sinfo: $(since "$started") s"
done
mh_run head 'sinfo -N -o "%N %t %c %m %G"' | tee "$WORK/sinfo"
grep -Eq '^node2 idle .*gpu:([^:]+:)?2' "$WORK/sinfo" || fail "node2 does not show its 2 GPUs"
[ "$(mh_run head 'sinfo -h -N -n node1 -o %c')" -ge 1 ] || fail "node1 has no CPUs"

job_state() { as_ada head "sacct -n -P -X -j $1 -o State" | head -n 1; }
finished() { [ "$(job_state "$1")" = COMPLETED ]; }

step "a 2-node batch job with a step on each host"
id=$(as_ada head 'sbatch --parsable -N2 -o job-%j.out --wrap "srun -l hostname | sort"') ||
  fail "sbatch -N2"
waitfor 90 "job $id COMPLETED" finished "$id"
out=$(mh_run node1 "cat ~ada/job-$id.out" 2>/dev/null || mh_run node2 "cat ~ada/job-$id.out")
echo "$out"
[ "$out" = $'0: node1\n1: node2' ] || fail "job $id's step did not run on node1 and node2"

step "srun across hosts from the head node"
out=$(as_ada head 'srun -N2 -l hostname | sort')
echo "$out"
[ "$out" = $'0: node1\n1: node2' ] || fail "srun -N2 from the head node"

step "a GPU job on node2"
out=$(as_ada head 'srun --gres=gpu:1 bash -c "hostname; echo GPU \$CUDA_VISIBLE_DEVICES"')
echo "$out"
[ "$out" = $'node2\nGPU 0' ] || fail "srun --gres=gpu:1"

step "sacct on the head node"
as_ada head 'sacct -X -o JobID,User,NodeList,State,ExitCode' | tee "$WORK/sacct"
[ "$(grep -c ' ada .*COMPLETED' "$WORK/sacct")" -ge 3 ] || fail "sacct does not show ada's 3 jobs"

step "node1 powered off, booted again: it rejoins"
before=$(mh_run head 'scontrol show node node1' | grep -o 'SlurmdStartTime=[^ ]*')
mh_stop node1
mh_boot node1 || fail "booting node1 again"
rejoined() {
  [ "$(mh_run head 'scontrol show node node1' | grep -o 'SlurmdStartTime=[^ ]*')" != "$before" ] &&
    idle node1
}
waitfor 90 "node1 idle again after its reboot" rejoined
out=$(as_ada head 'srun -w node1 hostname')
[ "$out" = node1 ] || fail "a job on node1 after its reboot"
echo "node1 back: $out"

step "an upgrade (head, then nodes) while a job runs and one waits for it"
build_debs "$WORK/debs2" --revision 2
for name in head node1 node2; do
  mkdir -p "$WORK/hosts/$name/root/upgrade"
  cp "$WORK/debs2"/*.deb "$WORK/hosts/$name/root/upgrade/"
done
# Runs until the test lets it end (a file on node1), so it spans the upgrade.
running=$(as_ada head 'sbatch --parsable -w node1 -o gate-%j.out --wrap "until [ -e /tmp/gate ]; do sleep 0.2; done; echo done"')
running_now() { [ "$(job_state "$running")" = RUNNING ]; }
waitfor 60 "job $running RUNNING" running_now
pending=$(as_ada head "sbatch --parsable -d afterok:$running -o after-%j.out --wrap 'echo after'")
upgrade=$(readme_block upgrade)
[ -n "$upgrade" ] || fail "docs/install.md has no block marked multihost_test: upgrade"
for name in head node1 node2; do
  mh_run "$name" "cd /root/upgrade && $upgrade" >"$WORK/upgrade-$name.out" 2>&1 ||
    { cat "$WORK/upgrade-$name.out" >&2; fail "$name: upgrading"; }
  [ "$(mh_run "$name" "dpkg-query -W -f='\${Version}' skiff-common")" = "$version-2" ] ||
    fail "$name: skiff-common is not $version-2 after the upgrade"
done
# Each daemon answers again soon after its package restarted it, not at once.
waitfor 60 "ctld answering after the upgrade" mh_run head 'squeue -h -j 1 -t all'
pending_now() { [ "$(job_state "$pending")" = PENDING ]; }
waitfor 5 "job $running RUNNING after the upgrade" running_now
waitfor 5 "job $pending PENDING after the upgrade" pending_now
mh_run node1 'touch /tmp/gate'
waitfor 90 "job $running COMPLETED after the upgrade" finished "$running"
waitfor 90 "job $pending COMPLETED after the upgrade" finished "$pending"
echo "jobs $running (running) and $pending (pending) both completed across the upgrade"

step "node2 retired as docs/install.md says: node1 fetches the new munge key itself, node2's is refused"
retire_node=$(readme_block retire-node)
retire_head=$(readme_block retire-head)
[ -n "$retire_node" ] && [ -n "$retire_head" ] ||
  fail "docs/install.md has no blocks marked multihost_test: retire-node and retire-head"
mh_run node2 "$retire_node" >"$WORK/retire-node2.out" 2>&1 ||
  { cat "$WORK/retire-node2.out" >&2; fail "node2: $retire_node"; }
node1_key_before=$(mh_run node1 'sha256sum /etc/munge/munge.key')
started=$(now)
mh_run head "${retire_head//NAME/node2}" >"$WORK/retire-head.out" 2>&1 ||
  { cat "$WORK/retire-head.out" >&2; fail "head: ${retire_head//NAME/node2}"; }
cat "$WORK/retire-head.out"
[ -z "$(mh_run head 'sinfo -h -N -n node2 -o %N 2>/dev/null')" ] || fail "node2 is still in sinfo"
rekeyed() {
  [ "$(mh_run node1 'sha256sum /etc/munge/munge.key')" != "$node1_key_before" ] && idle node1
}
waitfor 120 "node1 idle on the new munge key" rekeyed
echo "node1 on the new key, idle: $(since "$started") s after skiff node remove"
out=$(as_ada head 'srun -w node1 hostname')
[ "$out" = node1 ] || fail "a job on node1 after the munge key changed"
# node2 keeps the old key: what it signs is refused, and it cannot fetch the new one.
if mh_run node2 'SKIFF_CONF=/var/spool/skiff/conf-cache/skiff.conf sinfo -h' \
  >"$WORK/node2-sinfo.out" 2>&1; then
  fail "node2's old munge key is still accepted"
fi
grep -q 'credential' "$WORK/node2-sinfo.out" ||
  { cat "$WORK/node2-sinfo.out" >&2; fail "node2's sinfo failed, but not for its credential"; }
if mh_run node2 'skiff key fetch' >"$WORK/node2-fetch.out" 2>&1; then
  fail "node2 fetched the new munge key"
fi
grep -q 'node key is not valid for node2' "$WORK/node2-fetch.out" ||
  { cat "$WORK/node2-fetch.out" >&2; fail "node2's skiff key fetch failed for another reason"; }
echo "node2: $(cat "$WORK/node2-sinfo.out")"
echo PASS
