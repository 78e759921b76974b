//! Fax 2.2/2.3: whom an SMTP refusal concerns, as table tests. Each row is a reply a real host
//! sends (its id in /docs/operating.md's reply table: G Gmail, M Microsoft 365/Outlook.com,
//! U GMX/web.de/IONOS, T T-Online, Y Yahoo, P Postfix, D Dovecot, X others), the stage it answered
//! and the verdict. Sources: Google's "SMTP errors and codes" (support.google.com/a/answer/3726730),
//! Microsoft's "Email non-delivery reports and SMTP errors in Exchange Online"
//! (learn.microsoft.com/exchange/mail-flow-best-practices/non-delivery-reports-in-exchange-online),
//! GMX's postmaster pages (postmaster.gmx.net), the Postfix sources (smtpd.c, smtpd_check.c),
//! Dovecot's lmtp and quota-status sources, and the transcripts in public issue threads named in
//! docs/operating.md.

use chrono::{Duration, TimeZone, Utc};

use super::verdict::{
    Cause, FULL_MAILBOX_DAYS, SmtpRefusal, SmtpStage, Verdict, enhanced, full_mailbox, judge,
};
use SmtpStage::*;

/// Checks each row: (id, stage, code, the lines' texts, verdict).
fn table(rows: &[(&str, SmtpStage, u16, &[&str], Verdict)]) {
    for (id, stage, code, lines, want) in rows {
        let r = SmtpRefusal::new(*stage, *code, lines);
        assert_eq!(judge(&r), *want, "{id}: {code} {lines:?} at {stage:?}");
    }
}

#[test]
fn fax_2_2_a_recipient_unknown_at_rcpt_is_unreachable() {
    let u = Verdict::Unreachable;
    table(&[
        (
            "G13",
            Rcpt,
            550,
            &[
                "5.1.1 The email account that you tried to reach does not exist. Please try",
                "5.1.1 double-checking the recipient's email address for typos or",
                "5.1.1 unnecessary spaces. Learn more at",
                "5.1.1 https://support.google.com/mail/?p=NoSuchUser a1-2 - gsmtp",
            ],
            u,
        ),
        (
            "G14",
            Rcpt,
            550,
            &[
                "5.2.1 The email account that you tried to reach is disabled. Learn more at",
                "5.2.1 https://support.google.com/mail/?p=DisabledUser a1-2 - gsmtp",
            ],
            u,
        ),
        (
            "M11",
            Rcpt,
            550,
            &[
                "5.4.1 Recipient address rejected: Access denied. AS(201806281) [x.prod.protection.outlook.com]",
            ],
            u,
        ),
        (
            "M12",
            Rcpt,
            550,
            &[
                "5.5.0 Requested action not taken: mailbox unavailable. [x.eop-EUR01.prod.protection.outlook.com]",
            ],
            u,
        ),
        (
            "M13",
            Rcpt,
            550,
            &["5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"],
            u,
        ),
        (
            "U6",
            Rcpt,
            550,
            &["Requested action not taken: mailbox unavailable"],
            u,
        ),
        ("T5", Rcpt, 550, &["5.1.1 user unknown"], u),
        (
            "P1",
            Rcpt,
            550,
            &[
                "5.1.1 <x@example.org>: Recipient address rejected: User unknown in local recipient table",
            ],
            u,
        ),
        (
            "P2",
            Rcpt,
            550,
            &[
                "5.1.1 <x@example.org>: Recipient address rejected: User unknown in virtual mailbox table",
            ],
            u,
        ),
        (
            "D4",
            Rcpt,
            550,
            &["5.1.1 <x@example.org> User doesn't exist: x@example.org"],
            u,
        ),
        (
            "the relay's own syntax check",
            Rcpt,
            553,
            &["5.1.3 recipient address `a@@b` is not a valid mail address; not sent"],
            u,
        ),
    ]);
}

#[test]
fn fax_2_2_a_sending_quota_never_makes_a_player_unreachable() {
    let q = Verdict::Hold(Cause::Quota);
    table(&[
        (
            "G8",
            Data,
            550,
            &["5.4.5 Daily user sending quota exceeded. a1-2 - gsmtp"],
            q,
        ),
        (
            "G8 older",
            Data,
            550,
            &["5.4.5 Daily sending quota exceeded. a1-2 - gsmtp"],
            q,
        ),
        (
            "G9",
            Data,
            550,
            &[
                "5.4.5 Daily user sending limit exceeded. For more information on Gmail",
                "5.4.5 sending limits go to",
                "5.4.5  https://support.google.com/a/answer/166852 a1-2 - gsmtp",
            ],
            q,
        ),
        (
            "G10",
            Mail,
            550,
            &[
                "5.4.5 Daily SMTP relay limit exceeded for user. For more information on SMTP relay sending limits please contact your administrator",
            ],
            q,
        ),
        (
            "G11",
            Rcpt,
            452,
            &[
                "4.5.3 Your message has too many recipients. For more information regarding Google's sending limits, visit https://support.google.com/mail/answer/6592 a1-2 - gsmtp",
            ],
            q,
        ),
        (
            "G19",
            EndOfData,
            421,
            &[
                "4.7.0 [192.0.2.1 15] Our system has detected an unusual rate of",
                "4.7.0 unsolicited mail originating from your IP address. To protect our",
                "4.7.0 users from spam, mail sent from your IP address has been temporarily",
                "4.7.0 rate limited. Please visit",
                "4.7.0 review our Bulk Email Senders Guidelines. a1-2 - gsmtp",
            ],
            q,
        ),
        (
            "M4",
            EndOfData,
            554,
            &[
                "5.2.0 STOREDRV.Submission.Exception:SubmissionQuotaExceededException; Failed to process message due to a permanent exception with message",
            ],
            q,
        ),
        (
            "M5",
            EndOfData,
            550,
            &[
                "5.1.90 Your message can't be sent because you've reached your daily limit for message recipients",
            ],
            q,
        ),
        (
            "M6",
            EndOfData,
            554,
            &["5.2.2 Submission quota exceeded"],
            q,
        ),
        (
            "M7",
            Mail,
            432,
            &["4.3.2 STOREDRV.ClientSubmit; sender thread limit exceeded"],
            q,
        ),
        (
            "M9",
            EndOfData,
            550,
            &["5.2.251 Sender throttled due to continuous mailbox full errors."],
            q,
        ),
        (
            "M10",
            EndOfData,
            554,
            &[
                "5.2.0 STOREDRV.Submission.Exception:OutboundSpamException; Failed to process message due to a permanent exception with message WASCL UserAction verdict is not None. Actual verdict is RefuseQuota, ShowTierUpgrade.",
            ],
            q,
        ),
        (
            "U9",
            Rcpt,
            450,
            &[
                "Requested mail action not taken: mailbox unavailable",
                "Mail send limit exceeded.",
            ],
            q,
        ),
        ("T3", Data, 550, &["Send quota exceeded"], q),
        (
            "P7",
            Mail,
            450,
            &["4.7.1 Error: too much mail from 192.0.2.1"],
            q,
        ),
        (
            "P8",
            Rcpt,
            450,
            &["4.7.1 Error: too many recipients from 192.0.2.1"],
            q,
        ),
        (
            "X1",
            Rcpt,
            451,
            &["4.7.1 Rate limit exceeded. Contact the postmaster of this domain for resolution."],
            q,
        ),
        ("X2", Mail, 452, &["4.5.3 Daily message limit exceeded"], q),
        (
            "X3",
            Rcpt,
            550,
            &["5.4.5 <x@example.com>: Recipient address rejected: Domain Sending Quota Exceeded"],
            q,
        ),
        (
            "X4",
            Rcpt,
            554,
            &["5.7.1 <x@example.com>: Recipient address rejected: Quota exceeded"],
            q,
        ),
        (
            "Postfix's own wrapping of a policy service's quota answer at DATA",
            Data,
            550,
            &["5.4.5 <DATA>: Data command rejected: Daily user sending quota exceeded."],
            q,
        ),
    ]);
}

#[test]
fn fax_2_2_the_senders_own_refusals_hold_every_mail() {
    let (sender, policy) = (Verdict::Hold(Cause::Sender), Verdict::Hold(Cause::Policy));
    table(&[
        (
            "U3",
            Mail,
            550,
            &[
                "Requested action not taken: mailbox unavailable",
                "Sender address is not allowed.",
            ],
            sender,
        ),
        (
            "P14",
            Mail,
            553,
            &[
                "5.7.1 <from@example.org>: Sender address rejected: not owned by user relay@example.org",
            ],
            sender,
        ),
        (
            "G12",
            Mail,
            550,
            &[
                "5.7.0 Mail Sending denied. This error occurs if the sender account is disabled or not registered within your Google Workspace domain.",
            ],
            sender,
        ),
        (
            "G20",
            EndOfData,
            550,
            &[
                "5.7.26 This mail has been blocked because the sender is unauthenticated.",
                "5.7.26 Gmail requires all senders to authenticate with either SPF or DKIM.",
                "5.7.26 https://support.google.com/mail/answer/81126#authentication a1-2 - gsmtp",
            ],
            sender,
        ),
        (
            "Y5",
            EndOfData,
            550,
            &[
                "5.7.9 This mail has been blocked because the sender is unauthenticated. Yahoo requires all senders to authenticate with either SPF or DKIM.",
            ],
            sender,
        ),
        (
            "M8",
            EndOfData,
            550,
            &["5.7.60 SMTP; Client does not have permissions to send as this sender"],
            sender,
        ),
        (
            "the relay's own syntax check of its sender",
            Mail,
            553,
            &["5.1.7 sender address `relay@` is not a valid mail address; not sent"],
            sender,
        ),
        (
            "M15",
            Mail,
            550,
            &[
                "5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).",
            ],
            policy,
        ),
        (
            "U7",
            Rcpt,
            550,
            &[
                "Requested action not taken: mailbox unavailable",
                "Reject due to policy restrictions.",
                "For explanation visit http://postmaster.gmx.com/en/error-messages?ip=192.0.2.1&c=poli",
            ],
            policy,
        ),
        (
            "U5",
            EndOfData,
            554,
            &[
                "Transaction failed",
                "Reject due to policy restrictions.",
                "For explanation visit https://postmaster.gmx.net/de/case?c=r0735",
            ],
            policy,
        ),
        (
            "P15",
            Rcpt,
            554,
            &["5.7.1 <x@other.example>: Relay access denied"],
            policy,
        ),
        (
            "T2",
            EndOfData,
            550,
            &[
                "5.7.0 Message considered as spam or virus, rejected",
                "5.7.0 Your IP: 192.0.2.1",
                "5.7.0 Your message has been rejected due to spam or virus classification.",
            ],
            policy,
        ),
    ]);
}

#[test]
fn fax_2_3_a_full_mailbox_is_retried_three_days_first() {
    let full = Verdict::MailboxFull;
    table(&[
        (
            "G15",
            Rcpt,
            452,
            &[
                "4.2.2 The email account that you tried to reach is over quota. Please direct",
                "4.2.2 the recipient to",
                "4.2.2 https://support.google.com/mail/?p=OverQuotaTemp a1-2 - gsmtp",
            ],
            full,
        ),
        (
            "G15 newer",
            Rcpt,
            452,
            &[
                "4.2.2 The recipient's inbox is out of storage space. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaTemp",
            ],
            full,
        ),
        (
            "G16",
            Rcpt,
            552,
            &[
                "5.2.2 The recipient's inbox is out of storage space and inactive. Please direct",
                "5.2.2 the recipient to https://support.google.com/mail/?p=OverQuotaPerm a1-2 - gsmtp",
            ],
            full,
        ),
        (
            "D1",
            EndOfData,
            552,
            &["5.2.2 <user@example.org> Quota exceeded (mailbox for user is full)"],
            full,
        ),
        (
            "D3, with 554",
            Rcpt,
            554,
            &[
                "5.2.2 <user@example.org>: Recipient address rejected: Quota exceeded (mailbox for user is full)",
            ],
            full,
        ),
        (
            "U8",
            Rcpt,
            552,
            &[
                "Requested mail action aborted: exceeded storage allocation",
                "Quota exceeded.",
                "For explanation visit http://postmaster.1and1.com/en/error-messages?ip=192.0.2.1&c=quot",
            ],
            full,
        ),
        ("T4", Rcpt, 552, &["5.2.2 Over STORAGE quota"], full),
        (
            "M17",
            EndOfData,
            554,
            &[
                "5.2.2 mailbox full; STOREDRV.Deliver.Exception:QuotaExceededException.MapiExceptionShutoffQuotaExceeded; Failed to process message",
            ],
            full,
        ),
    ]);
}

#[test]
fn fax_2_3_deferrals_of_one_recipient_are_retried() {
    let retry = Verdict::Retry;
    table(&[
        (
            "P4",
            Rcpt,
            450,
            &[
                "4.1.1 <x@example.org>: Recipient address rejected: unverified address: host x[192.0.2.2] said: 450 try again",
            ],
            retry,
        ),
        (
            "P5",
            Rcpt,
            450,
            &[
                "4.2.0 <x@example.org>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.org.html",
            ],
            retry,
        ),
        (
            "P6",
            Rcpt,
            450,
            &[
                "4.7.1 <x@example.org>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.org.html",
            ],
            retry,
        ),
        (
            "G17",
            Rcpt,
            450,
            &[
                "4.2.1 The user you are trying to contact is receiving mail too quickly.",
                "4.2.1 Please resend your message at a later time. If the user is able to",
                "4.2.1 https://support.google.com/mail/?p=ReceivingRate a1-2 - gsmtp",
            ],
            retry,
        ),
        (
            "G18: class 5 and X.2.1, but his inflow rate — not a disabled account",
            Rcpt,
            550,
            &[
                "5.2.1 The user you are trying to contact is receiving mail at a rate that",
                "5.2.1 prevents additional messages from being delivered. Please resend your",
                "5.2.1 https://support.google.com/mail/?p=ReceivingRatePerm a1-2 - gsmtp",
            ],
            retry,
        ),
        (
            "M16",
            Rcpt,
            451,
            &["4.7.500 Server busy. Please try again later from [192.0.2.1]. (AS761)"],
            retry,
        ),
        (
            "M19",
            Rcpt,
            432,
            &["4.3.2 STOREDRV.Deliver; recipient thread limit exceeded"],
            retry,
        ),
        (
            "D6",
            Rcpt,
            451,
            &["4.3.0 <x@example.org> Too many concurrent deliveries for user"],
            retry,
        ),
        (
            "X5",
            Rcpt,
            451,
            &[
                "192.0.2.1 is not yet authorized to deliver mail from",
                "<from@example.net> to <to@example.org>. Please try later.",
            ],
            retry,
        ),
        (
            "Y2: the recipient named after the data",
            EndOfData,
            554,
            &[
                "delivery error: dd This user doesn't have a yahoo.com account (x@yahoo.com) [-9] - mta4083.mail.ne1.yahoo.com",
            ],
            retry,
        ),
        (
            "Y3",
            EndOfData,
            554,
            &[
                "delivery error: dd Sorry your message to x@yahoo.com cannot be delivered. This account has been disabled or discontinued [#102].",
            ],
            retry,
        ),
        (
            "P17",
            Mail,
            552,
            &["5.3.4 Message size exceeds fixed limit"],
            retry,
        ),
    ]);
}

#[test]
fn the_connection_the_greeting_and_the_login_concern_the_relay() {
    let (server, login, policy) = (
        Verdict::Hold(Cause::Server),
        Verdict::Hold(Cause::Login),
        Verdict::Hold(Cause::Policy),
    );
    table(&[
        (
            "G1",
            Ehlo,
            421,
            &[
                "4.7.0 Try again later, closing connection. (EHLO)",
                "4.7.0 For more information, go to",
                "4.7.0 About SMTP error messages - Google Workspace Admin Help a1-2 - gsmtp",
            ],
            server,
        ),
        (
            "G4",
            Auth,
            535,
            &[
                "5.7.8 Username and Password not accepted. Learn more at",
                "5.7.8 https://support.google.com/mail/?p=BadCredentials a1-2 - gsmtp",
            ],
            login,
        ),
        (
            "G5",
            Auth,
            534,
            &[
                "5.7.9 Application-specific password required. Learn more at",
                "5.7.9 https://support.google.com/mail/?p=InvalidSecondFactor a1-2 - gsmtp",
            ],
            login,
        ),
        (
            "G7",
            Auth,
            454,
            &["4.7.0 Too many login attempts, please try again later. a1-2 - gsmtp"],
            server,
        ),
        (
            "M1",
            Auth,
            535,
            &[
                "5.7.139 Authentication unsuccessful, SmtpClientAuthentication is disabled for the Tenant.",
            ],
            login,
        ),
        (
            "P9",
            Connect,
            421,
            &["4.7.0 mail.example.org Error: too many connections from 192.0.2.1"],
            server,
        ),
        (
            "P12",
            Auth,
            535,
            &["5.7.8 Error: authentication failed: authentication failure"],
            login,
        ),
        (
            "P13",
            Auth,
            454,
            &["4.7.0 Temporary authentication failure: connection refused"],
            server,
        ),
        (
            "U1",
            Connect,
            554,
            &[
                "gmx.net (mxgmx104) Nemesis ESMTP Service not available",
                "No SMTP service",
                "IP address is block listed.",
            ],
            policy,
        ),
        (
            "T1",
            Connect,
            554,
            &[
                "IP=192.0.2.1 - A problem occurred. (Ask your postmaster for help or to contact tosa@rx.t-online.de to clarify.) (BL)",
            ],
            policy,
        ),
        (
            "a server that cannot be reached",
            Connect,
            421,
            &["SMTP mail.example.org:587: Connection refused (os error 111)"],
            server,
        ),
        (
            "G22 at MAIL",
            Mail,
            451,
            &["4.3.0 Mail server temporarily rejected message. a1-2 - gsmtp"],
            server,
        ),
        (
            "Y1",
            Mail,
            421,
            &[
                "4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1",
            ],
            server,
        ),
        (
            "Y6",
            Data,
            421,
            &["Max message per connection reached, closing transmission channel"],
            server,
        ),
    ]);
}

#[test]
fn gmx_the_last_line_decides() {
    let first = "Requested action not taken: mailbox unavailable";
    table(&[
        ("U6", Rcpt, 550, &[first], Verdict::Unreachable),
        (
            "U4",
            Rcpt,
            550,
            &[first, "Failure sending mail. Try again later"],
            Verdict::Hold(Cause::Server),
        ),
        (
            "U7",
            Rcpt,
            550,
            &[first, "Reject due to policy restrictions."],
            Verdict::Hold(Cause::Policy),
        ),
    ]);
}

#[test]
fn an_enhanced_code_is_read_from_the_last_line_that_has_one() {
    let r = SmtpRefusal::new(Rcpt, 550, &["5.1.1 one", "5.2.1 two", "no code"]);
    assert_eq!(enhanced(&r), Some((5, 2, 1)));
    let none = SmtpRefusal::new(Rcpt, 550, &["Requested action not taken: 5.1.1x"]);
    assert_eq!(enhanced(&none), None);
    let odd = SmtpRefusal::new(Rcpt, 550, &["9.1.1 not a class", "1.2 short"]);
    assert_eq!(enhanced(&odd), None);
}

#[test]
fn fax_2_3_a_full_mailbox_turns_unreachable_after_exactly_three_days() {
    let first = Utc.with_ymd_and_hms(2026, 12, 7, 9, 0, 0).unwrap();
    let days = Duration::days(FULL_MAILBOX_DAYS);
    assert_eq!(
        full_mailbox(first, first + days - Duration::minutes(1)),
        Verdict::MailboxFull
    );
    assert_eq!(full_mailbox(first, first + days), Verdict::Unreachable);
}

#[test]
fn only_a_refusal_at_rcpt_ever_makes_a_player_unreachable() {
    // Every reply of the tables above at every other stage.
    let texts: &[&[&str]] = &[
        &["5.1.1 user unknown"],
        &["Requested action not taken: mailbox unavailable"],
        &["5.2.1 The email account that you tried to reach is disabled."],
        &["5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found"],
        &["5.5.0 Requested action not taken: mailbox unavailable."],
    ];
    for stage in [Connect, Ehlo, StartTls, Auth, Mail, Data, EndOfData] {
        for lines in texts {
            for code in [550, 553, 554] {
                let r = SmtpRefusal::new(stage, code, lines);
                assert_ne!(judge(&r), Verdict::Unreachable, "{stage:?} {lines:?}");
            }
        }
    }
}

#[test]
fn a_reply_the_rules_do_not_know_never_blames_the_recipient() {
    for stage in [Connect, Ehlo, StartTls, Auth, Mail, Rcpt, Data, EndOfData] {
        for code in [421, 450, 451, 452, 500, 550, 551, 552, 553, 554] {
            let r = SmtpRefusal::new(stage, code, &["something went wrong"]);
            assert_ne!(judge(&r), Verdict::Unreachable, "{stage:?} {code}");
        }
    }
}

mod sending_limits {
    use chrono::{DateTime, Duration, TimeZone, Utc};

    use crate::core::unreachable::limits::{Budget, Limits, SendWindow, budget, urgent};

    fn t(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 7, h, m, 0).unwrap()
    }

    #[test]
    fn limits_zero_means_no_limit() {
        let mut sent = SendWindow::default();
        sent.record(t(9, 0), 1_000_000, 0);
        assert_eq!(budget(&sent, Limits::default(), t(9, 0)), Budget::default());
    }

    #[test]
    fn limits_count_recipients_in_a_rolling_day_not_a_calendar_day() {
        let day = Limits {
            per_hour: 0,
            per_day: 500,
        };
        let mut sent = SendWindow::default();
        sent.record(t(23, 0), 300, 0);
        // After midnight the 300 of 23:00 still count: a rolling day, as Gmail's.
        let next_day = t(23, 0) + Duration::hours(2);
        sent.record(next_day, 200, 0);
        let b = budget(&sent, day, next_day);
        assert_eq!((b.left, b.bulk), (Some(0), Some(0)));
        // They leave the window when 24 hours (and their minute) have passed.
        assert_eq!(b.next_free, Some(t(23, 1) + Duration::days(1)));
        let later = t(23, 1) + Duration::days(1);
        assert_eq!(budget(&sent, day, later).left, Some(300));
    }

    #[test]
    fn limits_a_minute_leaves_the_hour_only_after_its_end() {
        let hour = Limits {
            per_hour: 10,
            per_day: 0,
        };
        let mut sent = SendWindow::default();
        sent.record(t(9, 0) + Duration::seconds(59), 10, 0);
        assert_eq!(
            budget(&sent, hour, t(10, 0)).left,
            Some(0),
            "never under-counted"
        );
        assert_eq!(budget(&sent, hour, t(10, 1)).left, Some(10));
        assert_eq!(budget(&sent, hour, t(9, 30)).next_free, Some(t(10, 1)));
    }

    #[test]
    fn limits_keep_a_fifth_for_moves_receipts_and_queries() {
        let hour = Limits {
            per_hour: 100,
            per_day: 0,
        };
        let mut sent = SendWindow::default();
        sent.record(t(9, 0), 80, 0);
        let b = budget(&sent, hour, t(9, 5));
        assert_eq!((b.left, b.bulk), (Some(20), Some(0)));
        // The start mails wait until the 80 leave the hour; a move may go now.
        assert_eq!(b.next_free, Some(t(10, 1)));
        assert!(urgent("move") && urgent("receipt") && urgent("query") && urgent("alert"));
        assert!(!urgent("start") && !urgent("reminder") && !urgent("report"));
    }

    #[test]
    fn limits_the_stricter_of_hour_and_day_decides() {
        let both = Limits {
            per_hour: 100,
            per_day: 150,
        };
        let mut sent = SendWindow::default();
        sent.record(t(8, 0), 100, 0);
        sent.record(t(9, 30), 30, 0);
        let b = budget(&sent, both, t(9, 30));
        assert_eq!(b.left, Some(20), "the day's 150 less 130");
        assert_eq!(b.bulk, Some(0), "the day keeps 30, the hour 20");
    }
}

#[test]
fn limits_keep_what_the_moves_are_expected_to_need_for_them() {
    use crate::core::unreachable::limits::{Limits, SendWindow, budget};
    let t = |h, m| Utc.with_ymd_and_hms(2026, 12, 7, h, m, 0).unwrap();
    let day = Limits {
        per_hour: 0,
        per_day: 500,
    };
    let mut sent = SendWindow::default();
    // Twelve moves and receipts in the last hour: 360 kept for them in a day (12 × 24 × 5/4).
    sent.record(t(9, 0), 112, 12);
    let b = budget(&sent, day, t(9, 30));
    assert_eq!(b.left, Some(388));
    assert_eq!(b.bulk, Some(40), "140 for the rest, 100 of them used");
    // Once the moves are an hour old, only a fifth is kept again.
    assert_eq!(budget(&sent, day, t(10, 2)).bulk, Some(300));
}
