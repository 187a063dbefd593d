#!/bin/sh
# skiff-notify: a MailProg that posts a job's --mail-type events to the
# webhook its user registered, when the site allows that webhook's host, and
# mails them otherwise.
#
# Set it as MailProg in skiff.conf (MailProg=/usr/libexec/skiff/skiff-notify),
# or call it from your own MailProg with the same arguments. ctld runs MailProg
# through scriptd as Slurm does:
#
#   skiff-notify -s "Slurm Job_id=42 Name=train Ended, Run time 00:01:02, COMPLETED, ExitCode 0" alice
#
# with Slurm's environment (SLURM_JOB_ID, SLURM_JOB_USER, SLURM_JOB_MAIL_TYPE,
# SLURM_JOB_STATE, SLURM_JOB_EXIT_CODE_MAX, ...).
#
# The webhook: the job's user (SLURM_JOB_USER, not the --mail-user recipient)
# writes one URL a line into ~/.config/skiff/notify ('#' starts a comment; a
# line may also read url=URL). The file is read as that user (runuser, when
# this runs as root), so it cannot be a link to a file only root may read; the
# POST also runs as that user. Each URL gets one POST of a JSON object that
# Slack's and Matrix's incoming webhooks (matrix-hookshot, for one) accept:
#   {"text": SUBJECT, "body": SUBJECT, "msgtype": "m.text",
#    "skiff": {"job_id": ..., "job_name": ..., "user": ..., "event": ..., ...}}
#
# Which URLs are used (the POST leaves the controller host, which reaches
# what users' own machines may not: restd and the daemons on loopback, a
# cloud's metadata service, the site's private networks):
#   - http:// and https:// only, with no user part ("user@host") and a plain
#     host name or address;
#   - the host must be one notify.conf's AllowedWebhookHosts lists (a name,
#     an address, or *.domain for any name under it). Without that key no
#     webhook is used at all;
#   - every address the host resolves to must be public (not loopback,
#     private, link-local, CGNAT, multicast or unspecified) unless notify.conf
#     says AllowPrivateWebhookAddresses=yes; curl then connects to the address
#     checked (--resolve), not to whatever the name resolves to a moment later;
#   - curl reads no configuration (-q, an empty environment, HOME=/), goes
#     through no proxy, follows no redirect and speaks only http and https.
# A URL refused is named on standard error (ctld's log shows it when the mail
# fails); when no URL is left, the mail goes to the mailer.
#
# No URL registered or allowed (no file, no URL in it, or it cannot be read
# as the user): the mail goes out through the real mailer with the same
# arguments, /usr/bin/mail unless notify.conf says Mailer=/path/to/mailer.
#
# notify.conf sits next to skiff.conf (SKIFF_CONF); keys are case-insensitive,
# the last of each wins:
#   Mailer=/usr/bin/mail
#   AllowedWebhookHosts=hooks.slack.com,matrix.example.org,*.hooks.example.org
#   AllowPrivateWebhookAddresses=no
#
# Exit status: 0 when every POST (or the mailer) succeeded; otherwise the
# failure's, which ctld logs (a failed notification is not tried again, as
# Slurm does not retry MailProg).
set -u
# MailProg's PATH (ctld's) lacks the sbin directories, where runuser is.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

prog=skiff-notify
subject=""
while getopts s: opt; do
  case "$opt" in
    s) subject=$OPTARG ;;
    *) echo "usage: $prog -s SUBJECT RECIPIENT" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $prog -s SUBJECT RECIPIENT" >&2; exit 2; }
recipient=$1
user=${SLURM_JOB_USER:-}

# notify.conf: the mailer for a user without a webhook, and which webhooks the
# site allows.
mailer=/usr/bin/mail
allowed_hosts=""
allow_private=no
conf=""
[ -z "${SKIFF_CONF:-}" ] || conf="$(dirname "$SKIFF_CONF")/notify.conf"
conf_value() {  # conf_value KEY: the last value of KEY in notify.conf, blanks trimmed
  sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*\$/\1/Ip" "$conf" |
    tail -n 1
}
if [ -n "$conf" ] && [ -r "$conf" ]; then
  configured=$(conf_value Mailer)
  [ -z "$configured" ] || mailer=$configured
  allowed_hosts=$(conf_value AllowedWebhookHosts | tr '[:upper:]' '[:lower:]' | tr ',' ' ')
  case $(conf_value AllowPrivateWebhookAddresses | tr '[:upper:]' '[:lower:]') in
    yes | true | 1) allow_private=yes ;;
  esac
fi

mail_instead() {
  if [ ! -x "$mailer" ]; then
    echo "$prog: no webhook registered for '${user:-?}' and mailer $mailer is missing" >&2
    exit 1
  fi
  # ctld refuses such a --mail-user; a caller other than ctld may not.
  case $recipient in
    -*) echo "$prog: refusing recipient '$recipient' (starts with '-')" >&2; exit 2 ;;
  esac
  exec "$mailer" -s "$subject" "$recipient"
}

# Runs a command as the job's user: directly when we are that user, through
# runuser when root; otherwise not at all (we may not read another user's
# files with our own rights).
as_user() {
  if [ "$(id -un)" = "$user" ]; then
    "$@"
  elif [ "$(id -u)" -eq 0 ]; then
    runuser -u "$user" -- "$@"
  else
    return 1
  fi
}

[ -n "$user" ] || mail_instead
# Without AllowedWebhookHosts the site allows no webhook: nothing of the
# user's is read.
[ -n "$allowed_hosts" ] || mail_instead
home=$(getent passwd "$user" | cut -d: -f6)
[ -n "$home" ] || mail_instead
urls=$(as_user cat "$home/.config/skiff/notify" 2>/dev/null |
  sed -e 's/#.*//' -e 's/^[[:space:]]*url[[:space:]]*=//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' |
  grep -E '^https?://[^[:space:]]+$')
[ -n "$urls" ] || mail_instead

# Whether address $1 (IPv4 or IPv6, as getent prints it) is one only the
# controller host's own networks should reach: loopback, RFC 1918 and
# unique-local, link-local (cloud metadata services), CGNAT, benchmarking,
# multicast, reserved and unspecified.
private_address() {
  case $1 in
    *:*)
      a=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')
      case $a in
        ::ffff:*.*.*.*) private_address "${a#::ffff:}"; return ;;
        ::*.*.*.*) private_address "${a#::}"; return ;;
        ::1 | :: | fe[89ab]?:* | f[cd]??:* | ff??:* | 64:ff9b:*) return 0 ;;
      esac
      return 1 ;;
  esac
  old_ifs=$IFS
  IFS=.
  # shellcheck disable=SC2086  # split on the dots
  set -- $1
  IFS=$old_ifs
  [ $# -eq 4 ] || return 0
  case $1 in
    0 | 10 | 127) return 0 ;;
    169) [ "$2" -eq 254 ] && return 0 ;;
    172) [ "$2" -ge 16 ] && [ "$2" -le 31 ] && return 0 ;;
    192) { [ "$2" -eq 168 ] || { [ "$2" -eq 0 ] && [ "$3" -eq 0 ]; }; } && return 0 ;;
    100) [ "$2" -ge 64 ] && [ "$2" -le 127 ] && return 0 ;;
    198) [ "$2" -ge 18 ] && [ "$2" -le 19 ] && return 0 ;;
  esac
  [ "$1" -ge 224 ] && return 0
  return 1
}

# Checks URL $1 against the site's rules; on success sets `resolve` to curl's
# --resolve argument ("" for an address written in the URL), otherwise says
# why on standard error and fails.
allowed_url() {
  url=$1
  resolve=""
  rest=${url#*://}
  authority=${rest%%[/?#]*}
  case $authority in
    *@*) echo "$prog: webhook $url refused: a user part (user@host) is not allowed" >&2; return 1 ;;
    \[*\]:* | \[*\]) host=${authority#\[}; host=${host%%\]*}; port=${authority#*\]}; port=${port#:} ;;
    *:*) host=${authority%%:*}; port=${authority#*:} ;;
    *) host=$authority; port="" ;;
  esac
  host=$(printf '%s' "$host" | tr '[:upper:]' '[:lower:]')
  host=${host%.}
  case $host in
    "" | *[!a-z0-9.:-]* | .* | -*)
      echo "$prog: webhook $url refused: '$host' is not a host name or address" >&2; return 1 ;;
  esac
  if [ -z "$port" ]; then
    case $url in https:*) port=443 ;; *) port=80 ;; esac
  fi
  case $port in
    *[!0-9]* | 0*) echo "$prog: webhook $url refused: bad port '$port'" >&2; return 1 ;;
  esac
  [ "$port" -le 65535 ] || { echo "$prog: webhook $url refused: bad port '$port'" >&2; return 1; }
  listed=no
  for entry in $allowed_hosts; do
    case $entry in
      \*.*) case $host in *"${entry#\*}") listed=yes ;; esac ;;
      *) [ "$host" = "$entry" ] && listed=yes ;;
    esac
  done
  if [ "$listed" != yes ]; then
    echo "$prog: webhook $url refused: host '$host' is not in notify.conf's AllowedWebhookHosts" >&2
    return 1
  fi
  addresses=$(getent ahosts "$host" 2>/dev/null | awk '{print $1}' | sort -u)
  if [ -z "$addresses" ]; then
    echo "$prog: webhook $url refused: host '$host' does not resolve" >&2
    return 1
  fi
  if [ "$allow_private" != yes ]; then
    for address in $addresses; do
      if private_address "$address"; then
        echo "$prog: webhook $url refused: host '$host' is at $address, a loopback or private" \
          "address (notify.conf: AllowPrivateWebhookAddresses=yes allows it)" >&2
        return 1
      fi
    done
  fi
  # A name: connect to an address checked, whatever the name resolves to next.
  case $host in
    *[!0-9.]*:* | *:*) ;;
    *[!0-9.]*)
      pinned=$(printf '%s\n' "$addresses" | grep -v : | head -n 1)
      [ -n "$pinned" ] || pinned="[$(printf '%s\n' "$addresses" | head -n 1)]"
      resolve="$host:$port:$pinned" ;;
  esac
  return 0
}

# A JSON string: backslashes and quotes escaped, tabs as \t, other control
# characters dropped (Slurm's values hold none).
json() {
  printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' | tr -d '\000-\037')"
}
field() {  # field NAME VALUE: ', "NAME": "VALUE"' when VALUE is set
  [ -z "$2" ] || printf ', %s: %s' "$(json "$1")" "$(json "$2")"
}

body=$(
  printf '{"text": %s, "body": %s, "msgtype": "m.text", "skiff": {' "$(json "$subject")" "$(json "$subject")"
  printf '"job_id": %s' "$(json "${SLURM_JOB_ID:-}")"
  field job_name "${SLURM_JOB_NAME:-}"
  field user "$user"
  field recipient "$recipient"
  field event "${SLURM_JOB_MAIL_TYPE:-}"
  field state "${SLURM_JOB_STATE:-}"
  field exit_code "${SLURM_JOB_EXIT_CODE_MAX:-}"
  field exit_code_min "${SLURM_JOB_EXIT_CODE_MIN:-}"
  field term_signal "${SLURM_JOB_TERM_SIGNAL_MAX:-}"
  field queued_time "${SLURM_JOB_QUEUED_TIME:-}"
  field run_time "${SLURM_JOB_RUN_TIME:-}"
  field array_job_id "${SLURM_ARRAY_JOB_ID:-}"
  field array_task_id "${SLURM_ARRAY_TASK_ID:-}"
  field partition "${SLURM_JOB_PARTITION:-}"
  field nodes "${SLURM_JOB_NODELIST:-}"
  field account "${SLURM_JOB_ACCOUNT:-}"
  field cluster "${SLURM_CLUSTER_NAME:-}"
  field work_dir "${SLURM_JOB_WORK_DIR:-}"
  printf '}}'
)

status=0
posted=0
for url in $urls; do
  allowed_url "$url" || { status=1; continue; }
  posted=$((posted + 1))
  # -q first: no .curlrc; an empty environment: no proxy, no HOME of the
  # user's; no redirect followed, only http and https.
  if ! printf '%s' "$body" | as_user env -i PATH="$PATH" HOME=/ LC_ALL=C \
      curl -q -sS --fail --max-time 30 --connect-timeout 10 --max-redirs 0 \
      --proto =http,https --proto-redir =http,https --noproxy '*' \
      ${resolve:+--resolve "$resolve"} -H 'Content-Type: application/json' --data-binary @- \
      -o /dev/null -- "$url"; then
    echo "$prog: POST to $url for JobId=${SLURM_JOB_ID:-?} failed" >&2
    status=1
  fi
done
[ "$posted" -gt 0 ] || mail_instead
exit $status
