#!/bin/sh
# skiff-notify: a MailProg that posts a job's --mail-type events to the
# webhook its user registered, and mails them when there is none.
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
# Only http and https URLs are used (curl --proto).
#
# No URL registered (no file, no URL in it, or it cannot be read as the user):
# the mail goes out through the real mailer with the same arguments,
# /usr/bin/mail unless notify.conf next to skiff.conf (SKIFF_CONF) says
# Mailer=/path/to/mailer.
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

# The mailer for a user without a webhook.
mailer=/usr/bin/mail
if [ -n "${SKIFF_CONF:-}" ]; then
  conf="$(dirname "$SKIFF_CONF")/notify.conf"
  if [ -r "$conf" ]; then
    configured=$(sed -n 's/^[[:space:]]*Mailer[[:space:]]*=[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*$/\1/p' "$conf" | tail -n 1)
    [ -z "$configured" ] || mailer=$configured
  fi
fi

mail_instead() {
  if [ ! -x "$mailer" ]; then
    echo "$prog: no webhook registered for '${user:-?}' and mailer $mailer is missing" >&2
    exit 1
  fi
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
home=$(getent passwd "$user" | cut -d: -f6)
[ -n "$home" ] || mail_instead
urls=$(as_user cat "$home/.config/skiff/notify" 2>/dev/null |
  sed -e 's/#.*//' -e 's/^[[:space:]]*url[[:space:]]*=//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' |
  grep -E '^https?://[^[:space:]]+$')
[ -n "$urls" ] || mail_instead

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
for url in $urls; do
  if ! printf '%s' "$body" | as_user curl -sS --fail --max-time 30 --proto =http,https \
      --proto-redir =http,https -H 'Content-Type: application/json' --data-binary @- \
      -o /dev/null "$url"; then
    echo "$prog: POST to $url for JobId=${SLURM_JOB_ID:-?} failed" >&2
    status=1
  fi
done
exit $status
