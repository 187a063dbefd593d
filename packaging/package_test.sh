#!/usr/bin/env bash
# package_test: `./skiff package` on stand-in binaries (no optimized build): the
# four .debs hold what ./skiff's DAEMONS, CLIENT and ADMIN name, where the units and the
# example skiff.conf expect it; the version is the one the programs report; the
# maintainer scripts parse; systemd-analyze verify accepts the units (when the
# tool is installed).
set -euo pipefail

SRC="${TEST_SRCDIR:?}/${TEST_WORKSPACE:?}"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  "$@" || fail "$what"
}

# The arrays in ./skiff, one path per line.
skiff_array() {
  awk -v start="^$1=[(]" '$0 ~ start {on = 1} on {print} on && /[)]/ {exit}' "$SRC/skiff" |
    sed -e "s/^$1=(//" -e 's/).*//' -e 's/#.*//' | tr ' ' '\n' | sed '/^$/d'
}
mapfile -t DAEMONS < <(skiff_array DAEMONS)
mapfile -t CLIENT < <(skiff_array CLIENT)
mapfile -t ADMIN < <(skiff_array ADMIN)
[ "${#DAEMONS[@]}" -ge 4 ] || { echo "FAIL: no DAEMONS in ./skiff" >&2; exit 1; }
[ "${#CLIENT[@]}" -eq 1 ] || { echo "FAIL: no one CLIENT in ./skiff" >&2; exit 1; }
[ "${#ADMIN[@]}" -ge 1 ] || { echo "FAIL: no ADMIN in ./skiff" >&2; exit 1; }

# One version (common/version.h): the commands', ctld's and noded's.
version=$(sed -n 's/.*kSkiffVersion\[\] = "\([^"]*\)";.*/\1/p' "$SRC/common/version.h")
check "common/version.h has a version" [ -n "$version" ]

# Stand-ins that answer --help, for help2man; the client's lists three
# commands, as skiff-client --commands lists its nineteen.
bin="$TMP/bin"
for rel in "${DAEMONS[@]}" "${CLIENT[@]}" "${ADMIN[@]}"; do
  mkdir -p "$bin/$(dirname "$rel")"
  printf '#!/bin/sh\necho "Usage: %s [OPTIONS]"\n' "${rel##*/}" >"$bin/$rel"
  chmod 755 "$bin/$rel"
done
COMMANDS=(sbatch squeue srun)
cat >"$bin/${CLIENT[0]}" <<EOF
#!/bin/sh
if [ "\$1" = --commands ]; then printf 'sbatch\tsubmit\nsqueue\tview the queue\nsrun\trun a step\n'; exit 0; fi
echo "Usage: \$(basename "\$0") [OPTIONS]"
EOF
out="$TMP/out"
DEBFULLNAME="Ada Lovelace" DEBEMAIL="ada@lab.example" \
  "$SRC/skiff" package --bin-from "$bin" --out "$out" >"$TMP/package.log" 2>&1 ||
  { cat "$TMP/package.log" >&2; echo "FAIL: ./skiff package" >&2; exit 1; }

deb_of() { ls "$out/$1"_"$version"-*_*.deb 2>/dev/null | head -n 1; }
field() { dpkg-deb -f "$(deb_of "$1")" "$2"; }
contents() { dpkg-deb -c "$(deb_of "$1")"; }
has_path() {  # has_path PACKAGE PATH: the .deb holds PATH (a file, dir or link)
  # grep -c, not -q: an early exit would kill awk with SIGPIPE (pipefail).
  contents "$1" | awk '{print $6}' | grep -cx "\\.$2/\\?" >/dev/null ||
    fail "$1 does not hold $2"
}

for pkg in skiff-common skiff-controller skiff-node skiff-client; do
  [ -n "$(deb_of "$pkg")" ] || { fail "no $pkg .deb for version $version"; continue; }
  check "$pkg: Package field" [ "$(field "$pkg" Package)" = "$pkg" ]
  check "$pkg: Version field" [ "$(field "$pkg" Version)" = "$version-1" ]
  # Whoever builds the packages, as dch names them (DEBFULLNAME, DEBEMAIL).
  check "$pkg: Maintainer field: $(field "$pkg" Maintainer)" \
    [ "$(field "$pkg" Maintainer)" = "Ada Lovelace <ada@lab.example>" ]
  # --root-owner-group: nothing in a package belongs to the builder.
  check "$pkg: files not owned by root/root" \
    test -z "$(contents "$pkg" | awk '$2 != "root/root"')"
  depends=$(field "$pkg" Depends)
  if [ "$pkg" != skiff-common ]; then
    check "$pkg: Depends lacks munge: $depends" grep -qE '(^|, )munge(,|$)' <<<"$depends"
    check "$pkg: Depends lacks skiff-common (= $version-1): $depends" \
      grep -qF "skiff-common (= $version-1)" <<<"$depends"
  fi
  # The maintainer scripts are POSIX shell and parse.
  for script in "$out/staging/$pkg/DEBIAN/"{postinst,prerm,postrm}; do
    [ -e "$script" ] || continue
    check "$script does not parse" sh -n "$script"
    check "$script is not #!/bin/sh" grep -qx '#!/bin/sh' <(head -n 1 "$script")
  done
done

# The client in /usr/bin of skiff-client, and a link to it under each name it
# lists, each with its man page; every daemon in its package.
client=${CLIENT[0]##*/}
has_path skiff-client "/usr/bin/$client"
for name in "${COMMANDS[@]}"; do
  check "/usr/bin/$name is not a link to $client" \
    grep -q "\./usr/bin/$name -> $client\$" <(contents skiff-client)
  has_path skiff-client "/usr/share/man/man1/$name.1.gz"
done
check "skiff-client's description does not list its commands" \
  grep -q 'sbatch, squeue, srun\.' <(field skiff-client Description)
check "skiff-client does not conflict with slurm-client" \
  grep -qE '(^|, )slurm-client(,|$)' <<<"$(field skiff-client Conflicts)"
for name in ctld scriptd skiff-lua-hook skiff-notify; do has_path skiff-controller "/usr/libexec/skiff/$name"; done
for name in noded shepherd; do has_path skiff-node "/usr/libexec/skiff/$name"; done
# ctld finds scriptd, and noded shepherd, next to its real path.
check "/usr/sbin/ctld is not a link to ../libexec/skiff/ctld" \
  grep -q '\./usr/sbin/ctld -> \.\./libexec/skiff/ctld$' <(contents skiff-controller)
check "/usr/sbin/noded is not a link to ../libexec/skiff/noded" \
  grep -q '\./usr/sbin/noded -> \.\./libexec/skiff/noded$' <(contents skiff-node)
has_path skiff-controller /lib/systemd/system/skiff-ctld.service
has_path skiff-controller /lib/systemd/system/skiff-restd.service
has_path skiff-controller /var/lib/skiff
has_path skiff-controller /usr/share/doc/skiff-controller/examples/notify.conf
has_path skiff-node /lib/systemd/system/skiff-noded.service
has_path skiff-node /var/spool/skiff
has_path skiff-common /var/log/skiff
has_path skiff-common /etc/logrotate.d/skiff
# The admin's tool, where head and nodes both have it.
for rel in "${ADMIN[@]}"; do has_path skiff-common "/usr/sbin/${rel##*/}"; done

# Conffiles: everything skiff-common puts in /etc.
conffiles="$out/staging/skiff-common/DEBIAN/conffiles"
for f in /etc/skiff/cgroup.conf /etc/skiff/skiff.conf.example /etc/skiff/gres.conf.example \
         /etc/logrotate.d/skiff; do
  check "$f is not a conffile" grep -qx "$f" "$conffiles"
done

# The example skiff.conf names the packages' user and directories: each line
# build-debs.sh rewrites still exists in etc/skiff.conf.
example="$out/staging/skiff-common/etc/skiff/skiff.conf.example"
for line in SlurmUser=skiff StateSaveLocation=/var/lib/skiff SlurmdSpoolDir=/var/spool/skiff \
            SlurmctldLogFile=/var/log/skiff/ctld.log SlurmdLogFile=/var/log/skiff/noded.log; do
  check "skiff.conf.example lacks $line (is ${line%%=*} still in etc/skiff.conf?)" \
    grep -qx "$line" "$example"
done
# ... and the units run the daemons the packages install, on /etc/skiff/skiff.conf.
for unit in "$out"/staging/*/lib/systemd/system/*.service; do
  exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
  binary=${exec_start%% *}
  pkg_root=${unit%/lib/systemd/system/*}
  check "$(basename "$unit"): $binary is not in its package" test -L "$pkg_root$binary"
  # noded reads /etc/skiff/skiff.conf unless NODED_OPTIONS (skiff join) says
  # --conf-server: no -f, which would clash with it.
  if [ "$(basename "$unit")" = skiff-noded.service ]; then
    check "skiff-noded.service: ExecStart is not noded \$NODED_OPTIONS" \
      [ "$exec_start" = '/usr/sbin/noded $NODED_OPTIONS' ]
    check "skiff-noded.service does not read /etc/default/skiff-noded" \
      grep -qx 'EnvironmentFile=-/etc/default/skiff-noded' "$unit"
  else
    check "$(basename "$unit"): ExecStart does not read /etc/skiff/skiff.conf" \
      grep -q -- '-f /etc/skiff/skiff.conf' <<<"$exec_start"
  fi
done
check "skiff-ctld.service does not run as the example's SlurmUser" \
  grep -qx 'User=skiff' "$out/staging/skiff-controller/lib/systemd/system/skiff-ctld.service"
# restd runs as SlurmUser too (it has ctld make tokens for Unix-socket peers),
# never as root, and listens on loopback unless told otherwise.
check "skiff-restd.service does not run as the example's SlurmUser" \
  grep -qx 'User=skiff' "$out/staging/skiff-controller/lib/systemd/system/skiff-restd.service"
check "skiff-restd.service does not listen on 127.0.0.1 by default" \
  grep -q '^Environment="RESTD_LISTEN=127.0.0.1:6820 ' \
  "$out/staging/skiff-controller/lib/systemd/system/skiff-restd.service"

# systemd-analyze verify, in a root holding systemd's own units, /bin/kill and
# the two packages (it checks that each command exists).
if command -v systemd-analyze >/dev/null 2>&1 && [ -d /lib/systemd/system ]; then
  vroot="$TMP/vroot"
  mkdir -p "$vroot/lib/systemd" "$vroot/bin"
  cp -a /lib/systemd/system "$vroot/lib/systemd/"
  cp /bin/kill "$vroot/bin/"
  cp -a "$out/staging/skiff-controller/." "$out/staging/skiff-node/." "$vroot/"
  if ! verify=$(systemd-analyze verify --man=no --root="$vroot" \
      /lib/systemd/system/skiff-ctld.service /lib/systemd/system/skiff-noded.service \
      /lib/systemd/system/skiff-restd.service 2>&1) ||
      [ -n "$verify" ]; then
    fail "systemd-analyze verify: $verify"
  fi
else
  echo "systemd-analyze is not installed: the units were not verified"
fi

# A Maintainer that is not "Full Name <address>" is refused before anything is built.
if "$SRC/skiff" package --bin-from "$bin" --out "$TMP/bad" --maintainer "nobody" \
    >"$TMP/bad.log" 2>&1; then
  fail "--maintainer nobody was accepted"
else
  check "--maintainer nobody: $(cat "$TMP/bad.log")" \
    grep -q "Maintainer 'nobody' is not 'Full Name <address>'" "$TMP/bad.log"
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "packages for Skiff $version: $client with ${#COMMANDS[@]} commands, ${#DAEMONS[@]} daemons, all checks passed"
