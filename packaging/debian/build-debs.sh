#!/usr/bin/env bash
# build-debs.sh: Skiff's Debian packages from built binaries. `./skiff package`
# runs it after `bazel build -c opt`; packaging/package_test.sh runs it on stand-in
# binaries (--no-shlibdeps) to check what goes where.
#
#   build-debs.sh --bin-from DIR --out DIR --version X.Y.Z [--revision N]
#                 --daemons "ctld/ctld ..." --client cli/skiff-client --admin "admin/skiff"
#                 [--no-shlibdeps] [--no-strip] [--keep-staging] [--compression TYPE]
#                 [--maintainer "Full Name <address>"]
#
# DIR holds the binaries as bazel-bin does (ctld/ctld, cli/skiff-client, ...).
# Makes skiff-common, skiff-controller, skiff-node and skiff-client, each from a
# staging tree under OUT/staging/PACKAGE, with dpkg-deb --root-owner-group.
#
# Where things go:
#   /usr/sbin/ctld, /usr/sbin/noded          links to the daemons in /usr/libexec/skiff,
#   /usr/libexec/skiff/{ctld,scriptd}        where each finds its helper (scriptd,
#   /usr/libexec/skiff/skiff-lua-hook        skiff-lua-hook, shepherd,
#   /usr/libexec/skiff/{noded,shepherd}      skiff-container-user) next to its
#   /usr/libexec/skiff/skiff-container-user  real path
#   /usr/libexec/skiff/skiff-notify          the webhook MailProg (docs/users.md, "Mail and webhooks")
#   /usr/sbin/restd                          a link to /usr/libexec/skiff/restd (REST API)
#   /usr/bin/skiff-client                    the commands' one program (--client)
#   /usr/bin/<command>                       a link to it for each name it lists
#                                            (skiff-client --commands)
#   /usr/sbin/skiff                          the admin's tool (--admin: init, token, join), in
#                                            skiff-common, which head and nodes both install
#   /lib/systemd/system/skiff-{ctld,noded,restd}.service (restd's not enabled)
#   /etc/skiff/                              cgroup.conf, skiff.conf.example, gres.conf.example
#   /var/lib/skiff (ctld's state), /var/spool/skiff (noded's spool), /var/log/skiff
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PROG="skiff package"
# Who built the packages, found as Debian's dch finds it: --maintainer, else
# DEBFULLNAME/NAME and DEBEMAIL/EMAIL, else the author of the commit the packages
# are built from, else the building user (passwd's full name, user@mailname). A
# site that builds its own packages gets its own name in them, and apt shows
# whom to ask.
maintainer_from_environment() {
  local name=${DEBFULLNAME:-${NAME:-}} email=${DEBEMAIL:-${EMAIL:-}} user host
  if [ -n "$name" ] && [ -n "$email" ]; then
    echo "$name <$email>"
  elif git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$ROOT" log -1 --format='%an <%ae>'
  else
    user=$(id -un)
    name=$(getent passwd "$user" | cut -d: -f5 | cut -d, -f1)
    host=$(cat /etc/mailname 2>/dev/null || hostname --fqdn 2>/dev/null || hostname)
    echo "${name:-$user} <$user@$host>"
  fi
}

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

bin_from="" out="" version="" revision=1 daemons="" client="" admin=""
shlibdeps=1 strip=1 keep_staging=0 maintainer=""
# xz, as Debian's archive; tests that install the packages at once take none
# (xz of the unoptimized commands alone took minutes on 2 cores).
compression=xz
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-from) bin_from=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    --revision) revision=$2; shift 2 ;;
    --daemons) daemons=$2; shift 2 ;;
    --client) client=$2; shift 2 ;;
    --admin) admin=$2; shift 2 ;;
    --no-shlibdeps) shlibdeps=0; shift ;;
    --no-strip) strip=0; shift ;;
    --keep-staging) keep_staging=1; shift ;;
    --compression) compression=$2; shift 2 ;;
    --maintainer) maintainer=$2; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ -n "$bin_from" ] && [ -n "$out" ] && [ -n "$version" ] && [ -n "$daemons" ] && [ -n "$client" ] &&
  [ -n "$admin" ] || die "needs --bin-from, --out, --version, --daemons, --client and --admin"
case "$compression" in xz | gzip | zstd | none) ;; *) die "--compression: '$compression' is not xz, gzip, zstd or none" ;; esac
[[ "$version" =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || die "version '$version' is not a Debian upstream version"
command -v dpkg-deb >/dev/null || die "dpkg-deb is missing"
[ -n "$maintainer" ] || maintainer=$(maintainer_from_environment)
# Debian policy 5.6.2: a name and an address in angle brackets.
[[ "$maintainer" =~ ^[^\<\>]+\ \<[^\<\>@\ ]+@[^\<\>\ ]+\>$ ]] ||
  die "Maintainer '$maintainer' is not 'Full Name <address>': give --maintainer, or set DEBFULLNAME and DEBEMAIL"
MAINTAINER=$maintainer

DEB_VERSION="$version-$revision"
ARCH=$(dpkg --print-architecture)
mkdir -p "$out"
out=$(cd "$out" && pwd)
STAGING="$out/staging"
rm -rf "$STAGING"
mkdir -p "$STAGING"

# Which package each daemon belongs to, and which of them an admin starts by
# name (a link in /usr/sbin); the others are helpers their daemon finds.
package_of_daemon() {
  case "$1" in
    ctld|scriptd|skiff-lua-hook|skiff-notify|restd) echo skiff-controller ;;
    noded|shepherd|skiff-container-user) echo skiff-node ;;
    *) die "no package for daemon '$1' (add it to package_of_daemon in $0)" ;;
  esac
}
in_sbin() { [ "$1" = ctld ] || [ "$1" = noded ] || [ "$1" = restd ]; }

# One line for each man page's NAME section.
summary_of() {
  [ -z "${COMMAND_SUMMARIES[$1]:-}" ] || { echo "${COMMAND_SUMMARIES[$1]}"; return; }
  case "$1" in
    ctld) echo "the Skiff controller (Slurm's slurmctld)" ;;
    noded) echo "the Skiff node daemon (Slurm's slurmd)" ;;
    restd) echo "the Skiff REST API daemon (Slurm's slurmrestd)" ;;
    skiff) echo "set up a Skiff cluster: init the head node, join nodes" ;;
    skiff-client) echo "run any Skiff command (sbatch, srun, squeue, ...) by name" ;;
    *) echo "a Skiff command" ;;
  esac
}

install_file() {  # install_file MODE SRC DEST
  mkdir -p "$(dirname "$3")"
  install -m "$1" "$2" "$3"
}

install_binary() {  # install_binary SRC DEST
  [ -x "$1" ] || die "missing $1 (build first)"
  install -D -m 0755 "$1" "$2"
  # (skiff-notify is a shell script: nothing to strip.)
  if [ "$strip" -eq 1 ] && [ "$(head -c 4 "$2" | tr -d '\177')" = "ELF" ]; then
    # What dh_strip does; the build keeps its symbols.
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$2"
  fi
}

# man page NAME SECTION BINARY into PACKAGE's tree: from the program's --help
# through help2man when there is one; otherwise none (lintian then warns).
install_man() {
  local name=$1 section=$2 binary=$3 pkg=$4 dir
  command -v help2man >/dev/null || return 0
  dir="$STAGING/$pkg/usr/share/man/man$section"
  mkdir -p "$dir"
  if ! help2man --no-info --no-discard-stderr --section="$section" \
      --name="$(summary_of "$name")" --version-string="$version" \
      --source="Skiff $version" --manual="Skiff" \
      --output="$dir/$name.$section" "$binary" >/dev/null 2>&1; then
    die "help2man could not read '$binary --help'"
  fi
  # Stable pages: no build date in them.
  sed -i 's/^\(\.TH [^ ]* [^ ]*\) "[^"]*"/\1 "'"$version"'"/' "$dir/$name.$section"
  gzip -9n "$dir/$name.$section"
}

# Debian's changelog.Debian.gz and copyright, which every package carries.
install_docs() {
  local pkg=$1 doc="$STAGING/$1/usr/share/doc/$1" date rev
  mkdir -p "$doc"
  install -m 0644 "$HERE/copyright" "$doc/copyright"
  date=$(git -C "$ROOT" log -1 --format=%cD 2>/dev/null || true)
  [ -n "$date" ] || date=$(date -R -d "@${SOURCE_DATE_EPOCH:-0}")
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  {
    echo "skiff ($DEB_VERSION) bookworm; urgency=medium"
    echo
    echo "  * Built from Skiff's source tree with ./skiff package (git $rev)."
    echo
    echo " -- $MAINTAINER  $date"
  } | gzip -9n >"$doc/changelog.Debian.gz"
  chmod 0644 "$doc/changelog.Debian.gz"
  # lintian's overrides: the ones every package shares, then the package's own.
  mkdir -p "$STAGING/$pkg/usr/share/lintian/overrides"
  {
    cat "$HERE/lintian/overrides"
    [ ! -e "$HERE/$pkg/lintian-overrides" ] || cat "$HERE/$pkg/lintian-overrides"
  } >"$STAGING/$pkg/usr/share/lintian/overrides/$pkg"
  chmod 0644 "$STAGING/$pkg/usr/share/lintian/overrides/$pkg"
}

# Shared-library dependencies of the ELF files in PACKAGE, as dpkg-shlibdeps
# finds them from Debian's shlibs/symbols files.
shlib_depends() {
  local pkg=$1 tmp files=()
  if [ "$shlibdeps" -eq 0 ]; then echo "libc6"; return 0; fi
  command -v dpkg-shlibdeps >/dev/null || die "dpkg-shlibdeps is missing (apt-get install dpkg-dev)"
  # Dynamically linked programs only: the shepherd is fully static
  # (docs/decisions.md, "Build"), skiff-client static but for glibc.
  # (grep -c, not -q: grep -q exits at the first match, and readelf's next
  # write then dies of SIGPIPE, which pipefail takes for "no NEEDED": ctld
  # was left out now and then, and with it skiff-controller's libsqlite3-0.)
  while IFS= read -r -d '' f; do
    readelf -d "$f" 2>/dev/null | grep -c '(NEEDED)' >/dev/null && files+=("$f")
  done < <(find "$STAGING/$pkg" -path "$STAGING/$pkg/DEBIAN" -prune -o -type f -perm -0100 -print0)
  if [ "${#files[@]}" -eq 0 ]; then echo "libc6"; return 0; fi
  tmp=$(mktemp -d)
  mkdir -p "$tmp/debian"
  printf 'Source: skiff\n\nPackage: %s\nArchitecture: any\n' "$pkg" >"$tmp/debian/control"
  (cd "$tmp" && dpkg-shlibdeps -O --warnings=1 "${files[@]/#/-e}") |
    sed -n 's/^shlibs:Depends=//p'
  rm -rf "$tmp"
}

finish_package() {  # finish_package PACKAGE: control, md5sums, .deb
  local pkg=$1 root="$STAGING/$1" size depends=""
  mkdir -p "$root/DEBIAN"
  local script
  for script in postinst prerm postrm; do
    [ -e "$HERE/$pkg/$script" ] && install -m 0755 "$HERE/$pkg/$script" "$root/DEBIAN/$script"
  done
  if [ -n "$(find "$root/etc" -type f 2>/dev/null)" ]; then
    (cd "$root" && find etc -type f | sort | sed 's|^|/|') >"$root/DEBIAN/conffiles"
    chmod 0644 "$root/DEBIAN/conffiles"
  fi
  grep -q '@SHLIBS@' "$HERE/$pkg/control.in" && depends=$(shlib_depends "$pkg")
  size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
  local control
  control=$(<"$HERE/$pkg/control.in")
  control=${control//@VERSION@/$DEB_VERSION}
  control=${control//@ARCH@/$ARCH}
  control=${control//@MAINTAINER@/$MAINTAINER}
  control=${control//@INSTALLED_SIZE@/$size}
  control=${control//@SHLIBS@/$depends}
  control=${control//@CLI_LIST@/$CLI_LIST}
  printf '%s\n' "$control" >"$root/DEBIAN/control"
  chmod 0644 "$root/DEBIAN/control"
  (cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z |
     xargs -0 -r md5sum) >"$root/DEBIAN/md5sums"
  chmod 0644 "$root/DEBIAN/md5sums"
  local arch=$ARCH
  grep -q '^Architecture: all$' "$root/DEBIAN/control" && arch=all
  dpkg-deb --build --root-owner-group -Z"$compression" "$root" "$out/${pkg}_${DEB_VERSION}_${arch}.deb" >/dev/null
  echo "$out/${pkg}_${DEB_VERSION}_${arch}.deb"
}

umask 022
# The commands skiff-client runs, with their summaries (its --commands), for
# the links, the man pages and skiff-client's description.
[ -x "$bin_from/$client" ] || die "missing $bin_from/$client (build first)"
declare -A COMMAND_SUMMARIES=()
COMMANDS=()
while IFS=$'\t' read -r name summary; do
  [[ "$name" =~ ^[a-z][a-z0-9_-]*$ ]] || die "$client --commands: '$name' is not a command name"
  COMMANDS+=("$name")
  COMMAND_SUMMARIES[$name]=$summary
done < <("$bin_from/$client" --commands)
[ "${#COMMANDS[@]}" -gt 0 ] || die "$client --commands lists no command"
CLI_LIST=""
for name in "${COMMANDS[@]}"; do CLI_LIST="${CLI_LIST:+$CLI_LIST, }$name"; done
CLI_LIST=$(fold -s -w 72 <<<"$CLI_LIST." | sed -e 's/ *$//' -e '2,$s/^/ /')

# ---- skiff-common: the user, /etc/skiff, /var/log/skiff, logrotate
c="$STAGING/skiff-common"
install_file 0644 "$HERE/etc/cgroup.conf" "$c/etc/skiff/cgroup.conf"
# etc/skiff.conf with the packages' user and paths (package_test.sh checks
# that each of these lines still matches one in etc/skiff.conf).
mkdir -p "$c/etc/skiff"
sed -e 's|^SlurmUser=.*|SlurmUser=skiff|' \
    -e 's|^StateSaveLocation=.*|StateSaveLocation=/var/lib/skiff|' \
    -e 's|^SlurmdSpoolDir=.*|SlurmdSpoolDir=/var/spool/skiff|' \
    -e 's|^SlurmctldLogFile=.*|SlurmctldLogFile=/var/log/skiff/ctld.log|' \
    -e 's|^SlurmdLogFile=.*|SlurmdLogFile=/var/log/skiff/noded.log|' \
    -e 's|^# Example skiff.conf|# Example skiff.conf (copy it to /etc/skiff/skiff.conf and edit)|' \
    "$ROOT/etc/skiff.conf" >"$c/etc/skiff/skiff.conf.example"
install_file 0644 "$ROOT/etc/gres.conf" "$c/etc/skiff/gres.conf.example"
install_file 0644 "$HERE/etc/logrotate" "$c/etc/logrotate.d/skiff"
mkdir -p "$c/var/log/skiff"
# The admin's tool: skiff init on the head node, skiff join on each node.
for rel in $admin; do
  install_binary "$bin_from/$rel" "$c/usr/sbin/${rel##*/}"
  install_man "${rel##*/}" 8 "$c/usr/sbin/${rel##*/}" skiff-common
done
install_docs skiff-common

# ---- skiff-controller and skiff-node: the daemons
for rel in $daemons; do
  name=${rel##*/}
  pkg=$(package_of_daemon "$name")
  install_binary "$bin_from/$rel" "$STAGING/$pkg/usr/libexec/skiff/$name"
  if in_sbin "$name"; then
    mkdir -p "$STAGING/$pkg/usr/sbin"
    ln -s "../libexec/skiff/$name" "$STAGING/$pkg/usr/sbin/$name"
    install_man "$name" 8 "$STAGING/$pkg/usr/libexec/skiff/$name" "$pkg"
  fi
done
install_file 0644 "$HERE/systemd/skiff-ctld.service" \
  "$STAGING/skiff-controller/lib/systemd/system/skiff-ctld.service"
install_file 0644 "$HERE/systemd/skiff-restd.service" \
  "$STAGING/skiff-controller/lib/systemd/system/skiff-restd.service"
install_file 0644 "$HERE/systemd/skiff-noded.service" \
  "$STAGING/skiff-node/lib/systemd/system/skiff-noded.service"
mkdir -p "$STAGING/skiff-controller/var/lib/skiff" "$STAGING/skiff-node/var/spool/skiff"
examples="$STAGING/skiff-controller/usr/share/doc/skiff-controller/examples"
install_file 0644 "$ROOT/etc/burst_buffer.conf" "$examples/burst_buffer.conf"
install_file 0644 "$ROOT/lua/burst_buffer.lua" "$examples/burst_buffer.lua"
# skiff-notify reads /etc/skiff/notify.conf: without AllowedWebhookHosts= it posts no webhook.
install_file 0644 "$ROOT/etc/notify.conf" "$examples/notify.conf"
install_docs skiff-controller
install_docs skiff-node

# ---- skiff-client: the commands, one program and a link per name
client_name=${client##*/}
install_binary "$bin_from/$client" "$STAGING/skiff-client/usr/bin/$client_name"
install_man "$client_name" 1 "$STAGING/skiff-client/usr/bin/$client_name" skiff-client
for name in "${COMMANDS[@]}"; do
  ln -s "$client_name" "$STAGING/skiff-client/usr/bin/$name"
  install_man "$name" 1 "$STAGING/skiff-client/usr/bin/$name" skiff-client
done
install_docs skiff-client

for pkg in skiff-common skiff-controller skiff-node skiff-client; do
  finish_package "$pkg"
done
[ "$keep_staging" -eq 1 ] || rm -rf "$STAGING"
