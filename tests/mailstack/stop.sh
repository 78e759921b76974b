#!/usr/bin/env bash
# Stops fernzug's loopback mail stack (see start.sh beside this file). Mailboxes stay under
# $FERNZUG_STACK_DIR (default /var/tmp/fernzug-mailstack); pass --purge to delete them too.
set -euo pipefail

STACK_DIR="${FERNZUG_STACK_DIR:-/var/tmp/fernzug-mailstack}"
DOVECOT_CONF="$STACK_DIR/dovecot.conf"
POSTFIX_DIR="$STACK_DIR/postfix"   # the stack's own Postfix instance; the system one is left alone

if [[ $EUID -ne 0 ]] && command -v sudo >/dev/null 2>&1; then
    exec sudo --preserve-env=FERNZUG_STACK_DIR "$0" "$@"
fi

if [[ -f "$DOVECOT_CONF" ]] && [[ -f "$STACK_DIR/run/master.pid" ]]; then
    dovecot -c "$DOVECOT_CONF" stop >/dev/null 2>&1 || true
fi
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
