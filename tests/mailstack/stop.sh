#!/usr/bin/env bash
# Stops fernzug's loopback mail stack (see start.sh beside this file). Mailboxes stay under
# $FERNZUG_STACK_DIR (default /var/tmp/fernzug-mailstack); pass --purge to delete them too.
set -euo pipefail

STACK_DIR="${FERNZUG_STACK_DIR:-/var/tmp/fernzug-mailstack}"
DOVECOT_CONF="$STACK_DIR/dovecot.conf"
POSTFIX_DIR="$STACK_DIR/postfix"   # the stack's own Postfix instance; the system one is left alone
COURIER_DIR="$STACK_DIR/courier"  # Courier-IMAP, unpacked, in a mount namespace of its own

if [[ $EUID -ne 0 ]] && command -v sudo >/dev/null 2>&1; then
    exec sudo --preserve-env=FERNZUG_STACK_DIR "$0" "$@"
fi

if [[ -f "$DOVECOT_CONF" ]] && [[ -f "$STACK_DIR/run/master.pid" ]]; then
    dovecot -c "$DOVECOT_CONF" stop >/dev/null 2>&1 || true
fi
# Courier's processes, by the ids they wrote (when those still run what wrote them).
runs() {
    local pid
    pid="$(cat "$1" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$2"
}
for f in imapd imapd-ssl; do
    if runs "$COURIER_DIR/run/$f.pid" "$COURIER_DIR/root/usr/sbin/couriertcpd"; then
        "$COURIER_DIR/root/usr/sbin/couriertcpd" -pid="$COURIER_DIR/run/$f.pid" -stop >/dev/null 2>&1 || true
    fi
    rm -f "$COURIER_DIR/run/$f.pid"
done
if runs "$COURIER_DIR/run/authdaemond.pid" authdaemond; then
    kill "$(cat "$COURIER_DIR/run/authdaemond.pid")" 2>/dev/null || true
fi
rm -f "$COURIER_DIR/run/authdaemond.pid"
if [[ -f "$POSTFIX_DIR/main.cf" ]] && postfix -c "$POSTFIX_DIR" status >/dev/null 2>&1; then
    postfix -c "$POSTFIX_DIR" stop >/dev/null 2>&1 || true
fi
for _ in $(seq 1 50); do
    running=0
    [[ -f "$POSTFIX_DIR/main.cf" ]] && postfix -c "$POSTFIX_DIR" status >/dev/null 2>&1 && running=1
    if [[ -f "$STACK_DIR/run/master.pid" ]] && kill -0 "$(cat "$STACK_DIR/run/master.pid")" 2>/dev/null; then
        running=1
    fi
    ((running)) || break
    sleep 0.1
done
if [[ "${1:-}" == "--purge" ]]; then
    rm -rf "$STACK_DIR"
fi
echo "mailstack stopped"
