use super::super::{Reading, Request, Why, read_paragraph};
use crate::letter::types::{DateSpan, Missing, RequestKind, StatedDate};

fn one(text: &str) -> Reading {
    let reads = read_paragraph(text);
    assert_eq!(reads.len(), 1, "{text}: {reads:?}");
    reads[0].reading.clone()
}

fn asks(text: &str) -> (RequestKind, Missing) {
    match one(text) {
        Reading::Asks(a) => (a.kind, a.missing),
        other => panic!("{text}: {other:?}"),
    }
}

fn d(day: u32, month: u32, year: Option<i32>) -> StatedDate {
    StatedDate { day, month, year }
}

#[test]
fn s24_leave_in_sentences() {
    let span = Request::Leave(DateSpan {
        from: d(10, 12, Some(2026)),
        to: d(23, 12, Some(2026)),
    });
    for t in [
        "Ich nehme Urlaub vom 10.12.2026 bis 23.12.2026.",
        "Urlaubsmeldung: 10.12.2026 – 23.12.2026",
        "Ich bin vom 10.12.2026 bis zum 23.12.2026 im Urlaub.",
        "I will be on leave from 10 December 2026 to 23 December 2026.",
    ] {
        assert_eq!(one(t), Reading::Acts(span), "{t}");
    }
    assert_eq!(
        one("Hiermit melde ich Urlaub vom 10.12. bis 23.12.2026 an."),
        Reading::Acts(Request::Leave(DateSpan {
            from: d(10, 12, None),
            to: d(23, 12, Some(2026))
        }))
    );
    assert_eq!(
        one("Urlaub 1.-14. Februar 2027"),
        Reading::Acts(Request::Leave(DateSpan {
            from: d(1, 2, Some(2027)),
            to: d(14, 2, Some(2027))
        }))
    );
    assert_eq!(
        one("I'm taking my annual leave from the 1st to the 21st of August 2027."),
        Reading::Acts(Request::Leave(DateSpan {
            from: d(1, 8, Some(2027)),
            to: d(21, 8, Some(2027))
        }))
    );
    assert_eq!(
        asks("Ich bin ab dem 10.12. im Urlaub."),
        (RequestKind::Leave, Missing::LastDay)
    );
    assert_eq!(
        asks("Ich mache Urlaub über Weihnachten."),
        (RequestKind::Leave, Missing::Dates)
    );
    assert_eq!(
        asks("Urlaub 10.12.-23.11."),
        (RequestKind::Leave, Missing::Order)
    );
    assert_eq!(
        one("Im Urlaub war ich in Italien."),
        Reading::Declines {
            kind: RequestKind::Leave,
            why: Why::Reported
        }
    );
    assert!(matches!(
        one("I will leave it to you."),
        Reading::Declines {
            why: Why::OtherSense,
            ..
        }
    ));
}

#[test]
fn s2_draws_in_sentences() {
    for t in [
        "Wollen wir uns auf Remis einigen?",
        "Ich biete Ihnen Remis an.",
        "Remis?",
        "Shall we call it a draw?",
        "Nimmst du ein Remis an?",
        "Ich wuerde Ihnen gerne ein Remis anbieten, sofern Sie damit einverstanden sind.",
    ] {
        assert_eq!(one(t), Reading::Acts(Request::Offer), "{t}");
    }
    for t in [
        "Ihr Remisangebot nehme ich gerne an.",
        "Einverstanden, Remis.",
        "I accept your draw offer.",
        "OK, Remis.",
    ] {
        assert_eq!(one(t), Reading::Acts(Request::Accept), "{t}");
    }
    assert_eq!(
        asks("Remis angenommen?"),
        (RequestKind::Accept, Missing::Certainty)
    );
    for t in [
        "Kein Remis!",
        "Ich biete kein Remis an.",
        "Dein Remisangebot lehne ich ab.",
    ] {
        assert!(
            matches!(
                one(t),
                Reading::Declines {
                    why: Why::Negated,
                    ..
                }
            ),
            "{t}"
        );
    }
    assert!(matches!(
        one("Meine Partie gegen Müller endete remis."),
        Reading::Declines {
            why: Why::Reported,
            ..
        }
    ));
    assert!(matches!(
        one("Let me draw your attention to move 12."),
        Reading::Declines {
            why: Why::OtherSense,
            ..
        }
    ));
}

#[test]
fn s2_resignation_in_sentences() {
    for t in [
        "Ich gebe die Partie verloren.",
        "Hiermit gebe ich auf.",
        "I resign.",
        "Aufgabe.",
        "Ich gebe auf – Glückwunsch zum verdienten Sieg!",
    ] {
        assert_eq!(one(t), Reading::Acts(Request::Resign), "{t}");
    }
    for t in [
        "Ich gebe nicht auf!",
        "Hast du aufgegeben?",
        "I will not resign.",
    ] {
        assert!(matches!(one(t), Reading::Declines { .. }), "{t}");
    }
    assert_eq!(
        asks("Soll ich aufgeben?"),
        (RequestKind::Resign, Missing::Certainty)
    );
    assert!(matches!(
        one("Das ist eine schwere Aufgabe für mich."),
        Reading::Declines {
            why: Why::OtherSense,
            ..
        }
    ));
}

#[test]
fn s13_announcement_in_sentences() {
    for t in [
        "Für meinen nächsten Zug brauche ich länger als zehn Tage.",
        "I'll need more than ten days for my next move.",
        "Ankündigung gem. §13: mehr als 10 Tage",
        "Ich brauche 14 Tage für diesen Zug.",
    ] {
        assert_eq!(one(t), Reading::Acts(Request::Announce), "{t}");
    }
    assert_eq!(
        asks("Für den nächsten Zug brauche ich mehr Zeit."),
        (RequestKind::Announce, Missing::Days)
    );
}
