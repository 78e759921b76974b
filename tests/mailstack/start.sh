#!/usr/bin/env bash
# fernzug's loopback mail stack for end-to-end tests, the demo and CI.
#
# It leaves the machine's own mail server alone: Postfix runs as its own instance from its own
# config directory ($STACK_DIR/postfix, with its own queue and data directories, started with
# `postfix -c`), Dovecot from its own config file, both on ports of their own. The system
# instance in /etc/postfix is never stopped, reloaded or edited, except that the stack's config
# directory is added to `alternate_config_directories` in /etc/postfix/main.cf when that file
# exists (what Postfix requires of a second instance; it changes nothing for the first).
#
#   Postfix  SMTP  127.0.0.1:2525  no auth, no TLS, accepts mail from 127.0.0.1 for any domain;
#                                  mail for fernschach.test goes over LMTP to Dovecot, everything
#                                  else is refused by the error transport (bounces back);
#                                  recipients whose local part starts with "dead" are refused
#                                  at RCPT with 550 (an unreachable player);
#                                  forward-to.LOCAL@fernschach.test is a plain virtual alias of
#                                  LOCAL@fernschach.test (the load measurement's alias-forward floor).
#   Dovecot  IMAP  127.0.0.1:1143  no TLS, plaintext login; every <anything>@fernschach.test is a
#                                  mailbox, password "test"; IDLE works.
#   Dovecot  LMTP  127.0.0.1:2424  recipient_delimiter "+": relay+KEY@ lands in relay@'s INBOX.
#   Postfix  SMTP  127.0.0.1:2526  as 2525, but RCPT and DATA are first asked of a policy service
#                                  on 127.0.0.1:2527 that a test process runs
#                                  (tests/stack/common/policy.rs): it refuses as a real host does
#                                  (a sending quota, a full mailbox) for the senders a test names;
#                                  with nothing listening there, Postfix lets the mail through.
#
# With TLS, by a test CA made with openssl at the first start ($STACK_DIR/tls/ca.pem; the server
# certificate names IP 127.0.0.1 and mail.fernschach.test, not "localhost"):
#   Dovecot  IMAPS       127.0.0.1:1993  implicit TLS;  IMAP on 1143 offers STARTTLS too
#   Postfix  SMTPS       127.0.0.1:2465  implicit TLS, SASL AUTH (PLAIN, LOGIN) through Dovecot
#   Postfix  submission  127.0.0.1:2587  STARTTLS required before AUTH; AUTH required to send
# and, for the failure tests, $STACK_DIR/tls/expired.pem (+ .key): a certificate of the same CA
# for 127.0.0.1 that expired in 2021.
#
# A second IMAP server on the same mailboxes (the relay's tests run a subset against it with
# FERNZUG_STACK_IMAP=courier, scripts/test):
#   Courier  IMAP   127.0.0.1:1144  Courier-IMAP on the Maildirs Dovecot's LMTP writes, with its own
#                                   UIDs (courierimapuiddb); logins as Dovecot's (courier-authpipe
#                                   beside this file); STARTTLS offered; no IDLE (the relay polls);
#   Courier  IMAPS  127.0.0.1:1994  implicit TLS with the test CA's certificate.
# Debian's courier-imap conflicts with dovecot-imapd (both provide imap-server), so it is not
# installed: courier-base and courier-imap are fetched with `apt-get download` and unpacked into
# $STACK_DIR/courier/root; courier-authlib and the libraries they need are installed (they start
# no daemon). Courier's authdaemond and imapd run in a mount namespace of their own (unshare) in
# which $STACK_DIR/courier/etc and run are bind-mounted over the paths compiled into them,
# /etc/courier and /run/courier: a Courier of the machine (if any) is left alone, and outside the
# namespace those two stay empty directories. FERNZUG_STACK_COURIER=0 leaves Courier out (the demo
# needs only Dovecot; the tests need both).
#
# Idempotent: if the stack is already up and healthy, it does nothing but print the summary; a
# server that is down is started alone, the others are left running.
# Installs postfix, dovecot-imapd, dovecot-lmtpd and courier-authlib when missing (Debian/Ubuntu,
# needs root or sudo).
# Everything lives under $FERNZUG_STACK_DIR (default /var/tmp/fernzug-mailstack).
# Exit 0 when SMTP and IMAP answer; otherwise the relevant log lines and exit 1.
set -euo pipefail

STACK_DIR="${FERNZUG_STACK_DIR:-/var/tmp/fernzug-mailstack}"
DOMAIN="fernschach.test"
HOST="127.0.0.1"
SMTP_PORT=2525
IMAP_PORT=1143
LMTP_PORT=2424
IMAPS_PORT=1993
SMTPS_PORT=2465
SUBMISSION_PORT=2587
POLICY_SMTP_PORT=2526
POLICY_SERVICE_PORT=2527
AUTH_PORT=2426
COURIER_PORT=1144
COURIER_IMAPS_PORT=1994
PASSWORD="test"
POSTFIX_DIR="$STACK_DIR/postfix"
POSTFIX_LOG="$STACK_DIR/postfix.log"
TLS_DIR="$STACK_DIR/tls"
DOVECOT_CONF="$STACK_DIR/dovecot.conf"
DOVECOT_LOG="$STACK_DIR/dovecot.log"
DEAD_TABLE="$POSTFIX_DIR/dead-recipients.regexp"
ALIAS_TABLE="$POSTFIX_DIR/forward-aliases.regexp"
MAILBOX_TABLE="$POSTFIX_DIR/mailboxes.regexp"
SMTP_BANNER_TAG="fernzug-mailstack"
COURIER_DIR="$STACK_DIR/courier"
COURIER_ROOT="$COURIER_DIR/root" # courier-base and courier-imap, unpacked
COURIER_LOG="$COURIER_DIR/courier.log"
COURIER_PROBE="mailstack-probe@$DOMAIN"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WANT_COURIER="${FERNZUG_STACK_COURIER:-1}"
PACKAGES=(postfix dovecot-imapd dovecot-lmtpd openssl)
if [[ "$WANT_COURIER" != 0 ]]; then
    # What the unpacked Courier-IMAP needs (its authdaemond and authpipe module, libraries).
    PACKAGES+=(courier-authlib courier-authlib-pipe libcourier-unicode4 libgamin0 libgdbm6 libidn12)
fi

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
# The TLS ports: a TLS handshake that verifies against the test CA.
tls_ok() {
    local port="$1"
    [[ -f "$TLS_DIR/ca.pem" ]] || return 1
    timeout 5 openssl s_client -connect "$HOST:$port" -CAfile "$TLS_DIR/ca.pem" \
        -verify_return_error -verify_ip "$HOST" </dev/null >/dev/null 2>&1
}
submission_ok() { [[ "$(greeting "$SUBMISSION_PORT" QUIT)" == "220 "*"$SMTP_BANNER_TAG"* ]]; }
policy_ok() { [[ "$(greeting "$POLICY_SMTP_PORT" QUIT)" == "220 "*"$SMTP_BANNER_TAG"* ]]; }

summary() {
    local dv courier=""
    dv="$(dovecot --version 2>/dev/null | cut -d' ' -f1)"
    [[ "$WANT_COURIER" == 0 ]] || courier="courier-imap $COURIER_PORT, imaps $COURIER_IMAPS_PORT, "
    printf 'mailstack up: smtp %s:%s, smtps %s, submission %s (postfix %s, own instance %s), imap %s:%s, imaps %s, lmtp %s (dovecot %s), %sdomain %s, password "%s", CA %s\n' \
        "$HOST" "$SMTP_PORT" "$SMTPS_PORT" "$SUBMISSION_PORT" "$(postconf -h mail_version 2>/dev/null || echo '?')" "$POSTFIX_DIR" \
        "$HOST" "$IMAP_PORT" "$IMAPS_PORT" "$LMTP_PORT" "$dv" "$courier" "$DOMAIN" "$PASSWORD" "$TLS_DIR/ca.pem"
}

# Courier answers as Courier, and a login works (authdaemond and the authpipe program answer).
courier_login_ok() {
    timeout 5 bash -c '
        exec 3<>"/dev/tcp/$0/$1" || exit 1
        IFS= read -r -t 3 line <&3 || exit 1
        [[ "$line" == "* OK"*"Courier-IMAP"* ]] || exit 1
        printf "a LOGIN \"%s\" \"%s\"\r\n" "$2" "$3" >&3
        while IFS= read -r -t 3 line <&3; do
            [[ "$line" == "a "* ]] && break
        done
        printf "b LOGOUT\r\n" >&3 || true
        [[ "$line" == "a OK"* ]]
    ' "$HOST" "$COURIER_PORT" "$COURIER_PROBE" "$PASSWORD" 2>/dev/null
}

postfix_ok() { smtp_ok && submission_ok && tls_ok "$SMTPS_PORT"; }
dovecot_ok() { imap_ok && lmtp_ok && tls_ok "$IMAPS_PORT"; }
courier_ok() { [[ "$WANT_COURIER" == 0 ]] || { courier_login_ok && tls_ok "$COURIER_IMAPS_PORT"; }; }
healthy() { postfix_ok && policy_ok && dovecot_ok && courier_ok; }
# The alias table is in place and named in the running instance's main.cf (a stack started by an
# older start.sh lacks it; it is added below and picked up by `postfix reload`).
aliases_ok() {
    [[ -f "$ALIAS_TABLE" ]] &&
        [[ "$(postconf -c "$POSTFIX_DIR" -h virtual_alias_maps 2>/dev/null || true)" == "regexp:$ALIAS_TABLE" ]]
}

if healthy && aliases_ok; then
    summary
    exit 0
fi

# Everything below needs root: re-run through sudo when we are not.
if [[ $EUID -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        exec sudo --preserve-env=FERNZUG_STACK_DIR,FERNZUG_STACK_COURIER "$0" "$@"
    fi
    log "the stack is not up and starting it needs root (no sudo found)"
    exit 1
fi

# One starter at a time (parallel test processes); whoever waited finds the stack up.
mkdir -p "$STACK_DIR"
exec 9>"$STACK_DIR/.start.lock"
flock -w 120 9 || { log "timed out waiting for another start.sh"; exit 1; }
if healthy && aliases_ok; then
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
    if [[ -f "$COURIER_LOG" ]]; then
        echo "--- last lines of $COURIER_LOG ---" >&2
        tail -n 25 "$COURIER_LOG" >&2 || true
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
# The test CA and certificates (made once; kept across restarts).
make_certs() {
    [[ -f "$TLS_DIR/server.pem" && -f "$TLS_DIR/expired.pem" ]] && return 0
    mkdir -p "$TLS_DIR"
    local d="$TLS_DIR"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=fernzug mail stack test CA" \
        -keyout "$d/ca.key" -out "$d/ca.pem" >/dev/null 2>&1 || fail "openssl: cannot make the test CA"
    cat >"$d/server.ext" <<EXT
basicConstraints = CA:FALSE
keyUsage = digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:$HOST, DNS:mail.$DOMAIN
EXT
    openssl req -newkey rsa:2048 -nodes -subj "/CN=mail.$DOMAIN" \
        -keyout "$d/server.key" -out "$d/server.csr" >/dev/null 2>&1 || fail "openssl: cannot make a key"
    openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
        -days 3650 -extfile "$d/server.ext" -out "$d/server.pem" >/dev/null 2>&1 ||
        fail "openssl: cannot sign the server certificate"
    # An expired certificate of the same CA for the same names (openssl ca sets the dates).
    mkdir -p "$d/ca-db"
    : >"$d/ca-db/index.txt"
    cat >"$d/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
dir = $d/ca-db
database = \$dir/index.txt
new_certs_dir = \$dir
serial = \$dir/serial
certificate = $d/ca.pem
private_key = $d/ca.key
default_md = sha256
policy = any
copy_extensions = none
unique_subject = no
[any]
commonName = supplied
CNF
    echo 1000 >"$d/ca-db/serial"
    openssl req -newkey rsa:2048 -nodes -subj "/CN=mail.$DOMAIN" \
        -keyout "$d/expired.key" -out "$d/expired.csr" >/dev/null 2>&1 || fail "openssl: cannot make a key"
    openssl ca -batch -config "$d/ca.cnf" -startdate 20200101000000Z -enddate 20210101000000Z \
        -extfile "$d/server.ext" -in "$d/expired.csr" -out "$d/expired.pem" -notext >/dev/null 2>&1 ||
        fail "openssl: cannot sign the expired certificate"
    chmod 644 "$d"/*.pem "$d"/*.key
}

# ---------------------------------------------------------------------------------------------
# Postfix: its own instance in $POSTFIX_DIR.
pf() { postconf -c "$POSTFIX_DIR" "$@"; }

# forward-to.LOCAL@ → LOCAL@: a plain virtual alias, rewritten by Postfix's cleanup and delivered
# like any mail (scripts/load measures it as the floor of the relay's forward).
write_alias_table() {
    cat >"$ALIAS_TABLE" <<EOT
# fernzug mail stack: forward-to.LOCAL@$DOMAIN is an alias of LOCAL@$DOMAIN.
/^forward-to\.(.+)@${DOMAIN//./\\.}\$/    \${1}@$DOMAIN
EOT
}

# The listener on $POLICY_SMTP_PORT (see the head of this file): its restrictions ask the test's
# policy service first (default_action=DUNNO: nothing listening, nothing refused).
add_policy_listener() {
    pf -e "fernzug_policy = check_policy_service { inet:$HOST:$POLICY_SERVICE_PORT, default_action=DUNNO }" \
        "fernzug_policy_recipient = \$fernzug_policy, check_recipient_access regexp:$DEAD_TABLE, permit_mynetworks, reject"
    pf -M "$HOST:$POLICY_SMTP_PORT/inet = $HOST:$POLICY_SMTP_PORT inet n - n - - smtpd -o smtpd_recipient_restrictions=\$fernzug_policy_recipient -o smtpd_data_restrictions=\$fernzug_policy"
    pf -F '*/*/chroot = n'
}

start_postfix() {
    mkdir -p "$POSTFIX_DIR" "$STACK_DIR/postfix-queue" "$STACK_DIR/postfix-data"
    [[ -s "$POSTFIX_DIR/main.cf" ]] || : >"$POSTFIX_DIR/main.cf"   # compiled-in defaults, then ours
    [[ -f "$POSTFIX_DIR/master.cf" ]] || cp /usr/share/postfix/master.cf.dist "$POSTFIX_DIR/master.cf"
    # Postfix wants a second instance's config directory named in the first one's main.cf.
    if [[ -f /etc/postfix/main.cf ]]; then
        local alt
        alt="$(postconf -h alternate_config_directories 2>/dev/null || true)"
        if [[ " ${alt//,/ } " != *" $POSTFIX_DIR "* ]]; then
            postconf -e "alternate_config_directories = ${alt:+$alt, }$POSTFIX_DIR"
        fi
    fi

    # TO: "dead..." local parts are unreachable players (Fax 2.2 bounce tests).
    cat >"$DEAD_TABLE" <<'EOT'
# fernzug mail stack: a local part starting with "dead" is an unreachable player.
/^dead[^@]*@/    550 5.1.1 mailbox unavailable (fernzug mail stack: local part starts with "dead")
EOT
    write_alias_table
    # Every address of the domain is a mailbox (Dovecot's userdb is static).
    cat >"$MAILBOX_TABLE" <<EOT
# fernzug mail stack: every address of $DOMAIN exists.
/@${DOMAIN//./\\.}\$/    OK
EOT

    # smtpd_forbid_unauth_pipelining: as by default from Postfix 3.9 on, a client that pipelines
    # where RFC 2920 does not allow it is disconnected (the relay's MAIL, RCPT and DATA in one
    # write are allowed: so it is tested against what a current Postfix enforces).
    pf -e \
        "compatibility_level = 3.6" \
        "queue_directory = $STACK_DIR/postfix-queue" \
        "data_directory = $STACK_DIR/postfix-data" \
        "multi_instance_name = postfix-fernzug" \
        "syslog_name = postfix-fernzug" \
        "myhostname = mail.$DOMAIN" \
        "myorigin = \$myhostname" \
        "mydestination =" \
        "local_recipient_maps =" \
        "local_transport = error:5.1.1 local delivery is disabled in the fernzug mail stack" \
        "alias_maps =" \
        "alias_database =" \
        "inet_interfaces = $HOST" \
        "inet_protocols = ipv4" \
        "mynetworks = 127.0.0.0/8" \
        "smtpd_banner = \$myhostname ESMTP $SMTP_BANNER_TAG" \
        "smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination" \
        "smtpd_recipient_restrictions = check_recipient_access regexp:$DEAD_TABLE, permit_mynetworks, reject" \
        "smtpd_peername_lookup = no" \
        "smtpd_forbid_unauth_pipelining = yes" \
        "smtpd_error_sleep_time = 0" \
        "smtpd_soft_error_limit = 1000" \
        "smtpd_hard_error_limit = 1000" \
        "smtpd_tls_security_level = none" \
        "smtpd_tls_cert_file = $TLS_DIR/server.pem" \
        "smtpd_tls_key_file = $TLS_DIR/server.key" \
        "smtpd_sasl_type = dovecot" \
        "smtpd_sasl_path = inet:$HOST:$AUTH_PORT" \
        "smtpd_sasl_auth_enable = no" \
        "smtp_tls_security_level = none" \
        "lmtp_tls_security_level = none" \
        "smtputf8_enable = no" \
        "in_flow_delay = 0" \
        "virtual_mailbox_domains = $DOMAIN" \
        "virtual_mailbox_maps = regexp:$MAILBOX_TABLE" \
        "virtual_alias_maps = regexp:$ALIAS_TABLE" \
        "virtual_transport = lmtp:inet:$HOST:$LMTP_PORT" \
        "recipient_delimiter = +" \
        "default_transport = error:5.7.1 delivery outside $DOMAIN is disabled in the fernzug mail stack" \
        "relay_transport = error:5.7.1 delivery outside $DOMAIN is disabled in the fernzug mail stack" \
        "queue_run_delay = 2s" \
        "minimal_backoff_time = 2s" \
        "maximal_backoff_time = 10s" \
        "maillog_file = $POSTFIX_LOG"
    # Plain SMTP on 127.0.0.1:2525 instead of port 25; no chroot. SMTPS and submission: AUTH
    # through Dovecot, and only an authenticated client may send (permit_mynetworks is not there).
    local authed="check_recipient_access regexp:$DEAD_TABLE, permit_sasl_authenticated, reject"
    pf -MX smtp/inet 2>/dev/null || true
    pf -MX submission/inet 2>/dev/null || true
    pf -MX submissions/inet 2>/dev/null || true
    pf -M "$HOST:$SMTP_PORT/inet = $HOST:$SMTP_PORT inet n - n - - smtpd"
    pf -M "$HOST:$SMTPS_PORT/inet = $HOST:$SMTPS_PORT inet n - n - - smtpd -o smtpd_tls_wrappermode=yes -o smtpd_tls_security_level=encrypt -o smtpd_sasl_auth_enable=yes -o smtpd_client_restrictions= -o smtpd_relay_restrictions=permit_sasl_authenticated,reject -o {smtpd_recipient_restrictions=$authed}"
    pf -M "$HOST:$SUBMISSION_PORT/inet = $HOST:$SUBMISSION_PORT inet n - n - - smtpd -o smtpd_tls_security_level=encrypt -o smtpd_tls_auth_only=yes -o smtpd_sasl_auth_enable=yes -o smtpd_relay_restrictions=permit_sasl_authenticated,reject -o {smtpd_recipient_restrictions=$authed}"
    add_policy_listener

    postfix -c "$POSTFIX_DIR" set-permissions >/dev/null 2>&1 || true
    postfix -c "$POSTFIX_DIR" check || fail "postfix check failed"
    if postfix -c "$POSTFIX_DIR" status >/dev/null 2>&1; then
        postfix -c "$POSTFIX_DIR" stop >/dev/null 2>&1 || true
        for _ in $(seq 1 50); do postfix -c "$POSTFIX_DIR" status >/dev/null 2>&1 || break; sleep 0.1; done
    fi
    postfix -c "$POSTFIX_DIR" start 9>&- </dev/null >>"$STACK_DIR/start.out" 2>&1 || fail "postfix start failed (see $STACK_DIR/start.out)"
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
ssl = yes
ssl_cert = <$TLS_DIR/server.pem
ssl_key = <$TLS_DIR/server.key
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
    address = $HOST
    port = $IMAPS_PORT
    ssl = yes
  }
}
service lmtp {
  inet_listener lmtp {
    address = $HOST
    port = $LMTP_PORT
  }
}
service auth {
  inet_listener auth-postfix {
    address = $HOST
    port = $AUTH_PORT
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
ssl = yes
ssl_server_cert_file = $TLS_DIR/server.pem
ssl_server_key_file = $TLS_DIR/server.key
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
    listen = $HOST
    port = $IMAPS_PORT
    ssl = yes
  }
}
service lmtp {
  inet_listener lmtp {
    listen = $HOST
    port = $LMTP_PORT
  }
}
service auth {
  inet_listener auth-postfix {
    listen = $HOST
    port = $AUTH_PORT
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
    dovecot -c "$DOVECOT_CONF" 9>&- </dev/null >>"$STACK_DIR/start.out" 2>&1 || fail "dovecot failed to start (see $STACK_DIR/start.out)"
}

# ---------------------------------------------------------------------------------------------
# Courier-IMAP: unpacked from Debian's packages, run in a mount namespace of its own.
courier_unpacked() {
    [[ -x "$COURIER_ROOT/usr/bin/imapd" && -x "$COURIER_ROOT/usr/sbin/couriertcpd" &&
        -x "$COURIER_ROOT/usr/bin/couriertls" && -x "$COURIER_ROOT/usr/lib/courier/courier/imaplogin" ]]
}

unpack_courier() {
    courier_unpacked && return 0
    local debs="$COURIER_DIR/debs"
    rm -rf "$debs" "$COURIER_ROOT.new"
    mkdir -p "$debs" "$COURIER_ROOT.new"
    getent passwd _apt >/dev/null && chown _apt "$debs"
    log "fetching courier-base and courier-imap (apt-get download; unpacked, not installed)"
    if ! (cd "$debs" && apt-get download courier-base courier-imap); then
        apt-get update
        (cd "$debs" && apt-get download courier-base courier-imap) || fail "apt-get download courier-imap failed"
    fi
    local deb
    for deb in "$debs"/*.deb; do
        dpkg-deb -x "$deb" "$COURIER_ROOT.new" || fail "dpkg-deb cannot unpack $deb"
    done
    rm -rf "$COURIER_ROOT" "$debs"
    mv "$COURIER_ROOT.new" "$COURIER_ROOT"
    courier_unpacked || fail "courier-imap unpacked into $COURIER_ROOT lacks imapd, imaplogin, couriertcpd or couriertls"
}

# $COURIER_DIR/etc becomes /etc/courier in the namespace: authdaemond's configuration, the authpipe
# program and its settings, the server's key and certificate in one file (as couriertls wants).
write_courier_conf() {
    local etc="$COURIER_DIR/etc"
    mkdir -p "$etc" "$COURIER_DIR/run/authdaemon"
    install -m 0755 "$HERE/courier-authpipe" "$etc/authProg"
    cat >"$etc/authpipe.env" <<EOF
# generated by tests/mailstack/start.sh, read by authProg
MAIL_ROOT=$STACK_DIR/mail
DOMAIN=$DOMAIN
PASSWORD=$PASSWORD
MAIL_UID=$(id -u mail)
MAIL_GID=$(id -g mail)
EOF
    cat >"$etc/authdaemonrc" <<EOF
# fernzug mail stack — generated by tests/mailstack/start.sh, do not edit.
authmodulelist="authpipe"
daemons=3
authdaemonvar=/run/courier/authdaemon
DEBUG_LOGIN=0
DEFAULTOPTIONS=""
LOGGEROPTS=""
EOF
    (umask 077 && cat "$TLS_DIR/server.key" "$TLS_DIR/server.pem" >"$etc/imapd.pem")
}

# Whether the process whose id is in file $1 still runs program $2 (a stale file after a reboot
# names another process, or none).
runs() {
    local pid
    pid="$(cat "$1" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# Ends the stack's own Courier processes, by the ids they wrote (never by name).
stop_courier() {
    local f
    for f in imapd imapd-ssl; do
        if runs "$COURIER_DIR/run/$f.pid" "$COURIER_ROOT/usr/sbin/couriertcpd"; then
            "$COURIER_ROOT/usr/sbin/couriertcpd" -pid="$COURIER_DIR/run/$f.pid" -stop >/dev/null 2>&1 || true
        fi
        rm -f "$COURIER_DIR/run/$f.pid"
    done
    if runs "$COURIER_DIR/run/authdaemond.pid" authdaemond; then
        kill "$(cat "$COURIER_DIR/run/authdaemond.pid")" 2>/dev/null || true
    fi
    rm -f "$COURIER_DIR/run/authdaemond.pid"
    rm -f "$COURIER_DIR/run/authdaemon/socket"
    for _ in $(seq 1 50); do
        [[ -z "$(greeting "$COURIER_PORT" "a LOGOUT")" ]] && break
        sleep 0.1
    done
}

start_courier() {
    unpack_courier
    write_courier_conf
    stop_courier
    # Mount points for the namespace's bind mounts (empty outside it).
    mkdir -p /etc/courier /run/courier
    # Debian's /etc/courier/imapd without IDLE (IMAP_ENHANCEDIDLE=0 would offer an IDLE that
    # reports new mail only every IMAP_IDLE_TIMEOUT seconds): the stack's IDLE-less server.
    local capability="IMAP4rev1 UIDPLUS CHILDREN NAMESPACE THREAD=ORDEREDSUBJECT THREAD=REFERENCES SORT QUOTA"
    local imapd_env=(
        PATH=/usr/bin:/bin:/usr/sbin:/sbin
        "IMAP_CAPABILITY=$capability"
        "IMAP_CAPABILITY_TLS=$capability AUTH=PLAIN"
        IMAP_STARTTLS=YES IMAP_KEYWORDS=1 IMAP_ACL=1 IMAP_USELOCKS=1 IMAP_ENHANCEDIDLE=0
        IMAP_IDLE_TIMEOUT=60 IMAP_UMASK=022 IMAP_MAILBOX_SANITY_CHECK=1 IMAP_TRASHFOLDERNAME=Trash
        IMAP_EMPTYTRASH= IMAP_MOVE_EXPUNGE_TO_TRASH=0 IMAP_SHAREDINDEXFILE=/etc/courier/shared/index
        "COURIERTLS=$COURIER_ROOT/usr/bin/couriertls" TLS_CERTFILE=/etc/courier/imapd.pem
        TLS_VERIFYPEER=NONE
    )
    local tcpd=(-address="$HOST" -maxprocs=400 -maxperip=400 -maxperc=400 -nodnslookup -noidentlookup
        -stderr="$COURIER_LOG")
    local login=("$COURIER_ROOT/usr/lib/courier/courier/imaplogin" "$COURIER_ROOT/usr/bin/imapd" Maildir)
    # What runs in the namespace: the bind mounts, authdaemond (in the foreground: started in the
    # background here), and couriertcpd for each port (-pid=…: it puts itself into the background).
    {
        echo "# generated by tests/mailstack/start.sh; run by unshare --mount, in Courier's namespace"
        echo "set -euo pipefail"
        declare -p imapd_env tcpd login
        printf 'root=%q dir=%q log=%q port=%q imaps=%q\n' \
            "$COURIER_ROOT" "$COURIER_DIR" "$COURIER_LOG" "$COURIER_PORT" "$COURIER_IMAPS_PORT"
        cat <<'EOF'
mount --bind "$dir/etc" /etc/courier
mount --bind "$dir/run" /run/courier
setsid /usr/lib/courier/courier-authlib/authdaemond </dev/null >>"$log" 2>&1 &
echo $! >/run/courier/authdaemond.pid
env -i "${imapd_env[@]}" "$root/usr/sbin/couriertcpd" "${tcpd[@]}" -pid=/run/courier/imapd.pid \
    "$port" "${login[@]}" </dev/null
env -i "${imapd_env[@]}" IMAP_TLS=1 "$root/usr/sbin/couriertcpd" "${tcpd[@]}" -pid=/run/courier/imapd-ssl.pid \
    "$imaps" "$root/usr/bin/couriertls" -server -tcpd "${login[@]}" </dev/null
EOF
    } >"$COURIER_DIR/launch"
    unshare --mount --propagation private bash "$COURIER_DIR/launch" 9>&- >>"$STACK_DIR/start.out" 2>&1 ||
        fail "courier-imap failed to start (see $STACK_DIR/start.out)"
}

make_certs
# A running stack without the alias table (started by an older start.sh): add it and reload.
if postfix_ok && ! aliases_ok; then
    write_alias_table
    pf -e "virtual_alias_maps = regexp:$ALIAS_TABLE"
    postfix -c "$POSTFIX_DIR" reload >/dev/null 2>&1 || fail "postfix reload failed"
fi
# A running stack without the policy listener (started by an older start.sh): add it and reload.
if postfix_ok && ! policy_ok; then
    add_policy_listener
    postfix -c "$POSTFIX_DIR" reload >/dev/null 2>&1 || fail "postfix reload failed"
fi
# Dovecot first: Postfix's SASL AUTH asks it.
if ! dovecot_ok; then start_dovecot; fi
if ! postfix_ok; then start_postfix; fi
if ! courier_ok; then start_courier; fi

# Wait (bounded, 15 s) until every port answers.
for _ in $(seq 1 150); do
    healthy && break
    sleep 0.1
done
smtp_ok || fail "SMTP on $HOST:$SMTP_PORT does not answer"
imap_ok || fail "IMAP on $HOST:$IMAP_PORT does not answer"
lmtp_ok || fail "LMTP on $HOST:$LMTP_PORT does not answer"
submission_ok || fail "submission on $HOST:$SUBMISSION_PORT does not answer"
policy_ok || fail "SMTP with the policy service on $HOST:$POLICY_SMTP_PORT does not answer"
tls_ok "$SMTPS_PORT" || fail "SMTPS on $HOST:$SMTPS_PORT gives no TLS handshake with the test CA"
tls_ok "$IMAPS_PORT" || fail "IMAPS on $HOST:$IMAPS_PORT gives no TLS handshake with the test CA"
if [[ "$WANT_COURIER" != 0 ]]; then
    courier_login_ok || fail "Courier-IMAP on $HOST:$COURIER_PORT does not answer or refuses $COURIER_PROBE"
    tls_ok "$COURIER_IMAPS_PORT" || fail "Courier IMAPS on $HOST:$COURIER_IMAPS_PORT gives no TLS handshake with the test CA"
fi
summary
