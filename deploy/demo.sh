#!/usr/bin/env bash
# fernzug demo on the loopback mail stack (everything on 127.0.0.1, nothing leaves the machine):
#   1. brings up the stack (tests/mailstack/start.sh: Postfix 2525, Dovecot IMAP 1143; without
#      the tests' second IMAP server, Courier-IMAP),
#   2. builds fernzug (cargo build --release),
#   3. writes a demo config for relay@fernschach.test and a tournament for anna@ and bert@,
#      registers it (fernzug tournament add) and starts `fernzug run` in the background,
#   4. sends Anna's first move "1. e4" from anna@fernschach.test to relay@fernschach.test,
#      waits until the relay has forwarded it to bert@fernschach.test and prints that mail,
#   5. prints how to go on.
# Each run starts from scratch: it stops an earlier demo relay, empties the demo's mailboxes
# (relay@, anna@, bert@, tl@) and its data directory ($FERNZUG_DEMO_DIR, /var/tmp/fernzug-demo).
# FERNZUG_DEMO_BIN=/path/to/fernzug uses that binary instead of building one.
#
# Mail is handed to the test stack's own Postfix instance by SMTP (127.0.0.1:2525), never to
# /usr/sbin/sendmail: that one belongs to the system's Postfix, which on a fresh machine has no
# main.cf at all, and where it has one would queue the mail in the system's queue.
#
#   deploy/demo.sh                    the demo, as above
#   deploy/demo.sh send USER TEXT     mails TEXT from USER@fernschach.test (anna, bert) to the
#                                     relay, as a reply in the demo game, and waits for the answer
#   deploy/demo.sh show USER          prints USER's newest mail (anna, bert, tl, relay)
#   deploy/demo.sh stop               stops the demo relay (the stack: tests/mailstack/stop.sh)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEMO_DIR="${FERNZUG_DEMO_DIR:-/var/tmp/fernzug-demo}"
STACK_DIR="${FERNZUG_STACK_DIR:-/var/tmp/fernzug-mailstack}"
DOMAIN="fernschach.test"
RELAY="relay@$DOMAIN"
ANNA="anna@$DOMAIN"
BERT="bert@$DOMAIN"
TL="tl@$DOMAIN"
TOURNAMENT_ID="DEMO-1"
GAME="$TOURNAMENT_ID/1"
CONFIG="$DEMO_DIR/fernzug.toml"
TOURNAMENT="$DEMO_DIR/tournament.toml"
PIDFILE="$DEMO_DIR/fernzug.pid"
LOGFILE="$DEMO_DIR/fernzug.log"
WAIT_SECONDS="${FERNZUG_DEMO_WAIT:-60}"
SMTP_HOST=127.0.0.1
SMTP_PORT=2525 # the test stack's Postfix instance (tests/mailstack/start.sh)

say() { printf '\n==> %s\n' "$*"; }
die() {
    printf 'demo: %s\n' "$*" >&2
    if [[ -f "$LOGFILE" ]]; then
        printf -- '--- last lines of %s ---\n' "$LOGFILE" >&2
        tail -n 20 "$LOGFILE" >&2 || true
    fi
    exit 1
}

# --- reading mailboxes: python3's imaplib over IMAP, else doveadm (needs root) ----------------------
as_root() {
    if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# smtp_send FROM TO < MESSAGE: hands one mail to the test stack's Postfix by SMTP. Pure bash
# (/dev/tcp), so nothing but the stack is needed; every reply is checked.
smtp_send() {
    local from="$1" to="$2" line code
    exec 3<>"/dev/tcp/$SMTP_HOST/$SMTP_PORT" || die "cannot reach SMTP on $SMTP_HOST:$SMTP_PORT"
    # expect CODE: reads one (possibly multi-line) reply and checks its code.
    expect() {
        while IFS= read -r -t 30 line <&3; do
            line="${line%$'\r'}"
            code="${line:0:3}"
            [[ "${line:3:1}" == "-" ]] && continue
            [[ "$code" == "$1" ]] && return 0
            exec 3<&-
            die "SMTP $SMTP_HOST:$SMTP_PORT answered: $line"
        done
        exec 3<&-
        die "no answer from SMTP $SMTP_HOST:$SMTP_PORT"
    }
    expect 220
    printf 'EHLO demo.fernschach.test\r\n' >&3 && expect 250
    printf 'MAIL FROM:<%s>\r\n' "$from" >&3 && expect 250
    printf 'RCPT TO:<%s>\r\n' "$to" >&3 && expect 250
    printf 'DATA\r\n' >&3 && expect 354
    # The message, CRLF line ends, a leading dot doubled (RFC 5321 4.5.2).
    sed -e 's/\r$//' -e 's/^\./../' -e 's/$/\r/' >&3
    printf '.\r\n' >&3 && expect 250
    printf 'QUIT\r\n' >&3
    exec 3<&-
}

# send_move USER TEXT: USER@$DOMAIN replies to the relay in the demo game with TEXT.
send_move() {
    local user="${1%@*}" text="$2"
    printf 'From: %s <%s>\nTo: %s\nSubject: Re: [%s] Adler - Berger\nDate: %s\nMessage-ID: <demo-%s-%s@%s>\nContent-Type: text/plain; charset=utf-8\n\n%s\n' \
        "${user^}" "$user@$DOMAIN" "$RELAY" "$GAME" "$(date -R)" "$user" "$(date +%s%N)" "$DOMAIN" "$text" |
        smtp_send "$user@$DOMAIN" "$RELAY"
}

# mailbox ACTION USER [KIND]:
#   empty USER       delete every mail in USER's INBOX
#   show USER [KIND] print the newest mail (of X-Fernzug-Kind KIND; exit 3 if there is none yet)
mailbox() {
    local action="$1" user="$2" kind="${3:-}"
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$action" "$user" "$kind" <<'PY'
import email, email.header, email.policy, imaplib, sys

action, user, kind = sys.argv[1], sys.argv[2], sys.argv[3]
imap = imaplib.IMAP4("127.0.0.1", 1143)
imap.login(user, "test")
imap.select("INBOX")
if action == "empty":
    if imap.search(None, "ALL")[1][0]:
        imap.store("1:*", "+FLAGS.SILENT", r"(\Deleted)")
        imap.expunge()
    imap.logout()
    sys.exit(0)
if kind:
    _, data = imap.search(None, "HEADER", "X-Fernzug-Kind", kind)
else:
    _, data = imap.search(None, "ALL")
ids = data[0].split()
if not ids:
    imap.logout()
    sys.exit(3)
_, parts = imap.fetch(ids[-1], "(BODY.PEEK[])")
imap.logout()
msg = email.message_from_bytes(parts[0][1], policy=email.policy.default)
for name in ("Date", "From", "To", "Cc", "Reply-To", "Subject", "Auto-Submitted",
             "X-Fernzug-Kind", "X-Fernzug-Game", "X-Fernzug-Color", "X-Fernzug-FEN"):
    if msg[name] is not None:
        print(f"{name}: {msg[name]}")
print()
body = msg.get_body(preferencelist=("plain",))
print(body.get_content() if body is not None else "(no text part)")
PY
    else
        local conf="$STACK_DIR/dovecot.conf"
        if [[ "$action" == empty ]]; then
            as_root doveadm -c "$conf" expunge -u "$user" mailbox INBOX all
        else
            local out
            if [[ -n "$kind" ]]; then
                out="$(as_root doveadm -c "$conf" fetch -u "$user" text mailbox INBOX header X-Fernzug-Kind "$kind")"
            else
                out="$(as_root doveadm -c "$conf" fetch -u "$user" text mailbox INBOX all)"
            fi
            [[ -n "$out" ]] || return 3
            # doveadm prints every match; show the last one.
            awk '/^text:$/ {buf=""; next} {buf = buf $0 "\n"} END {printf "%s", buf}' <<<"$out"
        fi
    fi
}

# wait_for_mail USER KIND: bounded wait until USER has a mail of that kind, then print it.
wait_for_mail() {
    local user="$1" kind="$2" deadline=$((SECONDS + WAIT_SECONDS)) rc
    while :; do
        rc=0
        mailbox show "$user" "$kind" || rc=$?
        [[ $rc -eq 0 ]] && return 0
        [[ $rc -eq 3 ]] || die "cannot read $user's INBOX"
        ((SECONDS < deadline)) || die "no '$kind' mail for $user after ${WAIT_SECONDS}s"
        relay_alive || die "fernzug run has stopped"
        sleep 0.5
    done
}

relay_alive() { [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

stop_relay() {
    if relay_alive; then
        local pid
        pid="$(cat "$PIDFILE")"
        kill -TERM "$pid"
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && die "fernzug run (pid $pid) did not stop on SIGTERM within 10 s"
    fi
    rm -f "$PIDFILE"
}

# --- subcommands -----------------------------------------------------------------------------------
case "${1:-}" in
"") ;;
stop)
    stop_relay
    echo "demo relay stopped (the mail stack still runs: tests/mailstack/stop.sh)"
    exit 0
    ;;
send)
    [[ $# -eq 3 ]] || die "usage: deploy/demo.sh send USER TEXT   (USER: anna or bert)"
    relay_alive || die "the demo relay is not running: start it with deploy/demo.sh"
    send_move "$2" "$3"
    echo "sent from ${2%@*}@$DOMAIN to $RELAY: $3"
    echo "the relay answers within a second or two; read a mailbox as shown by deploy/demo.sh"
    exit 0
    ;;
show)
    [[ $# -eq 2 ]] || die "usage: deploy/demo.sh show USER   (USER: anna, bert, tl or relay)"
    rc=0
    mailbox show "${2%@*}@$DOMAIN" || rc=$?
    [[ $rc -eq 3 ]] && echo "no mail for ${2%@*}@$DOMAIN yet"
    exit "$rc"
    ;;
*) die "usage: deploy/demo.sh [send USER TEXT | show USER | stop]" ;;
esac

# --- 1. mail stack ---------------------------------------------------------------------------------
say "mail stack"
FERNZUG_STACK_COURIER=0 "$ROOT/tests/mailstack/start.sh"

# --- 2. build --------------------------------------------------------------------------------------
if [[ -n "${FERNZUG_DEMO_BIN:-}" ]]; then
    BIN="$FERNZUG_DEMO_BIN" # a prebuilt binary: no build
else
    say "cargo build --release"
    (cd "$ROOT" && cargo build --release)
    BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/fernzug"
fi
[[ -x "$BIN" ]] || die "no binary at $BIN"

# --- 3. config, tournament, daemon -----------------------------------------------------------------
say "demo relay in $DEMO_DIR"
mkdir -p "$DEMO_DIR"
stop_relay
rm -rf "$DEMO_DIR/data"
mkdir -p "$DEMO_DIR/data"
for user in "$RELAY" "$ANNA" "$BERT" "$TL"; do
    mailbox empty "$user" || die "cannot empty $user's INBOX"
done

cat >"$CONFIG" <<EOF
# fernzug demo configuration (written by deploy/demo.sh): the loopback mail stack.
[relay]
address = "$RELAY"
name = "Fernschach-Relais"
data_dir = "$DEMO_DIR/data"
time_zone = "Europe/Berlin"
language = "de"

[imap]
host = "127.0.0.1"
port = 1143
security = "none"
user = "$RELAY"
password = "test"
mailbox = "INBOX"

[smtp]
host = "127.0.0.1"
port = 2525
security = "none"
EOF

cat >"$TOURNAMENT" <<EOF
# fernzug demo tournament (written by deploy/demo.sh).
id = "$TOURNAMENT_ID"
name = "fernzug-Demo"
rules = "fax"
start = "$(date +%F)"

[director]
name = "Tom Leiter"
email = "$TL"

[[players]]
name = "Anna Adler"
email = "$ANNA"
language = "de"

[[players]]
name = "Bert Berger"
email = "$BERT"
language = "de"

[[games]]
white = "$ANNA"
black = "$BERT"
EOF

fz() { "$BIN" --config "$CONFIG" "$@"; }

say "fernzug tournament add $TOURNAMENT"
fz tournament add "$TOURNAMENT" || die "tournament add failed"

say "fernzug run (background; log $LOGFILE)"
nohup "$BIN" --config "$CONFIG" run >>"$LOGFILE" 2>&1 &
echo $! >"$PIDFILE"
sleep 1
relay_alive || die "fernzug run exited at once"

say "waiting for Anna's start mail"
wait_for_mail "$ANNA" start

# --- 4. Anna's first move --------------------------------------------------------------------------
say "Anna sends: 1. e4 (by SMTP to the test stack, $SMTP_HOST:$SMTP_PORT)"
send_move anna "1. e4"

say "waiting for the relay to forward it to Bert"
wait_for_mail "$BERT" move

# --- 5. how to go on -------------------------------------------------------------------------------
cat <<EOF

==> the demo relay keeps running (pid $(cat "$PIDFILE")). Next:

  Game state:        $BIN --config $CONFIG status --json
  Relay log:         tail -f $LOGFILE
  Bert answers:      $0 send bert '1. e4 e5'
  Anna's newest mail: $0 show anna        (also bert, tl, relay)
  Any mail client:   IMAP 127.0.0.1:1143 without TLS (STARTTLS offered), SMTP 127.0.0.1:2525,
                     user = the address (anna@$DOMAIN), password "test"
  Stop the relay:    $0 stop
  Stop the stack:    $ROOT/tests/mailstack/stop.sh
EOF
