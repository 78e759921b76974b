//! The trace of a mail that decides whether the relay may believe and answer it: our own
//! `X-Loop` (the relay marks every mail it sends with `X-Loop: <relay address>`, RFC 3834 §5)
//! and the `Authentication-Results` headers (RFC 8601) that the receiving server added.
//!
//! Only reading happens here; whom to believe is decided with the operator's
//! `[security]` settings by [`dmarc_verdict`] (the interpretation is in `docs/security.md`).

use mail_parser::Message;
use serde::{Deserialize, Serialize};

/// What the trace headers of one mail say.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Trace {
    /// Every `X-Loop` value, trimmed, lower-cased (an address, `<>` removed).
    #[serde(default)]
    pub x_loop: Vec<String>,
    /// Every `Authentication-Results` header, top (newest) first.
    #[serde(default)]
    pub auth_results: Vec<AuthResults>,
    /// Set by the shell, not the reader: the mail's size in bytes when it was larger than
    /// `[limits] max_mail_bytes` and only its header was fetched.
    #[serde(default)]
    pub oversized: Option<u64>,
    /// Set by the shell, not the reader: the letter stands for a call of a client that shows a
    /// refusal itself, at once (XFCC's `MakeAMove`, docs/xfcc.md): a refusal it can show changes
    /// nothing and sends no query (`crate::core::door::reply::query`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub direct: bool,
    /// Set by the shell, not the reader: the sender logged in to the relay itself (an XFCC
    /// call, its user and password checked): the relay vouches for the From address as the
    /// operator's server does with `dmarc=pass` ([`dmarc_verdict`]). No header of a mail sets
    /// it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub relay_login: bool,
}

impl Trace {
    /// Nothing found (and nothing set).
    pub fn is_empty(&self) -> bool {
        self.x_loop.is_empty()
            && self.auth_results.is_empty()
            && self.oversized.is_none()
            && !self.direct
            && !self.relay_login
    }

    /// Whether the mail carries the `X-Loop` of `relay` (lower-cased address): it is our own.
    pub fn loops_through(&self, relay: &str) -> bool {
        self.x_loop.iter().any(|v| v.eq_ignore_ascii_case(relay))
    }
}

/// One `Authentication-Results` header.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AuthResults {
    /// The authserv-id: who made the checks (lower-cased).
    pub authserv_id: String,
    /// Each `method=result` with its properties (`header.from=example.org`), all lower-cased.
    pub results: Vec<AuthResult>,
}

/// One `method=result` of an `Authentication-Results` header.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AuthResult {
    pub method: String,
    pub result: String,
    pub props: Vec<(String, String)>,
}

/// What the trusted server said about DMARC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DmarcVerdict {
    /// `dmarc=pass` for the From domain, from the trusted server.
    Pass,
    /// The trusted server's header says something else (the result, e.g. `fail`, `none`).
    NotPass(String),
    /// No `Authentication-Results` of the trusted server at all.
    Missing,
}

/// Reads the trace headers of `message`.
pub fn read_trace(message: &Message<'_>) -> Trace {
    let mut trace = Trace::default();
    for (name, value) in message.headers_raw() {
        if name.eq_ignore_ascii_case("X-Loop") {
            let v = unfold(value);
            let v = v
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .trim();
            if !v.is_empty() {
                trace.x_loop.push(v.to_ascii_lowercase());
            }
        } else if name.eq_ignore_ascii_case("Authentication-Results")
            && let Some(ar) = parse_auth_results(&unfold(value))
        {
            trace.auth_results.push(ar);
        }
    }
    trace
}

fn unfold(v: &str) -> String {
    v.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Removes RFC 5322 comments `( … )`, nested and with `\` escapes.
fn strip_comments(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut depth = 0usize;
    let mut escaped = false;
    let mut quoted = false;
    for c in v.chars() {
        if escaped {
            escaped = false;
            if depth == 0 {
                out.push(c);
            }
            continue;
        }
        match c {
            '\\' => {
                escaped = true;
                if depth == 0 {
                    out.push(c);
                }
            }
            '"' if depth == 0 => {
                quoted = !quoted;
                out.push(c);
            }
            '(' if !quoted => depth += 1,
            ')' if !quoted && depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Parses one `Authentication-Results` value (RFC 8601 §2.2); `None` when it has no authserv-id.
pub fn parse_auth_results(value: &str) -> Option<AuthResults> {
    let clean = strip_comments(value);
    let mut parts = clean.split(';');
    let authserv_id = parts
        .next()?
        .split_whitespace()
        .next()?
        .trim()
        .to_ascii_lowercase();
    if authserv_id.is_empty() {
        return None;
    }
    let mut results = Vec::new();
    for part in parts {
        let mut words = part.split_whitespace();
        let Some(first) = words.next() else { continue };
        let Some((method, result)) = first.split_once('=') else {
            continue; // `none` or garbage
        };
        let method = method.split('/').next().unwrap_or("").to_ascii_lowercase();
        let mut props = Vec::new();
        for w in words {
            if let Some((k, v)) = w.split_once('=')
                && k.contains('.')
            {
                props.push((
                    k.to_ascii_lowercase(),
                    v.trim_matches('"').to_ascii_lowercase(),
                ));
            }
        }
        results.push(AuthResult {
            method,
            result: result.to_ascii_lowercase(),
            props,
        });
    }
    Some(AuthResults {
        authserv_id,
        results,
    })
}

/// DMARC as the operator's own server saw it, for a mail whose `From` is `from`.
///
/// Only the topmost `Authentication-Results` header with the trusted `authserv_id` is believed
/// (RFC 8601 §5: the receiving server adds its header on top and should remove any that carry its
/// id from outside; a sender's forged header always sits below the server's own). A `header.from`
/// property that names another domain than the From address makes it not a pass.
pub fn dmarc_verdict(trace: &Trace, authserv_id: &str, from: &str) -> DmarcVerdict {
    if trace.relay_login {
        return DmarcVerdict::Pass;
    }
    let Some(ar) = trace
        .auth_results
        .iter()
        .find(|a| a.authserv_id.eq_ignore_ascii_case(authserv_id.trim()))
    else {
        return DmarcVerdict::Missing;
    };
    let domain = from.rsplit_once('@').map_or("", |(_, d)| d);
    let Some(dmarc) = ar.results.iter().find(|r| r.method == "dmarc") else {
        return DmarcVerdict::NotPass("no dmarc result".into());
    };
    if dmarc.result != "pass" {
        return DmarcVerdict::NotPass(format!("dmarc={}", dmarc.result));
    }
    if let Some((_, d)) = dmarc.props.iter().find(|(k, _)| k == "header.from")
        && !d.eq_ignore_ascii_case(domain)
    {
        return DmarcVerdict::NotPass(format!("dmarc=pass for {d}, not for {domain}"));
    }
    DmarcVerdict::Pass
}

/// Whether the operator's own server (`authserv_id`, its topmost `Authentication-Results`)
/// vouches for the From address `from`: `dmarc=pass` for its domain ([`dmarc_verdict`]), or
/// `spf=pass` for an envelope sender (`smtp.mailfrom`) of the same domain or one of its
/// subdomains (or the other way round). Only such an address gets an answer from the relay when
/// no tournament knows it: an answer to a forged address would be backscatter
/// (docs/security.md).
pub fn vouched(trace: &Trace, authserv_id: &str, from: &str) -> bool {
    if dmarc_verdict(trace, authserv_id, from) == DmarcVerdict::Pass {
        return true;
    }
    let Some(ar) = trace
        .auth_results
        .iter()
        .find(|a| a.authserv_id.eq_ignore_ascii_case(authserv_id.trim()))
    else {
        return false;
    };
    let domain = from.rsplit_once('@').map_or("", |(_, d)| d).to_lowercase();
    let aligned = |d: &str| {
        !domain.is_empty()
            && (d == domain
                || d.ends_with(&format!(".{domain}"))
                || domain.ends_with(&format!(".{d}")))
    };
    ar.results
        .iter()
        .filter(|r| r.method == "spf" && r.result == "pass")
        .filter_map(|r| r.props.iter().find(|(k, _)| k == "smtp.mailfrom"))
        .map(|(_, v)| v.rsplit_once('@').map_or(v.as_str(), |(_, d)| d))
        .any(aligned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::MessageParser;

    #[test]
    fn vouched_by_dmarc_or_aligned_spf_of_the_own_server_only() {
        let t = |h: &str| Trace {
            auth_results: h.lines().filter_map(parse_auth_results).collect(),
            ..Trace::default()
        };
        let own = "mx.fernschach.test";
        let from = "carl@example.org";
        for (headers, expect) in [
            (
                "mx.fernschach.test; dmarc=pass header.from=example.org",
                true,
            ),
            (
                "mx.fernschach.test; spf=pass smtp.mailfrom=carl@example.org",
                true,
            ),
            (
                "mx.fernschach.test; spf=pass smtp.mailfrom=bounces.example.org",
                true,
            ),
            (
                "mx.fernschach.test; spf=pass smtp.mailfrom=spam.example",
                false,
            ),
            (
                "mx.fernschach.test; spf=softfail smtp.mailfrom=example.org",
                false,
            ),
            ("mx.fernschach.test; spf=pass", false),
            (
                "mx.fernschach.test; dmarc=fail header.from=example.org",
                false,
            ),
            // Someone else's server, or a forged header below the own server's.
            (
                "mx.elsewhere.test; dmarc=pass header.from=example.org",
                false,
            ),
            (
                "mx.fernschach.test; spf=fail smtp.mailfrom=example.org\n\
                 mx.fernschach.test; spf=pass smtp.mailfrom=example.org",
                false,
            ),
        ] {
            assert_eq!(vouched(&t(headers), own, from), expect, "{headers}");
        }
        assert!(!vouched(&Trace::default(), own, from));
    }

    fn trace(raw: &str) -> Trace {
        let m = MessageParser::default().parse(raw.as_bytes()).unwrap();
        read_trace(&m)
    }

    #[test]
    fn x_loop_values_are_read() {
        let t =
            trace("X-Loop: <Relay@Fernschach.test>\r\nX-Loop: other@x\r\nFrom: a@b\r\n\r\nx\r\n");
        assert_eq!(t.x_loop, vec!["relay@fernschach.test", "other@x"]);
        assert!(t.loops_through("relay@fernschach.test"));
        assert!(!t.loops_through("relay2@fernschach.test"));
    }

    #[test]
    fn auth_results_are_parsed_with_comments_and_properties() {
        let ar = parse_auth_results(
            "mx.fernschach.test (Postfix); dkim=pass (2048-bit key) header.d=example.org header.i=@example.org; spf=pass smtp.mailfrom=example.org; dmarc=pass (p=reject dis=none) header.from=Example.org",
        )
        .unwrap();
        assert_eq!(ar.authserv_id, "mx.fernschach.test");
        let methods: Vec<_> = ar
            .results
            .iter()
            .map(|r| (r.method.as_str(), r.result.as_str()))
            .collect();
        assert_eq!(
            methods,
            vec![("dkim", "pass"), ("spf", "pass"), ("dmarc", "pass")]
        );
        assert_eq!(
            ar.results[2].props,
            vec![("header.from".to_string(), "example.org".to_string())]
        );
        let none = parse_auth_results("mx.example 1; none").unwrap();
        assert!(none.results.is_empty());
        assert!(parse_auth_results("  ; dmarc=pass").is_none());
    }

    #[test]
    fn only_the_topmost_header_of_the_trusted_server_counts() {
        let hdr = |v: &str| format!("Authentication-Results: {v}\r\n");
        let raw = |hs: &[String]| format!("{}From: anna@example.org\r\n\r\nx\r\n", hs.concat());
        let v = |hs: &[String]| dmarc_verdict(&trace(&raw(hs)), "mx.trusted", "anna@example.org");
        assert_eq!(
            v(&[hdr("mx.trusted; dmarc=pass header.from=example.org")]),
            DmarcVerdict::Pass
        );
        // A forged pass below the server's own fail is not believed.
        assert_eq!(
            v(&[
                hdr("mx.trusted; dmarc=fail header.from=example.org"),
                hdr("mx.trusted; dmarc=pass header.from=example.org"),
            ]),
            DmarcVerdict::NotPass("dmarc=fail".into())
        );
        // Another server's pass is not ours.
        assert_eq!(v(&[hdr("evil.example; dmarc=pass")]), DmarcVerdict::Missing);
        assert_eq!(v(&[]), DmarcVerdict::Missing);
        assert_eq!(
            v(&[hdr("mx.trusted; dmarc=pass header.from=other.org")]),
            DmarcVerdict::NotPass("dmarc=pass for other.org, not for example.org".into())
        );
        assert_eq!(
            v(&[hdr("mx.trusted; spf=pass")]),
            DmarcVerdict::NotPass("no dmarc result".into())
        );
    }
}
