#!/usr/bin/env bash
# fernzug's loopback mail stack for end-to-end tests, the demo and CI.
#
#   Postfix  SMTP  127.0.0.1:2525  no auth, no TLS, accepts mail from 127.0.0.1 for any domain;
#                                  mail for fernschach.test goes over LMTP to Dovecot, everything
#                                  else is refused by the error transport (bounces back);
#                                  recipients whose local part starts with "dead" are refused
#                                  at RCPT with 550 (an unreachable player).
#   Dovecot  IMAP  127.0.0.1:1143  no TLS, plaintext login; every <anything>@fernschach.test is a
#                                  mailbox, password "test"; IDLE works.
#   Dovecot  LMTP  127.0.0.1:2424  recipient_delimiter "+": relay+KEY@ lands in relay@'s INBOX.
#
# Idempotent: if the stack is already up and healthy, it does nothing but print the summary.
# Installs postfix, dovecot-imapd and dovecot-lmtpd when missing (Debian/Ubuntu, needs root or sudo).
# Dovecot runs from its own config file under $FERNZUG_STACK_DIR (default /var/tmp/fernzug-mailstack);
# Postfix is the system instance (/etc/postfix), configured for this stack only.
# Exit 0 when SMTP and IMAP answer; otherwise the relevant log lines and exit 1.
set -euo pipefail

STACK_DIR="${FERNZUG_STACK_DIR:-/var/tmp/fernzug-mailstack}"
DOMAIN="fernschach.test"
HOST="127.0.0.1"
SMTP_PORT=2525
IMAP_PORT=1143
LMTP_PORT=2424
PASSWORD="test"
POSTFIX_LOG="/var/log/fernzug-mailstack-postfix.log"
DOVECOT_CONF="$STACK_DIR/dovecot.conf"
DOVECOT_LOG="$STACK_DIR/dovecot.log"
DEAD_TABLE="/etc/postfix/fernzug-dead-recipients.regexp"
MAILBOX_TABLE="/etc/postfix/fernzug-mailboxes.regexp"
SMTP_BANNER_TAG="fernzug-mailstack"
PACKAGES=(postfix dovecot-imapd dovecot-lmtpd)

log() { printf 'mailstack: %s\n' "$*" >&2; }

# First line a server sends on connect ("" when nothing answers within 3 s). Pure bash: a fresh
# Debian has neither nc nor ss.
greeting() {
    local port="$1" quit="$2"
    timeout 3 bash -c '
        exec 3<>"/dev/tcp/$0/$1" || exit 1
        IFS= read -r -t 2 line <&3 || exit 1
        printf "%s\r\n" "$2" >&3 || true
        printf "%s" "$line"
    ' "$HOST" "$port" "$quit" 2>/dev/null | tr -d '\r' || true
}

smtp_ok() { [[ "$(greeting "$SMTP_PORT" QUIT)" == "220 "*"$SMTP_BANNER_TAG"* ]]; }
imap_ok() { [[ "$(greeting "$IMAP_PORT" "a LOGOUT")" == "* OK"* ]]; }
lmtp_ok() { [[ "$(greeting "$LMTP_PORT" QUIT)" == "220 "* ]]; }

summary() {
    local dv
    dv="$(dovecot --version 2>/dev/null | cut -d' ' -f1)"
    printf 'mailstack up: smtp %s:%s (postfix %s), imap %s:%s + lmtp %s:%s (dovecot %s), domain %s, password "%s", dir %s\n' \
        "$HOST" "$SMTP_PORT" "$(postconf -h mail_version 2>/dev/null || echo '?')" \
        "$HOST" "$IMAP_PORT" "$HOST" "$LMTP_PORT" "$dv" "$DOMAIN" "$PASSWORD" "$STACK_DIR"
}

healthy() { smtp_ok && imap_ok && lmtp_ok; }

if healthy; then
    summary
    exit 0
fi

# Everything below needs root: re-run through sudo when we are not.
if [[ $EUID -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        exec sudo --preserve-env=FERNZUG_STACK_DIR "$0" "$@"
    fi
    log "the stack is not up and starting it needs root (no sudo found)"
    exit 1
fi

# One starter at a time (parallel test processes); whoever waited finds the stack up.
mkdir -p "$STACK_DIR"
exec 9>"$STACK_DIR/.start.lock"
flock -w 120 9 || { log "timed out waiting for another start.sh"; exit 1; }
if healthy; then
    summary
    exit 0
fi

fail() {
    log "$*"
    if [[ -f "$POSTFIX_LOG" ]]; then
        echo "--- last lines of $POSTFIX_LOG ---" >&2
        tail -n 25 "$POSTFIX_LOG" >&2 || true
    fi
    if [[ -f "$DOVECOT_LOG" ]]; then
        echo "--- last lines of $DOVECOT_LOG ---" >&2
        tail -n 25 "$DOVECOT_LOG" >&2 || true
    fi
    exit 1
}

# ---------------------------------------------------------------------------------------------
# Packages (only when missing).
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=()
for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
    log "installing ${missing[*]}"
    apt-get update
    echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

# ---------------------------------------------------------------------------------------------
# Postfix.
start_postfix() {
    [[ -f /etc/postfix/main.cf ]] || cp /usr/share/postfix/main.cf.debian /etc/postfix/main.cf
    [[ -f /etc/postfix/master.cf ]] || cp /usr/share/postfix/master.cf.dist /etc/postfix/master.cf

    # TO: "dead..." local parts are unreachable players (Fax 2.2 bounce tests).
    cat >"$DEAD_TABLE" <<'EOF'
# fernzug mail stack: a local part starting with "dead" is an unreachable player.
/^dead[^@]*@/    550 5.1.1 mailbox unavailable (fernzug mail stack: local part starts with "dead")
EOF
    # Every address of the domain is a mailbox (Dovecot's userdb is static).
    cat >"$MAILBOX_TABLE" <<EOF
# fernzug mail stack: every address of $DOMAIN exists.
/@${DOMAIN//./\\.}\$/    OK
EOF

    postconf -e \
        "compatibility_level = 3.6" \
        "myhostname = mail.$DOMAIN" \
        "myorigin = \$myhostname" \
        "mydestination =" \
        "local_recipient_maps =" \
        "local_transport = error:5.1.1 local delivery is disabled in the fernzug mail stack" \
        "alias_maps =" \
        "alias_database =" \
        "inet_interfaces = loopback-only" \
        "inet_protocols = ipv4" \
        "mynetworks = 127.0.0.0/8" \
        "smtpd_banner = \$myhostname ESMTP $SMTP_BANNER_TAG" \
        "smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination" \
        "smtpd_recipient_restrictions = check_recipient_access regexp:$DEAD_TABLE, permit_mynetworks, reject" \
        "smtpd_peername_lookup = no" \
        "smtpd_error_sleep_time = 0" \
        "smtpd_soft_error_limit = 1000" \
        "smtpd_hard_error_limit = 1000" \
        "smtpd_tls_security_level = none" \
        "smtp_tls_security_level = none" \
        "lmtp_tls_security_level = none" \
        "smtputf8_enable = no" \
        "in_flow_delay = 0" \
        "virtual_mailbox_domains = $DOMAIN" \
        "virtual_mailbox_maps = regexp:$MAILBOX_TABLE" \
        "virtual_transport = lmtp:inet:$HOST:$LMTP_PORT" \
        "recipient_delimiter = +" \
        "default_transport = error:5.7.1 delivery outside $DOMAIN is disabled in the fernzug mail stack" \
        "relay_transport = error:5.7.1 delivery outside $DOMAIN is disabled in the fernzug mail stack" \
        "queue_run_delay = 2s" \
        "minimal_backoff_time = 2s" \
        "maximal_backoff_time = 10s" \
        "maillog_file = $POSTFIX_LOG"
    # SMTP on 127.0.0.1:2525 instead of port 25; no chroot (the Debian init script would prepare
    # the chroot, we start postfix directly).
    postconf -MX smtp/inet 2>/dev/null || true
    postconf -M "$HOST:$SMTP_PORT/inet = $HOST:$SMTP_PORT inet n - n - - smtpd"
    postconf -F '*/*/chroot = n'

    postfix set-permissions >/dev/null 2>&1 || true
    postfix check || fail "postfix check failed"
    if postfix status >/dev/null 2>&1; then
        postfix stop >/dev/null 2>&1 || true
        for _ in $(seq 1 50); do postfix status >/dev/null 2>&1 || break; sleep 0.1; done
    fi
    postfix start || fail "postfix start failed"
}

# ---------------------------------------------------------------------------------------------
# Dovecot, from its own config file.
write_dovecot_conf() {
    local version major_minor
    version="$(dovecot --version | cut -d' ' -f1)"
    major_minor="$(cut -d. -f1,2 <<<"$version")"
    if [[ "$major_minor" == 2.3 || "$major_minor" == 2.2 ]]; then
        cat >"$DOVECOT_CONF" <<EOF
# fernzug mail stack (Dovecot $version) — generated by tests/mailstack/start.sh, do not edit.
instance_name = fernzug-mailstack
base_dir = $STACK_DIR/run
state_dir = $STACK_DIR/state
log_path = $DOVECOT_LOG
protocols = imap lmtp
listen = $HOST
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:$STACK_DIR/mail/%d/%n/Maildir
first_valid_uid = $(id -u mail)
first_valid_gid = $(id -g mail)
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
mailbox_idle_check_interval = 1s
postmaster_address = postmaster@$DOMAIN
passdb {
  driver = static
  args = password=$PASSWORD
}
userdb {
  driver = static
  args = uid=mail gid=mail home=$STACK_DIR/mail/%d/%n allow_all_users=yes
}
service imap-login {
  inet_listener imap {
    address = $HOST
    port = $IMAP_PORT
  }
  inet_listener imaps {
    port = 0
  }
}
service lmtp {
  inet_listener lmtp {
    address = $HOST
    port = $LMTP_PORT
  }
}
EOF
    else
        # Dovecot 2.4 renamed most settings.
        cat >"$DOVECOT_CONF" <<EOF
# fernzug mail stack (Dovecot $version) — generated by tests/mailstack/start.sh, do not edit.
dovecot_config_version = 2.4.0
dovecot_storage_version = 2.4.0
instance_name = fernzug-mailstack
base_dir = $STACK_DIR/run
state_dir = $STACK_DIR/state
log_path = $DOVECOT_LOG
protocols = imap lmtp
listen = $HOST
ssl = no
auth_allow_cleartext = yes
auth_mechanisms = plain login
mail_driver = maildir
mail_home = $STACK_DIR/mail/%{user | domain}/%{user | username}
mail_path = ~/Maildir
first_valid_uid = $(id -u mail)
first_valid_gid = $(id -g mail)
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
mailbox_idle_check_interval = 1s
postmaster_address = postmaster@$DOMAIN
userdb_static_allow_all_users = yes
passdb static {
  password = $PASSWORD
}
userdb static {
  fields {
    uid = mail
    gid = mail
  }
}
service imap-login {
  inet_listener imap {
    listen = $HOST
    port = $IMAP_PORT
  }
  inet_listener imaps {
    port = 0
  }
}
service lmtp {
  inet_listener lmtp {
    listen = $HOST
    port = $LMTP_PORT
  }
}
EOF
    fi
}

start_dovecot() {
    mkdir -p "$STACK_DIR/run" "$STACK_DIR/state" "$STACK_DIR/mail"
    chmod 755 "$STACK_DIR"
    chown mail:mail "$STACK_DIR/mail"
    write_dovecot_conf
    dovecot -c "$DOVECOT_CONF" -n >/dev/null || fail "dovecot rejects $DOVECOT_CONF"
    if [[ -f "$STACK_DIR/run/master.pid" ]] && kill -0 "$(cat "$STACK_DIR/run/master.pid")" 2>/dev/null; then
        dovecot -c "$DOVECOT_CONF" stop >/dev/null 2>&1 || true
        for _ in $(seq 1 50); do
            [[ -f "$STACK_DIR/run/master.pid" ]] && kill -0 "$(cat "$STACK_DIR/run/master.pid")" 2>/dev/null || break
            sleep 0.1
        done
    fi
    dovecot -c "$DOVECOT_CONF" || fail "dovecot failed to start"
}

if ! smtp_ok; then start_postfix; fi
if ! imap_ok || ! lmtp_ok; then start_dovecot; fi

# Wait (bounded, 15 s) until every port answers.
for _ in $(seq 1 150); do
    healthy && break
    sleep 0.1
done
smtp_ok || fail "SMTP on $HOST:$SMTP_PORT does not answer"
imap_ok || fail "IMAP on $HOST:$IMAP_PORT does not answer"
lmtp_ok || fail "LMTP on $HOST:$LMTP_PORT does not answer"
summary
