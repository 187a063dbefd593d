#!/usr/bin/env bash
# chroot_check.sh: install Skiff's .debs into a fresh Debian 12 chroot and use them.
# As root, on a Debian machine that reaches a Debian mirror:
#
#   packaging/chroot_check.sh [--chroot DIR] [--base TAR] [--boot] DEB...
#
# DIR (default /work/chroot-pkg) is made from TAR, a tarball of a
# `debootstrap bookworm` tree (default DIR.tar; made on first use, then reused,
# so each run starts from the same fresh system). Then: apt-get install of the
# .debs (timed), the skiff user and the directories' owners and modes, the
# programs run, the services enabled only once a skiff.conf exists; munged, ctld
# (as skiff, as its unit runs it) and noded started by hand, sinfo and a job;
# a forced logrotate; then remove and purge. Nothing needs systemd running.
# --boot (needs systemd-nspawn, from systemd-container) then boots the chroot
# with systemd and checks the units themselves: both services up, ctld as skiff
# with NoNewPrivileges and noded without, a job that outlives
# `systemctl restart skiff-noded`, `systemctl reload skiff-ctld`.
set -euo pipefail

CHROOT=/work/chroot-pkg
BASE=""
BOOT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --chroot) CHROOT=$2; shift 2 ;;
    --base) BASE=$2; shift 2 ;;
    --boot) BOOT=1; shift ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--chroot DIR] [--base TAR] DEB..." >&2; exit 2; }
BASE=${BASE:-$CHROOT.tar}
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 2; }

step() { printf '\n== %s\n' "$*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
in_chroot() { chroot "$CHROOT" "$@"; }

if [ ! -s "$BASE" ]; then
  step "debootstrap bookworm (once; kept in $BASE)"
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
  rm -rf "$CHROOT"
  debootstrap bookworm "$CHROOT" "${mirror:-http://deb.debian.org/debian}"
  tar -C "$CHROOT" -cf "$BASE" .
fi
step "fresh chroot from $BASE"
rm -rf "$CHROOT"
mkdir -p "$CHROOT"
tar -C "$CHROOT" -xf "$BASE"

pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  sleep 1
  umount "$CHROOT/proc" 2>/dev/null || true
}
trap cleanup EXIT
mount -t proc proc "$CHROOT/proc"
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"

mkdir -p "$CHROOT/tmp/debs"
cp "$@" "$CHROOT/tmp/debs/"
step "apt-get install ./skiff-*.deb"
in_chroot apt-get update -q >/dev/null
start=$(date +%s.%N)
in_chroot sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/debs/*.deb'
end=$(date +%s.%N)
printf 'install took %.1f s\n' "$(awk "BEGIN{print $end - $start}")"

step "user, directories, programs"
in_chroot getent passwd skiff || fail "no skiff user"
in_chroot id skiff
for d in /etc/skiff /var/lib/skiff /var/spool/skiff /var/log/skiff; do
  in_chroot stat -c '%n %U:%G %a' "$d"
done
[ "$(in_chroot stat -c '%U:%G %a' /var/lib/skiff)" = "skiff:skiff 700" ] || fail "/var/lib/skiff"
[ "$(in_chroot stat -c '%U:%G %a' /var/log/skiff)" = "skiff:adm 750" ] || fail "/var/log/skiff"
[ "$(in_chroot stat -c '%U:%G %a' /var/spool/skiff)" = "root:root 755" ] || fail "/var/spool/skiff"
in_chroot sinfo --version
in_chroot ctld --help | head -n 3
in_chroot noded --help | head -n 3
in_chroot ls -l /usr/sbin/ctld /usr/sbin/noded
in_chroot dpkg -L skiff-client skiff-controller skiff-node | grep '/man/.*\.gz$' | wc -l
wants="$CHROOT/etc/systemd/system/multi-user.target.wants"
enabled() { [ -L "$wants/$1" ]; }
if enabled skiff-ctld.service || enabled skiff-noded.service; then
  fail "a service is enabled without a skiff.conf"
fi
echo "services not enabled: no /etc/skiff/skiff.conf yet"

step "installing again is harmless (postinst is idempotent)"
in_chroot sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall /tmp/debs/*.deb' \
  >/dev/null
in_chroot getent passwd skiff

step "a one-node cluster: $(hostname -s), munge from the chroot's package"
host=$(hostname -s)
cpus=$(nproc)
cat >"$CHROOT/etc/skiff/skiff.conf" <<EOF
ClusterName=chroot
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=19817
SlurmdPort=19818
SlurmUser=skiff
AuthType=auth/munge
StateSaveLocation=/var/lib/skiff
SlurmdSpoolDir=/var/spool/skiff
SlurmctldLogFile=/var/log/skiff/ctld.log
SlurmdLogFile=/var/log/skiff/noded.log
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000
PartitionName=debug Nodes=$host Default=YES MaxTime=1:00:00 State=UP
EOF
step "with a skiff.conf, postinst enables the services"
in_chroot dpkg-reconfigure skiff-controller skiff-node
enabled skiff-ctld.service || fail "skiff-ctld not enabled"
enabled skiff-noded.service || fail "skiff-noded not enabled"

mkdir -p "$CHROOT/run/munge"
in_chroot chown munge:munge /run/munge
[ -s "$CHROOT/etc/munge/munge.key" ] || in_chroot mungekey --create
in_chroot runuser -u munge -- /usr/sbin/munged
started=$(date +%s.%N)
# As the units run them: ctld as skiff, noded as root, both in the foreground.
chroot "$CHROOT" runuser -u skiff -- /usr/sbin/ctld -f /etc/skiff/skiff.conf &
pids+=($!)
chroot "$CHROOT" /usr/sbin/noded -f /etc/skiff/skiff.conf &
pids+=($!)
for _ in $(seq 1 100); do
  in_chroot sinfo -h -N 2>/dev/null | grep -q idle && break
  sleep 0.2
done
answered=$(date +%s.%N)
in_chroot sinfo
in_chroot sinfo -h -N | grep -q idle || { tail -n 20 "$CHROOT/var/log/skiff/"*.log; fail "node not idle"; }
printf 'ctld + noded up and sinfo answering in %.1f s\n' "$(awk "BEGIN{print $answered - $started}")"
id=$(in_chroot sbatch --parsable -o /tmp/job-%j.out --wrap 'echo hello from $(hostname) as $(id -un)')
for _ in $(seq 1 50); do
  [ -z "$(in_chroot squeue -h -j "$id" 2>/dev/null)" ] && break
  sleep 0.2
done
in_chroot sacct -X -n -o JobID,State,ExitCode -j "$id"
cat "$CHROOT/tmp/job-$id.out"
in_chroot ls -la /var/lib/skiff /var/log/skiff

step "logrotate -f: the daemons go on writing to the emptied logs"
in_chroot logrotate -f /etc/logrotate.d/skiff
in_chroot sinfo >/dev/null
in_chroot scontrol reconfigure
sleep 0.5
in_chroot ls -la /var/log/skiff
in_chroot tail -n 2 /var/log/skiff/ctld.log
[ -s "$CHROOT/var/log/skiff/ctld.log" ] || fail "ctld stopped logging after the rotation"

step "stop, remove, purge"
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
wait "${pids[@]}" 2>/dev/null || true
pids=()
pkill -F "$CHROOT/run/munge/munged.pid" 2>/dev/null || true
in_chroot env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q \
  skiff-client skiff-controller skiff-node skiff-common
in_chroot env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
  skiff-client skiff-controller skiff-node skiff-common
for d in /var/lib/skiff /var/spool/skiff /var/log/skiff; do
  [ ! -e "$CHROOT$d" ] || fail "$d left after purge"
done
in_chroot dpkg-statoverride --list | grep skiff && fail "statoverrides left after purge"
echo "all chroot checks passed"
[ "$BOOT" -eq 1 ] || exit 0

step "--boot: install again and boot the chroot with systemd (systemd-nspawn)"
command -v systemd-nspawn >/dev/null || fail "no systemd-nspawn (apt-get install systemd-container)"
umount "$CHROOT/proc"
mkdir -p "$CHROOT/root/debs"
cp "$@" "$CHROOT/root/debs/"
chroot "$CHROOT" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q /root/debs/*.deb' \
  >/dev/null
systemd-nspawn --register=no --keep-unit --console=passive -D "$CHROOT" -b >/dev/null 2>&1 &
nspawn=$!
leader=""
for _ in $(seq 1 100); do
  leader=$(pgrep -P "$nspawn" -x systemd || true)
  [ -n "$leader" ] && nsenter -t "$leader" -a systemctl is-system-running 2>/dev/null |
    grep -qE 'running|degraded' && break
  sleep 0.3
done
[ -n "$leader" ] || { kill "$nspawn"; fail "the container did not boot"; }
booted() { nsenter -t "$leader" -a "$@"; }
poweroff() { booted systemctl poweroff >/dev/null 2>&1 || kill "$nspawn"; wait "$nspawn" || true; }
trap poweroff EXIT
for _ in $(seq 1 50); do booted sinfo -h 2>/dev/null | grep -q idle && break; sleep 0.3; done
booted systemctl --no-pager is-active munge skiff-ctld skiff-noded || fail "a service is down"
booted sinfo
booted ps -o user,pid,args -C ctld,scriptd,noded
[ "$(booted ps -o user= -C ctld)" = skiff ] || fail "ctld does not run as skiff"
booted grep -q 'NoNewPrivs:.*1' "/proc/$(booted pgrep -x ctld)/status" || fail "ctld may gain privileges"
booted grep -q 'NoNewPrivs:.*0' "/proc/$(booted pgrep -x noded)/status" || fail "noded's jobs could not use setuid programs"
booted sh -c 'useradd -m alice 2>/dev/null; cd /home/alice && runuser -u alice -- sbatch -Q -o j.out \
  --wrap "echo job as \$(id -un); echo x > /tmp/alice-job; sleep 4; echo job done"'
sleep 1
booted systemctl restart skiff-noded
booted systemctl reload skiff-ctld
for _ in $(seq 1 50); do [ -z "$(booted squeue -h)" ] && break; sleep 0.3; done
booted sacct -X -n -o JobID,User,State,ExitCode
booted cat /home/alice/j.out
booted grep -q 'job done' /home/alice/j.out || fail "the job did not outlive restarting noded"
booted grep -q 'SIGHUP: reconfiguring' /var/log/skiff/ctld.log || fail "reload did not reach ctld"
echo "booted checks passed"
