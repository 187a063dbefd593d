# hosts.sh: machines for the multi-host test, each a fresh Debian 12 tree booted
# with its own systemd by systemd-nspawn: its own network, UTS, mount and PID
# namespaces, its own /etc, /var and /run, an address on a bridge this file
# makes, and nothing else shared. Sourced by multihost_test.sh; needs root,
# debootstrap and systemd-nspawn (./skiff setup installs both).
#
# The Debian trees are cached (MH_CACHE, default /var/cache/skiff-multihost):
# base.tar (debootstrap) once, then deps-HASH.tar with the Debian packages the
# .debs depend on, so that a host installs Skiff's .debs with apt and no network.

MH_CACHE=${MH_CACHE:-/var/cache/skiff-multihost}
# A run's own bridge, subnet and machine names (MH_RUN), so that two runs on one
# machine (the suite in a chroot beside the suite outside) share no link names.
MH_RUN=$(printf '%04x' $((RANDOM % 65536)))
MH_BRIDGE=skmh-$MH_RUN
MH_PREFIX=10.77.$((RANDOM % 250 + 2))
MH_ROOT=""          # where the hosts' trees live (mh_init)
declare -A MH_IP    # host name -> address
declare -A MH_PID   # host name -> systemd-nspawn's pid
declare -A MH_ARGS  # host name -> extra systemd-nspawn arguments

mh_log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

mh_mirror() {
  local mirror
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
  [ -n "$mirror" ] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  echo "${mirror:-http://deb.debian.org/debian}"
}

# mh_init DIR: hosts will live under DIR; the bridge is (re)made.
mh_init() {
  MH_ROOT=$1
  mkdir -p "$MH_ROOT" "$MH_CACHE"
  ip link del "$MH_BRIDGE" 2>/dev/null || true
  ip link add "$MH_BRIDGE" type bridge
  ip addr add "$MH_PREFIX.1/24" dev "$MH_BRIDGE"
  ip link set "$MH_BRIDGE" up
}

# A tarball of `debootstrap bookworm` with systemd, made once.
mh_base_tar() {
  local tar="$MH_CACHE/base.tar" tree
  mkdir -p "$MH_CACHE"
  if [ ! -s "$tar" ]; then
    tree="$MH_CACHE/base.tmp"
    rm -rf "$tree"
    mh_log "debootstrap bookworm (once, cached in $tar)"
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,procps,iproute2,less \
      bookworm "$tree" "$(mh_mirror)" >"$MH_CACHE/debootstrap.log" 2>&1 ||
      { tail -n 20 "$MH_CACHE/debootstrap.log" >&2; return 1; }
    tar -C "$tree" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
    rm -rf "$tree"
  fi
  echo "$tar"
}

# mh_deps_tar DEB...: base plus every Debian package the .debs depend on (not
# the .debs themselves: each host installs those) and MH_EXTRA_PACKAGES,
# cached by that list.
mh_deps_tar() {
  local base deps key tar tree
  # One run at a time makes the cached trees (callers run this in $(...), whose
  # exit lets the lock go).
  mkdir -p "$MH_CACHE"
  exec 9>"$MH_CACHE/.lock"
  flock 9
  base=$(mh_base_tar) || return 1
  # Recommends too: apt installs them with the .debs, as on a lab's machine.
  deps=$(for deb in "$@"; do dpkg-deb -f "$deb" Depends Recommends | sed 's/^[A-Za-z]*: *//'; done |
    tr ',' '\n' |
    sed -e 's/([^)]*)//g' -e 's/|.*//' -e 's/ //g' | grep -v '^skiff-' | sed '/^$/d' | sort -u)
  # And what docs/install.md installs beside them (etcd-server for a standby).
  deps=$(printf '%s\n' $deps ${MH_EXTRA_PACKAGES:-} | sort -u)
  key=$(printf '%s\n' "$deps" | sha256sum | cut -c1-16)
  tar="$MH_CACHE/deps-$key.tar"
  if [ ! -s "$tar" ]; then
    tree="$MH_CACHE/deps.tmp"
    rm -rf "$tree"
    mkdir -p "$tree"
    tar -C "$tree" -xf "$base"
    mh_log "installing the .debs' dependencies into the cached tree: $(echo $deps)"
    cp /etc/resolv.conf "$tree/etc/resolv.conf"
    mount -t proc proc "$tree/proc"
    # shellcheck disable=SC2086
    if ! { chroot "$tree" apt-get update -q &&
      chroot "$tree" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        $deps && chroot "$tree" apt-get clean; } >"$MH_CACHE/deps.log" 2>&1; then
      umount "$tree/proc"
      tail -n 20 "$MH_CACHE/deps.log" >&2
      return 1
    fi
    umount "$tree/proc"
    # munge's package made a key: a fresh machine would have its own.
    rm -f "$tree/etc/munge/munge.key"
    tar -C "$tree" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
    rm -rf "$tree"
  fi
  echo "$tar"
}

# mh_create NAME ADDRESS TAR [systemd-nspawn arguments...]: a host's tree from
# TAR, with its name, its address (systemd-networkd sets it at boot, as on a
# machine with a static address) and every host's name in /etc/hosts.
mh_create() {
  local name=$1 addr=$2 tar=$3
  shift 3
  local tree="$MH_ROOT/$name"
  MH_IP[$name]=$addr
  MH_ARGS[$name]="$*"
  rm -rf --one-file-system "$tree"
  mkdir -p "$tree"
  tar -C "$tree" -xf "$tar"
  echo "$name" >"$tree/etc/hostname"
  # A fresh machine id, as a new machine's first boot makes.
  : >"$tree/etc/machine-id"
  # And its own munge key, as installing munge on it would have made.
  chroot "$tree" runuser -u munge -- mungekey --create --force >/dev/null
  mkdir -p "$tree/etc/systemd/network" "$tree/etc/systemd/system/multi-user.target.wants"
  printf '[Match]\nName=host0\n\n[Network]\nAddress=%s/24\n' "$addr" \
    >"$tree/etc/systemd/network/10-host0.network"  # before systemd's own 80-container-host0 (DHCP)
  ln -sf /lib/systemd/system/systemd-networkd.service \
    "$tree/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
}

# mh_hosts_file: every host's name and address in every host's /etc/hosts.
mh_hosts_file() {
  local name other
  for name in "${!MH_IP[@]}"; do
    {
      echo "127.0.0.1 localhost"
      for other in "${!MH_IP[@]}"; do echo "${MH_IP[$other]} $other"; done
    } >"$MH_ROOT/$name/etc/hosts"
  done
}

# The pid of NAME's systemd (its PID 1), once booted.
mh_leader() { pgrep -P "${MH_PID[$1]}" -x systemd | head -n 1; }

# mh_boot NAME...: boots the hosts (together); returns once each one's systemd
# has finished starting.
mh_boot() {
  local name
  for name in "$@"; do
    # shellcheck disable=SC2086
    systemd-nspawn --register=no --keep-unit --console=passive -q -D "$MH_ROOT/$name" \
      -M "$name-$MH_RUN" --hostname="$name" --network-bridge="$MH_BRIDGE" ${MH_ARGS[$name]} -b \
      >>"$MH_ROOT/$name.console" 2>&1 &
    MH_PID[$name]=$!
  done
  for name in "$@"; do mh_wait_booted "$name" || return 1; done
}

mh_wait_booted() {
  local name=$1 leader="" state="" i
  for i in $(seq 1 600); do
    leader=$(mh_leader "$name")
    if [ -n "$leader" ]; then
      state=$(nsenter -t "$leader" -a -r -w systemctl is-system-running 2>/dev/null || true)
      case "$state" in running | degraded) break ;; esac
    fi
    kill -0 "${MH_PID[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  case "$state" in
    running | degraded) mh_log "$name booted ($state) at ${MH_IP[$name]}" ;;
    *)
      tail -n 20 "$MH_ROOT/$name.console" >&2
      echo "host $name did not boot (systemd: '${state:-no systemd}')" >&2
      return 1
      ;;
  esac
  # The host's end of its link comes up with the container's.
  ip link set "vb-$name-$MH_RUN" up 2>/dev/null || true
}

# mh_run NAME COMMAND...: runs COMMAND on NAME as root would at its shell.
# (nsenter -r -w: the machine's root, also when this runs in a chroot.)
mh_run() {
  local name=$1 leader
  shift
  leader=$(mh_leader "$name")
  [ -n "$leader" ] || { echo "host $name is not running" >&2; return 1; }
  nsenter -t "$leader" -a -r -w env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb bash -c 'cd /root && eval "$1"' mh "$*"
}

# mh_stop NAME: a clean power-off, as `poweroff` on the machine.
mh_stop() {
  local name=$1 pid=${MH_PID[$1]:-} i
  [ -n "$pid" ] || return 0
  mh_run "$name" systemctl poweroff >/dev/null 2>&1 || true
  for i in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; sleep 0.5; }
  wait "$pid" 2>/dev/null || true
  unset "MH_PID[$name]"
}

# mh_poweroff NAME: the power cut: NAME's PID 1 killed (SIGKILL from outside
# its PID namespace ends every process in it at once), nothing stopped cleanly.
# Its tree stays, as a disk does: mh_boot starts it again.
mh_poweroff() {
  local name=$1 pid=${MH_PID[$1]:-} leader i
  [ -n "$pid" ] || return 0
  leader=$(mh_leader "$name")
  [ -z "$leader" ] || kill -9 "$leader"
  for i in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  unset "MH_PID[$name]"
}

# mh_unplug NAME / mh_plug NAME: NAME's cable pulled and put back (its link
# to the bridge down and up); NAME runs on, reaching no other host.
mh_unplug() { ip link set "vb-$1-$MH_RUN" down; }
mh_plug() { ip link set "vb-$1-$MH_RUN" up; }

# mh_cleanup: every host off, the bridge gone, the trees removed.
mh_cleanup() {
  local name
  for name in "${!MH_PID[@]}"; do mh_stop "$name"; done
  ip link del "$MH_BRIDGE" 2>/dev/null || true
  [ -z "$MH_ROOT" ] || rm -rf --one-file-system "$MH_ROOT"
}
