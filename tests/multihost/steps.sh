# steps.sh: what the multi-host tests share besides the machines (hosts.sh):
# failing with every machine's logs, waiting for an event, docs/install.md's
# marked blocks, and Skiff's .debs built from this build's binaries. Sourced
# after hosts.sh, with SRC set to the runfiles' workspace.

fail() {
  echo "FAIL: $*" >&2
  local name
  for name in "${!MH_PID[@]}"; do
    echo "---- $name: skiff logs" >&2
    mh_run "$name" 'tail -n 15 /var/log/skiff/*.log; systemctl --failed --no-legend; journalctl -u skiff-ctld -u skiff-noded -u skiff-scriptd -u etcd --no-pager -n 25' 2>&1 || true
  done
  exit 1
}
step() { printf '\n== %s\n' "$*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# waitfor SECONDS DESCRIPTION COMMAND...: until COMMAND succeeds, or fail.
waitfor() {
  local seconds=$1 what=$2 deadline
  shift 2
  deadline=$(($(date +%s) + seconds))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "$what (not within ${seconds}s)"
    sleep 0.2
  done
}

# The checks every multi-host test makes before it boots anything.
mh_preflight() {
  [ "$(id -u)" = 0 ] || fail "needs root (machines are booted with systemd-nspawn)"
  local tool
  for tool in systemd-nspawn debootstrap dpkg-deb nsenter mountpoint; do
    command -v "$tool" >/dev/null || fail "$tool is missing: run ./skiff setup"
  done
  # systemd-nspawn makes / a slave mount: in a chroot whose root is no mount of
  # its own it fails with "Failed to mount n/a ... on /".
  mountpoint -q / || fail "/ is not a mount point (in a chroot, first: mount --bind DIR DIR)"
}

# docs/install.md's block after the marker "<!-- multihost_test: NAME -->".
readme_block() {
  awk -v marker="<!-- multihost_test: $1 -->" '
    index($0, marker) { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' "$SRC/docs/install.md"
}

# The arrays in ./skiff, one path per line.
skiff_array() {
  awk -v start="^$1=[(]" '$0 ~ start {on = 1} on {print} on && /[)]/ {exit}' "$SRC/skiff" |
    sed -e "s/^$1=(//" -e 's/).*//' -e 's/#.*//' | tr ' ' '\n' | sed '/^$/d'
}

SKIFF_VERSION=$(sed -n 's/.*kSkiffVersion\[\] = "\([^"]*\)";.*/\1/p' "$SRC/common/version.h")

# build_debs OUT [build-debs.sh arguments...]: Skiff's .debs from this
# build's binaries, as `./skiff package` makes them.
build_debs() {
  local out=$1
  shift
  "$SRC/packaging/debian/build-debs.sh" --bin-from "$SRC" --out "$out" --version "$SKIFF_VERSION" \
    --daemons "$(skiff_array DAEMONS | tr '\n' ' ')" --client "$(skiff_array CLIENT)" \
    --admin "$(skiff_array ADMIN | tr '\n' ' ')" --compression none "$@" >"$out.log" 2>&1 ||
    { cat "$out.log" >&2; fail "build-debs.sh $*"; }
}

# The token `skiff init` or `skiff token create` printed, on a line of its own.
token_in() { grep -Eo '[a-z2-7]{6}\.[a-z2-7]{26}\.[0-9a-f]{64}' | tail -n 1; }

as_ada() {  # as_ada HOST COMMAND: COMMAND as ada, in her home directory
  mh_run "$1" "cd ~ada && runuser -u ada -- bash -c $(printf '%q' "$2")"
}
